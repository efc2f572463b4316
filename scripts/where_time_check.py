"""--where over TIME columns (seconds, milliseconds, microseconds, nanoseconds) against DuckDB.

Usage: where_time_check.py BLOOMJOIN OUT_DIR

Writes a file of random times of day (with the edges: midnight, a nanosecond before the next
one, values a nanosecond or a microsecond apart) in row groups of 37 rows with a page index and
small pages, sorted, so that the statistics rule row groups and pages out. Then, for each
condition (comparisons with TIME literals and strings of up to 9 fractional digits, BETWEEN,
IN, NOT IN, IS DISTINCT FROM, NOT, two columns), `bloomjoin filter --where` must keep exactly
the ids DuckDB's `SELECT ... WHERE` keeps. DuckDB compares TIME_NS with TIME only after an
explicit cast, so for a nanosecond column its condition casts the other side (exactly)."""
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

failed = skipped = 0
for cond in conds:
    duck = cond
    if "t_ns" in cond:
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
