"""The date functions against DuckDB's, row by row: date_diff, date_sub, last_day, the parts
(millisecond to millennium, era, yearweek), epoch, epoch_ms/us/ns, julian, to_timestamp,
make_date, strftime.

Usage: date_func_check.py BLOOMJOIN OUT_DIR [N [SEED]]

Generates N rows (default 3,000) of dates, timestamps of every unit (zone-less and UTC) and
times of day: around the epoch, the ends of months and years, leap days, years before 1 and up
to 100,000, values a microsecond apart, NULLs and DuckDB's infinities; and numbers of seconds
and milliseconds, and years, months and days, for the functions that make instants. DuckDB
computes each expression (`date_diff` and `date_sub` in every unit and some of DuckDB's
other names for them over pairs of columns and literals, the other functions over every column) into a
Parquet file beside the values; `bloomjoin train --where` must find every row's answers
equal to DuckDB's (IS NOT DISTINCT FROM, so NULL meets NULL). The expressions that differ
are printed with a row.

Where bloomjoin follows the rest of its language rather than DuckDB (see src/expr/diff.rs
and src/expr/epoch.rs), DuckDB is given the same question exactly: a zone-less nanosecond
column is floored to the microsecond for it (DuckDB's cast rounds), except for the
functions DuckDB computes in nanoseconds (nanosecond, epoch_ns); epoch_ms of timestamps of
seconds or milliseconds is asked of the column cast to TIMESTAMP (DuckDB 2.0 fails it); and
the columns with a time zone, and those they meet, hold years from 1 on (before that,
DuckDB's ICU counts decades and quarters differently from its own DATE and TIMESTAMP
functions, which bloomjoin follows for every type)."""
import os
import random
import re
import shutil
import sys

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

import rowcheck

BIN, OUT = sys.argv[1], sys.argv[2]
N = int(sys.argv[3]) if len(sys.argv) > 3 else 3_000
SEED = int(sys.argv[4]) if len(sys.argv) > 4 else 21
shutil.rmtree(OUT, ignore_errors=True)
os.makedirs(OUT)
rng = random.Random(SEED)
DAY_US = 86_400 * 10**6
I32_MAX, I64_MAX = 2**31 - 1, 2**63 - 1


def civil_days(y, m, d):
    """Days from 1970-01-01 to y-m-d, proleptic Gregorian (Hinnant's days_from_civil)."""
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def civil(days):
    """The (year, month, day) of days after 1970-01-01 (Hinnant's civil_from_days)."""
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (m <= 2), m, d


def day(lo_year, hi_year):
    """A day: near the epoch, a month's or year's end or start, a leap day, or any day."""
    kind = rng.random()
    if kind < 0.15:
        return rng.randint(-400, 400)
    y = rng.randint(lo_year, hi_year)
    if kind < 0.45:
        m = rng.randint(1, 12)
        first = civil_days(y, m, 1)
        return first + rng.choice([-1, 0, 1, 27, 28, 29, 30])
    if kind < 0.55:
        return civil_days(y, 12, 31) + rng.choice([-3, 0, 1, 4])
    return civil_days(y, rng.randint(1, 12), rng.randint(1, 28))


def instant_us(lo_year, hi_year):
    """An instant in microseconds: a day and a time of day, often near a boundary."""
    t = rng.choice([0, 1, DAY_US - 1, DAY_US // 2, rng.randrange(DAY_US), rng.randrange(DAY_US),
                    3_600 * 10**6 * rng.randint(0, 23) + rng.choice([-1, 0, 1, 999, 1000])])
    return day(lo_year, hi_year) * DAY_US + t


def column(make, null=0.05, inf=None):
    out = []
    for _ in range(N):
        r = rng.random()
        if r < null:
            out.append(None)
        elif inf is not None and r < null + 0.03:
            out.append(rng.choice([inf, -inf]))
        else:
            out.append(make())
    return out


us_bc = column(lambda: instant_us(-3000, 3000), inf=I64_MAX)
cols = {
    "id": pa.array(range(N), pa.int64()),
    "d1": pa.array(column(lambda: day(-3000, 3000), inf=I32_MAX), pa.date32()),
    "d2": pa.array(column(lambda: day(-100_000, 100_000)), pa.date32()),
    "d_ad": pa.array(column(lambda: day(1, 3000)), pa.date32()),
    "d_ns": pa.array(column(lambda: day(1678, 2261)), pa.date32()),
    "ts_us": pa.array(us_bc, pa.timestamp("us")),
    "ts_ms": pa.array(column(lambda: instant_us(1, 3000) // 1000), pa.timestamp("ms")),
    "ts_s": pa.array(column(lambda: instant_us(-3000, 3000) // 10**6), pa.timestamp("s")),
    "tz_us": pa.array(column(lambda: instant_us(1, 3000), inf=I64_MAX), pa.timestamp("us", tz="UTC")),
    "tz_ms": pa.array(column(lambda: instant_us(1, 3000) // 1000), pa.timestamp("ms", tz="UTC")),
}
# The seconds and milliseconds as microseconds, for DuckDB (2.0 fails to widen some
# timestamps of milliseconds of year 1 in its functions, and epoch_ms of either type).
for c, per in (("ts_ms", 1000), ("ts_s", 10**6)):
    cols[c + "_us"] = pa.array([None if v is None else v * per for v in cols[c].cast(pa.int64()).to_pylist()],
                               pa.timestamp("us"))
# Nanoseconds: within the range of i64 nanoseconds (1677 to 2262), at and around whole
# microseconds; DuckDB is given the zone-less ones floored to the microsecond (ts_ns_us).
ns = column(lambda: instant_us(1678, 2261) * 1000 + rng.choice([0, 1, 499, 500, 501, 999]))
cols["ts_ns"] = pa.array(ns, pa.timestamp("ns"))
cols["ts_ns_us"] = pa.array([None if v is None else v // 1000 for v in ns], pa.timestamp("us"))
tz_ns = {c: column(lambda: instant_us(1678, 2261) * 1000 + rng.choice([0, 1, 500, 999])) for c in ("tz_ns", "tz_ns2")}
for c, v in tz_ns.items():
    cols[c] = pa.array(v, pa.timestamp("ns", tz="UTC"))
# tz_ns floored to the microsecond, for DuckDB's functions that have no TIMESTAMPTZ_NS.
cols["tz_ns_us"] = pa.array([None if v is None else v // 1000 for v in tz_ns["tz_ns"]], pa.timestamp("us", tz="UTC"))
clock_us = lambda: rng.choice([0, 1, DAY_US - 1, rng.randrange(DAY_US), 3_600 * 10**6 * rng.randint(0, 23)])
t_ns = column(lambda: clock_us() * 1000 + rng.choice([0, 1, 999]))
cols["t_ns"] = pa.array(t_ns, pa.time64("ns"))
cols["t_ns_us"] = pa.array([None if v is None else v // 1000 for v in t_ns], pa.time64("us"))
cols["t_us"] = pa.array(column(clock_us), pa.time64("us"))
cols["t_ms"] = pa.array(column(lambda: clock_us() // 1000), pa.time32("ms"))
cols["t_s"] = pa.array(column(lambda: clock_us() // 10**6), pa.time32("s"))
# Numbers for the functions that make instants: seconds (DOUBLE, at and around half
# microseconds, and over the range of timestamps), milliseconds, and years, months and days
# of valid dates (make_date of an invalid one fails the job: tests.rs has those).
secs = column(lambda: rng.choice([
    rng.randint(-10**6, 10**6) / 2e6, rng.uniform(-9.2e12, 9.2e12), rng.randint(-10**9, 10**9) + 0.5e-6 * rng.randint(-3, 3),
    float(rng.randint(-2**40, 2**40)), rng.uniform(-1, 1)]))
cols["secs"] = pa.array(secs, pa.float64())
cols["secs_i"] = pa.array(column(lambda: rng.randint(-9_223_372_036_854, 9_223_372_036_853)), pa.int64())
cols["ms"] = pa.array(column(lambda: rng.choice([rng.randint(-9_223_372_036_854_775, 9_223_372_036_854_775),
                                                 rng.randint(-10**6, 10**6)])), pa.int64())
ymd = [None if rng.random() < 0.05 else civil(day(-100_000, 100_000)) for _ in range(N)]
cols["yy"] = pa.array([None if t is None else t[0] for t in ymd], pa.int32())
cols["mm"] = pa.array([None if t is None else t[1] for t in ymd], pa.int8())
cols["dd"] = pa.array([None if t is None else t[2] for t in ymd], pa.int64())
table = pa.table(cols)

UNITS = ["millennium", "century", "decade", "year", "quarter", "month", "week", "isoyear", "day",
         "hour", "minute", "second", "millisecond", "microsecond"]
ALIASES = ["yrs", "mons", "dow", "doy", "julian", "yearweek", "epoch", "ms", "us", "h", "m", "CENT",
           "millenium"]
PAIRS = [("d1", "d2"), ("d2", "d1"), ("d1", "ts_us"), ("ts_us", "ts_ms"), ("ts_s", "ts_us"),
         ("ts_ns", "ts_us"), ("d1", "ts_ns"), ("tz_us", "tz_ms"), ("d_ad", "tz_us"), ("tz_ns", "tz_ns2"), ("tz_ns", "DATE '2000-03-01'"),
         ("ts_ms", "tz_us"), ("d1", "DATE '2024-02-29'"), ("TIMESTAMP '2000-01-01 12:34:56.789'", "ts_us"),
         ("'2024-01-01'", "d1"), ("d_ad", "'2000-03-01 00:00:00'"), ("ts_ns", "'1999-12-31 23:59:59.999999'"),
         ("tz_us", "TIMESTAMP '1970-01-01 00:00:00'")]
exprs = []
for unit in UNITS:
    for a, b in PAIRS:
        if unit == "microsecond" and "d2" in (a, b):
            continue  # ±100,000 years apart stay in BIGINT, but not in every pair
        exprs.append(f"date_diff('{unit}', {a}, {b})")
    if unit in ("hour", "minute", "second", "millisecond", "microsecond"):
        for a, b in [("t_s", "t_us"), ("t_us", "TIME '12:00:00'"), ("t_ns", "t_ms"), ("'06:30:00.5'", "t_ns")]:
            exprs.append(f"date_diff('{unit}', {a}, {b})")
for alias in ALIASES:
    a, b = rng.choice(PAIRS)
    exprs.append(f"datediff('{alias}', {a}, {b})")
# date_sub, the whole units, over the same pairs: DuckDB's ICU for the zoned ones, whose
# months bloomjoin refuses (it has no date_sub of TIMESTAMPTZ_NS, which tz_ns2 is).
MONTHLY = ("millennium", "century", "decade", "year", "quarter", "month", "isoyear")
for unit in UNITS:
    for a, b in PAIRS:
        if (unit == "microsecond" and "d2" in (a, b)) or "tz_ns2" in (a, b):
            continue
        if unit in MONTHLY and any(x.startswith("tz_") for x in (a, b)):
            continue
        exprs.append(f"date_sub('{unit}', {a}, {b})")
    if unit in ("hour", "minute", "second", "millisecond", "microsecond"):
        for a, b in [("t_s", "t_us"), ("t_us", "TIME '12:00:00'"), ("t_ns", "t_ms")]:
            exprs.append(f"date_sub('{unit}', {a}, {b})")
for alias in ALIASES:
    a, b = rng.choice([p for p in PAIRS if not any(x.startswith("tz_") for x in p)])
    exprs.append(f"datesub('{alias}', {a}, {b})")
exprs += [f"last_day({c})" for c in ("d1", "d2", "ts_us", "ts_ms", "ts_s", "tz_us", "ts_ns", "tz_ns")]
exprs += ["date_diff('day', d1, last_day(d1))", "last_day(ts_us) - d1 > 40",
          "date_diff('month', d1, d2) % 12 = 0", "date_diff('week', NULL, d1)"]

# The parts, epoch and julian of every date and timestamp column (and times of day for
# those a time has), under their function names and as date_part and EXTRACT.
INSTANTS = ["d1", "d2", "ts_us", "ts_ms", "ts_s", "tz_us", "tz_ms", "ts_ns", "tz_ns"]
CLOCKS = ["t_us", "t_ms", "t_s", "t_ns"]
for f in ["millisecond", "microsecond", "nanosecond", "decade", "century", "millennium", "era",
          "yearweek", "epoch", "epoch_ms", "epoch_us", "epoch_ns", "julian"]:
    for c in INSTANTS + (CLOCKS if f not in ("decade", "century", "millennium", "era", "yearweek", "julian") else []):
        if f == "epoch_ns" and c in ("d2", "ts_us", "ts_s", "tz_us", "tz_ms", "d1", "ts_ms"):
            c = "d_ns" if c.startswith("d") else "ts_ns"  # years from 1678 to 2261 only
        exprs.append(f"{f}({c})")
for spec in ["ms", "usecs", "dec", "c", "millenniums", "era", "yearweek", "epoch", "julian", "jd"]:
    for c in ("d1", "ts_us", "tz_ms"):
        exprs.append(f"date_part('{spec}', {c})")
for field in ["EPOCH", "MILLISECOND", "MICROSECOND", "DECADE", "CENTURY", "MILLENNIUM", "JULIAN"]:
    exprs.append(f"EXTRACT({field} FROM ts_ms)")
# Back from numbers, and round trips.
exprs += ["to_timestamp(secs)", "to_timestamp(secs_i)", "to_timestamp(1.0000005)", "to_timestamp(-2.5e-6)",
          "epoch_ms(ms)", "epoch_ms(secs_i)", "epoch_ms(-9223372036854775)", "make_date(yy, mm, dd)",
          "make_date(yy, 2, 28)", "make_date(2024, mm, 1)", "make_date(NULL, mm, dd)",
          "make_date(yy, mm, dd) = d2", "epoch_ms(epoch_ms(ts_us))", "epoch(to_timestamp(secs))",
          "to_timestamp(epoch(ts_us)) = ts_us", "epoch_us(make_date(yy, mm, dd))",
          "epoch_ms(ts_us) - epoch_ms(d_ad)", "julian(d2) - julian(d1)", "epoch(t_ns) < 3600"]
# strftime: every specifier over every instant column, both orders of the arguments.
FORMATS = ["%Y|%G|%y|%-y|%m|%-m|%d|%-d|%j|%-j", "%H|%-H|%I|%-I|%p|%M|%-M|%S|%-S|%g|%f|%n",
           "%a|%A|%w|%u|%b|%B|%h|%U|%W|%V", "%z|%Z|%c|%x|%X|%T|%%|é"]
for c in INSTANTS:
    for fmt in FORMATS:
        exprs.append(f"strftime({c}, '{fmt}')")
exprs += ["strftime('%d/%m/%Y', ts_us)", "strftime(d1, '%Y-%m') = '2024-01'", "strftime(tz_us, NULL)",
          "strftime(ts_ns, '%Y%n') || 'x'", "strftime(make_date(yy, mm, dd), '%-d %B %Y')"]

# The functions DuckDB computes in nanoseconds are asked of the nanosecond columns as they
# are; seconds and milliseconds are asked as microseconds.
EXACT_NS = ("nanosecond(", "epoch_ns(", "strftime(")


def duck(e):
    """The expression as DuckDB is asked it (the floored nanosecond columns)."""
    if not e.startswith(EXACT_NS):
        e = re.sub(r"\b(ts_ns|tz_ns|t_ns)\b", r"\1_us", e)
    return re.sub(r"\b(ts_ms|ts_s)\b", r"\1_us", e)


con = duckdb.connect()
con.execute("SET TimeZone = 'UTC'")
con.register("t", table)
wants = ", ".join(f"{duck(e)} AS want_{i}" for i, e in enumerate(exprs))
f = os.path.join(OUT, "d.parquet")
con.execute(f"COPY (SELECT *, {wants} FROM t ORDER BY id) TO '{f}'")
pq.ParquetFile(f)  # readable

failed = rowcheck.differing(BIN, f, OUT, exprs, lambda e: f" {duck(e)}")
nonnull = con.execute(f"SELECT count(*) FROM '{f}' WHERE want_0 IS NOT NULL").fetchone()[0]
print(f"date functions: {len(exprs)} expressions over {N} rows ({nonnull} of the first not NULL); "
      f"{'all agree with DuckDB' if not failed else f'{failed} FAILED'}")
sys.exit(1 if failed else 0)
