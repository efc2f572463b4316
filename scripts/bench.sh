#!/usr/bin/env bash
# The benchmark suite on TPC-H: train and join, bloomjoin next to a plain arrow-rs scan,
# DuckDB, Polars and Spark (local[2]), engines alternating, medians of N runs, peak RSS, every
# join output checked against DuckDB's (row count and per-column checksums).
#   scripts/bench.sh [--scale 1|5|10] [--runs N] [--suite train|join|all|hive|s3|nulls] [--bin PATH] [--skip-spark]
# The join suite runs each TPC-H join with a narrow projection and with `*`, bloomjoin with
# both strategies, and prints each goal of issue 13 MET or NOT MET (wall time against DuckDB
# and Polars, CPU seconds against Polars, peak RSS against DuckDB). The train suite trains
# lineitem.l_partkey, orders.o_orderkey and part.p_partkey (with a --where) with --fpp alone and
# with --expected-items, and prints each one's ratio to the plain scan of the column, wall and
# CPU (issue 14's goal: at most 1.3x). The hive suite (not part of all) joins part with a
# lineitem in Hive partition directories by ship year, one year selected by its partition
# column, against the same join on the one-file lineitem and DuckDB and Polars on the
# partitions; and writes lineitem x orders into partition directories of l_shipmode
# (--partition-by) against the same join written flat, DuckDB's COPY ... PARTITION_BY and
# Polars' PartitionBy; and right-semi joins a lineitem in one directory a ship day with the
# days of March 1995's urgent orders on the partition column alone (dynamic partition
# pruning: the other days' files are not read) against the same join on the one-file
# lineitem, DuckDB and Polars (its own section of docs/BENCHMARKS.md, no chart). The s3 suite
# (not part of all; scripts/bench_s3.py) runs two joins and a train with their inputs on a local
# S3 server (moto) that answers every request 20 ms late: bloomjoin reading ahead and without
# (BLOOMJOIN_READ_AHEAD=0), bloomjoin on local copies, Polars on the same store, DuckDB on the
# local copies (its own section, no chart). The nulls suite (not part of all) joins copies of
# lineitem and part with some keys nulled, null keys matching each other (--nulls-equal),
# against DuckDB's IS NOT DISTINCT FROM and Polars' nulls_equal (its own section, no chart).
# --skip-spark leaves Spark out (quick runs while developing; the recorded runs include it).
# Sets up .cache/venv-bench and .cache/venv-spark (scripts/venv.sh), generates TPC-H once into
# .cache/tpch/sfN, builds the release binary unless --bin is given. Writes the tables and goal
# checks into docs/BENCHMARKS.md (between <!-- bench:begin sfN --> and <!-- bench:end sfN -->),
# the chart docs/bench.png, and every run to .cache/bench-sfN.json.
set -euo pipefail

usage() {
    echo "usage: scripts/bench.sh [--scale 1|5|10] [--runs N] [--suite train|join|all|hive|s3|nulls] [--bin PATH] [--skip-spark]" >&2
    exit 2
}
SCALE=1 RUNS=3 SUITE=all BIN= EXTRA=()
while [ $# -gt 0 ]; do
    if [ "$1" = --skip-spark ]; then
        EXTRA+=(--skip-spark)
        shift
        continue
    fi
    [ $# -ge 2 ] || usage
    case "$1" in
    --scale) SCALE=$2 ;;
    --runs) RUNS=$2 ;;
    --suite) SUITE=$2 ;;
    --bin) BIN=$(realpath "$2") ;;
    *) usage ;;
    esac
    shift 2
done
cd "$(dirname "$0")/.."

PY=$(bash scripts/venv.sh bench)
MOTO_PY=
if [ "$SUITE" = s3 ]; then
    MOTO_PY=$(bash scripts/venv.sh moto)
    EXTRA+=(--moto-python "$MOTO_PY")
fi
SPARK_PY=$(bash scripts/venv.sh spark)
TPCH_DIR=.cache/tpch/sf$SCALE
if [ ! -f "$TPCH_DIR/.done" ]; then
    rm -rf "$TPCH_DIR"
    "$(dirname "$PY")/tpchgen-cli" parquet -s "$SCALE" -o "$TPCH_DIR"
    touch "$TPCH_DIR/.done"
fi
if [ -z "$BIN" ]; then
    # --benches: the same dependency features as `cargo bench`, so the two share one build.
    cargo build --release --locked --bins --benches >&2
    BIN=${CARGO_TARGET_DIR:-target}/release/bloomjoin
fi

"$PY" scripts/bench.py --bin "$BIN" --spark-python "$SPARK_PY" --data "$TPCH_DIR" --scale "$SCALE" \
    --suite "$SUITE" --runs "$RUNS" --work ".cache/bench-work/sf$SCALE" \
    --json ".cache/bench-$(case $SUITE in hive | s3 | nulls) echo "$SUITE-" ;; esac)sf$SCALE.json" --doc docs/BENCHMARKS.md --chart docs/bench.png "${EXTRA[@]}"
