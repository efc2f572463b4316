#!/usr/bin/env bash
# What a function costs in a `--where` (docs/BENCHMARKS.md, "Functions in conditions"):
# `train --where COND` on TPC-H lineitem against the same condition without the function and
# DuckDB's count of the same rows; see scripts/bench-where.py.
#   scripts/bench-where.sh [SCALE] [RUNS]     (defaults 1 and 5)
# Uses the TPC-H data of scripts/bench.sh (.cache/tpch/sfSCALE, generated here if missing)
# and the release binary (built unless BLOOMJOIN is set).
set -euo pipefail
cd "$(dirname "$0")/.."
SCALE=${1:-1}
RUNS=${2:-5}
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
exec "$PY" scripts/bench-where.py --bin "$B" --tpch "$T" --runs "$RUNS"
