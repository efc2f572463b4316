# Sourced by the whole-job benchmark scripts (bench-where.sh, bench-join-where.sh), from the
# repository's root with SCALE set: PY, the Python of .cache/venv-bench (scripts/venv.sh);
# T, TPC-H at that scale in .cache/tpch/sfSCALE, generated once with tpchgen-cli (as
# scripts/bench.sh does); B, the release binary, built unless BLOOMJOIN names one.
PY=$(bash scripts/venv.sh bench)
T=.cache/tpch/sf$SCALE
if [ ! -f "$T/.done" ]; then
    rm -rf "$T"
    "$(dirname "$PY")/tpchgen-cli" parquet -s "$SCALE" -o "$T"
    touch "$T/.done"
fi
B=${BLOOMJOIN:-}
if [ -z "$B" ]; then
    cargo build --release --locked -q
    B=target/release/bloomjoin
fi
