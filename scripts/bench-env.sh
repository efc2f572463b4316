# Sourced by the bench scripts: a Python venv with the reference engines and TPC-H data.
# Usage: source scripts/bench-env.sh; tpch SCALE   (sets TPCH_DIR)
set -euo pipefail
VENV=.cache/venv-bench
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q --upgrade pip
    "$VENV/bin/pip" install -q tpchgen-cli duckdb polars pyarrow
fi
PY="$VENV/bin/python"
tpch() {
    TPCH_DIR=".cache/tpch/sf$1"
    if [ ! -f "$TPCH_DIR/.done" ]; then
        rm -rf "$TPCH_DIR"
        "$VENV/bin/tpchgen-cli" parquet -s "$1" -o "$TPCH_DIR"
        touch "$TPCH_DIR/.done"
    fi
}
release_binary() {
    cargo build --release --bins --benches >&2
    BIN=target/release/bloomjoin
}
