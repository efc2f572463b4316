#!/usr/bin/env bash
# `join --join-where` against the same join without it and DuckDB's join with the condition
# in its ON (docs/BENCHMARKS.md, "Conditions on pairs"): TPC-H lineitem x part (p_name LIKE
# '%green%'), five columns, 2 workers, zstd Parquet out; /usr/bin/time around each process
# (wall, user, sys seconds, peak RSS KiB) and the rows out, RUNS alternating runs.
#   scripts/bench-join-where.sh [SCALE] [RUNS]     (defaults 1 and 5)
# Uses the TPC-H data of scripts/bench.sh (.cache/tpch/sfSCALE, generated here if missing)
# and the release binary (built unless BLOOMJOIN is set).
set -euo pipefail
cd "$(dirname "$0")/.."
SCALE=${1:-1}
RUNS=${2:-5}
source scripts/bench-env.sh
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
sel="left.p_partkey, left.p_retailprice, right.l_orderkey, right.l_quantity, right.l_extendedprice"
rows() { "$PY" -c "import json, sys; print(json.load(open(sys.argv[1]))['rows_out'])" "$1"; }
run() {
    local name=$1
    shift
    /usr/bin/time -f "%e %U %S %M" -o "$W/t" "$B" join -q --left "$T/part.parquet" --left-key p_partkey \
        --left-where "p_name LIKE '%green%'" --right "$T/lineitem.parquet" --right-key l_partkey \
        --select "$sel" --workers 2 --output "$W/o" --overwrite --report "$W/r.json" "$@"
    echo "$name $(cat "$W/t") rows=$(rows "$W/r.json")"
}
# The same join in DuckDB, the condition COND (l. and r. its aliases) in its ON.
duck() {
    local name=$1 cond=${2//right./r.}
    /usr/bin/time -f "%e %U %S %M" -o "$W/t" "$PY" - "$T" "$W/duck.parquet" "$cond" > "$W/n" <<'PYEOF'
import sys
import duckdb
t, out, cond = sys.argv[1], sys.argv[2], sys.argv[3]
con = duckdb.connect()
con.execute("SET threads=2")
con.execute(f"""COPY (SELECT l.p_partkey, l.p_retailprice, r.l_orderkey, r.l_quantity, r.l_extendedprice
    FROM (SELECT * FROM '{t}/part.parquet' WHERE p_name LIKE '%green%') l
    JOIN '{t}/lineitem.parquet' r
    ON l.p_partkey = r.l_partkey AND {cond})
    TO '{out}' (FORMAT parquet, COMPRESSION zstd)""")
print(con.execute(f"SELECT count(*) FROM '{out}'").fetchone()[0])
PYEOF
    echo "$name $(cat "$W/t") rows=$(cat "$W/n")"
}
# Exact decimal arithmetic on both sides (Decimal(15,2) columns): the lines whose discounted
# price is at most 95 % of the part's list price times the quantity (a discount of 5 % or more).
ARITH="right.l_extendedprice * (1 - right.l_discount) <= left.p_retailprice * 0.95 * right.l_quantity"
echo "name wall user sys peak_rss_kib rows"
for _ in $(seq "$RUNS"); do
    run plain
    run where --join-where "right.l_extendedprice <= left.p_retailprice"
    run where_all --join-where "right.l_extendedprice >= left.p_retailprice"
    duck duckdb "r.l_extendedprice <= l.p_retailprice"
    run where_arith --join-where "$ARITH"
    duck duckdb_arith "${ARITH//left./l.}"
done
