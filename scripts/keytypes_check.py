"""Every key type against DuckDB (issue 16); scripts/crosscheck.sh runs it.

    python scripts/keytypes_check.py BLOOMJOIN_BIN OUT_DIR

For each pair of key column types (left, right) -- integers of mixed widths and signedness
(UInt64 values of 2^63 and more against negative Int64), decimals of different scales and
against integers, dates, booleans against integers, timestamps of every unit (with and
without a time zone; different zones), strings and binary of every Arrow kind -- it writes
two small Parquet tables with pyarrow (nulls and duplicate keys on both sides, keys that
match only when compared by value), trains a filter on the left key, and runs `bloomjoin
join` for every join type with the filter, under the replicated strategy, and under the
reduce-side strategy for inner and full joins. DuckDB joins the same files with `l.k = r.k`;
the multisets of (left row id, right row id) must be identical.

Composite keys with timestamp components: (id, ts) tuples whose id widths and timestamp
units (and zones) differ across the sides, keyed as `k1,k2`, joined by DuckDB on
`l.k1 = r.k1 AND l.k2 = r.k2`.

Times of day (`TIME` of seconds, milliseconds and microseconds, `TIME_NS`) meet by value, as
single keys and as a component of a composite key. A UUID (Parquet's UUID logical type)
meets 16-byte binary keys by its bytes.

Where DuckDB converts and we refuse, the refusal is checked instead: a timestamp with a time
zone against one without (DuckDB converts with its session time zone; we exit 2 with a
one-line "time zone mismatch" error naming both key columns). A time of day against a
timestamp is refused by both (DuckDB: no cast from TIME to TIMESTAMP; we: "key family
mismatch"). A UUID against a string: DuckDB casts the text to a UUID and joins; we refuse
with one line naming both keys, never a silent empty join.
"""

import datetime
import decimal
import glob
import os
import re
import subprocess
import sys

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

JOIN_TYPES = ["inner", "left", "left-semi", "left-anti", "right", "right-semi", "right-anti", "full"]
SQL_JOIN = {
    "inner": "JOIN",
    "left": "LEFT JOIN",
    "right": "RIGHT JOIN",
    "full": "FULL JOIN",
}
# The join types that output one side's rows alone: (that side's id column, DuckDB's join
# with that side first).
ONE_SIDE = {
    "left-semi": ("lid", "SELECT l.lid FROM '{l}' l SEMI JOIN '{r}' r ON {on}"),
    "left-anti": ("lid", "SELECT l.lid FROM '{l}' l ANTI JOIN '{r}' r ON {on}"),
    "right-semi": ("rid", "SELECT r.rid FROM '{r}' r SEMI JOIN '{l}' l ON {on}"),
    "right-anti": ("rid", "SELECT r.rid FROM '{r}' r ANTI JOIN '{l}' l ON {on}"),
}

D = decimal.Decimal
S = 1_000_000_000
I64_MIN, I64_MAX, U64_MAX = -(2**63), 2**63 - 1, 2**64 - 1


def ints(values, t):
    return pa.array(values, t)


def cases():
    """(name, left array, right array)."""
    t = pa.timestamp
    yield "int8-int64", ints([1, -1, 7, None, 7, 127, -128], pa.int8()), ints(
        [7, -1, 127, 128, -129, None, 1, 7, 2**40], pa.int64()
    )
    yield "uint8-int16", ints([0, 255, 7, None, 200], pa.uint8()), ints(
        [-1, 255, 200, 7, None, -56, 0], pa.int16()
    )
    yield "int32-uint32", ints([-1, 5, 2**31 - 1, None, -(2**31)], pa.int32()), ints(
        [2**32 - 1, 5, 2**31 - 1, 2**31, None, 0], pa.uint32()
    )
    signed = [-1, -2, 5, I64_MIN, I64_MAX, None, 7, 5]
    unsigned = [U64_MAX, U64_MAX - 1, 5, 2**63, I64_MAX, None, 9]
    yield "int64-uint64", ints(signed, pa.int64()), ints(unsigned, pa.uint64())
    yield "uint64-int64", ints(unsigned, pa.uint64()), ints(signed, pa.int64())
    yield "uint16-int8", ints([65535, 1, 127, None], pa.uint16()), ints(
        [-1, 1, 127, None, 1], pa.int8()
    )
    yield "decimal(10,2)-decimal(5,1)", pa.array(
        [D("1.50"), D("7.00"), D("-2.00"), D("0.10"), None, D("1.55"), D("1.50")],
        pa.decimal128(10, 2),
    ), pa.array(
        [D("1.5"), D("7.0"), D("-2.0"), D("0.1"), D("1.6"), None, D("0.7")],
        pa.decimal128(5, 1),
    )
    yield "decimal(38,0)-int64", pa.array(
        [D(U64_MAX), D(-1), D(5), D(10**30), None, D(I64_MIN)], pa.decimal128(38, 0)
    ), ints([-1, 5, I64_MIN, None, 6, I64_MAX], pa.int64())
    yield "decimal(12,3)-int32", pa.array(
        [D("7.000"), D("7.001"), D("-3.000"), None, D("0.000")], pa.decimal128(12, 3)
    ), ints([7, -3, 0, None, 8], pa.int32())
    yield "decimal(38,10)-decimal(20,0)", pa.array(
        [D("12345678901234567890"), D("1.5"), D("-99999999999999999999"), None],
        pa.decimal128(38, 10),
    ), pa.array(
        [D("12345678901234567890"), D("2"), D("-99999999999999999999"), None],
        pa.decimal128(20, 0),
    )
    day = datetime.date
    yield "date32-date32", pa.array(
        [day(2024, 1, 1), day(1969, 12, 31), None, day(2024, 1, 1)], pa.date32()
    ), pa.array([day(2024, 1, 1), day(1970, 1, 1), day(1969, 12, 31), None], pa.date32())
    yield "bool-bool", pa.array([True, False, None, True]), pa.array([True, None, True, False])
    yield "bool-int8", pa.array([True, False, None]), ints([1, 0, 2, -1, None, 1], pa.int8())
    yield "ts[ms]-ts[ns]", pa.array(
        [1_000, 1_500, -1_000, None, 2_000, 1_500, 0], t("ms")
    ), pa.array(
        [S, S + S // 2, S + S // 2 + 1, -S, None, 3 * S, S, 0, 1], t("ns")
    )
    yield "ts[s]-ts[us]", pa.array(
        [1, 2, -1, None, -62135596800, 253402300799], t("s")
    ), pa.array(
        [1_000_000, 2_000_001, -1_000_000, None, -62135596800_000_000, 253402300799_000_000],
        t("us"),
    )
    yield "ts[us]-ts[ms]", pa.array([1_500_000, 1_500_001, None, 0], t("us")), pa.array(
        [1_500, 1_501, None, 0, 0], t("ms")
    )
    yield "ts[ms,UTC]-ts[ns,+02:00]", pa.array(
        [1_000, 1_500, None, -1_000], t("ms", tz="UTC")
    ), pa.array([S, S + S // 2 + 1, -S, None, S], t("ns", tz="+02:00"))
    yield "ts[s,Europe/Paris]-ts[us,UTC]", pa.array(
        [0, 3600, None], t("s", tz="Europe/Paris")
    ), pa.array([0, 3_600_000_000, 1, None], t("us", tz="UTC"))
    # Times of day: TIME (ms, us) and TIME_NS meet by value (DuckDB casts TIME to
    # TIME_NS), so 00:00:01.5 meets 00:00:01.500000000 and not 00:00:01.500000001.
    yield "time32[ms]-time64[ns]", pa.array(
        [1_000, 1_500, None, 86_399_999, 0, 1_500], pa.time32("ms")
    ), pa.array(
        [S, S + S // 2, S + S // 2 + 1, None, 86_399_999 * 10**6, 0, 2 * S], pa.time64("ns")
    )
    yield "time32[s]-time64[us]", pa.array([1, 2, None, 86_399, 0], pa.time32("s")), pa.array(
        [1_000_000, 2_000_001, None, 86_399_000_000, 0, 1_000_000], pa.time64("us")
    )
    yield "time64[us]-time64[ns]", pa.array(
        [1_500_000, 1_500_001, None, 0], pa.time64("us")
    ), pa.array([1_500_000_000, 1_500_001_000, 1_500_000_001, None, 0], pa.time64("ns"))
    # A UUID (Parquet's UUID logical type) meets 16-byte binary keys by its bytes, as DuckDB
    # compares a UUID with a BLOB.
    u = [(i * 0x0123456789ABCDEF00112233).to_bytes(16, "big") for i in range(1, 6)]
    yield "uuid-fixed_size_binary(16)", pa.array(
        [u[0], u[1], None, u[2], u[1]], pa.uuid()
    ), pa.array([u[1], u[3], None, u[0], b"\x00" * 16], pa.binary(16))
    words = ["ab", "cd", None, "zoë", "ef", "ab", ""]
    other = ["cd", "zoë", "xy", None, "ab", "", "AB"]
    b = lambda v: [None if s is None else s.encode() for s in v]  # noqa: E731
    yield "string-large_string", pa.array(words, pa.string()), pa.array(
        other, pa.large_string()
    )
    yield "string_view-string", pa.array(words, pa.string_view()), pa.array(other, pa.string())
    yield "dictionary-string", pa.array(words).dictionary_encode(), pa.array(other)
    yield "binary-large_binary", pa.array(b(words), pa.binary()), pa.array(
        b(other), pa.large_binary()
    )
    yield "binary_view-binary", pa.array(b(words), pa.binary_view()), pa.array(
        b(other), pa.binary()
    )
    two = ["ab", "cd", None, "xy", "ef", "ab"]
    yield "fixed_size_binary(2)-binary", pa.array(b(two), pa.binary(2)), pa.array(
        b(other), pa.binary()
    )


def composite_cases():
    """(name, left key arrays, right key arrays): two-column keys with a timestamp component
    (issue 16), ids of mixed widths and timestamps of mixed units across the sides."""
    t = pa.timestamp
    ms = [1_000, 1_500, 1_500, None, 2_000, 1_000, -1_000, 0]
    yield "(int64,ts[ms])-(int32,ts[us])", [
        ints([1, 1, 2, 1, 3, None, 4, 5], pa.int64()),
        pa.array(ms, t("ms")),
    ], [
        ints([1, 1, 2, 2, 3, 1, None, 4, 5, 1], pa.int32()),
        pa.array(
            [1_000_000, 1_500_000, 1_500_000, 1_500_001, 2_000_000, None, 1_000_000,
             -1_000_000, 0, 1_000_000],
            t("us"),
        ),
    ]
    yield "(ts[s],string)-(ts[ns],large_string)", [
        pa.array([1, 2, None, 1, -1], t("s")),
        pa.array(["a", "b", "a", None, "c"]),
    ], [
        pa.array([S, 2 * S, S, S + 1, -S, S], t("ns")),
        pa.array(["a", "b", "b", "a", "c", None], pa.large_string()),
    ]
    yield "(int16,ts[ms,UTC])-(uint8,ts[ns,+02:00])", [
        ints([1, 2, 2, None, 3], pa.int16()),
        pa.array([1_000, 1_500, None, 1_000, 0], t("ms", tz="UTC")),
    ], [
        ints([1, 2, 2, 1, 3, 3], pa.uint8()),
        pa.array([S, S + S // 2, S + S // 2 + 1, S, 0, None], t("ns", tz="+02:00")),
    ]
    yield "(int32,time64[us])-(int64,time32[ms])", [
        ints([1, 1, 2, None, 3], pa.int32()),
        pa.array([1_000_000, 2_000_000, 1_000_000, 1_000_000, None], pa.time64("us")),
    ], [
        ints([1, 2, 2, 1, 3, 1], pa.int64()),
        pa.array([2_000, 1_000, 2_000, 1_001, None, 1_000], pa.time32("ms")),
    ]


def write(path, keys, id_name):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    cols = {"k": keys} if not isinstance(keys, list) else {
        f"k{i + 1}": k for i, k in enumerate(keys)
    }
    n = len(next(iter(cols.values())))
    table = pa.table({**cols, id_name: pa.array(range(n), pa.int32())})
    # Row groups of two rows, so that min/max pruning has something to skip.
    pq.write_table(table, path, row_group_size=2)


def run(args):
    return subprocess.run(args, capture_output=True, text=True)


def rows(con, sql):
    return sorted(con.sql(sql).fetchall(), key=repr)


def main():
    binary, out = sys.argv[1], sys.argv[2]
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    failed = 0
    checked = 0
    for name, left, right in [*cases(), *composite_cases()]:
        if isinstance(left, list):
            key = ",".join(f"k{i + 1}" for i in range(len(left)))
            on = " AND ".join(f"l.k{i + 1} = r.k{i + 1}" for i in range(len(left)))
        else:
            key, on = "k", "l.k = r.k"
        d = os.path.join(out, re.sub(r"[^A-Za-z0-9_-]", "_", name))
        lpath, rpath = os.path.join(d, "l/l.parquet"), os.path.join(d, "r/r.parquet")
        write(lpath, left, "lid")
        write(rpath, right, "rid")
        filt = os.path.join(d, "l.bjf")
        r = run([binary, "-q", "train", "--input", lpath, "--column", key, "--output", filt])
        if r.returncode != 0:
            print(f"FAILED {name}: train: {r.stderr.strip()}")
            failed += 1
            continue
        for jt in JOIN_TYPES:
            select, want = duck_answer(con, jt, lpath, rpath, on)
            strategies = ["replicated", "reduce-side"] if jt in ("inner", "full") else ["replicated"]
            for strategy in strategies:
                o = os.path.join(d, f"{jt}-{strategy}")
                r = run([
                    binary, "-q", "join", "--filter", filt, "--left", lpath, "--left-key", key,
                    "--right", rpath, "--right-key", key, "--type", jt, "--strategy", strategy,
                    "--select", select, "--output", o,
                ])
                checked += 1
                if r.returncode != 0:
                    print(f"FAILED {name} {jt} {strategy}: {r.stderr.strip()}")
                    failed += 1
                    continue
                parts = sorted(glob.glob(os.path.join(o, "part-*.parquet")))
                got = rows(con, f"SELECT {select} FROM read_parquet({parts!r})") if parts else []
                if got != want:
                    print(f"FAILED {name} {jt} {strategy}: bloomjoin {len(got)} rows, DuckDB {len(want)}")
                    print(f"  bloomjoin: {got}\n  duckdb:    {want}")
                    failed += 1

    def refusal(name, left, right, needles, key="k", duck_ok=None):
        """Join `left` and `right` (arrays, or lists of key columns) on `key` without a
        prefilter: the join must exit 2 with one line holding every needle and write nothing.
        `duck_ok(con, l, r)`, when given, says whether DuckDB answers the same join as the
        check expects (rows where we refuse, or a refusal of its own). A message, or None."""
        d = os.path.join(out, name)
        lpath, rpath = os.path.join(d, "l/l.parquet"), os.path.join(d, "r/r.parquet")
        write(lpath, left, "lid")
        write(rpath, right, "rid")
        o = os.path.join(d, "out")
        r = run([
            binary, "-q", "join", "--no-prefilter", "--left", lpath, "--left-key", key,
            "--right", rpath, "--right-key", key, "--output", o,
        ])
        err = r.stderr.strip()
        if (r.returncode != 2 or any(n not in err for n in needles) or "\n" in err
                or os.path.exists(o)):
            return f"exit {r.returncode}, {err!r}"
        if duck_ok is not None and not duck_ok(lpath, rpath):
            return "DuckDB did not answer as expected"
        return None

    def duck_rows(lpath, rpath, key="k"):
        try:
            return len(con.sql(f"SELECT 1 FROM '{lpath}' l JOIN '{rpath}' r ON l.{key} = r.{key}").fetchall())
        except duckdb.Error:
            return None

    import uuid as uuidlib
    us = [uuidlib.UUID(int=i * 7919 + 12345) for i in range(4)]
    one = pa.array([1_000], pa.timestamp("ms")), pa.array([S], pa.timestamp("ns", tz="UTC"))
    for name, left, right, key, needles, duck_ok in [
        # A zoned timestamp never meets a zone-less one: a one-line error naming both
        # columns, also as a component of a composite key.
        ("ts-zone-mismatch", one[0], one[1], "k",
         ["time zone mismatch", "--left-key k ", "--right-key k "], None),
        ("tuple-ts-zone-mismatch", [ints([1], pa.int64()), one[0]],
         [ints([1], pa.int64()), one[1]], "k1,k2",
         ["time zone mismatch", "--left-key k2 ", "--right-key k2 "], None),
        # A UUID against a string key: DuckDB casts the text to a UUID and joins (both rows,
        # one in upper case); a UUID's keys are its bytes and a string's its text, so we
        # refuse with one line rather than meet nothing.
        ("uuid-string", pa.array([x.bytes for x in us], pa.uuid()),
         pa.array([str(us[0]), str(us[2]).upper()]), "k", ["is a UUID (16 bytes)"],
         lambda lp, rp: duck_rows(lp, rp) == 2),
        # A time of day never meets a timestamp: DuckDB cannot cast one to the other, and we
        # refuse with one line naming both families.
        ("time-timestamp", pa.array([1_000], pa.time32("ms")), pa.array([S], pa.timestamp("ns")),
         "k", ["key family mismatch", "time keys"], lambda lp, rp: duck_rows(lp, rp) is None),
    ]:
        checked += 1
        why = refusal(name, left, right, needles, key, duck_ok)
        if why:
            print(f"FAILED {name}: {why}")
            failed += 1

    for name, why in [*timetz(binary, out, con), *passthrough(binary, out, con),
                      *int96(binary, out, con)]:
        checked += 1
        if why:
            print(f"FAILED pass-through {name}: {why}")
            failed += 1

    print(f"key types: {checked - failed} of {checked} joins equal to DuckDB's")
    return 1 if failed else 0


# Columns of every type DuckDB writes, passed on by a join and by the filter job: the output
# must hold the same values, read by DuckDB as the same types (a Parquet INTERVAL, UUID, JSON,
# TIMETZ or VARIANT column and a GeoParquet GEOMETRY among them, whose Arrow types do not say
# so; also inside structs, lists and maps).
PASSTHROUGH = """
SELECT k, iv, u, j, ttz, t, tns, ts, tsns, tss, tsms, tstz, d, dec, hdec, b, bl, s, e, ut,
       us, ui, ub, lst, st, m, geo, geo83, var, nst, lu, liv, mu, lnst
FROM (SELECT range AS k,
             -- A CRS Parquet's GEOMETRY type does not hold: GeoParquet's PROJJSON.
             ('POINT(' || range || ' 1)')::GEOMETRY('OGC:CRS83') AS geo83,
             -- Annotated types inside structs, lists and maps.
             {'u': md5(range::VARCHAR)::UUID, 'iv': to_months(range::INT) + to_days(2),
              'j': ('{"n":' || range || '}')::JSON, 'tz': make_time(range % 24, 1, 2)::TIMETZ,
              'in': {'u2': md5((range + 1)::VARCHAR)::UUID}} AS nst,
             [md5(range::VARCHAR)::UUID, NULL] AS lu,
             CASE WHEN range % 3 = 1 THEN NULL
                  ELSE [to_months(range::INT), to_days(range::INT)] END AS liv,
             MAP {'x' || range: md5(range::VARCHAR)::UUID} AS mu,
             [{'iv': to_months(1 + range::INT), 'j': '[1]'::JSON}] AS lnst,
             CASE WHEN range % 3 = 2 THEN NULL
                  ELSE ('POINT(' || range || ' ' || (range * 2) || ')')::GEOMETRY END AS geo,
             CASE WHEN range % 4 = 1 THEN {'a': range, 'b': [range::VARCHAR, 'x']}::VARIANT
                  ELSE (range * 10)::VARIANT END AS var,
             CASE WHEN range % 4 = 3 THEN NULL
                  ELSE to_months(range::INT) + to_days((range * 3)::INT)
                       + to_milliseconds(range * 1001) END AS iv,
             CASE WHEN range % 5 = 4 THEN NULL ELSE md5(range::VARCHAR)::UUID END AS u,
             ('{"k":' || range || '}')::JSON AS j,
             make_time(range % 24, 30, 1.5)::TIMETZ AS ttz,
             make_time(range % 24, 7, 0.25) AS t,
             make_time(range % 24, 7, 0.25)::TIME_NS AS tns,
             TIMESTAMP '2024-01-01 10:00:00' + to_seconds(range * 3601) AS ts,
             (TIMESTAMP '2024-01-01' + to_microseconds(range))::TIMESTAMP_NS AS tsns,
             (TIMESTAMP '2024-01-01' + to_seconds(range))::TIMESTAMP_S AS tss,
             (TIMESTAMP '2024-01-01' + to_milliseconds(range))::TIMESTAMP_MS AS tsms,
             TIMESTAMPTZ '2024-01-01 10:00:00+02' + to_hours(range) AS tstz,
             DATE '2024-02-28' + range::INT AS d,
             (range / 7)::DECIMAL(9, 3) AS dec,
             (range * 1e20)::DECIMAL(38, 2) AS hdec,
             range % 2 = 0 AS b,
             ('\\x' || lpad(range::VARCHAR, 2, '0'))::BLOB AS bl,
             'zoë ' || range AS s,
             (['a', 'b', 'c'])[range % 3 + 1]::ENUM('a', 'b', 'c') AS e,
             range::UTINYINT AS ut, range::USMALLINT AS us, range::UINTEGER AS ui,
             (range + 18446744073709551000)::UBIGINT AS ub,
             [range, NULL, range + 1] AS lst,
             {'a': range, 'b': 'x' || range} AS st,
             MAP {'k': range} AS m
      FROM range(12))
"""


def duck_answer(con, jt, lpath, rpath, on):
    """(the columns bloomjoin's join of type `jt` selects, DuckDB's rows of it): the files
    `lpath` and `rpath` joined on `on`."""
    if jt in ONE_SIDE:
        select, sql = ONE_SIDE[jt]
        return select, rows(con, sql.format(l=lpath, r=rpath, on=on))
    return "lid,rid", rows(
        con, f"SELECT l.lid, r.rid FROM '{lpath}' l {SQL_JOIN[jt]} '{rpath}' r ON {on}")


def every_join_type(binary, con, name, d, filt, lpath, rpath):
    """(check name, None or why it failed) for every join type of `lpath` and `rpath` on
    their `k` with the filter `filt`, against DuckDB's."""
    for jt in JOIN_TYPES:
        select, want = duck_answer(con, jt, lpath, rpath, "l.k = r.k")
        o = os.path.join(d, jt)
        r = run([binary, "-q", "join", "--filter", filt, "--left", lpath, "--left-key", "k",
                 "--right", rpath, "--right-key", "k", "--type", jt, "--select", select,
                 "--output", o])
        if r.returncode != 0:
            yield f"{name} {jt}", r.stderr.strip()
            continue
        got = rows(con, f"SELECT {select} FROM read_parquet('{o}/part-*.parquet')")
        yield f"{name} {jt}", None if got == want else f"bloomjoin {got}, DuckDB {want}"


def timetz(binary, out, con):
    """(check name, None or why it failed): TIMETZ keys (written by DuckDB, Parquet's TIME
    adjusted to UTC) meet by their UTC time in every join type, as DuckDB's; against a local
    TIME key we refuse with one line, where DuckDB's answer depends on its session time zone."""
    d = os.path.join(out, "timetz")
    os.makedirs(d, exist_ok=True)
    paths = {n: os.path.join(d, f"{n}.parquet") for n in ("l", "r", "t")}
    con.execute(f"""COPY (SELECT * FROM (VALUES (0, '10:00:00+02'::TIMETZ), (1, '08:00:00+00'),
        (2, '10:00:00+00'), (3, NULL), (4, '23:59:59.999999-01'), (5, '08:00:00+00'))
        t(lid, k)) TO '{paths["l"]}' (ROW_GROUP_SIZE 2)""")
    con.execute(f"""COPY (SELECT * FROM (VALUES (0, '08:00:00+00'::TIMETZ), (1, '09:00:00+01'),
        (2, '00:59:59.999999+00'), (3, NULL), (4, '10:00:00+00'), (5, '10:00:01+00'))
        t(rid, k)) TO '{paths["r"]}' (ROW_GROUP_SIZE 2)""")
    con.execute(f"""COPY (SELECT * FROM (VALUES (0, '08:00:00'::TIME), (1, '10:00:00'))
        t(rid, k)) TO '{paths["t"]}'""")
    filt = os.path.join(d, "l.bjf")
    r = run([binary, "-q", "train", "--input", paths["l"], "--column", "k", "--output", filt])
    if r.returncode != 0:
        yield "timetz train", r.stderr.strip()
        return
    yield from every_join_type(binary, con, "timetz", d, filt, paths["l"], paths["r"])
    o = os.path.join(d, "mismatch")
    r = run([binary, "-q", "join", "--left", paths["l"], "--left-key", "k", "--right",
             paths["t"], "--right-key", "k", "--output", o])
    err = r.stderr.strip()
    sql = f"SELECT l.lid, r.rid FROM '{paths['l']}' l JOIN '{paths['t']}' r ON l.k = r.k"
    utc = rows(con, sql)
    con.execute("SET TimeZone = 'America/New_York'")
    ny = rows(con, sql)
    con.execute("SET TimeZone = 'UTC'")
    ok = (r.returncode == 2 and "time zone mismatch" in err and "\n" not in err
          and not os.path.exists(o) and utc != ny)
    yield "timetz-time", None if ok else f"exit {r.returncode}, {err!r}; DuckDB UTC {utc}, New York {ny}"


def int96(binary, out, con):
    """(check name, None or why it failed): INT96 timestamps written as Spark writes them (no
    embedded Arrow schema), dates from 0001 to 9999, top-level and inside a struct, a list, a
    list of structs and a map: passed on, as keys against DuckDB's TIMESTAMP keys in every
    join type, and in a condition, all as DuckDB reads them (in microseconds)."""
    d = os.path.join(out, "int96")
    os.makedirs(d, exist_ok=True)
    D = datetime.datetime
    ts = pa.array([D(1, 1, 1), D(1500, 6, 1, 12, 0, 0, 123456), D(2024, 1, 1),
                   D(9999, 12, 31, 23, 59, 59, 999999), None, D(2262, 4, 12)], pa.timestamp("us"))
    table = pa.table({
        "lid": pa.array(range(6), pa.int32()),
        "k": ts,
        "st": pa.StructArray.from_arrays([ts, pa.array(range(6))], names=["t", "n"]),
        "lst": pa.array([[D(1, 1, 1)], [D(9999, 1, 1), None], [], None, [D(2000, 1, 1)], []],
                        pa.list_(pa.timestamp("us"))),
        "lst_st": pa.array([[{"t": D(1, 1, 1)}], [{"t": D(9999, 1, 1)}], [], None, [{"t": None}],
                            []], pa.list_(pa.struct([("t", pa.timestamp("us"))]))),
        "m": pa.array([[("a", D(1, 1, 1))], [("b", D(9999, 1, 1))], [], None,
                       [("c", D(2000, 1, 1))], []], pa.map_(pa.string(), pa.timestamp("us"))),
    })
    lpath, rpath = os.path.join(d, "l/l.parquet"), os.path.join(d, "r/r.parquet")
    os.makedirs(os.path.dirname(lpath), exist_ok=True)
    os.makedirs(os.path.dirname(rpath), exist_ok=True)
    pq.write_table(table, lpath, use_deprecated_int96_timestamps=True, store_schema=False,
                   row_group_size=2)
    con.execute(f"""COPY (SELECT * FROM (VALUES (0, TIMESTAMP '9999-12-31 23:59:59.999999'),
        (1, TIMESTAMP '0001-01-01'), (2, TIMESTAMP '2024-01-01'), (3, NULL),
        (4, TIMESTAMP '1500-06-01 12:00:00.123456'), (5, TIMESTAMP '1500-06-01 12:00:00'))
        t(rid, k)) TO '{rpath}'""")
    filt = os.path.join(d, "l.bjf")
    r = run([binary, "-q", "train", "--input", lpath, "--column", "k", "--output", filt])
    if r.returncode != 0:
        yield "int96 train", r.stderr.strip()
        return
    o = os.path.join(d, "filter")
    r = run([binary, "-q", "filter", "--filter", filt, "--input", lpath, "--key", "k",
             "--output", o])
    if r.returncode != 0:
        yield "int96 pass-through", r.stderr.strip()
    else:
        parts = f"read_parquet('{o}/part-*.parquet')"
        want = f"SELECT * FROM '{lpath}' WHERE k IS NOT NULL"
        types = [c[:2] for c in con.sql(f"DESCRIBE SELECT * FROM {parts}").fetchall()]
        want_types = [c[:2] for c in con.sql(f"DESCRIBE {want}").fetchall()]
        if types != want_types:
            yield "int96 pass-through", f"types {types}, DuckDB's {want_types}"
        else:
            extra = con.sql(f"SELECT count(*) FROM ((SELECT * FROM {parts} EXCEPT ALL {want}) "
                            f"UNION ALL ({want} EXCEPT ALL SELECT * FROM {parts}))").fetchall()[0][0]
            yield "int96 pass-through", f"{extra} rows differ" if extra else None
    yield from every_join_type(binary, con, "int96", d, filt, lpath, rpath)
    cond = "k < TIMESTAMP '1600-01-01' OR k > TIMESTAMP '2262-04-11 23:47:16.854775'"
    o = os.path.join(d, "where")
    r = run([binary, "-q", "join", "--left", rpath, "--left-key", "rid", "--right", lpath,
             "--right-key", "lid", "--right-where", cond, "--select", "right.lid",
             "--output", o])
    want = rows(con, f"SELECT lid FROM '{lpath}' WHERE {cond}")
    got = (rows(con, f"SELECT lid FROM read_parquet('{o}/part-*.parquet')")
           if r.returncode == 0 else r.stderr.strip())
    yield "int96 where", None if got == want and want else f"bloomjoin {got}, DuckDB {want}"


def passthrough(binary, out, con):
    """(check name, None or why it failed) for each way columns pass through."""
    d = os.path.join(out, "passthrough")
    lpath, rpath = os.path.join(d, "l/l.parquet"), os.path.join(d, "r/r.parquet")
    os.makedirs(os.path.dirname(lpath), exist_ok=True)
    os.makedirs(os.path.dirname(rpath), exist_ok=True)
    con.execute(f"COPY ({PASSTHROUGH}) TO '{lpath}' (ROW_GROUP_SIZE 4)")
    con.execute(f"COPY (SELECT * FROM (VALUES (1), (3), (3), (10), (42)) t(k)) TO '{rpath}'")
    filt = os.path.join(d, "r.bjf")
    r = run([binary, "-q", "train", "--input", rpath, "--column", "k", "--output", filt])
    if r.returncode != 0:
        yield "train", f"train: {r.stderr.strip()}"
        return
    want = f"SELECT l.* FROM '{lpath}' l SEMI JOIN '{rpath}' r ON l.k = r.k"
    runs = {
        "join inner": (["join", "--filter", filt, "--left", rpath, "--left-key", "k", "--right",
                        lpath, "--right-key", "k", "--select", "right.*"],
                       f"SELECT l.* FROM '{lpath}' l JOIN '{rpath}' r ON l.k = r.k"),
        "join right-semi": (["join", "--left", rpath, "--left-key", "k", "--right", lpath,
                             "--right-key", "k", "--type", "right-semi"], want),
        "join reduce-side": (["join", "--left", rpath, "--left-key", "k", "--right", lpath,
                              "--right-key", "k", "--strategy", "reduce-side", "--select",
                              "right.*"],
                             f"SELECT l.* FROM '{lpath}' l JOIN '{rpath}' r ON l.k = r.k"),
        "filter": (["filter", "--filter", filt, "--input", lpath, "--key", "k"], want),
    }
    for name, (args, sql) in runs.items():
        o = os.path.join(d, re.sub(r"[^A-Za-z0-9_-]", "_", name))
        r = run([binary, "-q", *args, "--output", o])
        if r.returncode != 0:
            yield name, f"exit {r.returncode}: {r.stderr.strip()}"
            continue
        parts = os.path.join(o, "part-*.parquet")
        got_types = con.sql(f"DESCRIBE SELECT * FROM read_parquet('{parts}')").fetchall()
        want_types = con.sql(f"DESCRIBE {sql}").fetchall()
        got_types = [(c[0], c[1]) for c in got_types]
        want_types = [(c[0], c[1]) for c in want_types]
        why = []
        if got_types != want_types:
            diff = [(w, g) for w, g in zip(want_types, got_types) if w != g]
            # Rows of other types may not even compare (an INTERVAL against a BLOB).
            yield name, f"types differ (DuckDB's, ours): {diff}"
            continue
        extra = con.sql(
            f"SELECT count(*) FROM ((SELECT * FROM read_parquet('{parts}') EXCEPT ALL ({sql}))"
            f" UNION ALL (({sql}) EXCEPT ALL SELECT * FROM read_parquet('{parts}')))"
        ).fetchall()[0][0]
        n = con.sql(f"SELECT count(*) FROM ({sql})").fetchall()[0][0]
        if extra:
            bad = [c for c, _ in want_types if con.sql(
                f"SELECT count(*) FROM ((SELECT {c} FROM read_parquet('{parts}') EXCEPT ALL"
                f" SELECT {c} FROM ({sql})))").fetchall()[0][0]]
            why.append(f"{extra} rows differ of {n} (columns {bad})")
        yield name, "; ".join(why) or None
    # UUID columns compared with each other in a condition: their bytes order as DuckDB
    # orders UUIDs (NULLs among them).
    o = os.path.join(d, "uuid-order")
    r = run([binary, "-q", "join", "--left", lpath, "--left-key", "b", "--right", lpath,
             "--right-key", "b", "--join-where", "left.u < right.u", "--select",
             "left.k AS lk, right.k AS rk", "--output", o])
    if r.returncode != 0:
        yield "uuid order", f"exit {r.returncode}: {r.stderr.strip()}"
        return
    got = rows(con, f"SELECT lk, rk FROM read_parquet('{o}/part-*.parquet')")
    want = rows(con, f"SELECT l.k, r.k FROM '{lpath}' l JOIN '{lpath}' r ON l.b = r.b AND l.u < r.u")
    yield "uuid order", None if got == want and want else f"bloomjoin {len(got)} rows, DuckDB {len(want)}"
    # UUID columns compared with text, which DuckDB reads as a UUID (any case, hyphens
    # anywhere, braces), and cast to their text; as a side's where (its row groups of 4 rows
    # judged by their statistics too), a --join-where, and a --select.
    lits = [u for (u,) in con.sql(f"SELECT u::VARCHAR FROM '{lpath}' WHERE u IS NOT NULL ORDER BY u").fetchall()]
    a, b = lits[len(lits) // 3], lits[2 * len(lits) // 3]
    for i, (where, jw) in enumerate([
        (f"u = '{a.upper().replace('-', '')}'", None),
        (f"u IN ('{{{a}}}', '{b.replace('-', '')[:7]}-{b.replace('-', '')[7:]}')", None),
        (f"u > '{a}'", None),
        (f"u BETWEEN '{a}' AND '{b}' OR u IS NULL", None),
        (f"u IS DISTINCT FROM '{b}'", None),
        (f"u::VARCHAR LIKE '{a[:1]}%'", None),
        (f"CAST(u AS VARCHAR) < '{b}'", None),
        (f"u = TRY_CAST(s AS UUID) OR u <> '{a}'", None),
        (None, f"left.u <> right.u::VARCHAR AND right.u <= '{b}'"),
    ]):
        o = os.path.join(d, f"uuid-text-{i}")
        args = [binary, "-q", "join", "--left", lpath, "--left-key", "b", "--right", lpath,
                "--right-key", "b", "--select", "left.k AS lk, right.k AS rk, left.u::VARCHAR AS t",
                "--output", o]
        cond = f"l.b = r.b"
        if where:
            args += ["--left-where", where]
            cond += " AND (" + re.sub(r"\b(u|s)\b", r"l.\1", where) + ")"
        if jw:
            args += ["--join-where", jw]
            cond += " AND (" + jw.replace("left.", "l.").replace("right.", "r.") + ")"
        r = run(args)
        name = f"uuid vs text: {where or jw}"
        if r.returncode != 0:
            yield name, f"exit {r.returncode}: {r.stderr.strip()}"
            continue
        got = rows(con, f"SELECT lk, rk, t FROM read_parquet('{o}/part-*.parquet')")
        want = rows(con, f"SELECT l.k, r.k, l.u::VARCHAR FROM '{lpath}' l JOIN '{lpath}' r ON {cond}")
        yield name, None if got == want and want else f"bloomjoin {len(got)} rows, DuckDB {len(want)}"


if __name__ == "__main__":
    sys.exit(main())
