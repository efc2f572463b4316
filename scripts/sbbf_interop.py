"""Parquet Bloom filter (SBBF) interop with real engines (issue 15); scripts/crosscheck.sh runs it.

1. bloomjoin's join output carries SBBFs on the key columns (an integer and a string key):
   DuckDB's parquet_bloom_probe never says "excluded" for a value of the part and says it
   for most absent values, on every part; DuckDB and pyarrow read every part, row counts as
   the report says.
2. pyarrow (Arrow C++) writes SBBFs through bloom_filter_options (an INT32 and a string
   column): `bloomjoin probe --column` says "maybe" for every value, and a join with a few
   left keys skips row groups by them and gives the rows of a join with --no-sbbf.

Usage: python scripts/sbbf_interop.py BLOOMJOIN_BINARY WORKDIR
"""

import json
import os
import shutil
import subprocess
import sys

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

BIN, WORK = sys.argv[1], sys.argv[2]
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
failures = []


def check(ok, what):
    print(("ok     " if ok else "FAILED ") + what)
    if not ok:
        failures.append(what)


def run(*args):
    subprocess.run([BIN, "--quiet", *args], check=True)


def parts(out):
    return sorted(
        os.path.join(out, f) for f in os.listdir(out) if f.startswith("part-") and f.endswith(".parquet")
    )


con = duckdb.connect()

# 1. Our output, read by DuckDB and pyarrow.
for name, lkey, rkey, probe_cols, absent in [
    ("int", "Id", "UserId", ["Id", "UserId"], [str(-v) for v in range(1, 401)]),
    ("str", "DisplayName", "UserDisplayName", ["DisplayName", "UserDisplayName"], [f"'absent-{v}'" for v in range(400)]),
]:
    out = os.path.join(WORK, f"join-{name}")
    rep = out + ".json"
    run("join", "--no-prefilter", "--left", "data/sample/users", "--left-key", lkey,
        "--right", "data/sample/comments", "--right-key", rkey, "--workers", "3",
        "--output", out, "--report", rep)
    report = json.load(open(rep))
    total_duck = 0
    total_arrow = 0
    for part in parts(out):
        total_duck += con.sql(f"select count(*) from '{part}'").fetchall()[0][0]
        total_arrow += pq.read_table(part).num_rows
        for col in probe_cols:
            present = [r[0] for r in con.sql(f"select distinct \"{col}\" from '{part}' where \"{col}\" is not null").fetchall()]
            lit = (lambda v: str(v)) if name == "int" else (lambda v: "'" + v.replace("'", "''") + "'")
            false_neg = sum(
                con.sql(f"select bool_and(bloom_filter_excludes) from parquet_bloom_probe('{part}', '{col}', {lit(v)})").fetchall()[0][0]
                for v in present[:300]
            )
            excluded = sum(
                con.sql(f"select bool_and(bloom_filter_excludes) from parquet_bloom_probe('{part}', '{col}', {v})").fetchall()[0][0]
                for v in absent
            )
            check(false_neg == 0, f"{name} {os.path.basename(part)} {col}: no present value excluded ({len(present[:300])} probed)")
            check(excluded >= 0.9 * len(absent), f"{name} {os.path.basename(part)} {col}: {excluded}/{len(absent)} absent values excluded")
    check(total_duck == report["rows_out"], f"{name}: DuckDB reads {total_duck} rows, the report says {report['rows_out']}")
    check(total_arrow == report["rows_out"], f"{name}: pyarrow reads {total_arrow} rows")

# 2. pyarrow's filters, read by bloomjoin.
n = 40_000
table = pa.table({
    "k": pa.array([(i % 40) + 40 * ((i * 7919) % 1000) for i in range(n)], pa.int32()),
    "s": [f"s{(i % 40) + 40 * ((i * 7919) % 1000)}" for i in range(n)],
    "v": list(range(n)),
})
# Row i goes to row group i // 1000 and its key's residue mod 40 is i % 40: sort so that a
# group holds the keys of one residue (min/max still span the whole range).
table = table.sort_by([("v", "ascending")])
order = sorted(range(n), key=lambda i: (i % 40, i))
table = table.take(pa.array(order))
right = os.path.join(WORK, "pyarrow-right")
os.makedirs(right)
pq.write_table(table, os.path.join(right, "r.parquet"), row_group_size=1000,
               bloom_filter_options={"k": {"ndv": 1000, "fpp": 0.01}, "s": {"ndv": 1000, "fpp": 0.01}})
rf = os.path.join(right, "r.parquet")
for col, vals in [("k", [str(v) for v in table.column("k").to_pylist()[::97]]),
                  ("s", table.column("s").to_pylist()[::97])]:
    res = subprocess.run([BIN, "probe", "--filter", rf, "--column", col, *vals],
                         check=True, capture_output=True, text=True).stdout.split()
    check(res == ["maybe"] * len(vals), f"pyarrow {col}: bloomjoin probe says maybe for {len(vals)} present values")
left = os.path.join(WORK, "pyarrow-left.parquet")
ks = table.column("k").to_pylist()
lkeys = [ks[5], ks[12_345], ks[30_001], -1]
pq.write_table(pa.table({"k": pa.array(lkeys, pa.int64()), "s": [f"s{v}" for v in lkeys]}), left)
for key in ["k", "s"]:
    rows = {}
    for mode, extra in [("on", []), ("off", ["--no-sbbf"])]:
        out = os.path.join(WORK, f"pyarrow-{key}-{mode}")
        run("join", "--no-prefilter", "--left", left, "--left-key", key, "--right", right,
            "--right-key", key, "--output", out, "--report", out + ".json", *extra)
        rows[mode] = sorted(con.sql(f"select * from '{out}/part-*.parquet'").fetchall())
        if mode == "on":
            r = json.load(open(out + ".json"))
            skipped = r["right"]["row_groups_skipped_by_sbbf"]
            check(skipped >= 30, f"pyarrow {key}: {skipped} of 40 row groups skipped by SBBF")
    check(rows["on"] == rows["off"] and len(rows["on"]) > 0,
          f"pyarrow {key}: same {len(rows['on'])} rows with and without SBBF pruning")

print(f"sbbf_interop: {len(failures)} failed")
sys.exit(1 if failures else 0)
