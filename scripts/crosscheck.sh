#!/usr/bin/env bash
# Cross-check bloomjoin's join against DuckDB's on the same Parquet: for every job file, and
# for every join type (inner, left, left-semi, left-anti, right, full) with an integer key
# (users.Id = comments.UserId: Int64 against Int32) and a string key (users.DisplayName =
# comments.UserDisplayName) under both strategies (replicated, reduce-side), on data/sample, which has null keys and duplicate keys on both
# sides; and every key type pair (scripts/keytypes_check.py: integers of mixed widths and
# signedness, decimal scales, timestamp units, strings and binary) for every join type.
# DuckDB runs the join described by the job file alone (scripts/bjcheck.py); the row
# multisets must be identical (EXCEPT ALL both ways, and the row counts), and for the job
# files DuckDB's row count and checksum must equal jobs/expected/<job>.json.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=$(bash scripts/bin.sh)
PY=$(bash scripts/venv.sh)
OUT=out/crosscheck
rm -rf "$OUT"

passed=0
failed=0
# check LABEL OUTPUT_DIR JOB [--set K=V]... : run the job into OUTPUT_DIR, then DuckDB.
check() {
    local out=$1 job=$2
    shift 2
    local sets=()
    for s in "$@"; do sets+=(--set "$s"); done
    local extra=()
    [ $# -gt 0 ] || extra=(--expected)
    if ! "$BIN" --quiet run "$job" "${sets[@]}" --set "join.output=$out"; then
        echo "FAILED $job $*: bloomjoin run exited non-zero"
        failed=$((failed + 1))
        return
    fi
    if "$PY" scripts/bjcheck.py duckdb "$job" "${sets[@]}" --output "$out" "${extra[@]}"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
    fi
}

echo "== every job file, as written (DuckDB must also reproduce jobs/expected)"
for job in jobs/*.toml; do
    check "$OUT/$(basename "$job" .toml)" "$job"
done

echo "== every join type, integer and string keys, both strategies"
for type in inner left left-semi left-anti right full; do
    for strategy in replicated reduce-side; do
        check "$OUT/int-$type-$strategy" jobs/users_comments_left.toml "join.type=$type" "join.strategy=$strategy"
        check "$OUT/str-$type-$strategy" jobs/users_comments_by_name.toml "join.type=$type" "join.strategy=$strategy"
    done
done

echo "== one worker and one reducer, many workers and reducers, tiny splits and batches"
check "$OUT/serial" jobs/users_comments.toml join.workers=1 join.reducers=1 train.workers=1
check "$OUT/wide" jobs/users_comments.toml join.workers=3 join.split-rows=1000 join.batch-size=100
check "$OUT/wide-reduce" jobs/users_comments.toml join.strategy=reduce-side join.workers=3 join.reducers=13 join.split-rows=1000 join.batch-size=100
check "$OUT/over-budget" jobs/users_comments_left.toml join.memory-limit=16KiB join.workers=2
check "$OUT/no-prefilter" jobs/users_comments_by_name.toml join.no-prefilter=true join.type=left-anti
check "$OUT/no-prefilter-reduce" jobs/users_comments_by_name.toml join.no-prefilter=true join.type=left-anti join.strategy=reduce-side

echo "== Parquet Bloom filters (SBBF): our outputs read by DuckDB and pyarrow, pyarrow's read by us"
if "$PY" scripts/sbbf_interop.py "$BIN" "$OUT/sbbf"; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
fi

echo "== every key type (widths, signedness, decimal scales, timestamp units and zones, strings and binary)"
if "$PY" scripts/keytypes_check.py "$BIN" "$OUT/key-types"; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
fi

echo
echo "crosscheck: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
