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
        elif pa.types.is_timestamp(col.type):
            col = col.cast(pa.int64())
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
            f"bloom_filters={blooms}"
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
    for unit in TS_UNITS:
        tz = rng.choice([None, None, "UTC", "+05:30", "America/New_York"])
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


def rand_decimal(rng, p, s):
    digits = rng.choice([1, 2, p, rng.randint(1, p)])
    v = rng.randint(0, 10**digits - 1) if rng.random() < 0.7 else rng.choice([0, 1, 10**p - 1])
    v = min(v, 10**p - 1)
    if rng.random() < 0.4:
        v = -v
    return decimal.Decimal(f"{v}E-{s}")  # exact (scaleb would round to 28 digits)


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

    def __init__(self, bj, dk=None):
        self.bj = bj
        self.dk = bj if dk is None else dk


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


def date_lit(rng, pool):
    day = rng.choice(pool) if pool and rng.random() < 0.7 else rng.randint(-1000, 30000)
    day = max(min(day, 2932896), -719162)
    t = date_text(day)
    return Lit(f"DATE '{t}'") if rng.random() < 0.7 else Lit(f"'{t}'")


def ts_lit(rng, unit, pool):
    """A TIMESTAMP literal; nanosecond ones are TIMESTAMP_NS for DuckDB."""
    per = PER_SECOND[unit]
    if pool and rng.random() < 0.7:
        v = rng.choice(pool)
        ns = v * (10**9 // per)
    else:
        ns = rand_instant(rng, "ns", [0, 18262, 19000])
    ns += rng.choice([0, 0, 0, 1, -1, 1000, 10**9 // 2])
    secs, frac = divmod(ns, 10**9)
    day, sod = divmod(secs, 86400)
    if not (-719162 <= day <= 2932896):
        day = 0
    base = f"{date_text(day)} {sod // 3600:02d}:{sod // 60 % 60:02d}:{sod % 60:02d}"
    if frac:
        digits = f"{frac:09d}".rstrip("0")
        base += "." + digits
        if len(digits) > 6:
            return Lit(f"TIMESTAMP '{base}'", f"TIMESTAMP_NS '{base}'")
    if rng.random() < 0.15:
        return Lit(f"'{base}'")
    return Lit(f"TIMESTAMP '{base}'")


def str_lit(rng, pool):
    s = rng.choice(pool) if pool and rng.random() < 0.7 else rng.choice(STRINGS)
    return Lit(sql_str(s))


def bin_lit(rng, pool):
    v = rng.choice(pool) if pool and rng.random() < 0.7 else rng.choice(STRINGS).encode("utf-8")
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
        return ts_lit(rng, extra, pool)
    if kind == "str":
        return str_lit(rng, pool)
    if kind == "bin":
        return bin_lit(rng, pool)
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


# How many predicates of mismatched types the conditions generated so far hold: a refusal of
# a condition without any is a failure.
MIXED = [0]


def predicate(rng, info, names):
    """One predicate over the columns `names` of `info`: (bloomjoin text, DuckDB text)."""
    name = rng.choice(names)
    kind = info[name][0]
    col = q(name)
    r = rng.random()
    if kind in ("str",) and r < 0.25:
        esc = rng.choice([None, None, "!", "\\", "#", ""]) if rng.random() < 0.6 else None
        pat = like_pattern(rng, info[name][2], esc or None)
        op = rng.choice(["LIKE", "NOT LIKE", "ILIKE", "NOT ILIKE"])
        t = f"{col} {op} {sql_str(pat)}"
        if esc is not None:
            t += f" ESCAPE {sql_str(esc)}"
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
        neg = "NOT " if rng.random() < 0.4 else ""
        return (
            f"{col} {neg}IN ({', '.join(x.bj for x in lits)})",
            f"{col} {neg}IN ({', '.join(x.dk for x in lits)})",
        )
    if r < 0.47:
        a, b = literal_for(rng, info, name), literal_for(rng, info, name)
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


def condition(rng, info, names, depth=0):
    """A random condition: predicates under AND / OR / NOT, with parentheses."""
    r = rng.random()
    if depth >= 3 or r < 0.45:
        bj, dk = predicate(rng, info, names)
        return bj, dk
    if r < 0.55:
        bj, dk = condition(rng, info, names, depth + 1)
        return f"NOT ({bj})", f"NOT ({dk})"
    op = rng.choice(["AND", "OR"])
    parts = [condition(rng, info, names, depth + 1) for _ in range(rng.randint(2, 3))]
    return (
        "(" + f" {op} ".join(f"({p[0]})" for p in parts) + ")",
        "(" + f" {op} ".join(f"({p[1]})" for p in parts) + ")",
    )
