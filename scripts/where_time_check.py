"""--where over TIME columns (seconds, milliseconds, microseconds, nanoseconds) against DuckDB.

Usage: where_time_check.py BLOOMJOIN OUT_DIR

Writes a file of random times of day (with the edges: midnight, a nanosecond before the next
one, values a nanosecond or a microsecond apart) in row groups of 37 rows with a page index and
small pages, sorted, so that the statistics rule row groups and pages out. Then, for each
condition (comparisons with TIME literals and strings of up to 9 fractional digits, BETWEEN,
IN, NOT IN, IS DISTINCT FROM, NOT, two columns; hour, minute, second, CAST(... AS TIME) of
timestamps of three units, of times of day and of strings, coalesce, greatest, least),
`bloomjoin filter --where` must keep exactly the ids DuckDB's `SELECT ... WHERE` keeps. DuckDB
compares TIME_NS with TIME only after an explicit cast, so for a nanosecond column its condition
casts the other side (exactly)."""
import json
import os
import random
import re
import shutil
import subprocess
import sys

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

BIN, OUT = sys.argv[1], sys.argv[2]
shutil.rmtree(OUT, ignore_errors=True)
os.makedirs(OUT)
rng = random.Random(5)
DAY = 86_400 * 10**9
H = 3723 * 10**9  # 01:02:03
pool = [0, 1, 999, 1000, 1001, 10**9, H, H + 1, H + 999, H + 1000, H + 500_000, 43200 * 10**9,
        DAY - 1, DAY - 1000, DAY - 10**9]
pool += [rng.randrange(DAY) for _ in range(30)]
n = 400
ns = [None if rng.random() < 0.1 else rng.choice(pool) for _ in range(n)]
order = sorted(range(n), key=lambda i: (ns[i] is None, ns[i] or 0))
ns = [ns[i] for i in order]
table = pa.table({
    "id": pa.array(range(n), pa.int64()),
    "t_ns": pa.array(ns, pa.time64("ns")),
    "t_us": pa.array([None if v is None else v // 1000 for v in ns], pa.time64("us")),
    "t_ms": pa.array([None if v is None else v // 10**6 for v in ns], pa.time32("ms")),
    "t_s": pa.array([None if v is None else v // 10**9 for v in ns], pa.time32("s")),
})
# Instants around 1970 and 2020 (before the epoch too), with nanoseconds at and around the
# half microsecond and a nanosecond before midnight, for CAST(... AS TIME).
DAYS = [-20000, -1, 0, 1, 18262, 18263]
instants = [d * DAY + rng.choice(pool) + rng.choice([0, 0, 499, 500, 501, -500, 1500]) for d in DAYS for _ in range(5)]
ts_ns = [None if rng.random() < 0.1 else rng.choice(instants) for _ in range(n)]
table = table.append_column("ts_ns", pa.array(ts_ns, pa.timestamp("ns")))
table = table.append_column("ts_us", pa.array([None if v is None else v // 1000 for v in ts_ns], pa.timestamp("us")))
table = table.append_column("ts_ms", pa.array([None if v is None else v // 10**6 for v in ts_ns], pa.timestamp("ms")))
f = os.path.join(OUT, "t.parquet")
pq.write_table(table, f, row_group_size=37, write_page_index=True, data_page_size=64)
everything = os.path.join(OUT, "all.bjf")
subprocess.run([BIN, "-q", "train", "-i", f, "-c", "id", "-o", everything], check=True)

lits = ["'00:00:00'", "'01:02:03'", "'01:02:03.000001'", "'01:02:03.0000001'", "'01:02:03.0000009'",
        "'01:02:03.000000999'", "'12:00'", "'23:59:59.999999'", "'23:59:59.999999999'",
        "TIME '01:02:03'", "TIME '01:02:03.0000009'", "TIME '12:00:00.5'", "TIME '23:59:59.9999999'",
        "TIME '00:00'"]
columns = ["t_ns", "t_us", "t_ms", "t_s"]
conds = []
for c in columns:
    for op in ["=", "<>", "<", "<=", ">", ">="]:
        for lit in rng.sample(lits, 5):
            conds.append(f"{c} {op} {lit}")
    conds.append(f"{c} BETWEEN TIME '01:00' AND '13:00:00.5'")
    conds.append(f"{c} NOT BETWEEN '01:02:03' AND TIME '23:00'")
    conds.append(f"{c} IN ('01:02:03', TIME '12:00', '23:59:59.999999')")
    conds.append(f"{c} NOT IN (TIME '01:02:03', '12:00')")
    conds.append(f"{c} IS DISTINCT FROM TIME '01:02:03'")
    conds.append(f"NOT ({c} < '06:00' OR {c} IS NULL)")
for a in columns:
    for b in columns:
        if a < b:
            conds.append(f"{a} < {b}")
            conds.append(f"{a} = {b}")
conds.append("TIME '01:00' < TIME '02:00' AND t_s IS NOT NULL")
# Functions: parts, casts, coalesce, greatest, least.
for c in columns:
    conds.append(f"hour({c}) = 1")
    conds.append(f"minute({c}) BETWEEN 2 AND 30")
    conds.append(f"EXTRACT(second FROM {c}) = 3")
    conds.append(f"date_part('hour', {c}) >= 12")
    conds.append(f"CAST({c} AS TIME) = TIME '01:02:03'")
    conds.append(f"CAST({c} AS TIME) > TIME '01:02:03.000001'")
    conds.append(f"CAST({c} AS TIME) >= TIME '23:59:59.999999'")
for c in ["ts_ns", "ts_us", "ts_ms"]:
    for lit in ["TIME '00:00'", "'01:02:03'", "TIME '01:02:03.000001'", "'12:00'", "TIME '23:59:59.999999'"]:
        for op in ["=", "<", ">="]:
            conds.append(f"CAST({c} AS TIME) {op} {lit}")
    conds.append(f"CAST({c} AS TIME) BETWEEN '09:00' AND '17:00'")
    conds.append(f"hour(CAST({c} AS TIME)) = 1")
    conds.append(f"{c}::TIME = t_us")
conds.append("CAST('2020-01-01 01:02:03.9999999' AS TIME) < t_us")
conds.append("CAST('01:02:03' AS TIME) = t_s")
for a, b in [("t_s", "t_us"), ("t_ms", "t_s"), ("t_us", "t_ms")]:
    conds.append(f"coalesce({a}, {b}) < TIME '06:00'")
    conds.append(f"coalesce({a}, TIME '05:00') = '05:00'")
    conds.append(f"greatest({a}, {b}) = {a}")
    conds.append(f"least({a}, {b}, TIME '01:00') < TIME '01:02:03.5'")
    conds.append(f"CASE WHEN {a} > '12:00' THEN {a} ELSE {b} END < '01:02:03'")

failed = skipped = 0
for cond in conds:
    duck = cond
    if re.search(r"\bt_ns\b", cond) and "AS TIME)" not in cond:
        duck = re.sub(r"TIME '([^']*)'", r"CAST(TIME '\1' AS TIME_NS)", duck)
        if sum(cond.count(c) for c in columns) == 2:
            for c in columns[1:]:
                duck = duck.replace(c, f"CAST({c} AS TIME_NS)")
    want = sorted(r[0] for r in duckdb.sql(f"SELECT id FROM '{f}' WHERE {duck}").fetchall())
    out, report = os.path.join(OUT, "out"), os.path.join(OUT, "report.json")
    run = subprocess.run([BIN, "-q", "filter", "-i", f, "-k", "id", "--filter", everything,
                          "--where", cond, "-o", out, "--report", report, "--overwrite"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        print(f"FAILED {cond}: bloomjoin exited {run.returncode}: {run.stderr.strip()}")
        failed += 1
        continue
    done = json.load(open(report))
    got = []
    if done["rows_out"]:
        got = sorted(r[0] for r in duckdb.sql(f"SELECT id FROM '{out}/*.parquet'").fetchall())
    side = done["input"]
    skipped += bool(side["rows_skipped_by_where"] or side["rows_skipped_by_page_index"])
    if got != want:
        print(f"FAILED {cond}: {len(got)} rows, DuckDB {len(want)}")
        failed += 1
print(f"where over TIME: {len(conds)} conditions, {failed} differ from DuckDB; "
      f"{skipped} skipped row groups or pages by their statistics")
sys.exit(1 if failed else 0)
