"""Time zones by name against DuckDB's: every name DuckDB knows, and ICU's custom IDs.

Usage: zone_check.py BLOOMJOIN OUT_DIR

The names: every one of DuckDB's `pg_timezone_names()` (IANA names and ICU's legacy IDs such as
`PST`), a few of them in other cases, and ICU's custom IDs (`GMT+5`, `gmt-03:30`, `GMT+005`,
`GMT+5:30:15`, `UTC+14`, ...) with forms DuckDB refuses (`GMT+24`, `UTC+15`, `utc+5`, `Z`).
The rows: instants from 1800 to 2100 (twice a year on a random day and time), 4,000 random
ones from 1900 to 2040, and the half hours around midnight to 03:30 of every day of March,
April, October and November from 1960 to 2040, where clocks change; each as a timestamp with
time zone and as a zone-less wall clock.

For each name a `bloomjoin filter` job writes, for every row, `tz AT TIME ZONE 'name'` (the
wall clock there), `timezone('name', lt)` (the instant that wall clock shows there) and the
cast of the wall clock's text with the name after it to TIMESTAMPTZ; DuckDB (TimeZone UTC)
computes the same and every row must be equal. A name DuckDB refuses must be refused. A name
DuckDB reads and bloomjoin refuses fails the check unless it is one of the refusals the README
documents (ICU's SystemV rule zones, `Etc/Unknown`, `UTC` with minutes)."""
import datetime as dt
import os
import random
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

BIN, OUT = sys.argv[1], sys.argv[2]
shutil.rmtree(OUT, ignore_errors=True)
os.makedirs(OUT)
rng = random.Random(5)

EPOCH = dt.datetime(1970, 1, 1)
seconds = set()
for y in range(1800, 2101):
    for m in (1, 7):
        seconds.add(int((dt.datetime(y, m, 1) - EPOCH).total_seconds()) + rng.randrange(180 * 86400))
lo, hi = (int((dt.datetime(y, 1, 1) - EPOCH).total_seconds()) for y in (1900, 2040))
seconds.update(rng.randrange(lo, hi) for _ in range(4000))
for y in range(1960, 2041):
    for m in (3, 4, 10, 11):
        first = dt.datetime(y, m, 1)
        for d in range(31 if m in (3, 10) else 30):
            for half in range(8):
                seconds.add(int((first + dt.timedelta(days=d, minutes=30 * half) - EPOCH).total_seconds()))
seconds = sorted(seconds)
us = [s * 1_000_000 for s in seconds]
src = os.path.join(OUT, "in.parquet")
pq.write_table(pa.table({"id": pa.array(range(len(us)), pa.int64()),
                         "tz": pa.array(us, pa.timestamp("us", tz="UTC")),
                         "lt": pa.array(us, pa.timestamp("us"))}), src)
flt = os.path.join(OUT, "all.bjf")
subprocess.run([BIN, "-q", "train", "-i", src, "-c", "id", "-o", flt], check=True)

con = duckdb.connect()
con.execute("SET TimeZone = 'UTC'")
names = [r[0] for r in con.execute("SELECT name FROM pg_timezone_names() ORDER BY name").fetchall()]
names += ["pst", "Ist", "america/new_york", "EUROPE/OSLO", "systemv/est5", "canada/east-saskatchewan",
          "GMT+5", "Gmt+5", "gmt-3", "gMT-03:30", "GMT+0530", "gmt+0530", "GMT+005", "GMT-0005", "GMT+123",
          "GMT+1234", "GMT+12345", "GMT-123456", "GMT+235959", "GMT+23:59:59", "GMT+5:30:15", "GMT+05:30:15",
          "GMT+2:30", "GMT+0", "GMT-0", "GMT+23", "GMT+14", "UTC+5", "UTC-3", "UTC+05", "UTC-03:00", "UTC+0500",
          "UTC+14", "UTC-12", "UTC+0", "UTC-0", "utc", "uTc", "gmt", "zulu",
          # DuckDB refuses these.
          "GMT+24", "GMT+2400", "GMT+2360", "GMT+99", "GMT+1234567", "GMT+5:3", "GMT+005:30", "GMT+5:30:1",
          "GMT+5:", "GMT+5:30:", "GMT+5::3", "GMT+ 5", "GMT++5", "GMT+5x", "UTC+15", "UTC-13", "UTC+23", "UTC-23",
          "utc+5", "Utc+5", "UT", "Z", "z", "+02:00", "Nowhere/Land",
          # DuckDB reads these, bloomjoin refuses them (see DELIBERATE).
          "UTC-03:30", "UTC+0530", "Etc/Unknown", "systemv/pst8pdt"]
names = list(dict.fromkeys(names))
# Refused where DuckDB answers, as the README says: ICU's SystemV rule zones (no IANA zone is
# one), a name that says its zone is unknown, and `UTC` with minutes (DuckDB drops them).
DELIBERATE = {"systemv/ast4adt", "systemv/est5edt", "systemv/cst6cdt", "systemv/mst7mdt", "systemv/pst8pdt",
              "systemv/yst9ydt", "etc/unknown", "utc-03:30", "utc+0530"}


def sql(name):
    return name.replace("'", "''")


def ours(name):
    out = os.path.join(OUT, f"o{names.index(name)}")
    z = sql(name)
    run = subprocess.run([BIN, "-q", "filter", "--filter", flt, "-i", src, "--key", "id", "--select",
                          f"id, tz AT TIME ZONE '{z}' AS wall, timezone('{z}', lt) AS instant, "
                          f"CAST(CAST(lt AS VARCHAR) || ' {z}' AS TIMESTAMPTZ) AS cast_text",
                          "-o", out], capture_output=True, text=True)
    return name, run, out


def duck(name):
    z = sql(name)
    try:
        con.execute(f"SELECT TIMESTAMPTZ '2024-07-01 12:00:00+00' AT TIME ZONE '{z}'").fetchall()
        return True
    except duckdb.Error:
        return False


failed = compared = refused = deliberate = 0
with ThreadPoolExecutor(2) as pool:
    for name, run, out in pool.map(ours, names):
        z = sql(name)
        if not duck(name):
            if run.returncode == 0:
                print(f"FAILED '{name}': DuckDB refuses it, bloomjoin answers")
                failed += 1
            else:
                refused += 1
            continue
        if run.returncode != 0:
            if name.lower() not in DELIBERATE:
                print(f"FAILED '{name}': DuckDB reads it, bloomjoin refuses: {run.stderr.strip()}")
                failed += 1
            else:
                deliberate += 1
            continue
        diff = con.execute(f"""
            SELECT count(*), min(id) FROM read_parquet('{out}/*.parquet') o JOIN read_parquet('{src}') i USING (id)
            WHERE o.wall IS DISTINCT FROM i.tz AT TIME ZONE '{z}'
               OR o.instant IS DISTINCT FROM timezone('{z}', i.lt)
               OR o.cast_text IS DISTINCT FROM TRY_CAST(CAST(i.lt AS VARCHAR) || ' {z}' AS TIMESTAMPTZ)""").fetchone()
        rows = con.execute(f"SELECT count(*) FROM read_parquet('{out}/*.parquet')").fetchone()[0]
        if diff[0] or rows != len(us):
            row = con.execute(f"""
                SELECT i.tz, o.wall, i.tz AT TIME ZONE '{z}', o.instant, timezone('{z}', i.lt), o.cast_text,
                       TRY_CAST(CAST(i.lt AS VARCHAR) || ' {z}' AS TIMESTAMPTZ)
                FROM read_parquet('{out}/*.parquet') o JOIN read_parquet('{src}') i USING (id)
                WHERE id = {diff[1] if diff[1] is not None else 0}""").fetchone()
            print(f"FAILED '{name}': {diff[0]} of {rows} rows differ (of {len(us)}); the first (instant, "
                  f"wall ours/DuckDB, instant ours/DuckDB, cast ours/DuckDB): {row}")
            failed += 1
        else:
            compared += 1
        shutil.rmtree(out)
print(f"zone_check: {len(names)} names, {len(us)} rows each: {compared} agree with DuckDB row by row, "
      f"{refused} refused as DuckDB refuses them, {deliberate} refused on purpose where DuckDB reads them "
      f"(the README's), {failed} failed")
sys.exit(1 if failed else 0)
