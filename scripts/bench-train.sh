#!/usr/bin/env bash
# Train benchmark: bloomjoin train over TPC-H lineitem.l_orderkey and part.p_partkey (filtered
# by p_name LIKE '%green%') next to a plain arrow-rs scan of the same column (`bloomjoin scan`,
# same reader), DuckDB's sum(col), and train with 1 worker, alternating, medians of N runs.
# Usage: scripts/bench-train.sh [SCALE=17] [RUNS=3]   (scale 17: 102 M lineitem rows)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bench-env.sh
SCALE=${1:-17}
RUNS=${2:-3}
tpch "$SCALE"
release_binary
"$PY" scripts/bench.py --bin "$BIN" --data "$TPCH_DIR" --work .cache/bench-work --suite train \
    --runs "$RUNS" --json ".cache/bench-train-sf$SCALE.json"
