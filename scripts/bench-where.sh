#!/usr/bin/env bash
# What a function costs in a `--where` (docs/BENCHMARKS.md, "Functions in conditions"):
# `train --where COND` on TPC-H lineitem against the same condition without the function and
# DuckDB's count of the same rows; see scripts/bench-where.py.
#   scripts/bench-where.sh [SCALE] [RUNS] [NAME]     (defaults 1 and 5; NAME: only the cases
#                                                   whose name contains it)
# Uses the TPC-H data of scripts/bench.sh (.cache/tpch/sfSCALE, generated here if missing)
# and the release binary (built unless BLOOMJOIN is set).
set -euo pipefail
cd "$(dirname "$0")/.."
SCALE=${1:-1}
RUNS=${2:-5}
source scripts/bench-env.sh
exec "$PY" scripts/bench-where.py --bin "$B" --tpch "$T" --runs "$RUNS" ${3:+--only "$3"}
