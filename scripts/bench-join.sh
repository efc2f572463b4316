#!/usr/bin/env bash
# Join benchmark on TPC-H: lineitem x part (p_name LIKE '%green%'), lineitem x orders (one
# month), orders x customer (BUILDING); bloomjoin (join alone, and train + join) next to DuckDB
# and Polars writing zstd Parquet, alternating, medians of N runs, peak RSS, row counts checked.
# Usage: scripts/bench-join.sh [SCALE=1] [RUNS=3]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bench-env.sh
SCALE=${1:-1}
RUNS=${2:-3}
tpch "$SCALE"
release_binary
"$PY" scripts/bench.py --bin "$BIN" --data "$TPCH_DIR" --work .cache/bench-work --suite join \
    --runs "$RUNS" --json ".cache/bench-join-sf$SCALE.json"
for f in .cache/bench-work/*-report.json; do
    "$PY" -c "import json,sys; r=json.load(open(sys.argv[1])); print(sys.argv[1].split('/')[-1], 'right rows read', r['right']['rows_read'], 'dropped by filter', r['right']['rows_dropped_by_filter'], 'row groups skipped', r['right']['row_groups_skipped'], 'rows out', r['rows_out'], 'peak RSS MiB', round((r['peak_rss_bytes'] or 0)/2**20))" "$f"
done
