"""Parquet Bloom filter (SBBF) interop with real engines (issue 15); scripts/crosscheck.sh runs it.

1. bloomjoin's join output carries SBBFs on the key columns (an integer and a string key):
   DuckDB's parquet_bloom_probe never says "excluded" for a value of the part and says it
   for most absent values, on every part; DuckDB and pyarrow read every part, row counts as
   the report says.
2. pyarrow (Arrow C++) writes SBBFs through bloom_filter_options (an INT32 and a string
   column): `bloomjoin probe --column` says "maybe" for every value, and a join with a few
   left keys skips row groups by them and gives the rows of a join with --no-sbbf.
3. Golden: `bloomjoin train --layout sbbf --num-bytes B` over a column pyarrow 26 wrote with
   a filter of B bytes (INT32 with nulls, UInt32 above 2^31, INT64, strings) has exactly the
   bitset of pyarrow's filter, and DuckDB's parquet_bloom_probe on pyarrow's file excludes a
   key exactly when `bloomjoin probe` of the trained filter says "no".

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

# 3. Golden: `train --layout sbbf` over a column pyarrow wrote with a filter is bit-identical
#    to pyarrow's SBBF of that column chunk (same values, same numBytes), and DuckDB's
#    parquet_bloom_probe on pyarrow's file agrees with `bloomjoin probe` of the trained filter.
n = 5000
gold = os.path.join(WORK, "golden")
os.makedirs(gold)
gf = os.path.join(gold, "g.parquet")
pq.write_table(pa.table({
    "i": pa.array([(v - 2500) * 7919 if v % 13 else None for v in range(n)], pa.int32()),
    "u": pa.array([2**32 - 1 - v * 104_729 for v in range(n)], pa.uint32()),
    "l": pa.array([(v - 2500) * 1_000_000_007 for v in range(n)], pa.int64()),
    "s": [f"name-{v % 3000}" for v in range(n)],
}), gf, bloom_filter_options={"i": {"ndv": 5000, "fpp": 0.01}, "u": {"ndv": 5000, "fpp": 0.05},
                              "l": {"ndv": 2000, "fpp": 0.01}, "s": {"ndv": 3000, "fpp": 0.001}})
raw = open(gf, "rb").read()
lit = {"i": str, "u": str, "l": str, "s": lambda v: "'" + v + "'"}
absent = {"i": [str(v * 7919 + 1) for v in range(300)], "u": [str(v) for v in range(300)],
          "l": [str(v * 1_000_000_007 + 1) for v in range(300)], "s": [f"absent-{v}" for v in range(300)]}
for col in ["i", "u", "l", "s"]:
    info = json.loads(subprocess.run([BIN, "inspect", gf, "--column", col, "--json"],
                                     check=True, capture_output=True, text=True).stdout)
    groups = info["row_groups"]
    nbytes = groups[0]["blocks"] * 32
    out = os.path.join(gold, f"{col}.bjf")
    run("train", "--input", gf, "--column", col, "--layout", "sbbf", "--num-bytes", str(nbytes),
        "--output", out)
    ours = open(out, "rb").read()
    m = int.from_bytes(ours[16:24], "little")
    meta_len = int.from_bytes(ours[40:44], "little")
    at = 48 + (meta_len + 7) // 8 * 8
    bits = ours[at:at + m // 8]
    off, length = con.sql(
        f"select bloom_filter_offset, bloom_filter_length from parquet_metadata('{gf}') "
        f"where path_in_schema = '{col}' and row_group_id = 0").fetchall()[0]
    theirs = raw[off + length - nbytes:off + length]
    check(len(groups) == 1 and m == nbytes * 8 and bits == theirs,
          f"golden {col}: train --layout sbbf equals pyarrow's {nbytes}-byte SBBF ({info['physical_type']})")
    present = [str(v) for v in pq.read_table(gf, columns=[col]).column(col).to_pylist()[::23] if v is not None]
    keys = present + absent[col]
    answers = subprocess.run([BIN, "probe", "--filter", out, *keys],
                             check=True, capture_output=True, text=True).stdout.split()
    excluded = [con.sql(f"select bool_and(bloom_filter_excludes) from parquet_bloom_probe('{gf}', '{col}', {lit[col](v)})").fetchall()[0][0]
                for v in keys]
    agree = all((a == "no") == e for a, e in zip(answers, excluded)) and len(answers) == len(keys)
    check(agree and answers[:len(present)] == ["maybe"] * len(present),
          f"golden {col}: DuckDB's parquet_bloom_probe agrees with bloomjoin probe on {len(keys)} keys "
          f"({sum(excluded)} excluded)")

print(f"sbbf_interop: {len(failures)} failed")
sys.exit(1 if failures else 0)
