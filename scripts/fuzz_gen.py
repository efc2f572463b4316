"""Random tables and `--where` conditions for scripts/fuzz.py.

Everything here draws from a `random.Random` handed in by the caller, so a case is a pure
function of (seed, kind, case number). Conditions are built as small trees and rendered twice:
once in bloomjoin's `--where` syntax and once in DuckDB's SQL (they differ only where DuckDB
needs `TIMESTAMP_NS` for nanosecond literals).
"""

import datetime
import decimal
import importlib
import os
import random
import re
import importlib.util
import inspect

import pyarrow as pa
import pyarrow.parquet as pq

# A second writer whose footers differ from pyarrow's (no page encoding statistics). Imported
# on first use, in the worker process that writes: Polars' threads do not survive the fork
# that starts scripts/fuzz.py's workers (a child of a process that imported it can hang).
HAVE_POLARS = importlib.util.find_spec("polars") is not None
DECIMALS_AS_INTS = "store_decimal_as_integer" in inspect.signature(pq.write_table).parameters
# pyarrow writes Parquet Bloom filters (SBBFs), which the join probes to skip right row groups.
BLOOM_FILTERS = "bloom_filter_options" in (pq.ParquetWriter.__doc__ or "")
# pyarrow writes a page index (column and offset index) with pages of at most N rows.
PAGE_INDEX = "max_rows_per_page" in inspect.signature(pq.write_table).parameters

# ------------------------------------------------------------------------------ values

INT_TYPES = {
    "int8": (pa.int8(), -(2**7), 2**7 - 1),
    "int16": (pa.int16(), -(2**15), 2**15 - 1),
    "int32": (pa.int32(), -(2**31), 2**31 - 1),
    "int64": (pa.int64(), -(2**63), 2**63 - 1),
    "uint8": (pa.uint8(), 0, 2**8 - 1),
    "uint16": (pa.uint16(), 0, 2**16 - 1),
    "uint32": (pa.uint32(), 0, 2**32 - 1),
    "uint64": (pa.uint64(), 0, 2**64 - 1),
}
SIGNED = {"int8", "int16", "int32", "int64"}

# Integers worth meeting: every type's extremes and their neighbours, powers of two around
# the widths, small numbers.
INTERESTING_INTS = sorted(
    {v for (_, lo, hi) in INT_TYPES.values() for v in (lo, lo + 1, hi - 1, hi)}
    | {s * (2**e + d) for e in (7, 8, 15, 16, 31, 32, 53, 62, 63) for d in (-1, 0, 1) for s in (1, -1)}
    | {2**64 - 2**63 + 5, 2**63 + 1}
    | set(range(-5, 6))
)

# Date32 day numbers: ordinary dates, the epoch, and values far out (DuckDB's DATE is the
# same int32 of days; +-2^31-1 are its infinities).
INTERESTING_DAYS = [0, 1, -1, 18262, 18263, 19000, 19723, -719162, 2932896, 2**31 - 1, -(2**31) + 1, 2**31 - 2]

STRINGS = [
    "", "a", "A", "b", "ab", "abc", "a b", " ", "%", "_", "\\", "a%b", "a_b", "a\\b", "'", "''",
    "\x00", "a\x00", "\x00b", "a\x00b", "é", "E\u0301", "日本", "日本語", "😀", "a😀", "Σ", "σ", "ς",
    "İ", "i", "ß", "SS", "ǅ", "NULL", "null", "0", "-1", "x" * 40, "y" * 300, "Ab", "aB", "ÅÄÖ",
    "\t", "\n", "a\nb", "\U0010ffff", "\ufeff",
]
BYTES_EXTRA = [b"\xff", b"\xfe\xff", b"\x80", b"\x00\xff", b"a\xffb", b"\xc3", b"\xc3\xa9"]


def int_pool(rng, lo, hi, size):
    """Distinct integers in [lo, hi]: interesting ones and small ones."""
    out = set()
    cand = [v for v in INTERESTING_INTS if lo <= v <= hi]
    while len(out) < size:
        r = rng.random()
        if r < 0.5 and cand:
            out.add(rng.choice(cand))
        elif r < 0.9:
            v = rng.randint(-30, 30)
            if lo <= v <= hi:
                out.add(v)
        else:
            out.add(rng.randint(lo, hi))
        if len(out) >= hi - lo + 1:
            break
    return sorted(out)


def string_pool(rng, size, binary=False):
    out = []
    while len(out) < size:
        r = rng.random()
        if r < 0.6:
            s = rng.choice(STRINGS)
        else:
            s = "".join(rng.choice("abAB_%\\é日\x00 ") for _ in range(rng.randint(0, 6)))
        v = s.encode("utf-8") if binary else s
        if binary and rng.random() < 0.15:
            v = rng.choice(BYTES_EXTRA)
        if v not in out:
            out.append(v)
    return out


def draw(rng, pool, n, null_frac):
    """n values drawn from pool with repeats, some nulls."""
    if not pool:
        return [None] * n
    return [None if rng.random() < null_frac else rng.choice(pool) for _ in range(n)]


def null_frac(rng):
    return rng.choice([0.0, 0.0, 0.05, 0.2, 0.5, 1.0])


# ------------------------------------------------------------------------------ writing


def write_parquet(rng, table, path, sort_by=None, writer="pyarrow"):
    """Write `table` with random row groups, statistics and dictionary settings, by pyarrow,
    by Polars (which chooses its own dictionaries and writes no page encoding statistics) or
    by DuckDB (row groups in multiples of 2,048 rows, its own dictionaries, a Parquet Bloom
    filter on every dictionary-encoded chunk, version 1 or 2 pages: delta encodings).

    Returns a short description of the settings (for the case log)."""
    if sort_by is not None and table.num_rows and rng.random() < 0.4:
        # Sort by the key (nulls anywhere), through an index so that every type sorts.
        col = table.column(sort_by)
        if pa.types.is_date32(col.type):
            col = col.cast(pa.int32())
        elif pa.types.is_timestamp(col.type) or pa.types.is_time64(col.type):
            col = col.cast(pa.int64())
        elif pa.types.is_time32(col.type):
            col = col.cast(pa.int32())
        col = col.to_pylist()
        idx = sorted(range(len(col)), key=lambda i: (col[i] is None, sortable(col[i])))
        if rng.random() < 0.5:
            idx.reverse()
        schema = table.schema
        plain = pa.schema([f.with_type(pa.string()) if pa.types.is_string_view(f.type) else f for f in schema])
        table = table.cast(plain).take(pa.array(idx, pa.int64())).cast(schema)  # no take for views
        sorted_ = True
    else:
        sorted_ = False
    rg = rng.choice([1, 2, 3, 7, 16, 64, 100, 1000, 4096, 100_000])
    stats = rng.random() < 0.7
    dictionary = rng.random() < 0.6
    compression = rng.choice(["zstd", "snappy", "none"])
    # Decimals of up to 18 digits as INT32/INT64 (as Spark writes them) or fixed-length bytes.
    decimals_as_ints = rng.random() < 0.5
    # Parquet Bloom filters on every column of a third of pyarrow's files, of a random size
    # (an NDV far below the rows fills them up: more false positives, never a miss).
    blooms = None
    if rng.random() < 0.35 and BLOOM_FILTERS:
        blooms = {"ndv": rng.choice([1, 16, 1000]), "fpp": rng.choice([0.01, 0.2])}
    version = rng.choice(["V1", "V2"])
    if writer == "polars":
        pl = importlib.import_module("polars")
        pl.from_arrow(table).write_parquet(
            path,
            row_group_size=rg,
            statistics=stats,
            compression="uncompressed" if compression == "none" else compression,
        )
        settings = f"statistics={stats}"
    elif writer == "duckdb":
        duckdb = importlib.import_module("duckdb")
        con = duckdb.connect()
        con.register("t", table)
        con.execute(
            f"COPY t TO '{path}' (FORMAT parquet, ROW_GROUP_SIZE {rg}, "
            f"COMPRESSION {'uncompressed' if compression == 'none' else compression}, PARQUET_VERSION {version})"
        )
        con.close()
        settings = f"parquet_version={version}"
    else:
        extra = {"store_decimal_as_integer": decimals_as_ints} if DECIMALS_AS_INTS else {}
        # Half of pyarrow's files get a page index with small pages (a --where skips the
        # pages it rules out). Drawn from a generator of their own, so that the draws of
        # the cases of every seed stay what they were before page indexes were written.
        pages = random.Random(f"page index {rng.getstate()!r}")
        rows_per_page = None
        if PAGE_INDEX and pages.random() < 0.5:
            rows_per_page = pages.choice([1, 2, 3, 8, 50, 1000])
            extra["write_page_index"] = True
            extra["max_rows_per_page"] = rows_per_page
        if blooms:
            # (pyarrow builds none for booleans.)
            extra["bloom_filter_options"] = {
                f.name: dict(blooms) for f in table.schema if not pa.types.is_boolean(f.type)
            }
        pq.write_table(
            table,
            path,
            row_group_size=rg,
            write_statistics=stats,
            use_dictionary=dictionary,
            compression=compression,
            **extra,
        )
        settings = (
            f"statistics={stats} dictionary={dictionary} decimals_as_ints={decimals_as_ints} "
            f"bloom_filters={blooms} rows_per_page={rows_per_page}"
        )
    return f"rows={table.num_rows} row_group={rg} compression={compression} sorted={sorted_} writer={writer} {settings}"


# Arrow types Polars may write for a column of another type without changing its values: its
# strings and binaries are large (or views).
SAME_VALUES = [
    {pa.string(), pa.large_string(), pa.string_view()},
    {pa.binary(), pa.large_binary(), pa.binary_view()},
]


def polars_may_keep(schema):
    """False for types Polars changes or refuses (seconds, UTC offsets as time zones,
    dictionaries), so that it is not tried on them (its refusals print a Rust panic)."""
    def keeps(t):
        if pa.types.is_timestamp(t):
            return t.unit != "s" and not (t.tz or "").startswith(("+", "-"))
        return not pa.types.is_dictionary(t)
    return all(keeps(f.type) for f in schema)


def same_values(a, b):
    return a == b or any(a in family and b in family for family in SAME_VALUES)


def sortable(v):
    if isinstance(v, str):
        return (1, v.encode("utf-8"))
    if isinstance(v, bytes):
        return (1, v)
    return (0, v)


def duckdb_keeps(table, scratch):
    """The names of `table`'s columns whose types a DuckDB round trip (written by DuckDB, read
    by pyarrow) keeps: not its second and millisecond timestamps, time zones or dictionaries."""
    duckdb = importlib.import_module("duckdb")
    con = duckdb.connect()
    con.register("t", table)
    con.execute(f"COPY t TO '{scratch}' (FORMAT parquet)")
    con.close()
    back = pq.read_schema(scratch)
    os.remove(scratch)
    return [f.name for f in table.schema
            if f.name in back.names and same_values(f.type, back.field(f.name).type)]


def split_write(rng, table, dirpath, name, sort_by=None, vary=None, prefer=None):
    """Write `table` as 1 to 3 files under dirpath (some may be empty); return descriptions.

    `vary(rng, part)`, when given, may change each file's table (e.g. its key column's type).
    `prefer="duckdb"` offers every table to DuckDB first (pyarrow writes it if DuckDB cannot)."""
    nfiles = rng.choice([1, 1, 1, 2, 3])
    n = table.num_rows
    cuts = sorted(rng.randint(0, n) for _ in range(nfiles - 1))
    bounds = [0] + cuts + [n]
    # A quarter of the tables by Polars and a fifth by DuckDB, every file of the table: train
    # then reads the data pages' headers of Polars' dictionary chunks (no page encoding
    # statistics in its footers), and the join probes DuckDB's Parquet Bloom filters. A table
    # such a writer cannot write as it is (a type, unit or time zone it changes, a type it
    # refuses) is written by pyarrow instead, the same draws from `rng` either way.
    pick = rng.random()
    other = []
    if prefer == "duckdb":
        other = ["duckdb"]
    elif pick < 0.25 and HAVE_POLARS and polars_may_keep(table.schema):
        other = ["polars"]
    elif 0.25 <= pick < 0.45:
        other = ["duckdb"]
    state = rng.getstate()
    for writer in other + ["pyarrow"]:
        rng.setstate(state)
        descs = []
        parts = []
        try:
            for i in range(nfiles):
                part = table.slice(bounds[i], bounds[i + 1] - bounds[i])
                if vary is not None:
                    part, how = vary(rng, part)
                    if how:
                        descs.append(f"file {i}: {how}")
                path = f"{dirpath}/{name}-{i}.parquet"
                descs.append(write_parquet(rng, part, path, sort_by=sort_by, writer=writer))
                parts.append((part, path))
                if writer == "duckdb":
                    # DuckDB 2.0 writes some files no other reader takes: version 2 pages of
                    # Date32 days near +-2^31 whose delta does not fit 32 bits (pyarrow: "InitBlock
                    # EOF", the parquet crate: "'min_delta' too large"; seed 2611301, join case
                    # 9). bloomjoin refuses those with exit 2, as it should; pyarrow writes them.
                    pq.read_table(path)
        except BaseException as e:  # Polars raises its Rust panics as BaseException
            if writer == "pyarrow" or isinstance(e, KeyboardInterrupt):
                raise
            continue
        if writer == "pyarrow" or all(
            len(p.schema) == len(w) and all(same_values(f.type, g.type) for f, g in zip(p.schema, w))
            for p, w in ((p, pq.read_schema(path)) for p, path in parts)
        ):
            return descs
    raise AssertionError("unreachable: pyarrow writes every table")


# ------------------------------------------------------------------------------ the where table

TS_UNITS = ["s", "ms", "us", "ns"]
PER_SECOND = {"s": 1, "ms": 1000, "us": 10**6, "ns": 10**9}
EPOCH = datetime.date(1970, 1, 1)


# The timestamp columns of the last where_table with a time zone.
ZONED = set()


def where_table(rng, nrows):
    """A table with one column of every type `--where` compares, and a unique row id `rid`.

    Returns (table, columns) where columns maps a name to its kind and facts the condition
    generator needs."""
    cols = {"rid": pa.array(range(nrows), pa.int64())}
    info = {}
    for name, (t, lo, hi) in INT_TYPES.items():
        pool = int_pool(rng, lo, hi, rng.randint(1, 12))
        cols[name] = pa.array(draw(rng, pool, nrows, null_frac(rng)), t)
        info[name] = ("int", name, pool)
    # Floats: specials and a few decimals, with their exact float32 rounding.
    fpool = [0.0, -0.0, 1.0, -1.0, 0.5, 0.1, 1.5, 2.0, 1e300, -1e300, float("inf"), float("-inf"),
             float("nan"), 3.4028234663852886e38, 16777217.0, 9007199254740993.0, 1e-45]
    for name, t in (("f32", pa.float32()), ("f64", pa.float64())):
        pool = rng.sample(fpool, rng.randint(1, len(fpool)))
        if name == "f32":
            pool = [v for v in pool if abs(v) < 3.5e38 or v != v or abs(v) == float("inf")]
        cols[name] = pa.array(draw(rng, pool, nrows, null_frac(rng)), t)
        info[name] = ("float", name, pool)
    # Decimals: one of random precision and scale, one DECIMAL(38,0) with huge values.
    p = rng.randint(1, 38)
    s = rng.randint(0, p)
    dpool = sorted({rand_decimal(rng, p, s) for _ in range(rng.randint(1, 10))})
    cols["dc"] = pa.array(draw(rng, dpool, nrows, null_frac(rng)), pa.decimal128(p, s))
    info["dc"] = ("decimal", (p, s), dpool)
    big = [decimal.Decimal(v) for v in (9007199254740993, 9007199254740992, 10**38 - 1, -(10**38) + 1, 0, 1, -1, 2**63, 2**64 - 1, -(2**63))]
    bpool = rng.sample(big, rng.randint(1, len(big)))
    cols["dec38"] = pa.array(draw(rng, bpool, nrows, null_frac(rng)), pa.decimal128(38, 0))
    info["dec38"] = ("decimal", (38, 0), bpool)
    # Dates and timestamps (zone-less and with zones; stored values are UTC instants).
    days = [d for d in INTERESTING_DAYS if -719162 <= d <= 2932896] + [rng.randint(-1000, 30000) for _ in range(5)]
    dpool = rng.sample(days, rng.randint(1, len(days)))
    cols["dt"] = pa.array(draw(rng, dpool, nrows, null_frac(rng)), pa.date32())
    info["dt"] = ("date", None, dpool)
    ZONED.clear()
    for unit in TS_UNITS:
        tz = rng.choice([None, None, "UTC", "+05:30", "America/New_York"])
        if tz:
            ZONED.add(f"ts_{unit}")
        pool = sorted({rand_instant(rng, unit, dpool) for _ in range(rng.randint(1, 8))})
        cols[f"ts_{unit}"] = pa.array(draw(rng, pool, nrows, null_frac(rng)), pa.timestamp(unit, tz))
        info[f"ts_{unit}"] = ("ts", unit, pool)
    spool = string_pool(rng, rng.randint(1, 12))
    cols["s"] = pa.array(draw(rng, spool, nrows, null_frac(rng)), pa.string())
    info["s"] = ("str", None, spool)
    lpool = string_pool(rng, rng.randint(1, 12))
    cols["ls"] = pa.array(draw(rng, lpool, nrows, null_frac(rng)), pa.large_string())
    info["ls"] = ("str", None, lpool)
    dspool = string_pool(rng, rng.randint(1, 6))
    cols["ds"] = pa.array(draw(rng, dspool, nrows, null_frac(rng)), pa.string()).dictionary_encode()
    info["ds"] = ("str", None, dspool)
    bpool2 = string_pool(rng, rng.randint(1, 10), binary=True)
    cols["b"] = pa.array(draw(rng, bpool2, nrows, null_frac(rng)), pa.binary())
    info["b"] = ("bin", None, bpool2)
    cols["bo"] = pa.array(draw(rng, [True, False], nrows, null_frac(rng)), pa.bool_())
    info["bo"] = ("bool", None, [True, False])
    return pa.table(cols), info


# Times of day: each unit's Arrow type (its nanoseconds per stored unit: 10**9 // PER_SECOND).
TIME_TYPES = {"s": pa.time32("s"), "ms": pa.time32("ms"), "us": pa.time64("us"), "ns": pa.time64("ns")}
DAY_NS = 86_400 * 10**9


def time_columns(rng, nrows):
    """Times of day of every unit (Time32 s/ms, Time64 us/ns) for a `--where` table: the edges
    (midnight, a nanosecond before the next one, values a nanosecond or a microsecond apart)
    and random ones. Returns (columns, info) as where_table's. The nanosecond column is of kind
    'time_ns': DuckDB's TIME_NS, which it compares with TIME only by `=` or after a cast."""
    h = 3723 * 10**9  # 01:02:03
    edges = [0, 1, 999, 1000, 10**6, 10**9, h, h + 1, h + 1000, h + 10**6, 43200 * 10**9,
             DAY_NS - 1, DAY_NS - 1000, DAY_NS - 10**9]
    cols, info = {}, {}
    for unit, t in TIME_TYPES.items():
        per = 10**9 // PER_SECOND[unit]
        ns = rng.sample(edges, rng.randint(1, 6)) + [rng.randrange(DAY_NS) for _ in range(rng.randint(0, 4))]
        pool = sorted({v // per for v in ns})
        cols[f"tm_{unit}"] = pa.array(draw(rng, pool, nrows, null_frac(rng)), t)
        info[f"tm_{unit}"] = ("time_ns" if unit == "ns" else "time", unit, pool)
    return cols, info


def time_lit(rng, kind, unit, pool):
    """A time-of-day literal near the column's values: `TIME '...'` (for DuckDB cast to TIME_NS
    against a nanosecond column) or a string, with up to 9 fractional digits."""
    per = 10**9 // PER_SECOND[unit]
    ns = rng.choice(pool) * per if pool and rng.random() < 0.7 else rng.randrange(DAY_NS)
    ns += rng.choice([0, 0, 0, 1, -1, 1000, -1000, 10**6, 10**9 // 2])
    ns = min(max(ns, 0), DAY_NS - 1)
    secs, frac = divmod(ns, 10**9)
    text = f"{secs // 3600:02d}:{secs // 60 % 60:02d}"
    if frac or secs % 60 or rng.random() < 0.8:
        text += f":{secs % 60:02d}"
    if frac:
        text += "." + f"{frac:09d}".rstrip("0")
    if rng.random() < 0.3:
        return Lit(f"'{text}'")
    if kind == "time_ns":
        return Lit(f"TIME '{text}'", f"CAST(TIME '{text}' AS TIME_NS)")
    return Lit(f"TIME '{text}'")


def rand_decimal(rng, p, s):
    digits = rng.choice([1, 2, p, rng.randint(1, p)])
    v = rng.randint(0, 10**digits - 1) if rng.random() < 0.7 else rng.choice([0, 1, 10**p - 1])
    v = min(v, 10**p - 1)
    if rng.random() < 0.4:
        v = -v
    return decimal.Decimal(f"{v}E-{s}")  # exact (scaleb would round to 28 digits)


INFINITE_TS = [2**63 - 1, -(2**63 - 1)]  # DuckDB's TIMESTAMP infinities, in any unit


def infinite_columns(rng, nrows):
    """A date and zone-less timestamps (microseconds, nanoseconds) holding DuckDB's infinities
    among finite values, for a `--where` table. Returns (columns, info) as where_table's. The
    info's pools, which literals draw from, hold the finite values only: the infinities are
    met by comparisons, parts (NULL), casts, date_trunc and arithmetic (they stay infinite)."""
    days = rng.sample([0, -1, 18262, 19000, -719162, 2932896], rng.randint(1, 3))
    cols = {"d_inf": pa.array(draw(rng, days + sorted(INFINITE_DAYS), nrows, null_frac(rng)), pa.date32())}
    info = {"d_inf": ("date", None, days)}
    for unit in ("us", "ns"):
        pool = sorted({rand_instant(rng, unit, days) for _ in range(rng.randint(1, 4))})
        cols[f"ts_inf_{unit}"] = pa.array(draw(rng, pool + INFINITE_TS, nrows, null_frac(rng)), pa.timestamp(unit))
        info[f"ts_inf_{unit}"] = ("ts", unit, pool)
    return cols, info


# Dates, timestamps and times of day as text, as CSV-born columns hold them (DuckDB's casts
# read most: one- and two-digit fields, other separators, spaces, offsets, zones, ` (BC)`,
# infinities), and text that is none of them.
WHEN_TEXTS = [
    "2024-01-05", "2024-1-5", " 2024-01-05 ", "2024/01/05", "2024 01 05", "2024-01-05 12:34:56",
    "2024-01-05T12:34:56.789", "2024-01-05 12:00:00+05:30", "2024-01-05 23:59:59.9999999",
    "2024-01-05 12:00:00 UTC", "2024-01-05 12:00:00 America/New_York", "2024-01-05 12:00:00Z",
    "1999-12-31", "1970-01-01 00:00:00", "1969-12-31 23:59:59.999999", "0001-01-01", "9999-12-31 23:59:59",
    "2020-06-15 (BC)", "2024-02-29", "2024-02-30", "2024-13-01", "2024-01-05abc", "2024-01-05 25:00", "junk", "",
    "12:30", "12:30:00", "24:00:00", "infinity", "-infinity", "epoch", "Infinity", "2024-01-05 24:00:00",
]


def when_text_columns(rng, nrows):
    """A string column holding dates, timestamps and times of day as text (WHEN_TEXTS), which
    CAST(... AS DATE | TIMESTAMP) reads, for a `--where` table. Returns (columns, info) as
    where_table's."""
    pool = rng.sample(WHEN_TEXTS, rng.randint(2, 8))
    return ({"s_when": pa.array(draw(rng, pool, nrows, null_frac(rng)), pa.string())},
            {"s_when": ("str", None, pool)})


def rand_instant(rng, unit, days):
    per = PER_SECOND[unit]
    day = rng.choice(days)
    if unit == "ns":
        day = max(min(day, 106000), -106000)  # int64 nanoseconds reach 1677..2262
    secs = day * 86400 + rng.choice([0, 0, 1, 59, 3600, 43200, 86399, rng.randint(0, 86399)])
    frac = rng.choice([0, 0, 1, per - 1, per // 2, rng.randint(0, per - 1)]) if per > 1 else 0
    return secs * per + frac


# ------------------------------------------------------------------------------ conditions


class Lit:
    """A literal: its bloomjoin text and its DuckDB text."""

    def __init__(self, bj, dk=None, tz=False):
        self.bj = bj
        self.dk = bj if dk is None else dk
        # A string with a UTC offset: typed, it is a TIMESTAMPTZ.
        self.tz = tz


def q(name):
    return '"' + name.replace('"', '""') + '"' if not name.isidentifier() or name.lower() in RESERVED else name


RESERVED = {"select", "from", "where", "and", "or", "not", "null", "true", "false", "in", "like", "is"}


def sql_str(s):
    # A command-line argument cannot hold NUL, and SQL strings have no escape for it.
    s = s.replace("\x00", "")
    return "'" + s.replace("'", "''") + "'"


def int_lit(rng, pool, lo, hi):
    r = rng.random()
    if r < 0.5 and pool:
        v = rng.choice(pool)
    elif r < 0.7:
        v = rng.choice(INTERESTING_INTS + [2**64, 2**64 + 1, -(2**63) - 1, 10**30, -(10**30)])
    else:
        v = rng.randint(-20, 20)
    if rng.random() < 0.15:
        # A decimal or an exponent literal near the value.
        form = rng.choice(["half", "zero", "exp"])
        if form == "half":
            return Lit(f"{v}.5")
        if form == "zero":
            return Lit(f"{v}.0")
        if abs(v) < 10**15:
            return Lit(f"{v}e0")
    return Lit(str(v))


def dec_lit(rng, pool, p, s):
    if pool and rng.random() < 0.6:
        v = rng.choice(pool)
    else:
        v = rand_decimal(rng, rng.randint(1, 38), rng.randint(0, 10))
    txt = format(v, "f")
    if rng.random() < 0.2 and "." in txt:
        txt = txt.rstrip("0").rstrip(".") or "0"
    return Lit(txt)


def float_lit(rng, pool):
    v = rng.choice(pool) if pool and rng.random() < 0.5 else rng.choice([0.0, -0.0, 0.1, 1.5, 2.0, 1e300, 16777217.0])
    if v != v or v in (float("inf"), float("-inf")):
        return Lit(rng.choice(["0", "1", "1e308", "-1e308", "0.1"]))
    if v == 0 and str(v).startswith("-"):
        return Lit("-0.0")
    return Lit(repr(v))


def date_text(day):
    return (EPOCH + datetime.timedelta(days=day)).isoformat()


# DuckDB's words for dates and timestamps, which the literals read too.
SPECIAL_WORDS = ["infinity", "-infinity", "epoch", "Infinity", "-inf", " epoch "]


def date_lit(rng, pool):
    if rng.random() < 0.05:
        t = rng.choice(SPECIAL_WORDS)
        return Lit(f"DATE '{t}'") if rng.random() < 0.5 else Lit(f"'{t}'")
    day = rng.choice(pool) if pool and rng.random() < 0.7 else rng.randint(-1000, 30000)
    day = max(min(day, 2932896), -719162)
    t = date_text(day)
    return Lit(f"DATE '{t}'") if rng.random() < 0.7 else Lit(f"'{t}'")


# UTC offsets a TIMESTAMPTZ literal or a string met by a zoned column may carry: (seconds
# east of UTC, texts DuckDB reads for it).
OFFSETS = [(0, ["Z", "+00", "-00:00", " UTC", " utc", " GMT", " Etc/UTC"]), (3600, ["+01", "+01:00", "+0100"]),
           (-18000, ["-05", "-05:00"]), (19800, ["+05:30", "+0530"]), (-34200, ["-09:30"]),
           (50400, ["+14", "+14:00"]), (3723, ["+01:02:03"])]


def ts_lit(rng, unit, pool, zoned=False):
    """A TIMESTAMP literal; nanosecond ones are TIMESTAMP_NS for DuckDB. Sometimes (1 in 5) a
    TIMESTAMPTZ literal with a UTC offset, or against a column with a time zone a string with
    one: the text's wall clock is the instant plus the offset."""
    if rng.random() < 0.05:
        t = rng.choice(SPECIAL_WORDS)
        if rng.random() < 0.2:
            return Lit(f"TIMESTAMPTZ '{t}'")
        return Lit(f"TIMESTAMP '{t}'") if rng.random() < 0.5 else Lit(f"'{t}'")
    per = PER_SECOND[unit]
    if pool and rng.random() < 0.7:
        v = rng.choice(pool)
        ns = v * (10**9 // per)
    else:
        ns = rand_instant(rng, "ns", [0, 18262, 19000])
    ns += rng.choice([0, 0, 0, 1, -1, 1000, 10**9 // 2])
    offset = None
    if rng.random() < 0.2:
        east, texts = rng.choice(OFFSETS)
        offset = rng.choice(texts)
        ns += east * 10**9
    secs, frac = divmod(ns, 10**9)
    day, sod = divmod(secs, 86400)
    if not (-719162 <= day <= 2932896):
        day = 0
    base = f"{date_text(day)} {sod // 3600:02d}:{sod // 60 % 60:02d}:{sod % 60:02d}"
    if frac:
        digits = f"{frac:09d}".rstrip("0")
        base += "." + digits
    if offset is not None:
        # A string with an offset against a zone-less column is refused (DuckDB drops it).
        if zoned and rng.random() < 0.5:
            return Lit(f"'{base}{offset}'", tz=True)
        word = rng.choice(["TIMESTAMPTZ", "TIMESTAMP WITH TIME ZONE", "timestamptz"])
        bj = f"{word} '{base}{offset}'"
        # DuckDB compares no TIMESTAMPTZ with a TIMESTAMP_NS (its text of a zone-less
        # nanosecond column): the same instant cast (UTC), as bloomjoin compares them.
        if unit == "ns" and not zoned:
            return Lit(bj, f"CAST({bj} AS TIMESTAMP_NS)")
        return Lit(bj)
    # DuckDB's literals of a precision, written alike for both (1 in 10): the text rounded to
    # milliseconds or seconds half away from zero, or kept to nanoseconds.
    if rng.random() < 0.1:
        word = rng.choice(["TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_US", "DATETIME", "timestamp_ns"])
        if word != "timestamp_ns" or -106751 <= day <= 106750:
            return Lit(f"{word} '{base}'")
    if frac and len(digits) > 6:
        return Lit(f"TIMESTAMP '{base}'", f"TIMESTAMP_NS '{base}'")
    if rng.random() < 0.15:
        return Lit(f"'{base}'")
    return Lit(f"TIMESTAMP '{base}'")


def str_lit(rng, pool):
    s = rng.choice(pool) if pool and rng.random() < 0.7 else rng.choice(STRINGS)
    return Lit(sql_str(s))


def bin_lit(rng, pool):
    v = rng.choice(pool) if pool and rng.random() < 0.7 else rng.choice(STRINGS).encode("utf-8")
    return bytes_lit(v)


def bytes_lit(v):
    """The literal of a binary value: ASCII as itself, other bytes as \\xHH (DuckDB's VARCHAR to BLOB)."""
    out = []
    for byte in v:
        c = chr(byte)
        if byte < 0x80 and c.isprintable() and c != "\\":
            out.append("''" if c == "'" else c)
        else:
            out.append(f"\\x{byte:02X}")
    return Lit("'" + "".join(out) + "'")


def literal_for(rng, info, name):
    kind, extra, pool = info[name]
    if kind == "int":
        _, lo, hi = INT_TYPES[extra]
        return int_lit(rng, pool, lo, hi)
    if kind == "float":
        return float_lit(rng, pool)
    if kind == "decimal":
        return dec_lit(rng, pool, *extra)
    if kind == "date":
        return date_lit(rng, pool)
    if kind == "ts":
        return ts_lit(rng, extra, pool, name in ZONED)
    if kind == "str":
        return str_lit(rng, pool)
    if kind == "bin":
        return bin_lit(rng, pool)
    if kind in ("time", "time_ns"):
        return time_lit(rng, kind, extra, pool)
    return Lit(rng.choice(["TRUE", "FALSE"]))


# Which column kinds compare with which (both bloomjoin and DuckDB agree these are valid).
COMPATIBLE = {
    "int": {"int", "decimal", "float"},
    "decimal": {"int", "decimal", "float"},
    "float": {"int", "decimal", "float"},
    "date": {"date", "ts"},
    "ts": {"date", "ts"},
    "str": {"str"},
    "bin": {"bin"},
    "bool": {"bool"},
    "time": {"time"},
    "time_ns": {"time_ns"},
}


def like_pattern(rng, pool, escape):
    base = rng.choice(pool) if pool and rng.random() < 0.5 else rng.choice(STRINGS)
    if isinstance(base, bytes):
        base = base.decode("utf-8", "replace")
    chars = list(base)
    out = []
    for c in chars:
        r = rng.random()
        if r < 0.15:
            out.append("%")
        elif r < 0.3:
            out.append("_")
        elif escape and c in ("%", "_", escape):
            out.append(escape + c)
        else:
            out.append(c)
    if rng.random() < 0.4:
        out.insert(rng.randint(0, len(out)), "%")
    if escape and rng.random() < 0.3:
        out.insert(rng.randint(0, len(out)), escape + rng.choice(["%", "_", escape]))
    pat = "".join(out)
    if escape and pat.endswith(escape) and not pat.endswith(escape + escape):
        pat += escape
    return pat


# ------------------------------------------------------------------------------ arithmetic

# Conditions may compute, with SQL's precedence (`*` over `+` and `-`, all over comparisons):
# numbers (integer and decimal columns, number literals without exponent) under `+`, `-`, `*`
# and unary `-`, which bloomjoin computes exactly up to 76 digits; a date plus or minus days
# (an integer column or literal: a date), a date minus a date (its days: an integer); a date or
# a timestamp plus or minus an INTERVAL of days, hours, minutes, seconds, milliseconds or
# microseconds (a timestamp). Floats, exponent literals, `/`, `%` and intervals of months or
# years bloomjoin refuses: never drawn here (nor counted in MIXED).
#
# DuckDB's text computes exactly or fails, never rounds or wraps:
# - DuckDB types `int32 + int32` as INTEGER and `int8 + 1` as TINYINT (the literal takes the
#   column's type), and fails on their overflow where bloomjoin is exact. So every operand of
#   a number's arithmetic (column or literal, integer or decimal of scale s) is cast to
#   DECIMAL(38, s): DuckDB's decimal arithmetic is exact or fails (20,000 random `(a op b) op
#   c` over such casts of DECIMAL(p, s) of 1 to 38 digits against Python's decimals: 14,138
#   exact answers, 5,862 errors of a result over 38 digits, none wrong), and it compares
#   decimals of any precision and scale exactly (`=`, `<`, IN and BETWEEN; DECIMAL(38,0)
#   9007199254740993 against DECIMAL(38,20) 9007199254740992.5 included). Each operand at 38
#   digits, not at its own type's: DuckDB multiplies two decimals of at most 18 digits in 64
#   bits and fails past 2^63 (uint32 * uint32 as DECIMAL(10,0): "Overflow in multiplication
#   of DECIMAL(18)"), where 38 digits hold the product. HUGEINT would hold hardly more (39
#   digits) and meets a decimal as DECIMAL(38, s), losing integer digits. Where DuckDB fails
#   (a value over 38 digits; a date out of its range), the case is "DuckDB can't say": fewer
#   cases decided, never a wrong reference. Products whose scale passes 38, which DuckDB
#   refuses whatever the rows, and results over bloomjoin's 76 digits (by the types'
#   precision), are not drawn. A remainder (mk_rem) is the exception: its operands go at
#   their own precision, since DuckDB computes one of two DECIMAL(38, s) as a DOUBLE.
# - DuckDB adds days to a date only as an INTEGER (no DATE + BIGINT): the days are cast to
#   INTEGER.
# - Dates and their results stay within the years 1 to 9999 give or take a few thousand
#   years: the days added are columns whose values stay within +-10^6 (DAYS_MAX) and literals
#   up to 10^6, and only date columns whose values are in the years 1..9999 compute. Out of
#   that, the engines part ways where neither is wrong: bloomjoin fails the job ("a date plus
#   that many days is out of the range of dates", "the timestamp is out of range") as soon as
#   any row's result leaves Date32 or the timestamps, where DuckDB fails only for a row it
#   evaluates (`a OR dt + 2147483647 > x` skips the rows where `a` holds: DuckDB answers,
#   bloomjoin fails; seed 7, where 1081), and DuckDB's dates +-(2^31 - 1) are its infinities,
#   which stay infinite under arithmetic (`infinity - 5` is infinity, and `-infinity -
#   INTERVAL 519 HOUR` -infinity where bloomjoin fails, out of the timestamps' range; seed 7,
#   join 275).
# - DuckDB keeps nanoseconds in TIMESTAMP_NS + INTERVAL (checked: '2020-01-01
#   00:00:00.123456789' + INTERVAL '1 day' is '2020-01-02 00:00:00.123456789', and
#   TIMESTAMPTZ_NS alike) and fails where a result leaves its range (1677..2262): nanosecond
#   columns take intervals too.
# - DuckDB refuses to compare a TIMESTAMPTZ with a TIMESTAMP_NS (a binder error, whatever the
#   rows): in DuckDB's text a timestamp column is cast to TIMESTAMP (TIMESTAMP_NS for
#   nanoseconds), in the UTC session its UTC time, the same instant (a no-op without a zone).
# - The partners of a date or timestamp result are DATE / TIMESTAMP literals, never bare
#   strings (whose typing against an expression no one documents alike).

ARITH_SHARE = 0.2  # of the predicates on a number, date or timestamp column (and of --join-where's)
ATOM, PRODUCT, SUM = 3, 2, 1  # precedence: where an operand needs parentheses
# Decimal digits of each integer type's range (bloomjoin's precision of its arithmetic).
INT_DIGITS = {"int8": 3, "int16": 5, "int32": 10, "int64": 19, "uint8": 3, "uint16": 5, "uint32": 10, "uint64": 20}
MAX_DIGITS = 76  # bloomjoin's exact arithmetic
INTERVAL_UNITS = ["day", "hour", "minute", "second", "millisecond", "microsecond"]  # largest first
CMP_OPS = ["=", "==", "<>", "!=", "<", "<=", ">", ">="]


class Ex:
    """An operand of arithmetic: bloomjoin's text, DuckDB's, its kind ('num', 'date', 'ts',
    'interval'; and of functions 'float', 'str', 'bin', 'bool', 'xdate'), for numbers its
    exact (precision, scale), its precedence and the names of the columns it reads."""

    def __init__(self, bj, dk, kind, ps=None, prec=ATOM, used=(), val=None, bjps=None):
        self.bj, self.dk, self.kind, self.ps, self.prec, self.used = bj, dk, kind, ps, prec, set(used)
        self.val = val  # a literal's value, where known (lit_from_text): to order BETWEEN's bounds
        # A number's (precision, scale) as bloomjoin types it (`ps` bounds its values): a
        # column's type, a literal's digits, and a computed value a decimal of 38 or 76 digits
        # (arith::decimal). coalesce() types its arguments by it (see the functions' section).
        self.bjps = bjps if bjps is not None else ps
        self.mirror = None  # functions: the same call on another column (func_partner)
        self.hint = None  # functions: literal texts its values are likely to meet
        self.source = None  # functions: an argument it is worth comparing with (func_partner)
        self.zoned = False  # a timestamp with a time zone, as bloomjoin types it (a column, to_timestamp)


class Operand:
    """A column arithmetic may read: kind 'num' (`ps` its type's (precision, scale), `days`
    whether it may count a date's days: an integer column whose values stay within
    +-DAYS_MAX), 'date' or 'ts' (`unit` its unit); `refs(rng)` gives its (bloomjoin text,
    DuckDB text), `lit(rng)` a Lit of its kind."""

    def __init__(self, name, kind, refs, lit, ps=None, days=False, unit=None, integer=False):
        self.name, self.kind, self.refs, self.lit, self.ps, self.days = name, kind, refs, lit, ps, days
        self.unit = unit
        self.integer = integer  # a column of an integer type (not a DECIMAL of scale 0)
        self.zoned = False  # a timestamp column with a time zone (ZONED)


DAYS_MAX = 10**6  # days added to a date: a date of the years 1..9999 stays a date, a timestamp
MIN_DAY, MAX_DAY = -719162, 2932896  # 0001-01-01 and 9999-12-31, days since the epoch


def days_ok(pool):
    """Whether an integer column's values (its pool) may count days (see above)."""
    return all(-DAYS_MAX <= v <= DAYS_MAX for v in pool if isinstance(v, int))


def dates_ok(pool):
    """Whether a date column's values (its pool of days) are in the years 1..9999 (or it is a
    pool of literals, a partition column's)."""
    return all(MIN_DAY <= v <= MAX_DAY for v in pool if isinstance(v, int))


def where_operands(info, names):
    """The Operands of the columns `names` of a `--where` table's `info`."""
    ops = []
    for n in names:
        kind, extra, pool = info[n]
        refs = lambda rng, n=n: (q(n), q(n))
        lit = lambda rng, n=n: literal_for(rng, info, n)
        if kind == "int":
            ops.append(Operand(n, "num", refs, lit, (INT_DIGITS[extra], 0), days=days_ok(pool), integer=True))
        elif kind == "decimal":
            ops.append(Operand(n, "num", refs, lit, tuple(extra)))
        elif kind == "date" and dates_ok(pool):
            ops.append(Operand(n, kind, refs, lit))
        elif kind == "ts":
            ops.append(Operand(n, kind, refs, lit, unit=extra))
            ops[-1].zoned = n in ZONED
    return ops


def number_ps(text):
    """(precision, scale) of a plain number literal: its digits (at least one), its fraction's."""
    whole, _, frac = text.lstrip("+-").partition(".")
    return max(len(whole.lstrip("0")) + len(frac), 1), len(frac)


def plain_number(text):
    """Whether a literal is a number without exponent (not a float)."""
    t = text.lstrip("+-")
    return t.count(".") <= 1 and any(c.isdigit() for c in t) and all(c.isdigit() or c == "." for c in t)


def num_lit_ex(text):
    """A number literal, DuckDB's cast to DECIMAL(38, its scale) (None over 38 digits)."""
    p, s = number_ps(text)
    if p > 38:
        return None
    # bloomjoin types a literal by its digits, as DuckDB.
    return Ex(text, f"CAST({text} AS DECIMAL(38,{s}))", "num", (p, s), bjps=(p, s))


def col_ex(rng, op):
    """A column; DuckDB's numbers as DECIMAL(38, scale), so that their arithmetic is exact,
    and its timestamps without their zone (see above)."""
    bj, dk = op.refs(rng)
    if op.kind == "num":
        dk = f"CAST({dk} AS DECIMAL(38,{op.ps[1]}))"
    elif op.kind == "ts":
        dk = f"CAST({dk} AS {'TIMESTAMP_NS' if op.unit == 'ns' else 'TIMESTAMP'})"
    e = Ex(bj, dk, op.kind, op.ps, ATOM, {op.name})
    e.zoned = op.zoned
    e.integer = op.integer
    return e


def side(rng, e, need):
    """An operand's texts, in parentheses where its precedence is below `need`, and sometimes
    where it is not (they change nothing)."""
    if e.prec < need or rng.random() < 0.1:
        return f"({e.bj})", f"({e.dk})"
    return e.bj, e.dk


def binary(rng, op, a, b, kind, ps=None):
    """a op b: a left operand in parentheses below the operator's precedence, a right one at
    it too (a - (b - c), a * (b * c))."""
    k = PRODUCT if op == "*" else SUM
    abj, adk = side(rng, a, k)
    bbj, bdk = side(rng, b, k + 1)
    bjps = None
    if kind == "num" and a.kind == "num" and b.kind == "num":
        bjps = computed_width(op, a.bjps or (MAX_DIGITS, a.ps[1]), b.bjps or (MAX_DIGITS, b.ps[1]))
    return Ex(f"{abj} {op} {bbj}", f"{adk} {op} {bdk}", kind, ps, k, a.used | b.used, bjps=bjps)


def negate(rng, e):
    """-e: a column or literal as it is (`-a`), anything else (and a negative literal, which
    would read `--`, a comment) in parentheses."""
    if e.prec == ATOM and not e.bj.startswith("-") and rng.random() < 0.7:
        bj, dk = e.bj, e.dk
    else:
        bj, dk = f"({e.bj})", f"({e.dk})"
    p, s = e.bjps or (MAX_DIGITS, e.ps[1])
    return Ex(f"-{bj}", f"-{dk}", "num", e.ps, ATOM, e.used, bjps=(decimal_width(p), s))


def decimal_width(p):
    """The precision of the decimal bloomjoin computes `p` digits in (arith::decimal)."""
    return 38 if p <= 38 else MAX_DIGITS


def computed_width(op, a, b):
    """(precision, scale) of the decimal bloomjoin's `a op b` is, by its operands' types
    (arith::numbers: the precision at most 76, then 38 or 76)."""
    (p1, s1), (p2, s2) = a, b
    if op == "*":
        p, s = p1 + p2, s1 + s2
    else:
        p, s = max(p1 - s1, p2 - s2) + max(s1, s2) + 1, max(s1, s2)
    return decimal_width(min(p, MAX_DIGITS)), s


def num_ps(op, a, b):
    """(precision, scale) of a op b as bloomjoin types it, or None if DuckDB refuses it for any
    rows (a product's scale over 38) or it passes bloomjoin's 76 digits."""
    (p1, s1), (p2, s2) = a.ps, b.ps
    if op == "*":
        p, s = p1 + p2, s1 + s2
        if s > 38:
            return None
    else:
        s = max(s1, s2)
        p = max(p1 - s1, p2 - s2) + s + 1
    return (p, s) if p <= MAX_DIGITS else None


def num_lit(rng, ops):
    """A number literal (no exponent) from a number column's values, or a small one."""
    nums = [o for o in ops if o.kind == "num"]
    for _ in range(5):
        if nums and rng.random() < 0.75:
            text = rng.choice(nums).lit(rng).bj
        else:
            text = str(rng.choice([0, 1, 2, 3, 7, 10, 100, -1, -3, rng.randint(-30, 30)]))
            if rng.random() < 0.2:
                text += rng.choice([".5", ".25", ".0", ".125"])
        if plain_number(text):
            e = num_lit_ex(text)
            if e is not None:
                return e
    return num_lit_ex("2")


def num_leaf(rng, ops, first=None):
    if first is not None:
        return col_ex(rng, first)
    nums = [o for o in ops if o.kind == "num"]
    if nums and rng.random() < 0.55:
        return col_ex(rng, rng.choice(nums))
    return num_lit(rng, ops)


def num_ex(rng, ops, depth=0, first=None, need_op=False):
    """A number: a column or literal, or (`need_op`: surely) arithmetic over them, reading the
    number column `first` if given."""
    r = rng.random()
    if not need_op and (depth >= 2 or r < 0.5):
        return num_leaf(rng, ops, first)
    if r < 0.1 and first is None and any(o.kind == "date" for o in ops):
        return date_diff(rng, ops, depth)
    if r < 0.22:
        return negate(rng, num_ex(rng, ops, depth + 1, first))
    op = rng.choice(["+", "-", "*", "*"])
    a = num_ex(rng, ops, depth + 1, first)
    if op == "*" and rng.random() < 0.6:
        # Mostly by a small factor: DuckDB's 38 digits overflow on a product of two columns
        # of large values (can't say), where bloomjoin's 76 hold it.
        b = num_lit_ex(str(rng.choice([0, 1, 2, 2, 3, 10, -1, -2, 100])))
    else:
        b = num_ex(rng, ops, depth + 1)
    if rng.random() < 0.3:
        a, b = b, a
    for op in (op, "+", "-"):
        ps = num_ps(op, a, b)
        if ps:
            return binary(rng, op, a, b, "num", ps)
    # Over 76 digits either way: the operand holding `first`, negated.
    return negate(rng, a if first is None or first.name in a.used else b)


def days_ex(rng, ops):
    """Days to add to a date: an integer column or literal within +-DAYS_MAX, DuckDB's as
    INTEGER."""
    ints = [o for o in ops if o.kind == "num" and o.days]
    if ints and rng.random() < 0.5:
        o = rng.choice(ints)
        bj, dk = o.refs(rng)
        return Ex(bj, f"CAST({dk} AS INTEGER)", "num", o.ps, ATOM, {o.name})
    r = rng.random()
    if r < 0.65:
        v = rng.randint(-40, 40)
    elif r < 0.85:
        v = rng.choice([365, -365, 36524, -36524, DAYS_MAX, -DAYS_MAX])
    else:
        text = rng.choice(ints).lit(rng).bj if ints else "7"
        v = int(text) if text.lstrip("-").isdigit() and abs(int(text)) <= DAYS_MAX else 7
    return Ex(str(v), f"CAST({v} AS INTEGER)", "num", number_ps(str(v)), ATOM)


def time_lit_ex(rng, ops, kind):
    """A DATE (kind 'date') or TIMESTAMP literal from a column's values, never a bare string."""
    srcs = [o for o in ops if o.kind == kind]
    if srcs and rng.random() < 0.8:
        lit = rng.choice(srcs).lit(rng)
    else:
        lit = date_lit(rng, []) if kind == "date" else ts_lit(rng, "us", [])
    return typed_lit_ex(lit, kind)


def typed_lit_ex(lit, kind):
    """The Ex of a DATE (kind 'date') or timestamp Lit, a bare string typed (a TIMESTAMPTZ
    where it carries a UTC offset)."""
    bj, dk = lit.bj, lit.dk
    if bj.startswith("'"):
        word = "DATE" if kind == "date" else "TIMESTAMPTZ" if lit.tz else "TIMESTAMP"
        bj, dk = f"{word} {bj}", f"{word} {dk}"
    e = Ex(bj, dk, kind)
    e.zoned = re.match(r"(TIMESTAMPTZ|TIMESTAMP WITH TIME ZONE) ", bj, re.I) is not None
    return e


def time_leaf(rng, ops, kind, first=None):
    """A date or timestamp (`kind`) operand: `first`, else a column of that kind or a literal."""
    if first is not None:
        return col_ex(rng, first)
    same = [o for o in ops if o.kind == kind]
    if same and rng.random() < 0.6:
        return col_ex(rng, rng.choice(same))
    return time_lit_ex(rng, ops, kind)


def date_leaf(rng, ops, first=None):
    return time_leaf(rng, ops, "date", first)


def date_ex(rng, ops, depth=0, first=None, need_op=False):
    """A date: a date column or literal, or plus or minus days (d + n, n + d, d - n)."""
    r = rng.random()
    if not need_op and (depth >= 2 or r < 0.55):
        return date_leaf(rng, ops, first)
    base = date_ex(rng, ops, depth + 1, first)
    return plus_or_minus(rng, base, days_ex(rng, ops), "date")


def plus_or_minus(rng, base, delta, kind):
    """base + delta, delta + base or base - delta, a `kind` (a date plus days, a date or a
    timestamp plus an interval)."""
    form = rng.random()
    if form < 0.45:
        return binary(rng, "+", base, delta, kind)
    if form < 0.65:
        return binary(rng, "+", delta, base, kind)
    return binary(rng, "-", base, delta, kind)


def date_diff(rng, ops, depth, first=None):
    """d1 - d2: their days apart, an integer (DuckDB's BIGINT, as DECIMAL(38, 0) there)."""
    a = date_ex(rng, ops, depth + 1, first)
    b = date_ex(rng, ops, depth + 1)
    if rng.random() < 0.3:
        a, b = b, a
    abj, adk = side(rng, a, SUM)
    bbj, bdk = side(rng, b, SUM + 1)
    return Ex(f"{abj} - {bbj}", f"CAST({adk} - {bdk} AS DECIMAL(38,0))", "num", (19, 0), SUM, a.used | b.used,
              bjps=(38, 0))


def interval_lit(rng):
    """An INTERVAL of days down to microseconds: `'3 days'`, `2 HOUR`, `'1 day 2 hours'`, and
    rarely negative (`'-3 days'`). At most 300 days and 100 of a smaller unit: two of them keep
    a nanosecond column's instants (of days within +-106,000) in its range (+-106,751 days);
    past it bloomjoin fails the job and DuckDB the query (seed 100, where 1196)."""
    unit = rng.choice(INTERVAL_UNITS)
    n = rng.choice([0, 1, 1, 2, 3, 7, 24, 30, 59, 60, 90, 300, rng.randint(0, 300)])
    form = rng.random()
    if form < 0.4:
        t = f"INTERVAL '{n} {unit}{'s' if n != 1 or rng.random() < 0.3 else ''}'"
    elif form < 0.75:
        t = f"INTERVAL {n} {unit.upper()}"
    elif form < 0.92:
        u1, u2 = sorted(rng.sample(INTERVAL_UNITS, 2), key=INTERVAL_UNITS.index)
        t = f"INTERVAL '{n} {u1}s {rng.randint(0, 100)} {u2}s'"
    else:
        t = f"INTERVAL '-{n} {unit}s'"
    return Ex(t, t, "interval")


def ts_leaf(rng, ops, first=None):
    return time_leaf(rng, ops, "ts", first)


def ts_ex(rng, ops, depth=0, first=None, need_op=False):
    """A timestamp: a timestamp column or literal, or a date or timestamp plus or minus an
    INTERVAL (t + i, i + t, t - i). With a date `first`, over that date."""
    dated = first is not None and first.kind == "date"
    r = rng.random()
    if not need_op and (depth >= 2 or r < 0.5):
        return date_ex(rng, ops, depth, first) if dated else ts_leaf(rng, ops, first)
    if dated or (first is None and rng.random() < 0.35):
        base = date_ex(rng, ops, depth + 1, first)
    else:
        base = ts_ex(rng, ops, depth + 1, first)
    return plus_or_minus(rng, base, interval_lit(rng), "ts")


def lit_from_text(kind, text):
    """A literal Ex of a value as DuckDB's VARCHAR gives it (None if no literal says it: a
    year outside 1..9999 or before Christ)."""
    if kind == "num":
        try:
            v = decimal.Decimal(text)
        except decimal.InvalidOperation:
            return None
        e = num_lit_ex(format(v, "f"))
        if e is not None:
            e.val = v
        return e
    if kind == "date":
        if re.fullmatch(r"\d{4}-\d\d-\d\d", text):
            return Ex(f"DATE '{text}'", f"DATE '{text}'", "date", val=text)
        return None
    if kind in ("time", "time_ns"):
        # A time of day (whole microseconds for a TIME literal of ours, as DuckDB's TIME):
        # DuckDB's TIME_NS for a nanosecond column, which it compares with TIME only by `=`.
        m = re.fullmatch(r"\d\d:\d\d:\d\d(?:\.(\d+))?", text)
        if not m or (m.group(1) and len(m.group(1).rstrip("0")) > 6):
            return None
        word = "TIME_NS" if kind == "time_ns" else "TIME"
        return Ex(f"TIME '{text}'", f"{word} '{text}'", kind, val=text)
    text = re.sub(r"\+00(:00)?$", "", text)  # a TIMESTAMPTZ in UTC
    m = re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.(\d+))?", text)
    if not m:
        return None
    word = "TIMESTAMP_NS" if m.group(1) and len(m.group(1).rstrip("0")) > 6 else "TIMESTAMP"
    return Ex(f"TIMESTAMP '{text}'", f"{word} '{text}'", "ts", val=text)


def cmp_lit(rng, ops, a, values=None):
    """A literal to compare `a` with: one of its values on some rows (`values`, when given and
    it has some), else from the columns' values."""
    if values is not None and rng.random() < 0.85:
        got = [x for x in (lit_from_text(a.kind, t) for t in values(a.dk)) if x is not None]
        if got:
            return rng.choice(got)
    if a.kind == "num":
        return num_lit(rng, ops)
    return time_lit_ex(rng, ops, rng.choice(["date", "ts"]) if rng.random() < 0.3 else a.kind)


def arith_predicate(rng, ops, first, values=None):
    """A predicate computing over the columns `ops` (Operands), reading `first`: (bloomjoin
    text, DuckDB text, the names of the columns read). `values(dk)`, when given, lists the
    values (DuckDB's VARCHAR) a DuckDB expression takes on some rows: literals cut those rows."""
    if first.kind == "num":
        a = num_ex(rng, ops, first=first, need_op=True)
    elif first.kind == "date":
        r = rng.random()
        if r < 0.4:
            a = date_ex(rng, ops, first=first, need_op=True)
        elif r < 0.75:
            a = ts_ex(rng, ops, first=first, need_op=True)
        else:
            a = date_diff(rng, ops, 0, first)
    else:
        a = ts_ex(rng, ops, first=first, need_op=True)
    fam = {"num"} if a.kind == "num" else {"date", "ts"}
    cols = [o for o in ops if o.kind in fam]

    def partner(arith=0.25):
        """A literal, a column or (`arith` of the time) more arithmetic over a column, of a's
        family. Literals cutting a's values (`values`) the more often."""
        r = rng.random()
        if r < 1 - arith:
            if r < (0.6 if values is not None else 0.45) or not cols:
                return cmp_lit(rng, ops, a, values)
            return col_ex(rng, rng.choice(cols))
        f = rng.choice(cols) if cols else None
        if a.kind == "num":
            return num_ex(rng, ops, first=f, need_op=True)
        if f is not None and f.kind == "date" and rng.random() < 0.4:
            return date_ex(rng, ops, first=f, need_op=True)
        return ts_ex(rng, ops, first=f, need_op=True)

    form = rng.random()
    if form < 0.55:
        b = partner()
        x, y = (a, b) if rng.random() < 0.75 else (b, a)
        op = rng.choice(CMP_OPS)
        if values is not None and b.val is None and rng.random() < 0.7:
            # Two computed values are seldom equal: mostly an order, which cuts pairs.
            op = rng.choice(["<", "<=", ">", ">="])
        (xb, xd), (yb, yd) = side(rng, x, 0), side(rng, y, 0)
        return f"{xb} {op} {yb}", f"{xd} {op} {yd}", x.used | y.used
    if form < 0.75:
        lo, hi = partner(), partner()
        if lo.val is not None and hi.val is not None and type(lo.val) is type(hi.val) and lo.val > hi.val and rng.random() < 0.85:
            lo, hi = hi, lo  # values of a: mostly a range that holds some
        x = a
        if rng.random() < 0.3:
            # A plain operand between bounds one of which computes.
            x, lo = partner(arith=0), a
            if rng.random() < 0.5:
                lo, hi = hi, lo
        neg = "NOT " if rng.random() < 0.25 else ""
        ns_list([x, lo, hi])
        return (f"{x.bj} {neg}BETWEEN {lo.bj} AND {hi.bj}", f"{x.dk} {neg}BETWEEN {lo.dk} AND {hi.dk}",
                x.used | lo.used | hi.used)
    return in_or_null(rng, a, form < 0.93,
                      lambda: partner(arith=0.1) if rng.random() < 0.3 else cmp_lit(rng, ops, a, values))


# bloomjoin's literals DuckDB types TIMESTAMP_NS: written so, or a TIMESTAMP with digits past
# the microsecond (expr::parse::ns_lists).
NS_TYPED = re.compile(r"(?i)(?:timestamp_ns '|cast\('[^']*' as timestamp_ns\)|timestamp '[^']*\.\d{6}(?:[1-9]\d{0,2}|\d[1-9]\d?|\d\d[1-9])')")
# A string literal with a UTC offset or a zone's name after its time.
ZONED_TEXT = re.compile(r"'[^']*\d\d:\d\d(?::\d\d(?:\.\d*)?)?(?:Z|[+-][\d:]+| [A-Za-z][\w/+\-:]*)'")


def ns_list(items):
    """DuckDB binds an IN list (or BETWEEN's operands) with a TIMESTAMP_NS literal to
    TIMESTAMP_NS, even of a zoned operand, and drops a string's time zone there (fuzz seed 186,
    where 187); bloomjoin reads the strings as TIMESTAMP_NS too and refuses one with a time
    zone (expr::parse::ns_lists). So where a list holds such a literal, its strings with a time
    zone are typed TIMESTAMPTZ in both texts (the instant, which both engines compare alike).
    `items` are Lit or Ex; changed in place."""
    # A member DuckDB's text types TIMESTAMP_NS: a literal, or a nanosecond column (its text
    # is zone-less there, so a zoned one counts too).
    if not any(NS_TYPED.match(i.bj) or "TIMESTAMP_NS" in i.dk for i in items):
        return
    for i in items:
        if ZONED_TEXT.fullmatch(i.bj):
            i.bj = i.dk = f"TIMESTAMPTZ {i.bj}"
        elif (m := re.fullmatch(r"'(-?\d+)-\d.*'", i.bj)) and not 1677 <= int(m.group(1)) <= 2262:
            # A string outside TIMESTAMP_NS's years: both refuse the list (counted in MIXED).
            MIXED[0] += 1


def in_or_null(rng, a, in_list, item):
    """`a [NOT] IN (items...)` of 1 to 4 item() and maybe NULL (in_list), else `a IS [NOT]
    NULL`: (bloomjoin text, DuckDB text, the columns used)."""
    if in_list:
        items = [item() for _ in range(rng.randint(1, 4))]
        if rng.random() < 0.2:
            items.insert(rng.randint(0, len(items)), null_ex(a.kind))
        ns_list([a] + items)
        neg = "NOT " if rng.random() < 0.3 else ""
        used = set(a.used).union(*(i.used for i in items))
        return (f"{a.bj} {neg}IN ({', '.join(i.bj for i in items)})",
                f"{a.dk} {neg}IN ({', '.join(i.dk for i in items)})", used)
    t = f"IS {'NOT ' if rng.random() < 0.5 else ''}NULL"
    return f"{a.bj} {t}", f"{a.dk} {t}", a.used


# ------------------------------------------------------------------------------ functions

# Conditions may call functions (FUNC_SHARE of the predicates, in `where` conditions and in
# --join-where's): lower, upper and length of strings; the string functions substr (substring,
# SUBSTRING(s FROM a FOR b), left, right, with small integer literals: DuckDB refuses starts and
# lengths beyond +-2^32), trim (ltrim, rtrim, TRIM(LEADING c FROM s)), replace, concat and ||,
# strpos (instr, position(p IN s)), and the booleans starts_with (prefix), ends_with (suffix)
# and contains, their needles mostly pieces of the columns' values; abs of numbers and floats; coalesce of
# one kind; CAST / TRY_CAST / `::` to DATE and to TIMESTAMP of dates and timestamps (and of
# string literals); the parts of dates and timestamps (`year(x)`, `EXTRACT(week FROM x)`,
# `date_part('dow', x)`); `date_trunc('unit', x)`, `date_diff` and `date_sub`, `last_day`,
# `epoch_ms`, `epoch_us` and `epoch_ns` (BIGINTs), `epoch` and `julian` (DOUBLEs, also as
# `date_part` and `EXTRACT`) of dates and timestamps; `to_timestamp` of numbers, floats and
# instants' seconds; `make_date` of parts, literals and whole columns; `strftime` of dates
# and timestamps in formats of random specifiers; `strptime` and `try_strptime` of strings
# (the dates-as-text column's formats, and random ones); and `IS [NOT]
# DISTINCT FROM` over any comparable pair. Calls nest
# (`length(lower(s))`, `year(coalesce(d, DATE '2020-01-01'))`), take arithmetic (`abs(a - b)`,
# `CAST(ts + INTERVAL '3 hours' AS DATE)`) and compute on (`year(d) + 1`, `coalesce(a, 0) * 2`,
# `CAST(ts AS DATE) + 3`), under comparisons, IN, BETWEEN, LIKE / ILIKE, IS [NOT] NULL and IS
# [NOT] DISTINCT FROM with literals (mostly values the expression takes on some rows: `values`),
# columns, or the same call on another column (`lower(left.ls) = lower(right.rs)`).
#
# Where DuckDB's function of the same name is not exact, its text says it exactly (checked in
# DuckDB 2.0.1 with TimeZone 'UTC'):
# - abs: of a number's DECIMAL(38, s) text, as arithmetic's operands (DuckDB's abs of a
#   TINYINT -128 fails: "Overflow on abs").
# - coalesce of numbers: DuckDB types coalesce(DECIMAL(38,0), DECIMAL(38,20)) as DECIMAL(38,0)
#   and so rounds the second's values (coalesce(NULL, 1.5) gives 2): its text casts every
#   argument to DECIMAL(38, S), S the largest scale, which keeps every value or fails on one
#   over 38 digits ("DuckDB can't say"), never rounds. Arguments whose integer digits and S
#   pass 38 are mostly left out. bloomjoin types coalesce's numbers by their types (`bjps`):
#   one whose integer digits and scale pass 76 it refuses, so it is never drawn.
# - coalesce with floats: the arguments as they are (a FLOAT, DOUBLE, integer or decimal
#   column, a float literal), DuckDB's FLOAT or DOUBLE as ours; binary only of columns (a
#   string literal is no binary to bloomjoin, which refuses coalesce(b, 'x')).
# - A nanosecond timestamp: DuckDB truncates TIMESTAMP_NS toward zero to microseconds in
#   CAST(x AS DATE), in every part (year(TIMESTAMP_NS '1969-12-31 23:59:59.999999999') is
#   1970) and in CAST(x AS TIMESTAMP); bloomjoin floors the instant and keeps nanoseconds. So
#   DuckDB's text floors it first, exactly: make_timestamp((epoch_ns(x) - ((epoch_ns(x) %
#   1000) + 1000) % 1000) // 1000) (checked against Python on 20,000 instants of 1677..2262),
#   and CAST(x AS TIMESTAMP) of a TIMESTAMP_NS is x itself; a string literal with digits below
#   the microsecond is CAST(... AS TIMESTAMP_NS).
# - Parts: DuckDB's date_part with the part's full name whatever the name bloomjoin's text uses
#   (DuckDB has no `yyyy`, no dow() or doy() functions). DuckDB's infinite dates (days +-(2^31
#   - 1), which some join keys hold) have NULL parts in both engines (bloomjoin gave the year
#   5,881,580 until the fix this fuzzer's infinite_columns now guards, and the parts of such
#   columns were not drawn). Dates outside the years 1..9999 ('xdate': parts, CAST AS DATE,
#   coalesce with dates, comparisons with dates) get no CAST AS TIMESTAMP or coalesce with
#   timestamps: bloomjoin converts a whole column and fails the job on a finite date no
#   timestamp holds, DuckDB only on a row it reaches. Timestamps are those arithmetic takes (see above), within DuckDB's range.
# - EXTRACT takes the names both parsers read (year(s), month(s), dow, doy, ...; not `y`,
#   `mon`, `weekofyear`, which bloomjoin's parser does not take as EXTRACT fields).

FUNC_SHARE = 0.15  # of the predicates of `where` conditions and of --join-where's
BAD_CALL_SHARE = 0.05  # of the `where` kind's function predicates: a call bloomjoin refuses

# DuckDB's part name: (names both take as functions, names both take in EXTRACT, in date_part)
PARTS = {
    "year": (["year"], ["year", "years"], ["year", "years", "y", "yr", "yrs"]),
    "quarter": (["quarter"], ["quarter"], ["quarter", "quarters"]),
    "month": (["month"], ["month", "months"], ["month", "months", "mon", "mons"]),
    "week": (["week", "weekofyear"], ["week", "weeks"], ["week", "weeks", "w", "weekofyear"]),
    "day": (["day", "dayofmonth"], ["day", "days"], ["day", "days", "d", "dayofmonth"]),
    "hour": (["hour"], ["hour", "hours"], ["hour", "hours", "h", "hr", "hrs"]),
    "minute": (["minute"], ["minute", "minutes"], ["minute", "minutes", "m", "min", "mins"]),
    "second": (["second"], ["second", "seconds"], ["second", "seconds", "s", "sec", "secs"]),
    "dayofweek": (["dayofweek", "weekday"], ["dayofweek", "dow"], ["dayofweek", "dow", "weekday"]),
    "isodow": (["isodow"], ["isodow"], ["isodow"]),
    "dayofyear": (["dayofyear"], ["dayofyear", "doy"], ["dayofyear", "doy"]),
    "isoyear": (["isoyear"], ["isoyear"], ["isoyear"]),
    "millisecond": (["millisecond"], ["millisecond", "milliseconds"], ["millisecond", "ms", "msecs"]),
    "microsecond": (["microsecond"], ["microsecond", "microseconds"], ["microsecond", "us", "usec"]),
    "decade": (["decade"], ["decade"], ["decade", "decades", "dec"]),
    "century": (["century"], ["century"], ["century", "cent", "c"]),
    "millennium": (["millennium"], ["millennium"], ["millennium", "millennia", "mil"]),
    "era": (["era"], ["era"], ["era"]),
    "yearweek": (["yearweek"], ["yearweek"], ["yearweek"]),
}
# Values each part often takes, for literals where no values are known.
PART_VALUES = {
    "year": [1, 1677, 1899, 1969, 1970, 1971, 2000, 2020, 2024, 2262, 9999],
    "quarter": [1, 2, 3, 4], "month": [1, 2, 6, 11, 12], "week": [1, 2, 26, 52, 53],
    "day": [1, 2, 15, 28, 29, 30, 31], "hour": [0, 1, 12, 23], "minute": [0, 1, 30, 59],
    "second": [0, 1, 30, 59], "dayofweek": [0, 1, 3, 6], "isodow": [1, 4, 6, 7],
    "dayofyear": [1, 2, 59, 60, 365, 366], "isoyear": [1969, 1970, 2020, 2021, 2025],
    "millisecond": [0, 1, 500, 1000, 59999], "microsecond": [0, 1, 500000, 1000000, 59999999],
    "decade": [0, 196, 197, 200, 202], "century": [-1, 1, 19, 20, 21], "millennium": [-1, 1, 2, 3],
    "era": [0, 1], "yearweek": [197001, 201953, 202001, 202053],
}
INFINITE_DAYS = {2**31 - 1, -(2**31) + 1}  # DuckDB's DATE 'infinity' and '-infinity'


def func_operands(info, names):
    """The Operands of the columns `names` of a condition's `info` that functions read:
    arithmetic's (where_operands) and floats, strings, binary, booleans and dates of far days
    ('xdate'); each with its pool of values."""
    ops = where_operands(info, names)
    have = {o.name for o in ops}
    for n in names:
        kind, extra, pool = info[n]
        if n in have or kind not in ("float", "str", "bin", "bool", "date"):
            continue
        refs = lambda rng, n=n: (q(n), q(n))
        lit = lambda rng, n=n: literal_for(rng, info, n)
        ops.append(Operand(n, "xdate" if kind == "date" else kind, refs, lit))
    for o in ops:
        o.pool = info[o.name][2]
    return ops


# What a function of a column of each kind may give: the kinds of its result.
RESULTS = {"str": ["str", "str", "num", "bool", "float", "xdate", "ts"],
           "num": ["num", "num", "num", "str", "float", "xdate", "ts"], "float": ["float", "ts"],
           "date": ["date", "ts", "num", "num", "str", "float"], "xdate": ["xdate", "num", "num"],
           "ts": ["date", "ts", "num", "num", "str", "float"], "bool": ["bool", "str"], "bin": ["bin"]}
# How often a `where` function predicate reads a column of each kind (out of those present).
KIND_WEIGHT = {"num": 4, "str": 4, "ts": 3, "date": 2, "xdate": 2, "float": 2, "bool": 1, "bin": 1}
# Which kinds compare with which (the partners of a function's value).
FUNC_COMPATIBLE = {"num": {"num"}, "float": {"float"}, "str": {"str"}, "bin": {"bin"}, "bool": {"bool"},
                   "date": {"date", "ts"}, "ts": {"date", "ts"}, "xdate": {"xdate", "date"}}
# Which kinds compare as plain columns (IS [NOT] DISTINCT FROM without a function), as `=`.
PLAIN_COMPATIBLE = {"num": {"num", "float"}, "float": {"num", "float"}, "str": {"str"}, "bin": {"bin"},
                    "bool": {"bool"}, "date": {"date", "ts", "xdate"}, "ts": {"date", "ts"}, "xdate": {"xdate", "date"}}


def ns_text(e):
    """Whether DuckDB's text of a timestamp may be a TIMESTAMP_NS (its column's or literal's
    word says so; flooring a TIMESTAMP too is harmless)."""
    return e.kind == "ts" and "TIMESTAMP_NS" in e.dk


def floor_us(dk):
    """DuckDB's text of a timestamp floored to microseconds, exactly (a TIMESTAMP); an
    infinite one stays infinite (epoch_ns would make it a finite instant: seed 84, where 410)."""
    n = f"epoch_ns({dk})"
    return (f"CASE WHEN isfinite({dk}) THEN make_timestamp(({n} - ((({n} % 1000) + 1000) % 1000)) // 1000) "
            f"ELSE CAST({dk} AS TIMESTAMP) END")


def arg(e):
    """An operand's text as a `::` cast's (in parentheses unless a column or literal)."""
    return e.bj if e.prec == ATOM and not e.bj.startswith("-") and "(" not in e.bj else f"({e.bj})"


def of(ops, *kinds):
    return [o for o in ops if o.kind in kinds]


def can_part(o):
    return o.kind in ("date", "ts", "xdate")


def fx_leaf(rng, ops, kind, depth, first=None):
    """An operand of `kind` without a call at its top: `first`, a column, a literal, or
    arithmetic (numbers, dates, timestamps)."""
    if kind == "num":
        return num_ex(rng, ops, depth + 1, first)
    if kind == "date" and (first is None or first.kind == "date"):
        return date_ex(rng, ops, depth + 1, first)
    if kind == "ts" and (first is None or first.kind in ("date", "ts")):
        if first is not None and first.kind == "date" and rng.random() < 0.5:
            return date_ex(rng, ops, depth + 1, first)
        return ts_ex(rng, ops, depth + 1, first)
    if first is not None:
        return col_ex(rng, first)
    same = of(ops, kind)
    if same and rng.random() < 0.8:
        return col_ex(rng, rng.choice(same))
    return func_lit(rng, ops, Ex("", "", kind), None)


def fx(rng, ops, kind, depth=0, first=None, need_fn=False):
    """An operand of `kind` reading `first` (an Operand, or None): a call (surely with
    `need_fn`), or at depth a plain operand."""
    if not need_fn and (depth >= 2 or rng.random() < 0.65):
        return fx_leaf(rng, ops, kind, depth, first)
    makers = [m for m in MAKERS[kind] if m[1](ops, first)]
    if not makers:
        return fx_leaf(rng, ops, kind, depth, first)
    return rng.choice(makers)[0](rng, ops, depth, first)


def call_ex(bj, dk, kind, used, ps=None, bjps=None):
    return Ex(bj, dk, kind, ps, ATOM, used, bjps=bjps)


def mk_case(rng, ops, depth, first, name=None, x=None):
    """lower(s) / upper(s) (lcase, ucase)."""
    if x is None:
        x = fx(rng, ops, "str", depth + 1, first)
    name = name or rng.choice(["lower", "upper"])
    word = {"lower": "lcase", "upper": "ucase"}[name] if rng.random() < 0.1 else name
    e = call_ex(f"{word}({x.bj})", f"{name}({x.dk})", "str", x.used)
    e.mirror = lambda rng, o: mk_case(rng, ops, depth, o, name, col_ex(rng, o))
    return e


def mk_length(rng, ops, depth, first, x=None):
    """length(s) (len, char_length, character_length): characters, BIGINT."""
    if x is None:
        x = fx(rng, ops, "str", depth + 1, first if first is not None and first.kind == "str" else None)
    word = rng.choice(["length"] * 5 + ["len", "char_length", "character_length"])
    e = call_ex(f"{word}({x.bj})", f"CAST(length({x.dk}) AS DECIMAL(38,0))", "num", x.used, (19, 0))
    e.hint = ["0", "1", "2", "3", "4", "6", "40", "300"]
    e.mirror = lambda rng, o: mk_length(rng, ops, depth, o, col_ex(rng, o))
    return e


def mk_abs(rng, ops, depth, first, x=None):
    """abs(x) of a number: DuckDB's of its DECIMAL(38, s) text (see above)."""
    if x is None:
        x = fx(rng, ops, "num", depth + 1, first)
    p, s = x.bjps or (MAX_DIGITS, x.ps[1])
    e = call_ex(f"abs({x.bj})", f"abs({x.dk})", "num", x.used, x.ps, (decimal_width(p), s))
    e.mirror = lambda rng, o: mk_abs(rng, ops, depth, o, col_ex(rng, o))
    return e


def mk_abs_float(rng, ops, depth, first, x=None):
    if x is None:
        x = fx(rng, ops, "float", depth + 1, first)
    e = call_ex(f"abs({x.bj})", f"abs({x.dk})", "float", x.used)
    e.mirror = lambda rng, o: mk_abs_float(rng, ops, depth, o, col_ex(rng, o))
    return e


def coalesce_ex(args, kind, dk_args=None, ps=None, bjps=None):
    used = set().union(*(a.used for a in args))
    dks = dk_args or [a.dk for a in args]
    return call_ex(f"coalesce({', '.join(a.bj for a in args)})", f"coalesce({', '.join(dks)})", kind, used, ps, bjps)


def null_ex(kind):
    return Ex("NULL", "NULL", kind)


def mk_coalesce(rng, ops, depth, first, kind=None):
    """coalesce(a, b, ...) of one kind, `first` in one of them (mostly the first)."""
    kind = kind or ("date" if first.kind == "date" and rng.random() < 0.5 else first.kind)
    if kind == "num":
        return coalesce_num(rng, ops, depth, first)
    if kind == "float":
        return coalesce_float(rng, ops, depth, first)
    head = fx(rng, ops, kind, depth + 1, first)
    same = of(ops, *({"xdate": ["xdate", "date"], "ts": ["ts", "date"]}.get(kind, [kind])))
    ns = ns_text(head)
    if kind in ("date", "ts"):
        # Nanoseconds only with nanoseconds: bloomjoin converts every argument to the finest
        # unit and fails the job on a date or timestamp outside 1677..2262 (the years 1..9999
        # of the other columns), DuckDB only on a row it reaches.
        same = [o for o in same if (o.kind == "ts" and o.unit == "ns") == ns]
    rest = []
    for _ in range(rng.randint(1, 2)):
        r = rng.random()
        if r < 0.15 or (kind == "bin" and r < 0.5):
            rest.append(null_ex(kind))
        elif kind == "bin" or r < 0.55:
            # Another column (binary: only columns, and NULL).
            rest.append(col_ex(rng, rng.choice(same)) if same else null_ex(kind))
        elif ns:
            # A value of the nanosecond column's.
            lit = first.lit(rng) if first is not None and first.kind == "ts" else None
            if lit is None or not lit.bj.startswith(("'", "TIMESTAMP")):
                rest.append(null_ex(kind))
            else:
                # Typed as time_lit_ex types it: an instant with a UTC offset (a zoned column's
                # value) is a TIMESTAMPTZ (seed 176, where 233: typed TIMESTAMP, its offset was
                # refused). DuckDB mixes none with a TIMESTAMP_NS (its text of the column): the
                # instant cast, as ts_lit writes it.
                e = typed_lit_ex(lit, "ts")
                rest.append(Ex(e.bj, f"CAST({e.bj} AS TIMESTAMP_NS)", "ts") if e.zoned else e)
        else:
            lit = func_lit(rng, ops, Ex("", "", kind), None, cast=False)
            # Nor a literal with digits below the microsecond (a nanosecond value: the same).
            rest.append(null_ex(kind) if "TIMESTAMP_NS" in lit.dk else lit)
    args = [head] + rest
    if rng.random() < 0.25:
        rng.shuffle(args)
    # Dates with timestamps: a timestamp (DuckDB's of the finest unit, as bloomjoin's).
    out = "ts" if kind in ("date", "ts") and any(a.kind == "ts" for a in args) else kind
    return coalesce_ex(args, out)


def coalesce_num(rng, ops, depth, first):
    """coalesce of exact numbers, DuckDB's arguments cast to DECIMAL(38, S) (see above)."""
    args = [fx(rng, ops, "num", depth + 1, first)]
    for _ in range(rng.randint(1, 2)):
        r = rng.random()
        if r < 0.1:
            args.append(null_ex("num"))
        elif r < 0.55:
            args.append(num_lit(rng, ops))
        else:
            args.append(fx(rng, ops, "num", depth + 1))
    if rng.random() < 0.25:
        rng.shuffle(args)

    def digits(xs, by):
        vals = [getattr(a, by) or (MAX_DIGITS, a.ps[1]) for a in xs if a.bj != "NULL"]
        if not vals:
            return 0, 0
        return max(p - s for p, s in vals), max(s for _, s in vals)

    keep = [a for a in args]
    # bloomjoin's type of them all within 76 digits; DuckDB's values mostly within 38.
    while len(keep) > 1:
        i, s = digits(keep, "bjps")
        vi, vs = digits(keep, "ps")
        if i + s <= MAX_DIGITS and (vi + vs <= 38 or rng.random() < 0.2):
            break
        drop = [a for a in keep if first is None or first.name not in a.used] or keep[1:]
        keep.remove(max(drop, key=lambda a: (a.bjps or (MAX_DIGITS, 0))[1]))
    i, s = digits(keep, "bjps")
    if i + s > MAX_DIGITS:
        return keep[0] if first is None or first.name in keep[0].used else fx_leaf(rng, ops, "num", depth, first)
    vi, vs = digits(keep, "ps")
    dks = [a.dk if a.bj == "NULL" else f"CAST({a.dk} AS DECIMAL(38,{vs}))" for a in keep]
    return coalesce_ex(keep, "num", dks, (min(vi + vs, MAX_DIGITS) or 1, vs), (decimal_width(i + s), s))


def coalesce_float(rng, ops, depth, first):
    """coalesce with a float: floats, integer and decimal columns and literals as they are."""
    args = [fx(rng, ops, "float", depth + 1, first)]
    for _ in range(rng.randint(1, 2)):
        r = rng.random()
        nums = of(ops, "num")
        if r < 0.1:
            args.append(null_ex("float"))
        elif r < 0.45 and of(ops, "float"):
            args.append(col_ex(rng, rng.choice(of(ops, "float"))))
        elif r < 0.7 and nums:
            o = rng.choice(nums)
            bj, dk = o.refs(rng)
            args.append(Ex(bj, dk, "num", o.ps, ATOM, {o.name}))
        else:
            args.append(func_lit(rng, ops, Ex("", "", "float"), None))
    if rng.random() < 0.25:
        rng.shuffle(args)
    return coalesce_ex(args, "float")


def time_arg(rng, ops, depth, first):
    """A date or timestamp argument: `first` itself when it is a far date ('xdate'), else an
    expression of `first`'s kind (or of a kind the operands have)."""
    if first is not None and first.kind == "xdate":
        return col_ex(rng, first)
    k = first.kind if first is not None else rng.choice([k for k in ("date", "ts") if of(ops, k)])
    return fx(rng, ops, k, depth + 1, first)


def mk_cast_date(rng, ops, depth, first, x=None, form=None):
    """CAST(x AS DATE), x::DATE, TRY_CAST(x AS DATE) of a date or a timestamp."""
    if x is None:
        x = time_arg(rng, ops, depth, first)
    form = form or rng.choice(["cast", "cast", "colons", "try"])
    bj = {"cast": f"CAST({x.bj} AS DATE)", "colons": f"{arg(x)}::DATE", "try": f"TRY_CAST({x.bj} AS DATE)"}[form]
    src = floor_us(x.dk) if ns_text(x) else x.dk
    e = call_ex(bj, f"CAST({src} AS DATE)", "xdate" if x.kind == "xdate" else "date", x.used)
    e.mirror = lambda rng, o: mk_cast_date(rng, ops, depth, o, col_ex(rng, o), form)
    return e


def mk_cast_text(rng, ops, depth, first, to, x=None, form=None):
    """CAST(s AS DATE | TIMESTAMP) (s::DATE, TRY_CAST) of a string: DuckDB's reading, which
    bloomjoin's ports (expr::strtime). A date read from text may be far or infinite ('xdate').
    A CAST fails on a string it does not read, where DuckDB reaches it."""
    if x is None:
        x = fx(rng, ops, "str", depth + 1, first if first is not None and first.kind == "str" else None)
    form = form or rng.choice(["cast", "colons", "try", "try"])
    if form != "try":
        CASTS[0] += 1
    bj = {"cast": f"CAST({x.bj} AS {to})", "colons": f"{arg(x)}::{to}", "try": f"TRY_CAST({x.bj} AS {to})"}[form]
    dk = f"{'TRY_CAST' if form == 'try' else 'CAST'}({x.dk} AS {to})"
    e = call_ex(bj, dk, "xdate" if to == "DATE" else "ts", x.used)
    e.mirror = lambda rng, o: mk_cast_text(rng, ops, depth, o, to, col_ex(rng, o), form)
    return e


def mk_cast_ts(rng, ops, depth, first, x=None, form=None, to=None, unit=False):
    """CAST(x AS TIMESTAMP) (x::TIMESTAMP, TRY_CAST) of a date or a timestamp: DuckDB's of a
    TIMESTAMP_NS is the value itself. With `unit`, a cast to TIMESTAMP_S or TIMESTAMP_MS (the
    instant rounded half away from zero in both engines; DuckDB has no cast of a TIMESTAMP_NS
    to TIMESTAMP_S), or of a nanosecond value to TIMESTAMP_NS (itself)."""
    if x is None:
        x = time_arg(rng, ops, depth, first)
    form = form or rng.choice(["cast", "cast", "colons", "try"])
    if to is None:
        to = "TIMESTAMP"
        if unit:
            # Mostly a coarser unit than the column's, so that values round.
            finer = getattr(first, "unit", None)
            if ns_text(x):
                to = rng.choice(["TIMESTAMP_MS", "TIMESTAMP_MS", "TIMESTAMP_NS"])
            elif finer == "ms":
                to = rng.choice(["TIMESTAMP_S", "TIMESTAMP_S", "TIMESTAMP_MS"])
            else:
                to = rng.choice(["TIMESTAMP_S", "TIMESTAMP_MS"])
    bj = {"cast": f"CAST({x.bj} AS {to})", "colons": f"{arg(x)}::{to}",
          "try": f"TRY_CAST({x.bj} AS {to})"}[form]
    if to == "TIMESTAMP":
        dk = x.dk if ns_text(x) else f"CAST({x.dk} AS TIMESTAMP)"
    else:
        dk = f"{'TRY_CAST' if form == 'try' else 'CAST'}({x.dk} AS {to})"
    e = call_ex(bj, dk, "ts", x.used)
    if to != "TIMESTAMP":
        # The value before its rounding: which way each row rounded shows on every row.
        e.source = x
    e.mirror = lambda rng, o: mk_cast_ts(rng, ops, depth, o, col_ex(rng, o), form,
                                         None if to in ("TIMESTAMP_NS", "TIMESTAMP_S") else to, unit)
    return e


def part_call(rng, form, name, arg):
    """bloomjoin's text of a part of `arg` in a form: `name(arg)`, `EXTRACT(name FROM arg)`
    or `date_part('name', arg)`, the name sometimes in capitals."""
    if form == "fn":
        return f"{name}({arg})"
    if form == "extract":
        return f"EXTRACT({name if rng.random() < 0.7 else name.upper()} FROM {arg})"
    return f"date_part('{name if rng.random() < 0.8 else name.upper()}', {arg})"


def mk_part(rng, ops, depth, first, x=None, part=None, form=None, name=None):
    """A part of a date or timestamp, a BIGINT: year(x), EXTRACT(year FROM x) or
    date_part('year', x), under any name both engines read; DuckDB's by its full name."""
    if x is None:
        x = time_arg(rng, ops, depth, first)
    part = part or rng.choice(list(PARTS))
    form = form or rng.choice(["fn", "fn", "extract", "date_part"])
    fns, extracts, parts = PARTS[part]
    name = name or rng.choice({"fn": fns, "extract": extracts, "date_part": parts}[form])
    bj = part_call(rng, form, name, x.bj)
    src = floor_us(x.dk) if ns_text(x) else x.dk
    e = call_ex(bj, f"CAST(date_part('{part}', {src}) AS DECIMAL(38,0))", "num", x.used, (19, 0))
    e.hint = [str(v) for v in PART_VALUES[part]]
    e.mirror = lambda rng, o: mk_part(rng, ops, depth, o, col_ex(rng, o), part, form, name)
    return e


# date_trunc's units: DuckDB's name and the names both engines take (bloomjoin's text draws one).
TRUNC_UNITS = {
    "millennium": ["millennium", "millennia", "mil"], "century": ["century", "centuries", "cent"],
    "decade": ["decade", "decades", "dec"], "year": ["year", "years", "y", "yr"],
    "quarter": ["quarter", "quarters"], "month": ["month", "months", "mon"], "week": ["week", "weeks", "w"],
    "isoyear": ["isoyear"], "day": ["day", "days", "d"], "hour": ["hour", "hours", "h"],
    "minute": ["minute", "minutes", "min"], "second": ["second", "seconds", "s"],
    "millisecond": ["millisecond", "milliseconds", "ms"], "microsecond": ["microsecond", "microseconds", "us"],
}


def mk_trunc(rng, ops, depth, first, x=None, unit=None, name=None):
    """date_trunc('unit', x) of a date or a timestamp (not of far dates: bloomjoin gives a
    timestamp of microseconds, as DuckDB does, and fails the job on a date none holds): a
    timestamp. DuckDB's of a TIMESTAMP_NS is of the instant floored to microseconds (see
    above: DuckDB truncates toward zero, and rounds to microseconds in date_trunc's)."""
    if x is None:
        x = time_arg(rng, ops, depth, first)
    unit = unit or rng.choice(list(TRUNC_UNITS))
    name = name or rng.choice(TRUNC_UNITS[unit])
    shown = name if rng.random() < 0.8 else name.upper()
    src = floor_us(x.dk) if ns_text(x) else x.dk
    if x.kind in ("date", "xdate") and unit in ("hour", "minute", "second", "millisecond", "microsecond"):
        # DuckDB 2.0.1's optimizer rewrites `date_trunc('second', d) <> c` of a DATE column d
        # as `d < trunc(c) OR d >= CAST(trunc(c) + 1 second AS DATE)`, always true (and `=` as
        # always false): seed 131, where case 382. A DATE cast to TIMESTAMP is not rewritten.
        src = f"CAST({src} AS TIMESTAMP)"
    e = call_ex(f"date_trunc('{shown}', {x.bj})", f"date_trunc('{unit}', {src})", "ts", x.used)
    e.mirror = lambda rng, o: mk_trunc(rng, ops, depth, o, col_ex(rng, o), unit, name)
    return e


# Zones for AT TIME ZONE and timezone(): half-hour and 45-minute zones, both hemispheres'
# daylight saving, a date line zone, zones whose offsets changed, links, ICU's legacy names
# (PST, IST) and ICU's fixed offsets (GMT+2 is east, POSIX's Etc/GMT+2 west; gmt in any case,
# seconds too; UTC with whole hours only, see expr::zone). scripts/zone_check.py compares every
# name; these are the ones whose conditions the fuzzer builds.
AT_ZONES = ["UTC", "Europe/Oslo", "America/New_York", "Asia/Kolkata", "Asia/Kathmandu",
            "Australia/Sydney", "Australia/Lord_Howe", "America/St_Johns", "Pacific/Auckland",
            "America/Sao_Paulo", "Asia/Tokyo", "Pacific/Kiritimati", "US/Eastern", "CET", "EST5EDT",
            "Etc/GMT+2", "GMT+2", "GMT-03:30", "GMT+0545", "UTC+5", "UTC-11", "PST", "ist", "gmt+5:30:15",
            "UTC+14"]


def mk_at_zone(rng, ops, depth, first, x=None, zone=None, form=None):
    """x AT TIME ZONE 'zone' (timezone('zone', x)) of a date or a timestamp: an instant (a
    timestamp with a time zone) becomes the zone's wall clock, a wall clock (or a date's
    midnight) the instant. DuckDB's texts of timestamps are zone-less UTC wall clocks (col_ex),
    so its text goes through timezone('UTC', ...) on the instant's side."""
    if x is None:
        x = time_arg(rng, ops, depth, first)
    if x.kind not in ("date", "ts"):
        return mk_trunc(rng, ops, depth, first, x)
    zone = zone or rng.choice(AT_ZONES)
    shown = zone if rng.random() < 0.8 or zone.startswith(("GMT", "UTC")) else zone.lower()
    form = form or rng.choice(["at", "at", "fn"])
    bj = f"{arg(x)} AT TIME ZONE '{shown}'" if form == "at" else f"timezone('{shown}', {x.bj})"
    # DuckDB converts a TIMESTAMP_S or _MS to TIMESTAMPTZ_NS here, which fails outside the
    # years 1677..2262 (seed 179, where 587): as a TIMESTAMP (microseconds) it does not.
    src = x.dk if x.kind == "date" or ns_text(x) else f"CAST({x.dk} AS TIMESTAMP)"
    if x.zoned:
        dk = f"timezone('{zone}', timezone('UTC', {src}))"
    else:
        dk = f"timezone('UTC', timezone('{zone}', {src}))"
    e = Ex(bj if form == "fn" else f"({bj})", dk, "ts", None, ATOM, x.used)
    e.zoned = not x.zoned
    e.source = x
    e.mirror = lambda rng, o: mk_at_zone(rng, ops, depth, o, col_ex(rng, o), zone, form)
    return e


# date_diff's units: DuckDB's name and the names both engines take. Not `yearweek`: between
# timestamps with a time zone DuckDB's ICU counts Mondays (as bloomjoin does), and the DuckDB
# text below makes them zone-less.
DIFF_UNITS = {**TRUNC_UNITS, "day": TRUNC_UNITS["day"] + ["dow", "doy", "julian"],
              "second": TRUNC_UNITS["second"] + ["epoch"]}


def diff_src(x):
    """DuckDB's text of a date_diff or last_day argument as bloomjoin reads it: a timestamp
    floored to microseconds (DuckDB's cast rounds a TIMESTAMP_NS) and zone-less (before year 1,
    DuckDB's ICU counts decades and quarters of a TIMESTAMPTZ otherwise)."""
    if x.kind != "ts":
        return x.dk
    return floor_us(x.dk) if ns_text(x) else f"CAST({x.dk} AS TIMESTAMP)"


def bare_text(lit, other):
    """The string of a timestamp literal `lit` that, bare, reads as the same instant where it
    meets `other` (a timestamp: a TIMESTAMPTZ literal only where `other` is known to have a
    time zone); else None."""
    m = re.fullmatch(r"(TIMESTAMPTZ|TIMESTAMP WITH TIME ZONE|timestamptz|TIMESTAMP) ('[^']*')", lit.bj)
    if m is None or other.kind != "ts" or (m.group(1) != "TIMESTAMP" and not other.zoned):
        return None
    return m.group(2)


def offset_lit_ex(rng, ops, x):
    """A TIMESTAMPTZ literal with a UTC offset from the values of the zoned column `x` reads;
    None where it reads none or no draw gave one."""
    srcs = [o for o in ops if o.zoned and o.name in x.used]
    for _ in range(30 if srcs else 0):
        e = typed_lit_ex(rng.choice(srcs).lit(rng), "ts")
        if e.zoned and not re.search(r"infinity|epoch", e.bj, re.I):
            return e
    return None


def mk_datediff(rng, ops, depth, first, x=None, y=None, unit=None, name=None, swap=None, sub=None):
    """date_diff('unit', x, y) (datediff) of dates and timestamps, the boundaries crossed, or
    (`sub`) date_sub('unit', x, y) (datesub), the whole units: a BIGINT. A far date ('xdate')
    meets dates only, in units of a second or longer (in milliseconds and microseconds, or as
    a timestamp, it leaves their range: both engines fail; date_sub counts dates as
    timestamps, so there both mostly fail)."""
    if x is None:
        x = time_arg(rng, ops, depth, first)
    bare = rng.random() < 0.3
    if y is None and x.zoned and rng.random() < 0.7:
        # A zoned column against an instant written with a UTC offset, mostly as a bare string
        # (DuckDB reads it as a TIMESTAMPTZ there: the offset counts).
        y = offset_lit_ex(rng, ops, x)
        bare = y is not None and rng.random() < 0.8
    if y is None:
        y = date_ex(rng, ops, depth + 1) if x.kind == "xdate" else time_arg(rng, ops, depth, None)
    far = "xdate" in (x.kind, y.kind)
    sub = rng.random() < 0.35 if sub is None else sub
    # date_sub of a timestamp with a time zone: DuckDB's ICU counts hours and longer between
    # whole milliseconds (as bloomjoin), and months in its own calendar (bloomjoin refuses
    # them); DuckDB's text here is zone-less, so only the units both count exactly.
    exact = ("minute", "second", "millisecond", "microsecond")
    zoned = sub and any(e.zoned or zone_unknown(ops, e) or any(o.zoned for o in ops if o.name in e.used)
                        for e in (x, y))
    if zoned and unit is not None and unit not in exact:
        sub, zoned = False, False  # a mirror on a zoned column: date_diff there
    unit = unit or rng.choice([u for u in DIFF_UNITS if not (far and u in ("millisecond", "microsecond"))
                               and not (zoned and u not in exact)])
    name = name or rng.choice(DIFF_UNITS[unit])
    swap = rng.random() < 0.5 if swap is None else swap
    a, b = (y, x) if swap else (x, y)
    word = "date_sub" if sub else "date_diff"
    fn = word.replace("_", "") if rng.random() < 0.2 else word
    shown = name if rng.random() < 0.8 else name.upper()
    abj, bbj = a.bj, b.bj
    if bare:
        # A timestamp literal as a bare string: it is read as the other argument's type, so
        # against a timestamp with a time zone its UTC offset counts (DuckDB's TIMESTAMPTZ).
        if (t := bare_text(b, a)) is not None:
            bbj = t
        elif (t := bare_text(a, b)) is not None:
            abj = t
    e = call_ex(f"{fn}('{shown}', {abj}, {bbj})",
                f"CAST({word}('{unit}', {diff_src(a)}, {diff_src(b)}) AS DECIMAL(38,0))", "num",
                x.used | y.used, (19, 0))
    e.hint = ["0", "1", "-1", "2", "7", "12", "30", "365", "-365"]
    e.mirror = lambda rng, o: mk_datediff(rng, ops, depth, o, col_ex(rng, o), y, unit, name, swap, sub)
    return e


def mk_epoch(rng, ops, depth, first, x=None, fn=None):
    """epoch_ms(x), epoch_us(x) or epoch_ns(x) of a date or a timestamp (not of far dates,
    which leave BIGINT in microseconds): a BIGINT. DuckDB is asked of the instant as bloomjoin
    counts it (diff_src: its epoch_ms fails on TIMESTAMP_S, _MS and _NS, and rounds a
    TIMESTAMP's microseconds half away from zero, as bloomjoin's does), but for epoch_ns of a
    nanosecond timestamp, which both count to the nanosecond. epoch_ns mostly of nanosecond
    timestamps: of others (years 1..9999) both engines mostly fail, out of BIGINT."""
    if x is None:
        x = time_arg(rng, ops, depth, first)
    fn = fn or rng.choice(["epoch_ms", "epoch_us"] + ["epoch_ns"] * (3 if ns_text(x) else rng.random() < 0.2))
    src = x.dk if fn == "epoch_ns" and ns_text(x) else diff_src(x)
    e = call_ex(f"{fn}({x.bj})", f"CAST({fn}({src}) AS DECIMAL(38,0))", "num", x.used, (19, 0))
    e.hint = ["0", "-1", "1", "86400000", "1577836800000", "1577836800000000"]
    e.mirror = lambda rng, o: mk_epoch(rng, ops, depth, o, col_ex(rng, o), fn)
    return e


def zone_src(x):
    """DuckDB's text of an epoch() or julian() argument: diff_src's, a TIMESTAMPTZ where
    bloomjoin's value has a time zone (a zoned column, to_timestamp's value): of those DuckDB's
    ICU adds the whole milliseconds and the microseconds left as two DOUBLEs, which may differ
    from the plain division in the last digit (as bloomjoin's do)."""
    s = diff_src(x)
    return f"CAST({s} AS TIMESTAMPTZ)" if x.kind == "ts" and x.zoned else s


def zone_unknown(ops, x):
    """Whether an epoch() argument may have a time zone that its Ex does not tell: a
    computation over a zoned column or over to_timestamp's value (bloomjoin may keep the
    zone, zone_src cannot say)."""
    bare = x.bj in {q(n) for n in x.used}
    zoned = (any(o.zoned for o in ops if o.name in x.used) or "to_timestamp(" in x.bj
             or ("strptime(" in x.bj and "%z" in x.bj)
             or re.search(r"TIMESTAMPTZ|WITH TIME ZONE", x.bj, re.I) is not None)
    return not x.zoned and zoned and not bare


def mk_epoch_double(rng, ops, depth, first, x=None, fn=None):
    """epoch(x) (seconds) or julian(x) (the Julian day, its fraction the time of day) of a
    date or a timestamp (not of far dates: as mk_epoch): a DOUBLE, DuckDB's of the same
    instant (zone_src)."""
    if x is None:
        x = time_arg(rng, ops, depth, first)
    if fn is None:
        fn = rng.choice(["julian"] if zone_unknown(ops, x) else ["epoch", "epoch", "julian"])
    bj = part_call(rng, rng.choice(["fn", "fn", "date_part", "extract"]), fn, x.bj)
    e = call_ex(bj, f"{fn}({zone_src(x)})", "float", x.used)
    e.mirror = lambda rng, o: mk_epoch_double(rng, ops, depth, o, col_ex(rng, o), fn)
    return e


def mk_to_timestamp(rng, ops, depth, first, x=None):
    """to_timestamp(s) of a number or a float (seconds): a timestamp with time zone UTC
    (zoned), DuckDB's as a zone-less TIMESTAMP (as col_ex's). DuckDB's takes a DOUBLE: its
    text casts the number there (DuckDB's cast of a DECIMAL to DOUBLE, bloomjoin's of its
    number). Out of the range of timestamps both engines fail."""
    if x is None:
        dated = of(ops, "date", "ts")
        if first is None and dated and rng.random() < 0.5:
            # Seconds an instant's: mostly within the range of timestamps (integer columns
            # mostly hold seconds beyond it, where both engines fail).
            t = time_arg(rng, ops, depth + 1, rng.choice(dated))
            x = mk_epoch_double(rng, ops, depth + 1, None, t, "julian" if zone_unknown(ops, t) else "epoch")
        else:
            k = first.kind if first is not None else rng.choice([k for k in ("num", "float") if of(ops, k)])
            x = fx(rng, ops, k, depth + 1, first)
    e = call_ex(f"to_timestamp({x.bj})", f"CAST(to_timestamp(CAST({x.dk} AS DOUBLE)) AS TIMESTAMP)", "ts", x.used)
    e.zoned = True
    e.mirror = lambda rng, o: mk_to_timestamp(rng, ops, depth, o, col_ex(rng, o))
    return e


def make_date_arg(rng, ops, depth, part, first=None):
    """An argument of make_date: `first` (a number column; a decimal's cast to BIGINT), else
    mostly the part of a date or a timestamp (so that the date exists), a small literal or a
    column of whole numbers."""
    r = rng.random()
    if first is not None:
        e = col_ex(rng, first)
        if first.ps[1] > 0:
            # A whole number of a decimal column (make_date takes no fraction in either engine).
            e = call_ex(f"CAST({e.bj} AS BIGINT)", f"CAST({e.dk} AS DECIMAL(38,0))", "num", e.used, (e.ps[0], 0))
        return e
    dated = of(ops, "date", "ts")
    if dated and r < 0.6:
        return mk_part(rng, ops, depth + 1, rng.choice(dated), part=part)
    if r < 0.85:
        values = {"year": [1970, 2000, 2024, 1, 0, -5, 9999, 10000, 294247],
                  "month": [1, 2, 6, 12, 0, 13], "day": [1, 15, 28, 29, 30, 31, 0, 32]}[part]
        return num_lit_ex(str(rng.choice(values)))
    whole = [o for o in of(ops, "num") if o.ps[1] == 0]
    return col_ex(rng, rng.choice(whole)) if whole else num_lit_ex("1")


def mk_make_date(rng, ops, depth, first, args=None):
    """make_date(y, m, d) of whole numbers: a date, far or not ('xdate'); an error where there
    is none (2023-02-29), in both engines. DuckDB's takes BIGINTs: its text casts them (a
    number beyond BIGINT fails both)."""
    if args is None:
        at = rng.randrange(3) if first is not None else None
        args = [make_date_arg(rng, ops, depth, part, first if i == at else None)
                for i, part in enumerate(("year", "month", "day"))]
    used = set().union(*(a.used for a in args))
    e = call_ex(f"make_date({', '.join(a.bj for a in args)})",
                f"make_date({', '.join(f'CAST({a.dk} AS BIGINT)' for a in args)})", "xdate", used)
    e.mirror = None
    return e


def mk_last_day(rng, ops, depth, first, x=None):
    """last_day(x) of a date or a timestamp (not of far dates, whose last day may be past the
    last date): a date."""
    if x is None:
        x = time_arg(rng, ops, depth, first)
    e = call_ex(f"last_day({x.bj})", f"last_day({diff_src(x)})", "date", x.used)
    e.mirror = lambda rng, o: mk_last_day(rng, ops, depth, o, col_ex(rng, o))
    return e


# strftime's specifiers, and the literal text between them.
STRFTIME_SPECS = ["%Y", "%G", "%y", "%-y", "%m", "%-m", "%d", "%-d", "%j", "%-j", "%H", "%-H", "%I", "%-I",
                  "%p", "%M", "%-M", "%S", "%-S", "%g", "%f", "%n", "%a", "%A", "%w", "%u", "%b", "%h", "%B",
                  "%U", "%W", "%V", "%z", "%Z", "%c", "%x", "%X", "%T", "%%"]
STRFTIME_TEXT = ["-", "/", " ", ":", "|", "T", "é", "", "", ""]


def mk_strftime(rng, ops, depth, first, x=None, fmt=None, reverse=None):
    """strftime(x, 'format') (or strftime('format', x)) of a date or a timestamp: a string.
    DuckDB is asked of the same instant: a nanosecond timestamp as it is (both write its
    nanoseconds), a zoned one as a TIMESTAMPTZ (whose %Z is 'UTC'); %Z is left out where the
    argument's zone is unknown (zone_unknown)."""
    if x is None:
        x = time_arg(rng, ops, depth, first)
    zone_ok = not zone_unknown(ops, x) and not (ns_text(x) and x.zoned)
    if fmt is None:
        specs = [sp for sp in STRFTIME_SPECS if zone_ok or sp != "%Z"]
        fmt = "".join(rng.choice(specs) + rng.choice(STRFTIME_TEXT) for _ in range(rng.choice([1, 1, 2, 3])))
    if reverse is None:
        reverse = rng.random() < 0.2
    if ns_text(x):
        src = x.dk
    elif x.kind == "ts":
        src = f"CAST({x.dk} AS TIMESTAMPTZ)" if x.zoned else f"CAST({x.dk} AS TIMESTAMP)"
    else:
        src = x.dk
    bj = f"strftime({sql_str(fmt)}, {x.bj})" if reverse else f"strftime({x.bj}, {sql_str(fmt)})"
    e = call_ex(bj, f"strftime({src}, {sql_str(fmt)})", "str", x.used)
    e.mirror = lambda rng, o: mk_strftime(rng, ops, depth, o, col_ex(rng, o), fmt, reverse)
    return e


# strptime's formats: those of the dates-as-text column (WHEN_TEXTS), and runs of specifiers.
STRPTIME_FORMATS = ["%Y-%m-%d", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S.%g", "%Y-%m-%d %H:%M:%S%z", "%Y/%m/%d",
                    "%Y %m %d", "%Y-%-m-%-d", "%H:%M", "%H:%M:%S", "%Y-%m-%d %H:%M:%SZ", "%Y-%m-%d %H:%M:%S.%f",
                    "%Y-%m-%d %H:%M:%S.%n", "%Y-%m-%d %H:%M", "%d/%m/%Y", "%Y-%m-%d %H:%M:%S %z"]


def mk_strptime(rng, ops, depth, first, x=None, fmt=None, try_=None):
    """try_strptime(s, 'format') (NULL where it does not match), or strptime (fails the job
    there, where DuckDB fails too) of a string: a timestamp. DuckDB's is given as col_ex
    gives timestamps: of %z (a TIMESTAMPTZ in both) zone-less (zoned), of %n (a TIMESTAMP_NS
    in both) cast to TIMESTAMP_NS, so that ns_text sees it."""
    if x is None:
        x = str_arg(rng, ops, depth, first)
    if fmt is None:
        if rng.random() < 0.75:
            fmt = rng.choice(STRPTIME_FORMATS)
        else:
            specs = [sp for sp in STRFTIME_SPECS if sp not in ("%Z", "%c")]
            fmt = "".join(rng.choice(specs) + rng.choice(STRFTIME_TEXT) for _ in range(rng.choice([1, 2, 3])))
    if try_ is None:
        try_ = rng.random() < 0.8
    name = "try_strptime" if try_ else "strptime"
    call = f"{name}({x.dk}, {sql_str(fmt)})"
    if "%n" in fmt:
        dk = f"CAST({call} AS TIMESTAMP_NS)" if "%z" not in fmt else f"CAST(CAST({call} AS TIMESTAMPTZ) AS TIMESTAMP)"
    elif "%z" in fmt:
        dk = f"CAST({call} AS TIMESTAMP)"
    else:
        dk = call
    e = call_ex(f"{name}({x.bj}, {sql_str(fmt)})", dk, "ts", x.used)
    e.zoned = "%z" in fmt
    e.mirror = lambda rng, o: mk_strptime(rng, ops, depth, o, col_ex(rng, o), fmt, try_)
    return e


def str_piece(rng, ops, longest=3):
    """A short string literal for the string functions: mostly a piece of a value of a string
    column's pool (so that it occurs), else a character or ''."""
    pool = [v for o in of(ops, "str") for v in (o.pool or []) if isinstance(v, str)]
    if pool and rng.random() < 0.75:
        v = rng.choice(pool)
        i = rng.randrange(len(v) + 1)
        v = v[i:i + rng.randrange(longest + 1)]
    else:
        v = rng.choice(["", " ", "a", "é", "\u3000", "ab", "%", "_"])
    return Ex(sql_str(v), sql_str(v), "str")


def str_arg(rng, ops, depth, first=None):
    """A string operand: `first`, a call or column, or a short literal."""
    if first is None and rng.random() < 0.35:
        return str_piece(rng, ops)
    return fx(rng, ops, "str", depth + 1, first)


def small_int(rng):
    """A start, length or count: small (DuckDB refuses beyond +-2^32, bloomjoin counts on)."""
    return num_lit_ex(str(rng.choice([0, 1, 1, 2, 2, 3, 4, 5, 8, 40, -1, -2, -3, -5, -40])))


def mk_substr(rng, ops, depth, first, x=None, form=None, a=None, b=None):
    """substr/substring(s, a[, b]), SUBSTRING(s FROM a [FOR b]), left(s, a), right(s, a), with
    small integer literals: characters of a string, as DuckDB counts them (a start of 0 or
    below, negative lengths)."""
    if x is None:
        x = fx(rng, ops, "str", depth + 1, first)
    form = form or rng.choice(["substr", "substring", "from", "from_for", "substr3", "left", "right"])
    a = a or small_int(rng)
    b = b or small_int(rng)
    bj = {"substr": f"substr({x.bj}, {a.bj})", "substring": f"substring({x.bj}, {a.bj}, {b.bj})",
          "substr3": f"substr({x.bj}, {a.bj}, {b.bj})", "from": f"SUBSTRING({x.bj} FROM {a.bj})",
          "from_for": f"SUBSTRING({x.bj} FROM {a.bj} FOR {b.bj})", "left": f"left({x.bj}, {a.bj})",
          "right": f"right({x.bj}, {a.bj})"}[form]
    fn = {"left": "left", "right": "right"}.get(form, "substr")
    dk = f"{fn}({x.dk}, {a.bj})" if form in ("substr", "from", "left", "right") else f"substr({x.dk}, {a.bj}, {b.bj})"
    e = call_ex(bj, dk, "str", x.used)
    e.mirror = lambda rng, o: mk_substr(rng, ops, depth, o, col_ex(rng, o), form, a, b)
    return e


def mk_trim(rng, ops, depth, first, x=None, form=None, chars=None):
    """trim/ltrim/rtrim(s[, chars]) and TRIM([BOTH | LEADING | TRAILING] chars FROM s): space
    separators or the given characters off the ends."""
    if x is None:
        x = fx(rng, ops, "str", depth + 1, first)
    form = form or rng.choice(["trim", "ltrim", "rtrim", "trim2", "ltrim2", "rtrim2", "both", "leading", "trailing"])
    chars = chars or str_piece(rng, ops)
    name = form.rstrip("2")
    if form in ("both", "leading", "trailing"):
        bj = f"TRIM({form.upper()} {chars.bj} FROM {x.bj})"
        dk = f"{dict(both='trim', leading='ltrim', trailing='rtrim')[form]}({x.dk}, {chars.dk})"
    elif form.endswith("2"):
        bj, dk = f"{name}({x.bj}, {chars.bj})", f"{name}({x.dk}, {chars.dk})"
    else:
        bj, dk = f"{name}({x.bj})", f"{name}({x.dk})"
    e = call_ex(bj, dk, "str", x.used)
    e.mirror = lambda rng, o: mk_trim(rng, ops, depth, o, col_ex(rng, o), form, chars)
    return e


def mk_replace(rng, ops, depth, first, x=None, frm=None, to=None):
    """replace(s, from, to): every `from` (none when empty) replaced."""
    if x is None:
        x = fx(rng, ops, "str", depth + 1, first)
    frm = frm or str_piece(rng, ops, 2)
    to = to or str_piece(rng, ops, 2)
    e = call_ex(f"replace({x.bj}, {frm.bj}, {to.bj})", f"replace({x.dk}, {frm.dk}, {to.dk})", "str", x.used)
    e.mirror = lambda rng, o: mk_replace(rng, ops, depth, o, col_ex(rng, o), frm, to)
    return e


def mk_concat(rng, ops, depth, first, x=None, rest=None, pipe=None):
    """concat(a, b, ...) (NULLs skipped) or a || b (NULL gives NULL), of strings."""
    if x is None:
        x = fx(rng, ops, "str", depth + 1, first)
    if rest is None:
        rest = [null_ex("str") if rng.random() < 0.1 else str_arg(rng, ops, depth + 1)
                for _ in range(rng.choice([1, 1, 2]))]
    pipe = rng.random() < 0.5 if pipe is None else pipe
    args = [x] + rest
    if rng.random() < 0.3:
        args = args[1:] + args[:1]
    if pipe:
        bj = "(" + " || ".join(a.bj for a in args) + ")"
        dk = "(" + " || ".join(a.dk for a in args) + ")"
    else:
        bj = "concat(" + ", ".join(a.bj for a in args) + ")"
        dk = "concat(" + ", ".join(a.dk for a in args) + ")"
    e = call_ex(bj, dk, "str", set().union(*(a.used for a in args)))
    e.mirror = lambda rng, o: mk_concat(rng, ops, depth, o, col_ex(rng, o), rest, pipe)
    return e


def mk_strpos(rng, ops, depth, first, x=None, p=None, form=None):
    """strpos(s, p) (instr, position(p IN s)): the character position of the first p, 0 when
    none, BIGINT."""
    if x is None:
        x = fx(rng, ops, "str", depth + 1, first if first is not None and first.kind == "str" else None)
    p = p or str_arg(rng, ops, depth + 1)
    form = form or rng.choice(["strpos", "instr", "position"])
    bj = f"position({p.bj} IN {x.bj})" if form == "position" else f"{form}({x.bj}, {p.bj})"
    e = call_ex(bj, f"CAST(strpos({x.dk}, {p.dk}) AS DECIMAL(38,0))", "num", x.used | p.used, (19, 0))
    e.hint = ["0", "1", "2", "3", "5"]
    e.mirror = lambda rng, o: mk_strpos(rng, ops, depth, o, col_ex(rng, o), p, form)
    return e


def mk_affix(rng, ops, depth, first, x=None, p=None, name=None):
    """starts_with (prefix), ends_with (suffix), contains: a boolean."""
    if x is None:
        x = fx(rng, ops, "str", depth + 1, first if first is not None and first.kind == "str" else None)
    p = p or str_arg(rng, ops, depth + 1)
    name = name or rng.choice(["starts_with", "prefix", "ends_with", "suffix", "contains"])
    dname = {"prefix": "starts_with", "suffix": "ends_with"}.get(name, name)
    e = call_ex(f"{name}({x.bj}, {p.bj})", f"{dname}({x.dk}, {p.dk})", "bool", x.used | p.used)
    e.mirror = lambda rng, o: mk_affix(rng, ops, depth, o, col_ex(rng, o), p, name)
    return e


def mk_split_part(rng, ops, depth, first, x=None, sep=None, i=None):
    """split_part(s, sep, i): a piece counted from either end ('' past them; an empty sep
    splits characters)."""
    if x is None:
        x = fx(rng, ops, "str", depth + 1, first)
    sep = sep or str_piece(rng, ops, 2)
    i = i or small_int(rng)
    e = call_ex(f"split_part({x.bj}, {sep.bj}, {i.bj})", f"split_part({x.dk}, {sep.dk}, {i.dk})", "str", x.used)
    e.mirror = lambda rng, o: mk_split_part(rng, ops, depth, o, col_ex(rng, o), sep, i)
    return e


def mk_pad(rng, ops, depth, first, x=None, n=None, p=None, name=None):
    """lpad/rpad(s, n, p) with a padding that is not empty (an empty one that is needed fails
    both engines), or repeat(s, n), or reverse(s) (grapheme clusters), or translate(s, a, b)."""
    if x is None:
        x = fx(rng, ops, "str", depth + 1, first)
    name = name or rng.choice(["lpad", "rpad", "repeat", "reverse", "translate"])
    n = n or small_int(rng)
    if p is None:
        p = str_piece(rng, ops, 2)
        if p.bj == "''":
            p = Ex("'x'", "'x'", "str")
    if name in ("lpad", "rpad"):
        bj, dk = f"{name}({x.bj}, {n.bj}, {p.bj})", f"{name}({x.dk}, {n.dk}, {p.dk})"
    elif name == "repeat":
        bj, dk = f"repeat({x.bj}, {n.bj})", f"repeat({x.dk}, {n.dk})"
    elif name == "reverse":
        bj, dk = f"reverse({x.bj})", f"reverse({x.dk})"
    else:
        bj, dk = f"translate({x.bj}, {p.bj}, 'é_')", f"translate({x.dk}, {p.dk}, 'é_')"
    e = call_ex(bj, dk, "str", x.used)
    e.mirror = lambda rng, o: mk_pad(rng, ops, depth, o, col_ex(rng, o), n, p, name)
    return e


def mk_concat_ws(rng, ops, depth, first, x=None, sep=None, rest=None, chr_=None):
    """concat_ws(sep, a, ...): the values that are not NULL joined by sep; chr(n) of a first
    character's code point."""
    if x is None:
        x = fx(rng, ops, "str", depth + 1, first)
    if sep is None:
        sep = null_ex("str") if rng.random() < 0.1 else str_piece(rng, ops, 2)
    if rest is None:
        rest = [null_ex("str") if rng.random() < 0.15 else str_arg(rng, ops, depth + 1)
                for _ in range(rng.choice([0, 1, 1, 2]))]
    chr_ = rng.random() < 0.2 if chr_ is None else chr_
    if chr_:
        bj, dk = f"chr(ascii({x.bj}))", f"chr(ascii({x.dk}))"
    else:
        bj = "concat_ws(" + ", ".join(a.bj for a in [sep, x] + rest) + ")"
        dk = "concat_ws(" + ", ".join(a.dk for a in [sep, x] + rest) + ")"
    e = call_ex(bj, dk, "str", set().union(*(a.used for a in [x] + rest)))
    e.mirror = lambda rng, o: mk_concat_ws(rng, ops, depth, o, col_ex(rng, o), sep, rest, chr_)
    return e


def mk_digest(rng, ops, depth, first, x=None, name=None):
    """md5(s), sha1(s) or sha256(s): lowercase hexadecimal text."""
    if x is None:
        x = fx(rng, ops, "str", depth + 1, first)
    name = name or rng.choice(["md5", "sha1", "sha256"])
    e = call_ex(f"{name}({x.bj})", f"{name}({x.dk})", "str", x.used)
    e.mirror = lambda rng, o: mk_digest(rng, ops, depth, o, col_ex(rng, o), name)
    return e


def mk_strlen(rng, ops, depth, first, x=None, y=None, name=None):
    """strlen(s) (bytes), bit_length(s), ascii(s), unicode(s) (the first code point),
    length_grapheme(s) (grapheme clusters),
    levenshtein(a, b) (characters), or hamming(s, reverse(s)) under a CASE that keeps '' away
    (DuckDB fails it): numbers."""
    if x is None:
        x = fx(rng, ops, "str", depth + 1, first if first is not None and first.kind == "str" else None)
    name = name or rng.choice(["strlen", "bit_length", "ascii", "unicode", "levenshtein", "hamming", "mismatches",
                               "length_grapheme"])
    y = y or str_arg(rng, ops, depth + 1)
    if name == "levenshtein":
        call = f"levenshtein({x.bj}, {y.bj})"
        dcall = f"levenshtein({x.dk}, {y.dk})"
        used = x.used | y.used
    elif name in ("hamming", "mismatches"):
        call = f"CASE WHEN {x.bj} <> '' THEN {name}({x.bj}, reverse({x.bj})) END"
        dcall = f"CASE WHEN {x.dk} <> '' THEN {name}({x.dk}, reverse({x.dk})) END"
        used = x.used
    else:
        call, dcall, used = f"{name}({x.bj})", f"{name}({x.dk})", x.used
    e = call_ex(call, f"CAST({dcall} AS DECIMAL(38,0))", "num", used, (19, 0))
    e.hint = ["-1", "0", "1", "2", "3", "8", "32", "97", "233"]
    e.mirror = lambda rng, o: mk_strlen(rng, ops, depth, o, col_ex(rng, o), y, name)
    return e


def mk_casewhen(rng, ops, depth, first, kind=None, x=None):
    """CASE WHEN cond THEN a [WHEN cond THEN b] [ELSE c] END, or CASE x WHEN lit THEN a ...
    END, of strings, booleans or dates (values of one type: DuckDB rounds mixed decimals as
    it does in coalesce, see above); the conditions compare a column with a literal or test
    it for NULL."""
    kind = kind or first.kind
    if x is None:
        x = fx(rng, ops, kind, depth + 1, first)
    same = of(ops, kind)

    def value():
        if rng.random() < 0.1:
            return null_ex(kind)
        if same and rng.random() < 0.5:
            return col_ex(rng, rng.choice(same))
        return func_lit(rng, ops, Ex("", "", kind), None)

    def cond():
        o = rng.choice([o for o in ops if o.kind not in ("xdate",)] or ops)
        c = col_ex(rng, o)
        r = rng.random()
        if r < 0.2:
            t = f"IS {'NOT ' if rng.random() < 0.5 else ''}NULL"
            return (f"{c.bj} {t}", f"{c.dk} {t}"), {o.name}
        lit = func_lit(rng, ops, Ex(c.bj, c.dk, o.kind), None)
        op = rng.choice(["=", "<>", "<", ">="]) if o.kind != "bool" else rng.choice(["=", "<>"])
        return (f"{c.bj} {op} {lit.bj}", f"{c.dk} {op} {lit.dk}"), {o.name}

    vals = [x] + [value() for _ in range(rng.choice([0, 1, 1, 2]))]
    rng.shuffle(vals)
    has_else = rng.random() < 0.7 and len(vals) > 1
    whens, used = [], set()
    simple = None
    if rng.random() < 0.25 and same:
        # CASE x WHEN lit THEN ...: x a column of the values' kind, each WHEN a literal.
        simple = col_ex(rng, rng.choice(same))
        used |= simple.used
    for v in (vals[:-1] if has_else else vals):
        if simple is not None:
            lit = func_lit(rng, ops, Ex("", "", kind), None)
            whens.append((lit.bj, lit.dk, v))
        else:
            (cb, cd), u = cond()
            used |= u
            whens.append((cb, cd, v))
    bj = "CASE " + (f"{simple.bj} " if simple is not None else "")
    dk = "CASE " + (f"{simple.dk} " if simple is not None else "")
    for cb, cd, v in whens:
        bj += f"WHEN {cb} THEN {v.bj} "
        dk += f"WHEN {cd} THEN {v.dk} "
        used |= v.used
    if has_else:
        bj += f"ELSE {vals[-1].bj} "
        dk += f"ELSE {vals[-1].dk} "
        used |= vals[-1].used
    e = call_ex(bj + "END", dk + "END", kind, used)
    e.mirror = None
    return e


RE_META = set("\\.+*?()|[]{}^$")


def re_pattern(rng, ops):
    """A regular expression literal (RE2's syntax, which both engines read): a piece of a
    pool value, escaped, around which anchors, classes (ASCII in both: \w, \d, \s, \b),
    repetitions and groups."""
    v = str_piece(rng, ops, 3).dk
    piece = "".join("\\" + c if c in RE_META else c for c in v[1:-1].replace("''", "'"))
    form = rng.choice(["{p}", "^{p}", "{p}$", "{p}.*", "({p})", r"\w+", r"\d", "[a-z]+", ".",
                       r"\s", r"\b{p}", "{p}|x", r"[^\w]", "(?i){p}", "{p}?", r"\S+", "^$", "",
                       "(a)?{p}", r"\<{p}\>", r"[\<-\>]{p}"])
    # A repetition needs something to repeat ("?" alone is refused by both engines).
    text = form.replace("{p}", piece or "x") if form == "{p}?" else form.replace("{p}", piece)
    return Ex(sql_str(text), sql_str(text), "str")


def re_opts(rng, replace=False):
    """regexp options: '' (none), or letters of c, i, l, s, n (and g for a replace)."""
    if rng.random() < 0.5:
        return ""
    letters = "cilsn" + ("g" if replace else "")
    return "".join(rng.choice(letters) for _ in range(rng.randint(1, 2)))


def mk_regex(rng, ops, depth, first, x=None, p=None, form=None, opts=None):
    """regexp_matches / regexp_full_match (with options), ~, ~*, !~, !~*, SIMILAR TO: a
    boolean."""
    if x is None:
        x = fx(rng, ops, "str", depth + 1, first if first is not None and first.kind == "str" else None)
    if p is None:
        # A column as the pattern only when none of its values holds a metacharacter: a value
        # that is not a valid pattern fails the query on the rows that reach it, and DuckDB
        # does not evaluate a call on rows an AND or OR has already decided.
        plain = [o for o in of(ops, "str") if all(isinstance(v, str) and not RE_META & set(v) for v in o.pool or [None])]
        # regexp_escape makes any column a pattern that matches its value literally.
        r = rng.random()
        if plain and r < 0.1:
            p = col_ex(rng, rng.choice(plain))
        elif r < 0.2:
            c = col_ex(rng, rng.choice(of(ops, "str")))
            p = call_ex(f"regexp_escape({c.bj})", f"regexp_escape({c.dk})", "str", c.used)
        else:
            p = re_pattern(rng, ops)
    form = form or rng.choice(["matches", "full", "~", "~*", "!~", "!~*", "similar", "not similar"])
    opts = re_opts(rng) if opts is None else opts
    if form in ("matches", "full"):
        name = "regexp_matches" if form == "matches" else "regexp_full_match"
        o = f", '{opts}'" if opts else ""
        bj, dk = f"{name}({x.bj}, {p.bj}{o})", f"{name}({x.dk}, {p.dk}{o})"
    else:
        op = {"similar": "SIMILAR TO", "not similar": "NOT SIMILAR TO"}.get(form, form)
        bj, dk = f"({x.bj} {op} {p.bj})", f"({x.dk} {op} {p.dk})"
    e = call_ex(bj, dk, "bool", x.used | p.used)
    e.mirror = lambda rng, o: mk_regex(rng, ops, depth, o, col_ex(rng, o), p, form, opts)
    return e


def mk_re_str(rng, ops, depth, first, x=None, p=None, form=None, arg=None, opts=None):
    """regexp_replace(s, p, r[, options]) (\0-\9 groups, g for every match) or
    regexp_extract(s, p[, group[, options]]) ('' when nothing matches): a string."""
    if x is None:
        x = fx(rng, ops, "str", depth + 1, first)
    p = p or re_pattern(rng, ops)
    form = form or rng.choice(["replace", "extract"])
    opts = re_opts(rng, form == "replace") if opts is None else opts
    o = f", '{opts}'" if opts else ""
    if form == "replace":
        arg = arg or rng.choice(["'X'", "''", r"'<\0>'", "'$'", r"'\\'", "'é'"])
        args = f"{p.bj}, {arg}{o}"
    else:
        arg = arg or rng.choice(["0", "1", "2", ""])
        if not arg and opts:
            arg = "0"
        args = f"{p.bj}{', ' + arg if arg else ''}{o}"
    name = "regexp_replace" if form == "replace" else "regexp_extract"
    e = call_ex(f"{name}({x.bj}, {args})", f"{name}({x.dk}, {args})", "str", x.used)
    e.mirror = lambda rng, o: mk_re_str(rng, ops, depth, o, col_ex(rng, o), p, form, arg, opts)
    return e


def mk_varchar(rng, ops, depth, first, op=None, form=None):
    """CAST(x AS VARCHAR) (x::VARCHAR, CAST(x AS TEXT)) of a number, DOUBLE, boolean, date or
    timestamp column: DuckDB's of the column as it reads it (a zone prints +00, a float its
    shortest digits)."""
    op = op or first
    bj, dk = op.refs(rng)
    form = form or rng.choice(["cast", "cast", "colons", "text"])
    bjt = {"cast": f"CAST({bj} AS VARCHAR)", "colons": f"{bj}::VARCHAR", "text": f"CAST({bj} AS TEXT)"}[form]
    e = call_ex(bjt, f"CAST({dk} AS VARCHAR)", "str", {op.name})
    e.mirror = lambda rng, o: mk_varchar(rng, ops, depth, o, o, form)
    return e


def casts_to_text(ops, f):
    # A DOUBLE (not a FLOAT, which bloomjoin refuses: DuckDB writes some by a DOUBLE's digits).
    return f is not None and (f.kind in ("num", "date", "ts", "bool") or (f.kind == "float" and f.name == "f64"))


# The integer types of CAST, and their digits.
CAST_INTS = {"TINYINT": 3, "SMALLINT": 5, "INTEGER": 10, "BIGINT": 19, "UTINYINT": 3, "USMALLINT": 5,
             "UINTEGER": 10, "UBIGINT": 20}


def cast_draw(rng, ops, depth, first, x, to, decimal_share, max_p, max_s):
    """A cast's operand (a number or a string) and target type, unless given: a DECIMAL(p, s)
    (p up to max_p, s up to max_s) decimal_share of the time, else an integer type; and the
    target's precision and scale."""
    if x is None:
        x = fx(rng, ops, first.kind if first is not None and first.kind == "str" else "num", depth + 1, first)
    if to is None:
        if rng.random() < decimal_share:
            p = rng.randint(1, max_p)
            to = f"DECIMAL({p},{rng.randint(0, min(p, max_s))})"
        else:
            to = rng.choice(list(CAST_INTS))
    if to.startswith("DECIMAL"):
        p, s = (int(v) for v in to[8:-1].split(","))
    else:
        p, s = CAST_INTS[to], 0
    return x, to, p, s


def mk_try_cast(rng, ops, depth, first, x=None, to=None):
    """TRY_CAST(x AS <integer type> | DECIMAL(p, s)) of a number (rounded half away from zero)
    or of a string (DuckDB's readers; NULL where it is no number): DuckDB's, as a DECIMAL(38, s)."""
    x, to, p, s = cast_draw(rng, ops, depth, first, x, to, 0.35, 38, 6)
    e = call_ex(f"TRY_CAST({x.bj} AS {to})", f"CAST(TRY_CAST({x.dk} AS {to}) AS DECIMAL(38,{s}))", "num", x.used, (p, s))
    e.mirror = lambda rng, o: mk_try_cast(rng, ops, depth, o, col_ex(rng, o), to)
    return e


def cast_bounds(to):
    """The least and the greatest value of an integer or decimal type, as literals."""
    if to.startswith("DECIMAL"):
        p, sc = (int(v) for v in to[8:-1].split(","))
        hi = str(decimal.Decimal(10 ** p - 1).scaleb(-sc))
        return f"-{hi}", hi
    bits = {"TINYINT": 8, "SMALLINT": 16, "INTEGER": 32, "BIGINT": 64}
    if to in bits:
        return str(-(2 ** (bits[to] - 1))), str(2 ** (bits[to] - 1) - 1)
    return "0", str(2 ** {"UTINYINT": 8, "USMALLINT": 16, "UINTEGER": 32, "UBIGINT": 64}[to] - 1)


def mk_cast(rng, ops, depth, first, x=None, to=None, form=None):
    """CAST(x AS <integer type> | DECIMAL(p, s)), which fails on a value out of the type's
    range (or on a string that is no number): bare, where DuckDB answers only when the rest
    of the condition keeps the failing rows away, or guarded, so that it is evaluated only on
    the rows a guard lets through (CASE WHEN guard THEN CAST END, an ELSE after the guard's
    negation, coalesce(CASE WHEN NOT guard THEN 0 END, CAST)). The guard: a number within the
    type's range, a string of one or two digits."""
    x, to, p, s = cast_draw(rng, ops, depth, first, x, to, 0.3, 18, 4)
    form = form or rng.choice(["bare", "case", "else", "coalesce"])
    CASTS[0] += 1
    if x.kind == "str":
        guard = (f"regexp_full_match({x.bj}, '[0-9]{{1,2}}')", f"regexp_full_match({x.dk}, '[0-9]{{1,2}}')")
        if p - s < 2:
            to = "SMALLINT" if to.startswith("DECIMAL") else to
            p, s = CAST_INTS[to], 0
    else:
        lo, hi = cast_bounds(to)
        guard = (f"{x.bj} BETWEEN {lo} AND {hi}", f"{x.dk} BETWEEN {lo} AND {hi}")
    casts = (f"CAST({x.bj} AS {to})", f"CAST({x.dk} AS {to})")
    bj, dk = (
        {
            "bare": c,
            "case": f"CASE WHEN {g} THEN {c} END",
            "else": f"CASE WHEN NOT ({g}) THEN NULL ELSE {c} END",
            "coalesce": f"coalesce(CASE WHEN NOT ({g}) THEN 0 END, {c})",
        }[form]
        for g, c in zip(guard, casts)
    )
    e = call_ex(bj, f"CAST({dk} AS DECIMAL(38,{s}))", "num", x.used, (p, s))
    e.mirror = lambda rng, o: mk_cast(rng, ops, depth, o, col_ex(rng, o), to, form)
    return e


def mk_rem(rng, ops, depth, first, x=None, y=None, form=None):
    """x % y (mod(x, y)) of numbers, with the sign of x; NULL where y is 0 (DuckDB's with
    error_on_division_by_zero off)."""
    if x is None:
        x = fx(rng, ops, "num", depth + 1, first)
    if y is None:
        y = num_lit_ex(str(rng.choice([2, 3, 7, 10, 0, -4, 1000]) if rng.random() < 0.8 else rng.choice(["0.5", "1.25", "0.07"])))
    form = form or rng.choice(["op", "op", "mod"])
    (p1, s1), (p2, s2) = x.ps, y.ps
    s = max(s1, s2)
    p = max(p1 - s1, p2 - s2) + s
    if p > 38:
        return x
    bj = f"({x.bj} % {y.bj})" if form == "op" else f"mod({x.bj}, {y.bj})"
    # DuckDB's operands at their own precision: as DECIMAL(38, s) (every number's spelling on
    # DuckDB's side) a remainder needs over 38 digits, which DuckDB computes as a DOUBLE
    # (i64::MIN % 0.07 gave -0.04, not -0.02: seed 47, where case 1423).
    dk = f"CAST((CAST({x.dk} AS DECIMAL({p1},{s1}))) % (CAST({y.dk} AS DECIMAL({p2},{s2}))) AS DECIMAL(38,{s}))"
    e = call_ex(bj, dk, "num", x.used | y.used, (p, s), (decimal_width(p), s))
    e.mirror = lambda rng, o: mk_rem(rng, ops, depth, o, col_ex(rng, o), y, form)
    return e


def mk_intdiv(rng, ops, depth, first, form=None):
    """x // y (divide(x, y)) of an integer column by an integer literal or another integer
    column: the quotient truncated toward zero, exact (DuckDB's on HUGEINTs); NULL where y is
    0. Integer types only: DuckDB divides a DECIMAL, even of scale 0, as a DOUBLE (mk_div
    draws that)."""
    ints = [o for o in ops if o.kind == "num" and o.integer]
    x = col_ex(rng, first if first is not None and first.integer else rng.choice(ints))
    if rng.random() < 0.7 or len(ints) < 2:
        y = num_lit_ex(str(rng.choice([2, 3, 7, 10, 0, -1, -4, 1000, 86400])))
    else:
        y = col_ex(rng, rng.choice(ints))
    form = form or rng.choice(["op", "op", "divide"])
    (p1, _), (p2, _) = x.ps, y.ps
    p = max(p1, p2)
    MATHS[0] += 1
    bj = f"({x.bj} // {y.bj})" if form == "op" else f"divide({x.bj}, {y.bj})"
    dk = f"CAST(CAST({x.dk} AS HUGEINT) // CAST({y.dk} AS HUGEINT) AS DECIMAL(38,0))"
    return call_ex(bj, dk, "num", x.used | y.used, (p1 + 1, 0), (decimal_width(p), 0))


def mk_div(rng, ops, depth, first, x=None, y=None):
    """x / y of numbers: a DOUBLE, as DuckDB's. DuckDB's text divides the operands' DECIMAL(38,
    s), each rounded once to a DOUBLE, as bloomjoin rounds the exact values. The divisor may be
    0 (inf, -inf, NaN: DuckDB's `/` never fails) or -0.0 (the decimal 0: inf)."""
    if x is None:
        x = fx(rng, ops, "num", depth + 1, first)
    if y is None:
        r = rng.random()
        if r < 0.5:
            y = num_lit_ex(str(rng.choice([2, 3, 7, 10, 0, -4, 1000, "0.5", "1.25", "0.07", "-0.0"])))
        elif r < 0.8 and of(ops, "num"):
            y = col_ex(rng, rng.choice(of(ops, "num")))
        else:
            y = fx(rng, ops, "num", depth + 1)
    FLOATS[0] += 1
    # DuckDB's `//` by a literal with a point divides as `/`, but gives NULL by 0. Only by a
    # literal: in a join condition a column's name has a point too (`right.rid`), and
    # bloomjoin's `//` of two integer columns truncates, while DuckDB's of their DECIMAL(38,0)
    # texts gives the DOUBLE quotient (seed 9201, join case 23). The draw stays where it was,
    # so that a seed's other cases do not change.
    floor = "." in y.bj and rng.random() < 0.3
    op = "//" if floor and re.fullmatch(r"-?[0-9]*\.[0-9]+", y.bj) else "/"
    e = call_ex(f"({x.bj} {op} {y.bj})", f"({x.dk} {op} {y.dk})", "float", x.used | y.used)
    if first is not None and first.kind == "num":
        e.mirror = lambda rng, o: mk_div(rng, ops, depth, o, col_ex(rng, o), y)
    return e


def mk_float_cast(rng, ops, depth, first, x=None, to=None, word=None):
    """CAST(x AS DOUBLE | FLOAT | REAL | FLOAT8) of a number (rounded once, as DuckDB does),
    TRY_CAST of a string (DuckDB's reader: spaces, a sign, '_', inf and nan) or of a float
    column (a DOUBLE beyond FLOAT's range is NULL)."""
    if x is None:
        x = col_ex(rng, first) if first is not None and first.kind in ("str", "float") else fx(rng, ops, "num", depth + 1, first)
    to = to or rng.choice(["DOUBLE", "FLOAT", "REAL", "FLOAT8"])
    word = word or ("TRY_CAST" if x.kind in ("str", "float") else rng.choice(["CAST", "TRY_CAST"]))
    FLOATS[0] += 1
    e = call_ex(f"{word}({x.bj} AS {to})", f"{word}({x.dk} AS {to})", "float", x.used)
    if first is not None:
        e.mirror = lambda rng, o: mk_float_cast(rng, ops, depth, o, None, to, word)
    return e


FLOAT_OPERANDS = ["2", "0", "0.1", "1.5", "-1", "3", "1e0", "0.5e0", "1e300", "-2.5e-3"]


def mk_float_arith(rng, ops, depth, first, x=None, y=None, op=None):
    """x op y of a float x (a FLOAT or DOUBLE column or call) and a float, a number column or a
    literal (an exponent makes it a DOUBLE), or -x: a FLOAT where a FLOAT meets no DOUBLE, else
    a DOUBLE, as DuckDB binds them, each operand rounded once to it; IEEE's operation (`%` is
    fmod: NaN by 0)."""
    if x is None:
        x = fx(rng, ops, "float", depth + 1, first)
    FLOATS[0] += 1
    if op is None and rng.random() < 0.1:
        op = "neg"
    if op == "neg":
        e = call_ex(f"(-{arg(x)})", f"(-({x.dk}))", "float", x.used)
        e.mirror = lambda rng, o: mk_float_arith(rng, ops, depth, o, col_ex(rng, o), op="neg")
        return e
    if y is None:
        r = rng.random()
        if r < 0.4 or not of(ops, "float", "num"):
            t = rng.choice(FLOAT_OPERANDS)
            y = Ex(t, t, "float")
        elif r < 0.7 and of(ops, "float"):
            y = col_ex(rng, rng.choice(of(ops, "float")))
        else:
            y = col_ex(rng, rng.choice(of(ops, "float", "num")))
    op = op or rng.choice(["+", "-", "*", "/", "%"])
    a, b = (x, y) if rng.random() < 0.7 else (y, x)
    e = call_ex(f"({a.bj} {op} {b.bj})", f"({a.dk} {op} {b.dk})", "float", x.used | y.used)
    e.mirror = lambda rng, o: mk_float_arith(rng, ops, depth, o, col_ex(rng, o), y, op)
    return e


def mk_round(rng, ops, depth, first, x=None, how=None, n=None):
    """round(x, n), trunc(x, n) (n may be left out: 0) of a number: exact, at scale
    min(s, max(n, 0)), as DuckDB's of its DECIMAL(38, s) text (the values stay below 10^36,
    where DuckDB's result would overflow); or sign(x), a TINYINT."""
    if x is None:
        x = fx(rng, ops, "num", depth + 1, first)
    p, s = x.ps
    if p > 36:
        return x
    MATHS[0] += 1
    how = how or rng.choice(["round", "round", "trunc", "sign"])
    if how == "sign":
        e = call_ex(f"sign({x.bj})", f"CAST(sign({x.dk}) AS DECIMAL(38,0))", "num", x.used, (1, 0), (3, 0))
        e.mirror = lambda rng, o: mk_round(rng, ops, depth, o, col_ex(rng, o), how)
        return e
    if n is None:
        n = rng.choice([None, 0, 1, 2, -1, -2, -3, 5, -40])
    k = 0 if n is None else n
    s2 = min(s, max(k, 0))
    bp, bs = x.bjps or (MAX_DIGITS, s)
    bjps = x.bjps if k >= bs else (decimal_width(min(bp + 1, MAX_DIGITS)), s2)
    args = "" if n is None else f", {n}"
    e = call_ex(f"{how}({x.bj}{args})", f"CAST({how}({x.dk}{args}) AS DECIMAL(38,{s2}))", "num", x.used,
                (p - s + 1 + s2, s2), bjps)
    e.mirror = lambda rng, o: mk_round(rng, ops, depth, o, col_ex(rng, o), how, n)
    return e


# DOUBLE functions of one argument and their spellings; `{}` is the argument.
MATH_CALLS = ["sqrt({})", "ln({})", "log({})", "log10({})", "log2({})", "exp({})", "sin({})", "cos({})", "tan({})",
              "cot({})", "asin({})", "acos({})", "atan({})", "degrees({})", "radians({})", "power({}, 2)",
              "pow(2, {})", "power({}, 0.5)", "atan2({}, 1.5)", "atan2(-1, {})", "log(2, {})", "log({}, 10)",
              "exp({} / 100)"]
# Rounding of floats: `{}` is the argument.
FLOAT_ROUNDS = ["round({})", "round({}, 1)", "round({}, 2)", "round({}, -1)", "round({}, 5)", "round({}, 22)",
                "round({}, 23)", "round({}, -400)", "trunc({})", "trunc({}, 2)", "trunc({}, -2)", "floor({})",
                "ceil({})", "ceiling({})"]


def mk_math(rng, ops, depth, first, x=None, call=None):
    """A DOUBLE function (sqrt, ln, power, the trigonometric ones, ...) of a number or a float,
    or the rounding of a float (round, trunc, floor, ceil, in the float's type): the C
    library's function, which DuckDB calls too; a number is rounded once to a DOUBLE first."""
    if x is None:
        x = fx(rng, ops, "float", depth + 1, first) if first is not None and first.kind == "float" else \
            fx(rng, ops, rng.choice([k for k in ("num", "float") if of(ops, k)] or ["num"]), depth + 1, first)
    if call is None:
        call = rng.choice(MATH_CALLS + (FLOAT_ROUNDS if x.kind == "float" else []))
    MATHS[0] += 1
    e = call_ex(call.format(x.bj), call.format(x.dk), "float", x.used)
    e.mirror = lambda rng, o: mk_math(rng, ops, depth, o, col_ex(rng, o), call)
    return e


def reads_str(ops, f):
    return (f is None and of(ops, "str")) or (f is not None and f.kind == "str")


# For each result kind: (maker, whether it can read `first` (None: any operand) given the ops).
MAKERS = {
    "str": [(mk_case, reads_str), (mk_substr, reads_str), (mk_trim, reads_str), (mk_replace, reads_str),
            (mk_concat, reads_str), (mk_re_str, reads_str), (mk_coalesce, lambda ops, f: f is not None and f.kind == "str"),
            (mk_split_part, reads_str), (mk_pad, reads_str), (mk_concat_ws, reads_str), (mk_digest, reads_str),
            (mk_casewhen, lambda ops, f: f is not None and f.kind == "str"), (mk_varchar, casts_to_text),
            # Twice: strings are drawn less often than other kinds.
            (mk_strftime, lambda ops, f: (f is None and of(ops, "date", "ts")) or (f is not None and f.kind in ("date", "ts", "xdate"))),
            (mk_strftime, lambda ops, f: (f is None and of(ops, "date", "ts")) or (f is not None and f.kind in ("date", "ts", "xdate")))],
    "num": [(mk_length, reads_str), (mk_strpos, reads_str), (mk_strlen, reads_str), (mk_try_cast, reads_str),
            (mk_try_cast, lambda ops, f: (f is None and of(ops, "num")) or (f is not None and f.kind == "num")),
            # Twice each: a CAST that can fail tests the evaluation's guards (lazy.rs).
            (mk_cast, reads_str), (mk_cast, reads_str),
            (mk_cast, lambda ops, f: (f is None and of(ops, "num")) or (f is not None and f.kind == "num")),
            (mk_cast, lambda ops, f: (f is None and of(ops, "num")) or (f is not None and f.kind == "num")),
            (mk_rem, lambda ops, f: (f is None and of(ops, "num")) or (f is not None and f.kind == "num")),
            # Twice: integer columns are among a table's number columns, not all of them.
            (mk_intdiv, lambda ops, f: (f is None and any(o.integer for o in of(ops, "num")))
             or (f is not None and f.integer)),
            (mk_intdiv, lambda ops, f: (f is None and any(o.integer for o in of(ops, "num")))
             or (f is not None and f.integer)),
            (mk_abs, lambda ops, f: (f is None and of(ops, "num")) or (f is not None and f.kind == "num")),
            (mk_round, lambda ops, f: (f is None and of(ops, "num")) or (f is not None and f.kind == "num")),
            (mk_coalesce, lambda ops, f: f is not None and f.kind == "num"),
            (mk_part, lambda ops, f: (f is None and of(ops, "date", "ts")) or (f is not None and can_part(f))),
            (mk_datediff, lambda ops, f: (f is None and of(ops, "date", "ts")) or (f is not None and can_part(f))),
            (mk_epoch, lambda ops, f: (f is None and of(ops, "date", "ts")) or (f is not None and f.kind in ("date", "ts")))],
    "float": [(mk_epoch_double, lambda ops, f: (f is None and of(ops, "date", "ts")) or (f is not None and f.kind in ("date", "ts"))),
              (mk_abs_float, lambda ops, f: (f is None and of(ops, "float")) or (f is not None and f.kind == "float")),
              (mk_coalesce, lambda ops, f: f is not None and f.kind == "float"),
              (mk_float_arith, lambda ops, f: (f is None and of(ops, "float")) or (f is not None and f.kind == "float")),
              (mk_div, lambda ops, f: (f is None and of(ops, "num")) or (f is not None and f.kind == "num")),
              (mk_math, lambda ops, f: (f is None and of(ops, "num", "float")) or (f is not None and f.kind in ("num", "float"))),
              (mk_float_cast, lambda ops, f: (f is None and of(ops, "num")) or (f is not None and f.kind in ("num", "str", "float")))],
    "date": [(mk_cast_date, lambda ops, f: (f is None and of(ops, "date", "ts")) or (f is not None and f.kind in ("date", "ts"))),
             (mk_last_day, lambda ops, f: (f is None and of(ops, "date", "ts")) or (f is not None and f.kind in ("date", "ts"))),
             (lambda rng, ops, d, f: mk_coalesce(rng, ops, d, f, "date"), lambda ops, f: f is not None and f.kind == "date"),
             (lambda rng, ops, d, f: mk_casewhen(rng, ops, d, f, "date"), lambda ops, f: f is not None and f.kind == "date")],
    "xdate": [(mk_cast_date, lambda ops, f: f is not None and f.kind == "xdate"),
              (mk_make_date, lambda ops, f: f is None or f.kind == "num"),
              (lambda rng, ops, d, f: mk_cast_text(rng, ops, d, f, "DATE"), reads_str),
              (lambda rng, ops, d, f: mk_coalesce(rng, ops, d, f, "xdate"), lambda ops, f: f is not None and f.kind == "xdate")],
    "ts": [(mk_cast_ts, lambda ops, f: (f is None and of(ops, "date", "ts")) or (f is not None and f.kind in ("date", "ts"))),
           # Three times: a rounding to whole seconds or milliseconds shows on few rows.
           (lambda rng, ops, d, f: mk_cast_ts(rng, ops, d, f, unit=True),
            lambda ops, f: (f is None and of(ops, "date", "ts")) or (f is not None and f.kind in ("date", "ts"))),
           (lambda rng, ops, d, f: mk_cast_ts(rng, ops, d, f, unit=True),
            lambda ops, f: (f is None and of(ops, "date", "ts")) or (f is not None and f.kind in ("date", "ts"))),
           (lambda rng, ops, d, f: mk_cast_ts(rng, ops, d, f, unit=True),
            lambda ops, f: (f is None and of(ops, "date", "ts")) or (f is not None and f.kind in ("date", "ts"))),
           (mk_to_timestamp, lambda ops, f: (f is None and of(ops, "num", "float")) or (f is not None and f.kind in ("num", "float"))),
           (mk_strptime, reads_str),
           (mk_trunc, lambda ops, f: (f is None and of(ops, "date", "ts")) or (f is not None and f.kind in ("date", "ts"))),
           # Twice: each direction (an instant to a wall clock, a wall clock to an instant).
           (mk_at_zone, lambda ops, f: (f is None and of(ops, "date", "ts")) or (f is not None and f.kind in ("date", "ts"))),
           (mk_at_zone, lambda ops, f: (f is None and of(ops, "date", "ts")) or (f is not None and f.kind in ("date", "ts"))),
           (lambda rng, ops, d, f: mk_cast_text(rng, ops, d, f, "TIMESTAMP"), reads_str),
           (lambda rng, ops, d, f: mk_coalesce(rng, ops, d, f, "ts"), lambda ops, f: f is not None and f.kind in ("date", "ts"))],
    "bool": [(mk_coalesce, lambda ops, f: f is not None and f.kind == "bool"), (mk_affix, reads_str),
             (mk_regex, reads_str),
             (mk_casewhen, lambda ops, f: f is not None and f.kind == "bool")],
    "bin": [(mk_coalesce, lambda ops, f: f is not None and f.kind == "bin")],
}


def float_text(v):
    if v != v or v in (float("inf"), float("-inf")):
        return None
    return "-0.0" if v == 0 and str(v).startswith("-") else repr(v)


def func_lit(rng, ops, a, values, cast=True):
    """A literal to compare `a` with: mostly one of the values it takes on some rows
    (`values`), else from the columns' pools or `a`'s hints. Dates and timestamps sometimes as
    a CAST of a string (`CAST('2020-01-01 10:00:00' AS DATE)`)."""
    kind = a.kind
    if values is not None and a.dk and rng.random() < 0.85:
        if kind in ("str", "bin", "float"):
            got = [v for v in values(a.dk, raw=True) if v is not None]
            if kind == "str":
                got = [Ex(sql_str(v), sql_str(v), "str") for v in got if isinstance(v, str)]
            elif kind == "bin":
                got = [Ex(bytes_lit(bytes(v)).bj, bytes_lit(bytes(v)).dk, "bin") for v in got if isinstance(v, (bytes, bytearray))]
            else:
                got = [Ex(t, t, "float") for t in (float_text(v) for v in got if isinstance(v, float)) if t]
        elif kind in ("num", "date", "xdate", "ts"):
            got = [x for x in (lit_from_text({"xdate": "date"}.get(kind, kind), t) for t in values(a.dk)) if x is not None]
        else:
            got = []
        if got:
            return rng.choice(got)
    if kind == "num":
        if a.hint and rng.random() < 0.6:
            return num_lit_ex(rng.choice(a.hint))
        return num_lit(rng, ops)
    if kind == "float":
        srcs = of(ops, "float")
        t = rng.choice(srcs).lit(rng).bj if srcs and rng.random() < 0.7 else rng.choice(["0", "1.5", "-1", "0.1", "1e300"])
        return Ex(t, t, "float")
    if kind in ("str", "bin"):
        srcs = of(ops, kind)
        if srcs:
            lit = rng.choice(srcs).lit(rng)
        else:
            lit = str_lit(rng, []) if kind == "str" else bin_lit(rng, [])
        bj, dk = lit.bj, lit.dk
        if kind == "str" and rng.random() < 0.3:
            # As lower() or upper() may give it (Python's mapping: a hint only).
            bj = dk = rng.choice([bj.lower(), bj.upper()])
        return Ex(bj, dk, kind)
    if kind == "bool":
        t = rng.choice(["TRUE", "FALSE"])
        return Ex(t, t, "bool")
    k = "date" if kind == "xdate" else kind
    if cast and rng.random() < 0.2:
        return cast_lit(rng, ops, k)
    if kind == "xdate":
        srcs = of(ops, "xdate", "date")
        lit = rng.choice(srcs).lit(rng) if srcs else date_lit(rng, [])
        bj, dk = lit.bj, lit.dk
        if bj.startswith("'"):
            bj, dk = f"DATE {bj}", f"DATE {dk}"
        return Ex(bj, dk, "date")
    return time_lit_ex(rng, ops, k)


def cast_lit(rng, ops, kind):
    """CAST('text' AS DATE | TIMESTAMP) (or TRY_CAST, or `::`), the text a date's or a
    timestamp's; a TRY_CAST of text that is no date now and then (NULL)."""
    t = time_lit_ex(rng, ops, rng.choice(["date", "ts"]))
    text = t.bj.split("'")[1]
    if rng.random() < 0.1:
        text = rng.choice(["2021-02-30", "x", "2020-13-01", ""])
        form = "try"
    else:
        form = rng.choice(["cast", "cast", "colons", "try"])
    word = "DATE" if kind == "date" else "TIMESTAMP"
    # A string with a UTC offset is cast to TIMESTAMPTZ mostly (its offset then counts), and
    # any timestamp's text now and then (whole microseconds in both engines).
    tz = kind == "ts" and (rng.random() < (0.7 if t.zoned else 0.1))
    if tz:
        word = rng.choice(["TIMESTAMPTZ", "TIMESTAMP WITH TIME ZONE"])
    bj = {"cast": f"CAST('{text}' AS {word})", "colons": f"'{text}'::{word}", "try": f"TRY_CAST('{text}' AS {word})"}[form]
    dword = word
    frac = text.partition(".")[2]
    if kind == "ts" and not tz and len(frac.rstrip("0")) > 6:
        dword = "TIMESTAMP_NS"
    dk = f"{'TRY_CAST' if form == 'try' else 'CAST'}('{text}' AS {dword})"
    e = Ex(bj, dk, kind)
    e.zoned = tz
    return e


def func_partner(rng, ops, a, values, fn=0.3, first=None):
    """What `a` compares with: a literal (mostly one of its values), a column of a kind it
    compares with, or (`fn` of the time) a call: mostly the same one on another column of
    `first`'s kind (`lower(left.ls) = lower(right.rs)`), else another of a kind it compares with."""
    cols = [o for o in ops if o.kind in FUNC_COMPATIBLE[a.kind]]
    if a.source is not None and rng.random() < 0.3:
        return a.source
    if rng.random() >= fn or not cols:
        if not cols or rng.random() < (0.75 if values is not None else 0.55):
            return func_lit(rng, ops, a, values)
        return col_ex(rng, rng.choice(cols))
    if a.mirror is not None and first is not None and rng.random() < 0.7:
        same = [o for o in ops if o.kind == first.kind and o.name != first.name]
        if same:
            return a.mirror(rng, rng.choice(same))
    if a.kind == "num":
        # A number: arithmetic, or a call on any column that gives one (a length, a part).
        if rng.random() < 0.3:
            return num_ex(rng, ops, first=rng.choice(cols), need_op=True)
        srcs = [o for o in ops if o.kind in ("num", "str", "date", "ts", "xdate")]
        return fx(rng, ops, "num", 1, rng.choice(srcs), need_fn=True)
    o = rng.choice(cols)
    if o.kind == "xdate" or a.kind == "xdate":
        return mk_cast_date(rng, ops, 1, o if o.kind in ("xdate", "date") else None)
    kind = rng.choice(["date", "ts"]) if a.kind in ("date", "ts") else a.kind
    return fx(rng, ops, kind, 1, o, need_fn=True)


def compose(rng, ops, a, first):
    """Arithmetic over a call's value, now and then: `year(d) + 1`, `coalesce(a, 0) * 2`,
    `CAST(ts AS DATE) + 3`, `CAST(d AS TIMESTAMP) - INTERVAL '1 hour'`."""
    r = rng.random()
    if a.kind == "num" and r < 0.3:
        if rng.random() < 0.5:
            b = num_lit_ex(str(rng.choice([0, 1, 2, 3, 10, -1, 100, 1970])))
        else:
            b = num_ex(rng, ops, 1)
        op = rng.choice(["+", "-", "*"])
        if op == "*" and b.prec != ATOM:
            op = "+"
        x, y = (a, b) if rng.random() < 0.7 else (b, a)
        ps = num_ps(op, x, y)
        if ps:
            return binary(rng, op, x, y, "num", ps)
        return a
    if a.kind == "date" and r < 0.15:
        return plus_or_minus(rng, a, days_ex(rng, ops), "date")
    if a.kind in ("date", "ts") and r < 0.3:
        return plus_or_minus(rng, a, interval_lit(rng), "ts")
    return a


def distinct_plain(rng, ops, first):
    """`x IS [NOT] DISTINCT FROM y` of plain columns and literals, both engines' texts as
    they are (the comparison's rules are `=`'s)."""
    def ref(o):
        # A timestamp as col_ex gives it to DuckDB (a zoned nanosecond column would not
        # compare with a TIMESTAMP_NS literal there).
        if o.kind == "ts":
            e = col_ex(rng, o)
            return e.bj, e.dk
        return o.refs(rng)

    neg = "NOT " if rng.random() < 0.5 else ""
    x = ref(first)
    r = rng.random()
    cols = [o for o in ops if o.kind in PLAIN_COMPATIBLE[first.kind]]
    used = {first.name}
    if r < 0.2:
        y = ("NULL", "NULL")
    elif r < 0.5 and cols:
        o = rng.choice(cols)
        y = ref(o)
        used.add(o.name)
    else:
        lit = first.lit(rng)
        y = (lit.bj, lit.dk)
    if rng.random() < 0.3:
        x, y = y, x
    return f"{x[0]} IS {neg}DISTINCT FROM {y[0]}", f"{x[1]} IS {neg}DISTINCT FROM {y[1]}", used


def like_pat(rng, a, values, ops):
    base = [v for v in values(a.dk, raw=True) if isinstance(v, str)] if values is not None else []
    if not base or rng.random() < 0.2:
        base = [p for o in of(ops, "str") for p in (o.pool or []) if isinstance(p, str)]
    esc = rng.choice([None, None, None, "!", "\\"])
    return like_pattern(rng, base, esc), esc


def func_predicate(rng, ops, first, values=None):
    """A predicate calling functions, reading the column `first` (an Operand of `ops`):
    (bloomjoin text, DuckDB text, the names of the columns read). `values(dk, raw=False)`, when
    given, lists the values a DuckDB expression takes on some rows (DuckDB's VARCHAR, or
    Python's with `raw`): literals cut them."""
    if rng.random() < 0.15:
        return distinct_plain(rng, ops, first)
    kinds = RESULTS[first.kind]
    if first.name == "s_when" and rng.random() < 0.7:
        kinds = ["xdate", "ts"]  # dates and times as text: mostly cast (when_text_columns)
    if first.zoned and rng.random() < 0.6:
        # date_diff and date_sub of a column with a time zone: strings they meet there are
        # read with their UTC offsets (mk_datediff), which other draws seldom reach.
        a = mk_datediff(rng, ops, 0, first, col_ex(rng, first))
    elif first.kind in ("date", "ts") and rng.random() < 0.35:
        # AT TIME ZONE of the column, half the time a part of its result (the wall clock's
        # hour, day, ...: what the zone's offset changes), which the kinds' draws seldom reach.
        # Half the time of a column with a time zone when `first` has none: an instant to the
        # zone's wall clock, the direction a zone-less column never takes.
        src = first
        zoned = [o for o in ops if o.zoned]
        if not first.zoned and zoned and rng.random() < 0.5:
            src = rng.choice(zoned)
        a = mk_at_zone(rng, ops, 0, src, col_ex(rng, src))
        if rng.random() < 0.5:
            a = mk_part(rng, ops, 0, src, a)
        if rng.random() < 0.5:
            # Against a value it takes on some rows: an offset applied the wrong way or at the
            # wrong instant moves the rows that match (a mirror on another column, in the same
            # zone, would move with it).
            b = func_lit(rng, ops, a, values)
            op = rng.choice(["=", "=", "<>", "<", ">=", "IS NOT DISTINCT FROM"])
            return f"{a.bj} {op} {b.bj}", f"{a.dk} {op} {b.dk}", a.used | b.used
    else:
        a = fx(rng, ops, rng.choice(kinds), 0, first, need_fn=True)
    a = compose(rng, ops, a, first)
    if a.kind == "bool":
        r = rng.random()
        if r < 0.3:
            return a.bj, a.dk, a.used
        if r < 0.5:
            return f"NOT {a.bj}", f"NOT {a.dk}", a.used
        if r < 0.6:
            w = rng.choice(["IS TRUE", "IS NOT TRUE", "IS FALSE", "IS NOT FALSE", "IS UNKNOWN", "IS NOT UNKNOWN"])
            return f"({a.bj}) {w}", f"({a.dk}) {w}", a.used
    r = rng.random()
    if a.kind == "str" and r < 0.2:
        pat, esc = like_pat(rng, a, values, ops)
        op = rng.choice(["LIKE", "NOT LIKE", "ILIKE", "NOT ILIKE", "LIKE"])
        t = f"{op} {sql_str(pat)}" + (f" ESCAPE {sql_str(esc)}" if esc else "")
        return f"{a.bj} {t}", f"{a.dk} {t}", a.used
    r = rng.random()
    if r < 0.4:
        b = func_partner(rng, ops, a, values, first=first)
        x, y = (a, b) if rng.random() < 0.75 else (b, a)
        op = rng.choice(CMP_OPS)
        if a.kind == "bool":
            op = rng.choice(["=", "<>", "!="])
        (xb, xd), (yb, yd) = side(rng, x, 0), side(rng, y, 0)
        return f"{xb} {op} {yb}", f"{xd} {op} {yd}", x.used | y.used
    if r < 0.6:
        neg = "NOT " if rng.random() < 0.5 else ""
        b = null_ex(a.kind) if rng.random() < 0.2 else func_partner(rng, ops, a, values, first=first)
        x, y = (a, b) if rng.random() < 0.7 else (b, a)
        (xb, xd), (yb, yd) = side(rng, x, 0), side(rng, y, 0)
        return f"{xb} IS {neg}DISTINCT FROM {yb}", f"{xd} IS {neg}DISTINCT FROM {yd}", x.used | y.used
    if r < 0.73 and a.kind != "bool":
        lo, hi = func_partner(rng, ops, a, values, fn=0.15), func_partner(rng, ops, a, values, fn=0.15)
        if lo.val is not None and hi.val is not None and type(lo.val) is type(hi.val) and lo.val > hi.val and rng.random() < 0.85:
            lo, hi = hi, lo
        neg = "NOT " if rng.random() < 0.25 else ""
        (xb, xd), (lb, ld), (hb, hd) = side(rng, a, SUM), side(rng, lo, SUM), side(rng, hi, SUM)
        return (f"{xb} {neg}BETWEEN {lb} AND {hb}", f"{xd} {neg}BETWEEN {ld} AND {hd}", a.used | lo.used | hi.used)
    return in_or_null(rng, a, r < 0.92,
                      lambda: func_partner(rng, ops, a, values, fn=0.1) if rng.random() < 0.3
                      else func_lit(rng, ops, a, values))


def bad_call(rng, info, names):
    """A call bloomjoin refuses (exit 2, one line; counted in MIXED): a function of the wrong
    kind of argument, the wrong number of arguments, an unknown function, a CAST to another
    type, a part it does not know: (bloomjoin text, DuckDB text), the same."""
    kinds = {n: info[n][0] for n in names}

    def pick(*ks):
        got = [n for n in names if kinds[n] in ks]
        return q(rng.choice(got)) if got else None

    num, s, t, any_ = pick("int", "decimal"), pick("str"), pick("date", "ts"), q(rng.choice(names))
    forms = [f"length({any_}, 1) = 1", "coalesce() IS NULL", f"frobnicate({any_}) = 1",
             f"CAST({any_} AS HUGEINT) = 1", f"CAST({any_} AS BLOB) = 'a'", "upper() = 'A'",
             f"{any_} // 2 = 1", f"mod({any_}) = 1",
             f"abs({any_}, 2) = 1", f"date_part('epoch', {num or s or any_}) = 0", f"date_part({any_}) = 0",
             f"lower({any_}, {any_}) = 'a'", f"EXTRACT(julian FROM {s or num or any_}) = 0",
             f"date_trunc('dow', {t or any_}) IS NULL", f"date_trunc({t or any_}) IS NULL",
             f"date_trunc({any_}, {t or any_}) IS NULL", f"left({any_}) = 'a'",
             f"substr({any_}, 1, 2, 3) = 'a'", "concat() = 'a'", f"trim({any_}, 'a', 'b') = 'a'",
             f"reverse({any_}) = 'a'"]
    if num:
        forms += [f"lower({num}) = 'a'", f"year({num}) = 2020", f"CAST({num} AS DATE) IS NULL",
                  f"starts_with({num}, 'a')", f"trim({num}) = 'a'"]
    if s:
        forms += [f"abs({s}) = 1", f"year({s}) = 2020", f"coalesce({s}, 1) = 1", f"TRY_CAST({s} AS DATE) IS NULL",
                  f"date_trunc('month', {s}) IS NULL", f"substr({s}, 1.5) = 'a'", f"left({s}, {s}) = 'a'",
                  f"{s} % 2 = 1", f"strpos({s}, 1) = 1"]
    if "b" in names and kinds["b"] == "bin":
        forms += ["coalesce(b, 'x') = 'x'"]
    t = rng.choice(forms)
    return t, t


# How many predicates of mismatched types the conditions generated so far hold: a refusal of
# a condition without any is a failure.
MIXED = [0]


# How many function predicates the conditions generated so far hold (for the summary).
FUNCS = [0]

# How many CASTs that can fail (not TRY_CAST) the conditions generated so far hold.
CASTS = [0]

# How many divisions and float operations (mk_div, mk_float_arith) they hold.
FLOATS = [0]
# How many numeric functions (mk_round, mk_math) and integer quotients (mk_intdiv) they hold.
MATHS = [0]


def predicate(rng, info, names, frng=None, values=None):
    """One predicate over the columns `names` of `info`: (bloomjoin text, DuckDB text).

    `frng`, when given, draws (FUNC_SHARE of the time) a predicate calling functions instead
    (func_predicate; `values` as there), from itself: `rng` still draws the predicate it
    would have, so that a seed's other draws stay what they were."""
    if frng is None or frng.random() >= FUNC_SHARE:
        return plain_predicate(rng, info, names)
    mixed = MIXED[0]
    plain = plain_predicate(rng, info, names)
    ops = func_operands(info, names)
    if not ops:
        return plain
    MIXED[0] = mixed  # the plain predicate is not used
    FUNCS[0] += 1
    if frng.random() < BAD_CALL_SHARE:
        MIXED[0] += 1
        return bad_call(frng, info, names)
    # A kind of column first (the integers would outnumber the rest), then a column of it.
    kinds = sorted({o.kind for o in ops})
    kind = frng.choice([k for k in kinds for _ in range(KIND_WEIGHT[k])])
    first = frng.choice([o for o in ops if o.kind == kind])
    when = [o for o in ops if o.name == "s_when"]
    if when and frng.random() < 0.4:
        first = when[0]  # dates and times as text, which one column of all holds
    bj, dk, _ = func_predicate(frng, ops, first, values)
    return bj, dk


def plain_predicate(rng, info, names):
    """One predicate without functions (the generator's before they came)."""
    name = rng.choice(names)
    kind = info[name][0]
    col = q(name)
    if kind in ("int", "decimal", "date", "ts") and rng.random() < ARITH_SHARE:
        # Arithmetic over the column and others of its family (numbers; dates and timestamps),
        # unless it may not compute (a date column of far days: see where_operands).
        ops = where_operands(info, names)
        first = [o for o in ops if o.name == name]
        if first:
            bj, dk, _ = arith_predicate(rng, ops, first[0])
            return bj, dk
    r = rng.random()
    if kind in ("str",) and r < 0.25:
        esc = rng.choice([None, None, "!", "\\", "#", ""]) if rng.random() < 0.6 else None
        pat = like_pattern(rng, info[name][2], esc or None)
        op = rng.choice(["LIKE", "NOT LIKE", "ILIKE", "NOT ILIKE"])
        t = f"{col} {op} {sql_str(pat)}"
        if esc is not None:
            t += f" ESCAPE {sql_str(esc)}"
        return t, t
    if kind in ("time", "time_ns") and r < 0.2:
        # A part of a time of day (DuckDB's hour, minute and whole second), near a value's.
        part, per_part, mod = rng.choice([("hour", 3600, 24), ("minute", 60, 60), ("second", 1, 60)])
        per = 10**9 // PER_SECOND[info[name][1]]
        pool = info[name][2]
        v = (rng.choice(pool) * per // 10**9 // per_part % mod if pool else 0) + rng.choice([0, 0, 1, -1])
        form = rng.choice([f"{part}({col})", f"EXTRACT({part} FROM {col})", f"date_part('{part}', {col})"])
        t = f"{form} {rng.choice(['=', '<', '>=', '<>'])} {v}"
        return t, t
    if kind == "bool" and r < 0.4:
        t = rng.choice([col, f"NOT {col}", f"{col} = TRUE", f"{col} <> FALSE"])
        return t, t
    if r < 0.15:
        t = f"{col} IS {'NOT ' if rng.random() < 0.5 else ''}NULL"
        return t, t
    if r < 0.35:
        n = rng.choice([1, 2, 3, 5, 16, 17, 40])
        lits = [literal_for(rng, info, name) for _ in range(n)]
        if rng.random() < 0.3:
            lits.insert(rng.randint(0, len(lits)), Lit("NULL"))
        ns_list(lits)
        neg = "NOT " if rng.random() < 0.4 else ""
        return (
            f"{col} {neg}IN ({', '.join(x.bj for x in lits)})",
            f"{col} {neg}IN ({', '.join(x.dk for x in lits)})",
        )
    if r < 0.47:
        a, b = literal_for(rng, info, name), literal_for(rng, info, name)
        ns_list([a, b])
        neg = "NOT " if rng.random() < 0.3 else ""
        return f"{col} {neg}BETWEEN {a.bj} AND {b.bj}", f"{col} {neg}BETWEEN {a.dk} AND {b.dk}"
    op = rng.choice(["=", "==", "<>", "!=", "<", "<=", ">", ">="])
    if r < 0.485:
        # Mixed types: a column against a literal of any column's kind. Either both engines
        # compare them the same way, or bloomjoin refuses (exit 2), or DuckDB does.
        other = rng.choice(list(info))
        lit = literal_for(rng, info, other)
        # A bare string literal takes the column's type: a timestamp's text against a date
        # column is not a date to bloomjoin, which refuses it, while DuckDB (like Spark and
        # PostgreSQL) casts it to a date and drops the time (seed 2611402, where 756).
        bare = lit.bj.startswith("'")
        if info[other][0] not in COMPATIBLE[kind] or (bare and info[other][0] != kind):
            MIXED[0] += 1
        # A string with a UTC offset against a zone-less timestamp: DuckDB drops the offset,
        # bloomjoin refuses.
        elif lit.tz and name not in ZONED:
            MIXED[0] += 1
        return f"{col} {op} {lit.bj}", f"{col} {op} {lit.dk}"
    if r < 0.6:
        # Column against column of a compatible kind.
        others = [n for n in names if info[n][0] in COMPATIBLE[kind]]
        other = q(rng.choice(others))
        return f"{col} {op} {other}", f"{col} {op} {other}"
    lit = literal_for(rng, info, name)
    if rng.random() < 0.2:
        return f"{lit.bj} {op} {col}", f"{lit.dk} {op} {col}"
    return f"{col} {op} {lit.bj}", f"{col} {op} {lit.dk}"


def condition(rng, info, names, depth=0, frng=None, values=None):
    """A random condition: predicates under AND / OR / NOT, with parentheses. `frng` and
    `values`: see predicate (without `frng`, no functions)."""
    r = rng.random()
    if depth >= 3 or r < 0.45:
        bj, dk = predicate(rng, info, names, frng, values)
        return bj, dk
    if r < 0.55:
        bj, dk = condition(rng, info, names, depth + 1, frng, values)
        return f"NOT ({bj})", f"NOT ({dk})"
    op = rng.choice(["AND", "OR"])
    parts = [condition(rng, info, names, depth + 1, frng, values) for _ in range(rng.randint(2, 3))]
    return (
        "(" + f" {op} ".join(f"({p[0]})" for p in parts) + ")",
        "(" + f" {op} ".join(f"({p[1]})" for p in parts) + ")",
    )
