#!/usr/bin/env python3
"""Differential fuzzer: bloomjoin against DuckDB on small random tables (issue 12).

Run through scripts/fuzz.sh, which supplies the binary and the Python environment:

  fuzz.py --bin BLOOMJOIN [--cases N] [--seed S] [--kind join|where|decoder|all]
          [--keep DIR] [--case I] [--no-u64-meets-signed] [--s3 MOTO_SERVER]

Kinds (with --kind all, case i is join, where, join, where, decoder for i mod 5 = 0..4):

  join     random left and right tables (every key type bloomjoin accepts, nulls and
           duplicates on both sides, sorted or not, in a third of the cases 2 or 3 more
           string columns on the right, in a fifth a UUID column on the right (Parquet's
           UUID type, which the output must keep; when flat, in 60 % of those cases a
           condition on it, ANDed or ORed to the right side's: compared with text literals
           in DuckDB's lenient forms, IN lists, BETWEEN, or cast to text), 1 to 3 files, row groups of 1 to 100,000
           rows, statistics and dictionaries on or off, Parquet Bloom filters in a third of
           pyarrow's files; sides in Hive partition directories, whose column may be a
           side's `--where`, join the key or be the whole key (a file then holds one key, and
           a file the prefilter rules out is not read); written by pyarrow, Polars or DuckDB,
           whose version 2 files have
           delta encodings and a Bloom filter on every dictionary chunk; in a fifth of the
           sides, files without one of the non-key columns or with their columns in another
           order, read by both engines as the union of their columns by name), a random `--where`
           for train and the same `--left-where`, maybe a `--right-where`, one of the eight
           join types and random workers, reducers, strategy, layout (Parquet's `sbbf` too),
           sizing, `--select`, the output's codec and level (`--compression`) and use of the
           right files' Bloom filters (`--no-sbbf`, `--sbbf-max-keys`); `train` + `join`, compared with DuckDB's answer as exact row
           multisets, and every value of an output column with a Parquet Bloom filter probed
           in it by DuckDB (`parquet_bloom_probe`); the same training with other workers,
           batch size and split rows, and 2 to 4 shards of it merged, must give its bytes. A
           case whose join skipped right row groups by their Bloom filters counts as "pass
           (sbbf skipped row groups)". In about 15 % of the cases the output is written in
           Hive partition directories (`--partition-by`) of 1 or 2 output columns of a type with
           one text form (integers, decimals, strings, dates, zone-less timestamps; over 5,000
           rows only of at most 64 directories): DuckDB reads the parts
           as a user would (`hive_partitioning`, the directories' values as text) against its
           own join with those columns as text; `_SUCCESS` must list the parts and the columns,
           each part sit in exactly those directories, in order, and hold exactly the other
           columns. Counted as "pass (partitioned output)". In 30 % of those the same join
           runs again into its committed output, with `--overwrite-partitions` (every earlier
           part replaced, the same rows) or `--append` (every earlier part kept, each row
           twice): "pass (partitioned output, run again ...)". A directory name over the file
           system's 255 bytes (a 300-character string) as "partition name too long" and a
           date outside the years 1 to 9999 as "refused (date without a directory name)",
           both exit 2 with nothing committed (bloomjoin exiting 0 on such a date fails).
           In a quarter of the joins the output's files and row groups are bounded
           (`--max-rows-per-file`, `--row-group-rows`, `--max-file-size`, `--row-group-size`):
           every file and row group must keep within the row limits and `_SUCCESS` name every
           file ("pass (bounded files)"). In a quarter of the joins null keys match each other
           (`--nulls-equal`) against DuckDB's `IS NOT DISTINCT FROM` ("pass (nulls equal)"); in a
           fifth of the inner, left, right and full joins each key pair is one output column
           (`--coalesce-keys`) against DuckDB's `COALESCE(l.k, r.k)`, a bare key name in a
           `--select` being the coalesced key ("pass (keys coalesced)", "pass (keys
           coalesced, --select)"). In 30 % of the joins that pass (a generator of their own),
           `bloomjoin filter` then runs the case's trained filter (f.bjf, whether or not the
           join probed it) over the right side's local files and directories, with the right
           key, the case's `--right-where`, `--spark-keys xxhash64` when the join had it, and
           random workers, batch size, split rows and codec, in 40 % a `--select` of the right
           columns, in 20 % a `--partition-by` drawn as the join's (none when a value's escaped
           directory name could pass 255 bytes, or a date has no directory name), in half
           `--invert`; then the same job with the other `--invert`. DuckDB classes each right
           row passing the condition: a key in the trained set (the join reference's
           equality, `=` even with `--nulls-equal`, against the left rows passing train's
           `--where`), a non-null key outside it, a null key (any column null). As exact
           multisets of the output columns (canonical as the join's): the output without
           `--invert` holds every row of the first class, and beyond them only rows of the
           second; with `--invert` every row of the third, and beyond them only rows of the
           second; the two outputs together are exactly the rows passing the condition. The
           false positives (second-class rows kept without `--invert`, dropped with it) are
           at most 3 x fpp x the second class's rows + 20, or the rows of its 3 x fpp x K + 5
           largest keys (of its K keys: a false positive takes all rows of its key, so the
           per-row bound alone would fail on a few heavy keys), whichever is more; fpp is
           train's `--fpp` (0.01 by default), and there is no bound (the case's notes say so)
           for a filter sized by `--bits`/`--hashes` or for fewer `--expected-items` than the
           keys it holds. When the output holds every key column (not as a directory), each
           key's rows are all kept or all dropped. `_SUCCESS` must name exactly the parts (in
           their directories, partitioned), each part hold the output columns, and rows_out
           their rows; the first output's Bloom filters are probed as the join's. Counted as "pass
           (filter)" or "pass (filter, inverted)" (by the first run's `--invert`, before every
           other category). A value no Spark long holds, refused by the filter job (exit 2)
           where the join never probed the filter (no `--filter`, or `--no-prefilter`), is
           "pass (filter refused: spark long)". Not drawn for joins that refused or that
           DuckDB cannot answer; a step whose reference DuckDB cannot answer is noted and the
           case counts as its join.
           In half the joins whose keys match some pairs, a twentieth of those whose keys
           match none (where it decides nothing) and 30 % of those DuckDB cannot count (a
           generator of their own), an extra join condition over both
           sides' columns (`--join-where`), in DuckDB's ON clause (the EXISTS correlation of a
           semi or anti join) after the keys, so that a pair it is false or NULL for does not
           match: left against right columns of kinds both engines compare (numbers of any
           width, signedness or decimal scale; strings of any string type; binary; dates and
           timestamps of any unit; partition columns), mostly a column against its
           counterpart (la and ra, ls and rs, lid and rid; a key against its counterpart,
           equal in every pair, seldom), under `=`, `<>`, `<`...,
           BETWEEN and IN (a column of the other side among literals, maybe NULL), with
           predicates of one side only (against literals, LIKE, IS [NOT] NULL) under AND,
           OR and NOT; each column `left.x` / `right.x` or bare (the sides' names differ).
           A fifth of the predicates compute (the where kind's arithmetic, over both sides:
           `right.ra - left.la <= 3`, `right.rid > left.lid * 2`, `left.lk + INTERVAL '7
           days' >= right.rk2`), and 15 % call functions (the where kind's, over both sides,
           a generator of their own: `lower(left.ls) = lower(right.rs)`, `year(left.lk) + 1
           >= year(right.rk)`, `coalesce(right.ra, 0) * 2 > left.la`); so do 15 % of the
           sides' `--where` predicates. Literals come mostly from a DuckDB sample of 64 key-matching
           pairs (values the pairs hold, values an expression takes on them), columns mostly
           from those that vary over it, and a predicate or condition true (or false) on
           every sampled pair is mostly drawn again: 19 in 20 of the conditions on two pairs
           or more are true for some and not others, so that they change the answer (before:
           5 to 6 in 10; 3 in 4 of all drawn against 1 in 5, seeds 7 and 11). A refusal naming `--join-where` fails the case (DuckDB
           answered). Counted as "pass (join-where)" (after the filter step's categories).
  where    a table with a column of every type `--where` compares and a random condition
           (in a fifth of the cases of 2 or 3 files, some files without one of its columns;
           in 30 %, a generator of their own, times of day of every unit, fuzz_gen.time_columns;
           in 20 %, another, a date and timestamps holding infinities, fuzz_gen.infinite_columns;
           in 30 %, another, a string column of dates and times as text that functions cast
           to DATE and TIMESTAMP, fuzz_gen.when_text_columns),
           a fifth of whose predicates on numbers, dates and timestamps compute: `+`, `-`,
           `*` and unary `-` over integer and decimal columns and exact literals (exact in
           bloomjoin to 76 digits; in DuckDB's text every operand cast to DECIMAL(38, s),
           exact or an overflow error), a date plus or minus days or minus a date, a date or
           timestamp plus or minus an INTERVAL of days to microseconds, compared with
           literals, columns or more arithmetic (see fuzz_gen's arithmetic section);
           and 15 % of all its predicates call functions (a generator of their own, so that
           a seed's other draws stay what they were): lower, upper, length, abs, coalesce,
           CAST / TRY_CAST / `::` to DATE and TIMESTAMP, the parts of dates and timestamps
           (`year(x)`, `EXTRACT(week FROM x)`, `date_part('dow', x)`) and IS [NOT] DISTINCT
           FROM, nested, over arithmetic and under it, their literals mostly values the call
           takes on the table's rows (DuckDB computes them), and a twentieth of them calls
           bloomjoin refuses (counted as mismatched types; see fuzz_gen's functions section);
           the row ids a left-semi join keeps (the condition as `--left-where` or as
           `--right-where`, so both the map-side filter and row-group pruning run) against
           DuckDB's `SELECT rid ... WHERE`. A condition DuckDB refuses or cannot evaluate
           exactly (a decimal comparison beyond 38 digits) is "DuckDB can't say"; one
           bloomjoin refuses (exit 2, one line, nothing written) is "refused"; neither fails.
  decoder  a valid filter file of every layout and format, mutated (bit flips, truncation,
           extension, splices, header fields set to extremes, native files with their
           checksum recomputed so the mutation reaches the parser): `inspect`, `probe` and
           `join` must exit 0 or 2 with a one-line message, never panic or die of a signal,
           and a join that exits 0 must give DuckDB's rows.

Case i draws everything from random.Random("<seed>:<kind>:<i>"), so a case is reproduced by
`--seed S --case I` alone. A failing case prints its command lines and keeps its files in
DIR/<kind>-<i> (with a repro.sh); the last line counts cases per kind; exit 1 on any failure.

--s3 MOTO_SERVER: start that moto server on loopback; half the join cases (a generator of their
own) upload both sides, partition directories and all, and the join reads them from S3, where
its map stage fetches splits ahead of the workers (src/read/ahead.rs); DuckDB reads the local
copies. The last line counts the passing joins that read S3.

FUZZ_BIG_ANSWER (environment, default 200000): join answers of more rows are compared inside
DuckDB (`EXCEPT ALL` both ways over our output files) rather than as Python tuples; 0
compares every answer that way.

The last line counts the cases whose conditions call functions, and those with a
--join-where that does.

--no-u64-meets-signed: never let a UInt64 key meet a signed key in join cases (for builds
before integer keys by value, issue 12 defect 1): the generator still draws such pairs and
replaces the signed side with an unsigned type, counting the replacements. By default they
meet. A UInt64 key of 2^63 and more with a Spark layout is a documented refusal (no Spark long
holds it).
"""

import argparse
import collections
import decimal
import glob
import json
import math
import multiprocessing
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzz_gen as g  # noqa: E402
import moto_local  # noqa: E402

KINDS = ["join", "where", "join", "where", "decoder"]
S3_BUCKET = "fuzz"
TIMEOUT = 300  # seconds per command: a hang is a failure, not a stuck fuzzer


class CaseFailed(Exception):
    pass


class Case:
    """One case's directory, command log and outcome."""

    def __init__(self, kind, index, seed, root):
        self.kind = kind
        self.index = index
        self.rng = random.Random(f"{seed}:{kind}:{index}")
        self.dir = os.path.join(root, f"{kind}-{index}")
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        self.log = []  # command lines and SQL, in order
        self.notes = []  # what the generator chose
        self.skipped_u64 = 0  # a UInt64 key meeting a signed key, replaced
        self.s3 = False  # the join read its sides from S3 (--s3)
        self.funcs = 0  # predicates calling functions in its conditions (fuzz_gen's functions)
        self.casts = 0  # CASTs that can fail in its conditions
        self.floats = 0  # divisions and float operations in its conditions
        self.maths = 0  # numeric functions (round, sqrt, ...) in its conditions
        self.times = False  # its condition reads a time-of-day column
        self.infinities = False  # its condition reads a column holding infinite dates or timestamps, or writes DuckDB's 'infinity' or 'epoch'
        self.texts = False  # its condition reads the dates-as-text column and casts to DATE or TIMESTAMP
        self.zoned = False  # its condition writes a TIMESTAMPTZ literal or a string with a UTC offset
        self.units = False  # its condition casts to TIMESTAMP_S, TIMESTAMP_MS or TIMESTAMP_NS
        self.at_zones = False  # its condition converts with AT TIME ZONE or timezone()
        self.diffs = False  # its condition calls date_diff, date_sub, last_day, an epoch function, strftime or strptime
        self.jw_funcs = 0  # of them in its --join-where
        self.computed = False  # a computed --select column
        self.fcomputed = False  # a computed --select column in its filter step
        self.star = False  # --select *
        self.star_mods = False  # --select left.* / right.* with EXCLUDE, REPLACE, RENAME
        self.columns = False  # --select COLUMNS('regex')
        self.time_keys = False  # a key component of times of day
        self.uuids = False  # a UUID column passed on
        self.uuid_where = False  # a condition on it, compared with text

    def run(self, args, check_ok=True):
        """Run bloomjoin; returns (exit code, stdout, stderr). Crashes always fail the case."""
        self.log.append(" ".join(shlex.quote(a) for a in args))
        try:
            p = subprocess.run(args, capture_output=True, timeout=TIMEOUT, cwd=self.dir)
        except subprocess.TimeoutExpired:
            raise CaseFailed(f"timed out after {TIMEOUT} s: {self.log[-1]}")
        err = p.stderr.decode("utf-8", "replace")
        out = p.stdout.decode("utf-8", "replace")
        if p.returncode < 0:
            raise CaseFailed(f"killed by signal {signal.Signals(-p.returncode).name}: {err.strip()[-2000:]}")
        if p.returncode == 101 or "panicked" in err:
            raise CaseFailed(f"panicked (exit {p.returncode}): {err.strip()[-2000:]}")
        if p.returncode not in (0, 1, 2):
            raise CaseFailed(f"exit {p.returncode}: {err.strip()[-2000:]}")
        if p.returncode != 0 and len(err.strip().splitlines()) != 1:
            raise CaseFailed(f"exit {p.returncode} without a one-line message: {err!r}")
        if check_ok and p.returncode != 0:
            raise CaseFailed(f"exit {p.returncode}: {err.strip()}")
        return p.returncode, out, err

    def sql(self, con, text):
        """DuckDB's answer to a query, as an Arrow table."""
        self.log.append("-- DuckDB: " + text)
        try:
            return con.sql(text).to_arrow_table()
        except UnicodeDecodeError as e:
            # DuckDB refused the query with an error message that is not UTF-8, e.g. a blob
            # column against a string literal of invalid UTF-8 bytes (seed 777, case 93): a
            # refusal like any other, which the Python binding fails to decode.
            raise duckdb.Error(f"DuckDB refused with a message that is not UTF-8 ({e})") from e

    def keep(self, reason):
        with open(os.path.join(self.dir, "repro.sh"), "w") as f:
            f.write("#!/usr/bin/env bash\n# " + reason.replace("\n", "\n# ") + "\n")
            f.write("".join(f"# {n}\n" for n in self.notes))
            f.write(f"cd {shlex.quote(self.dir)}\n")
            for line in self.log:
                f.write(("# " if line.startswith("-- ") else "") + line + "\n")


def s3_side(case, ctx, side):
    """Upload a case's side directory (partition directories and all) to moto; its URL."""
    prefix = f"{ctx.seed}/{case.kind}-{case.index}/{side}"
    moto_local.upload(ctx.s3_port, os.path.join(case.dir, side), f"{S3_BUCKET}/{prefix}")
    return f"s3://{S3_BUCKET}/{prefix}"


def start_s3(moto_server):
    """A moto server on a free loopback port, the bucket made and the environment every
    bloomjoin child reads set; (process, port)."""
    proc, port = moto_local.start(moto_server)
    moto_local.put(port, S3_BUCKET)
    os.environ.update(moto_local.env(port))
    return proc, port


def duck():
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    con.execute("SET threads = 1")
    # a % 0 is NULL, as bloomjoin's (DuckDB 2.0's default fails the query).
    con.execute("SET error_on_division_by_zero = false")
    return con


def side_files(case, side):
    """A side's Parquet files, in partition directories or not, sorted as bloomjoin sorts them."""
    return sorted(glob.glob(os.path.join(case.dir, side, "**", "*.parquet"), recursive=True))


def files_sql(paths, union=False):
    files = ", ".join("'" + p.replace("'", "''") + "'" for p in paths)
    return f"read_parquet([{files}]{', union_by_name = true' if union else ''})"


def canon_value(v):
    if isinstance(v, float) and v != v:
        return ("nan",)
    return v


def canon_table(table):
    """A table as a Counter of row tuples, comparable across engines."""
    cols = []
    for i in range(table.num_columns):
        c = table.column(i)
        t = c.type
        if pa.types.is_dictionary(t):
            c = c.cast(t.value_type)
            t = t.value_type
        if pa.types.is_date32(t):
            c = c.cast(pa.int32())
        elif pa.types.is_timestamp(t):
            # One unit for every engine and input unit (the values compare as instants).
            c = c.cast(pa.timestamp("ns", t.tz)).cast(pa.int64())
        elif pa.types.is_large_string(t) or pa.types.is_string_view(t):
            c = c.cast(pa.string())
        elif pa.types.is_large_binary(t) or pa.types.is_binary_view(t):
            c = c.cast(pa.binary())
        if isinstance(t, pa.BaseExtensionType) and t.extension_name == "arrow.uuid":
            # A UUID as DuckDB's Arrow export gives it: its text.
            cols.append([None if v is None else str(v) for v in c.to_pylist()])
            continue
        if pa.types.is_struct(t) or pa.types.is_list(t) or pa.types.is_large_list(t):
            # Nested values as text, UUIDs inside as their text (bytes stay bytes: a UUID
            # written back as a BLOB differs).
            cols.append([None if v is None else json.dumps(v, default=str, sort_keys=True)
                         for v in c.to_pylist()])
            continue
        cols.append([canon_value(v) for v in c.to_pylist()])
    return collections.Counter(zip(*cols)) if cols else collections.Counter()


def read_output(path):
    if not os.path.exists(os.path.join(path, "_SUCCESS")):
        raise CaseFailed(f"exit 0 but no _SUCCESS in {path}")
    parts = sorted(glob.glob(os.path.join(path, "part-*.parquet")))
    tables = [pq.read_table(p) for p in parts]
    return tables


def compare(case, ours_tables, theirs, names):
    ours = collections.Counter()
    for t in ours_tables:
        if t.column_names != names:
            raise CaseFailed(f"output columns {t.column_names}, expected {names}")
        ours.update(canon_table(t))
    want = canon_table(theirs)
    if ours != want:
        extra = ours - want
        missing = want - ours
        show = lambda c: "; ".join(repr(r) for r in list(c.elements())[:5])
        raise CaseFailed(
            f"row multisets differ: bloomjoin {sum(ours.values())} rows, DuckDB {sum(want.values())}; "
            f"{sum(extra.values())} extra (e.g. {show(extra)}), {sum(missing.values())} missing (e.g. {show(missing)})"
        )


# Answers of more rows than this are compared inside DuckDB (`compare_in_duckdb`).
BIG_ANSWER = int(os.environ.get("FUZZ_BIG_ANSWER", 200_000))


def compare_in_duckdb(case, con, path, sql, n_theirs, names, pby=None, parts=None):
    """`compare` for a large answer: the row multisets of our output files (read by DuckDB)
    and of DuckDB's query `sql` (of `n_theirs` rows), differenced in DuckDB (`EXCEPT ALL`
    both ways). With `pby`, the output is partitioned by those columns and `parts` are its
    files (checked by `check_partitioned_output`), read with their directories' values."""
    if pby:
        sql = as_partition_text(sql, names, pby)
    else:
        if not os.path.exists(os.path.join(path, "_SUCCESS")):
            raise CaseFailed(f"exit 0 but no _SUCCESS in {path}")
        parts = sorted(glob.glob(os.path.join(path, "part-*.parquet")))
        for p in parts:
            got = pq.read_schema(p).names
            if got != names:
                raise CaseFailed(f"output columns {got}, expected {names}")
    cols = ", ".join(g.q(n) for n in names)
    source = partitioned_sql(parts, pby) if pby else files_sql(parts)
    ours = f"SELECT {cols} FROM {source}" if parts else f"SELECT {cols} FROM ({sql}) WHERE false"
    text = (f"SELECT (SELECT count(*) FROM ({ours})), "
            f"(SELECT count(*) FROM ({ours} EXCEPT ALL SELECT {cols} FROM ({sql}))), "
            f"(SELECT count(*) FROM (SELECT {cols} FROM ({sql}) EXCEPT ALL {ours}))")
    case.log.append("-- DuckDB: " + text)
    n_ours, extra, missing = con.execute(text).fetchall()[0]
    if extra or missing:
        raise CaseFailed(
            f"row multisets differ (compared in DuckDB): bloomjoin {n_ours} rows, DuckDB {n_theirs}; "
            f"{extra} extra, {missing} missing"
        )


# ------------------------------------------------------------------ partitioned output

# DuckDB's types of an output column that `--partition-by` takes and that both engines print
# alike: no float (its text is not one value's), no blob, no zoned timestamp (bloomjoin
# writes an offset, +00:00, which DuckDB prints otherwise), no nested type, no HUGEINT (no
# Arrow type of bloomjoin's holds it).
PARTITION_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER",
                   "UBIGINT", "BOOLEAN", "VARCHAR", "DATE", "TIMESTAMP", "TIMESTAMP_S", "TIMESTAMP_MS",
                   "TIMESTAMP_NS", "UUID")


# Partitioned outputs of more rows than this only by columns of at most MANY_DIRS values (or
# pairs of values) together. A task keeps 64 parts open: rows of more directories, in no
# order, close one part and open another at almost every row. Seed 2712071, join case 303
# (2.2 M rows by rs,lid: 9,000 directories) wrote 1.7 M parts, 2.9 GB and a _SUCCESS of
# 141 MB, then spent its 300 s in `remove_stale` (quadratic in the parts, since fixed: a set
# of this run's parts). Below this, more directories still close and reopen parts
# (`part-NNNNN-K`), as the bloomjoin summary then warns.
PARTITION_ROWS = 5000
MANY_DIRS = 64


def partition_columns(rng, con, sql, names):
    """1 or 2 of the output columns `names` (DuckDB's query `sql`) to partition the output
    by, in a random order, of types in PARTITION_TYPES or decimals; never every output column.
    None when DuckDB cannot describe the query (it then says why where it runs it) or no
    column fits."""
    try:
        described = con.execute(f"DESCRIBE SELECT * FROM ({sql})").fetchall()
    except duckdb.Error:
        return None
    types = dict(zip(names, (r[1] for r in described)))
    fit = [n for n in names if types[n] in PARTITION_TYPES or types[n].startswith("DECIMAL(")]
    if not fit:
        return None
    # Each column's number of directories (its distinct values and null), the answer's rows,
    # and whether a date column holds a day outside years 1 to 9999 (the key pools' +-2^31 - 1
    # and 2^31 - 2): DuckDB prints those `infinity`, `-infinity`, `5881580-07-10` or with
    # `(BC)`, no text a Hive reader shares, and bloomjoin must refuse them (exit 2, nothing
    # committed). (The first build of --partition-by wrote them as
    # `lk=ERROR%3A Cast error%3A Failed to convert 2147483646 to temporal for Date32`: seed
    # 12, join case 372; seed 2712071, join cases 155 and 303.)
    stats = [f"count(DISTINCT {g.q(n)}) + 1" for n in fit]
    stats += [f"bool_or({g.q(n)} NOT BETWEEN DATE '0001-01-01' AND DATE '9999-12-31')"
              if types[n] == "DATE" else "false" for n in fit]
    try:
        row = con.execute(f"SELECT count(*), {', '.join(stats)} FROM ({sql})").fetchall()[0]
    except duckdb.Error:
        return None
    rows, dirs, beyond = row[0], dict(zip(fit, row[1:1 + len(fit)])), row[1 + len(fit):]
    beyond = dict(zip(fit, beyond))
    few = lambda cols: rows <= PARTITION_ROWS or math.prod(dirs[c] for c in cols) <= MANY_DIRS
    fit = [n for n in fit if few([n])]
    k = min(rng.choice([1, 1, 2]), len(fit), len(names) - 1)
    if k <= 0:
        return None
    pby = rng.sample(fit, k)
    pby = pby if few(pby) else pby[:1]
    return pby, any(beyond[c] for c in pby)


def as_partition_text(sql, names, pby):
    """DuckDB's query `sql` with each partition column as the text its directory holds, as
    DuckDB reads it back: SQL's text of the value, an empty string null (Hive's default
    partition holds both)."""
    if not pby:
        return sql
    cols = [f"NULLIF(CAST({g.q(c)} AS VARCHAR), '') AS {g.q(c)}" if c in pby else g.q(c) for c in names]
    return f"SELECT {', '.join(cols)} FROM ({sql})"


def output_parts(path):
    """Every `part-*.parquet` below `path`, at any depth, skipping names that begin with `_`
    or `.` (staging and hidden files, which Spark's, Hive's and DuckDB's readers skip)."""
    found = []
    for d, dirs, files in os.walk(path):
        dirs[:] = [x for x in dirs if not x.startswith(("_", "."))]
        found += [os.path.join(d, f) for f in files if f.startswith("part-") and f.endswith(".parquet")]
    return sorted(found)


def partitioned_sql(parts, pby):
    """DuckDB's reading of a partitioned output, as a user reads it: the directories' values
    as columns, as text (DuckDB would otherwise guess their types from the values seen)."""
    files = ", ".join("'" + p.replace("'", "''") + "'" for p in parts)
    types = ", ".join(f"{g.sql_str(c)}: VARCHAR" for c in pby)
    return f"read_parquet([{files}], hive_partitioning = true, hive_types = {{{types}}})"


def check_partitioned_output(case, path, names, pby, earlier_run=None):
    """The layout of an output partitioned by `pby`: `_SUCCESS` lists every part below
    `path` and the partition columns; each part sits in exactly the directories
    `pby[0]=v/pby[1]=w/`, in that order, is named `part-NNNNN[-K]-<run id>.parquet` (of the
    run `_SUCCESS` names, or of `earlier_run`, whose parts an --append kept) and holds exactly
    the other output columns, in order. Returns the parts (none for no rows)."""
    success = os.path.join(path, "_SUCCESS")
    if not os.path.exists(success):
        raise CaseFailed(f"exit 0 but no _SUCCESS in {path}")
    with open(success) as f:
        manifest = json.load(f)
    if manifest.get("partition_by") != pby:
        raise CaseFailed(f"_SUCCESS partition_by {manifest.get('partition_by')!r}, expected {pby}")
    parts = output_parts(path)
    rel = [os.path.relpath(p, path) for p in parts]
    listed = manifest.get("parts")
    if not isinstance(listed, list) or sorted(listed) != rel:
        raise CaseFailed(f"_SUCCESS lists parts {listed!r}, the directory holds {rel}")
    # Nothing else below `path`: no empty directory (a reader would take it for a partition
    # of no rows), no staging, nothing but `_SUCCESS` when no row came.
    dirs_needed, files_needed = set(), set(rel) | {"_SUCCESS"}
    for r in rel:
        d = os.path.dirname(r)
        while d:
            dirs_needed.add(d)
            d = os.path.dirname(d)
    for d, dirs, files in os.walk(path):
        r = os.path.relpath(d, path)
        stray = [x for x in (os.path.normpath(os.path.join(r, y)) for y in dirs) if x not in dirs_needed]
        stray += [x for x in (os.path.normpath(os.path.join(r, y)) for y in files) if x not in files_needed]
        if stray:
            raise CaseFailed(f"the output holds {', '.join(sorted(stray)[:5])} beside its parts and _SUCCESS")
    runs = [str(manifest.get("run_id", ""))] + ([earlier_run] if earlier_run else [])
    name = re.compile(r"part-\d{5}(-\d+)?-(" + "|".join(map(re.escape, runs)) + r")\.parquet")
    want = [c for c in names if c not in pby]
    for p, r in zip(parts, rel):
        *dirs, base = r.split(os.sep)
        keys = [d.split("=", 1)[0] if "=" in d else None for d in dirs]
        if keys != pby or any(d.endswith("=") for d in dirs):
            raise CaseFailed(f"part {r} in directories of {keys}, expected {pby}")
        if not name.fullmatch(base):
            raise CaseFailed(f"part {r}: not part-NNNNN[-K]-{'|'.join(runs)}.parquet")
        got = pq.read_schema(p).names
        if got != want:
            raise CaseFailed(f"part {r} holds columns {got}, expected {want} (the output's but {pby})")
    return parts


def run_again(case, con, join, out, names, pby, theirs, mode):
    """Run `join` again into its committed output `out` (partitioned by `pby`; DuckDB's rows
    `theirs`) with `mode`: `--overwrite-partitions` must replace every earlier part (the run
    writes the directories the first one wrote) and leave the same rows; `--append` must keep
    every earlier part and leave each row twice."""
    before = set(output_parts(out))
    with open(os.path.join(out, "_SUCCESS")) as f:
        first_run = json.load(f)["run_id"]
    code, _, err = case.run(join + [mode], check_ok=False)
    if code != 0:
        raise CaseFailed(f"the join again with {mode} into its own output: exit {code}: {err.strip()}")
    parts = check_partitioned_output(case, out, names, pby, first_run if mode == "--append" else None)
    if mode == "--overwrite-partitions":
        stayed = before & set(parts)
        if stayed:
            raise CaseFailed(f"{mode} rewrote every directory, but {len(stayed)} earlier parts stay "
                             f"(e.g. {os.path.relpath(sorted(stayed)[0], out)})")
        want = theirs
    else:
        lost = before - set(parts)
        if lost:
            raise CaseFailed(f"{mode} lost {len(lost)} earlier parts (e.g. {os.path.relpath(sorted(lost)[0], out)})")
        want = pa.concat_tables([theirs, theirs])
    compare(case, read_partitioned(case, con, parts, names, pby), want, names)
    case.notes.append(f"run again with {mode}: {len(parts)} parts")


def read_partitioned(case, con, parts, names, pby):
    """A partitioned output's rows, read by DuckDB (see `partitioned_sql`), columns in `names`
    order; [] for no part."""
    if not parts:
        return []
    try:
        return [case.sql(con, f"SELECT {', '.join(g.q(n) for n in names)} FROM {partitioned_sql(parts, pby)}")]
    except duckdb.Error as e:
        raise CaseFailed(f"DuckDB cannot read the partitioned output: {str(e).splitlines()[0]}")


def same_bytes(case, a, b):
    """Whether files `a` and `b` of the case's directory hold the same bytes."""
    with open(os.path.join(case.dir, a), "rb") as x, open(os.path.join(case.dir, b), "rb") as y:
        return x.read() == y.read()


def check_file_limits(case, path, limits):
    """Every output file below `path` keeps within `--max-rows-per-file` (`max_rows`) and
    its row groups within `--row-group-rows` (`row_group_rows`); `_SUCCESS` names every file.
    Returns the number of files."""
    parts = output_parts(path)
    for p in parts:
        meta = pq.ParquetFile(p).metadata
        rows = meta.num_rows
        if "max_rows" in limits and rows > limits["max_rows"]:
            raise CaseFailed(f"{os.path.relpath(p, path)}: {rows} rows, over --max-rows-per-file {limits['max_rows']}")
        if "row_group_rows" in limits:
            for g in range(meta.num_row_groups):
                n = meta.row_group(g).num_rows
                if n > limits["row_group_rows"]:
                    raise CaseFailed(f"{os.path.relpath(p, path)}: a row group of {n} rows, over --row-group-rows {limits['row_group_rows']}")
    with open(os.path.join(path, "_SUCCESS")) as f:
        listed = sorted(json.load(f)["parts"])
    found = sorted(os.path.relpath(p, path) for p in parts)
    if listed != found:
        raise CaseFailed(f"_SUCCESS lists {len(listed)} parts, {len(found)} found")
    return len(parts)


def check_output_blooms(case, con, path):
    """Every value of an output column that carries a Parquet Bloom filter (the join keys, by
    default) must pass DuckDB's probe of that filter (`parquet_bloom_probe`) in each row group
    of its part that holds it: a filter that excluded one would make DuckDB, Spark or pyarrow
    skip the row group on `WHERE key = value`. Up to 64 values per row group and column (fewer
    when the output has over 62 row groups, so that the probes stay about 4,000: at least 2).
    Returns the number of probes."""
    probes = 0
    # Every part below `path`: a partitioned output's too (whose columns are the files' own:
    # its directories' are not read, so a partition column has no filter to probe).
    parts = output_parts(path)
    row_groups = sum(pq.ParquetFile(p).metadata.num_row_groups for p in parts)
    per_group = max(2, min(64, 4000 // max(row_groups, 1)))
    # Of many row groups, every step-th (each probe reads the footer: seed 18, join case 237,
    # a part of 3,814 row groups, probed for minutes).
    step = max(1, row_groups // 200)
    for part in parts:
        cols = con.execute(
            "SELECT DISTINCT path_in_schema FROM parquet_metadata(?) WHERE bloom_filter_offset IS NOT NULL", [part]
        ).fetchall()
        schema = pq.read_schema(part)
        for (col,) in cols:
            # A decimal of over 38 digits (a coalesced pair of decimals of different scales:
            # Decimal128(38, 0) and (38, 2) meet in Decimal256(40, 2)) is a DOUBLE to DuckDB,
            # whose probe then hashes a double instead of the column's bytes (seed 2911404,
            # join case 233): nothing to ask it.
            t = schema.field(col).type if col in schema.names else None
            if t is not None and pa.types.is_decimal(t) and t.precision > 38:
                case.notes.append(f"output column {col} ({t}): no DuckDB probe (a DOUBLE to DuckDB)")
                continue
            # Each value as DuckDB's text and type, cast back in the probe: through Python, a
            # date of +-infinity (day +-2^31 - 1) comes back as year 1 or 9999. Each with the
            # row group that holds it (from the file row number and the row groups' sizes): a
            # row group's filter rightly excludes the values of the others (seed 2611404, join
            # case 747, a part of three row groups, was a false alarm). The row group is the last
            # one starting at or before the row (an ASOF join: a range join of 76,277 rows and
            # 3,814 row groups ran for minutes, seed 18, join case 237).
            values = con.execute(
                f"""WITH g AS (
                        SELECT row_group_id AS rg, row_group_num_rows AS n,
                               sum(row_group_num_rows) OVER (ORDER BY row_group_id) - row_group_num_rows AS lo
                        FROM (SELECT DISTINCT row_group_id, row_group_num_rows FROM parquet_metadata(?))),
                    v AS (
                        SELECT DISTINCT CAST(t.{g.q(col)} AS VARCHAR) AS v, typeof(t.{g.q(col)}) AS ty, g.rg
                        FROM read_parquet(?, file_row_number = true, hive_partitioning = false) t
                        ASOF JOIN g ON t.file_row_number >= g.lo
                        WHERE t.{g.q(col)} IS NOT NULL AND g.rg % {step} = 0)
                    SELECT v, ty, rg FROM v QUALIFY row_number() OVER (PARTITION BY rg ORDER BY v) <= {per_group}""",
                [part, part],
            ).fetchall()
            for v, t, rg in values:
                try:
                    rows = con.execute(
                        f"SELECT row_group_id FROM parquet_bloom_probe(?, ?, CAST(? AS {t})) WHERE bloom_filter_excludes",
                        [part, col, v],
                    ).fetchall()
                except duckdb.Error:
                    continue  # a value DuckDB cannot hand back as a literal of the column's type
                probes += 1
                if rg in [r[0] for r in rows]:
                    case.log.append(f"-- DuckDB: parquet_bloom_probe('{part}', '{col}', {v!r})")
                    raise CaseFailed(
                        f"the Parquet Bloom filter of output column {col} excludes {v!r}, a value of its "
                        f"row group {rg} in {os.path.basename(part)} (DuckDB's probe)"
                    )
    return probes


# ------------------------------------------------------------------------------ join kind

KEY_TYPES_INT = list(g.INT_TYPES)
KEY_TYPES_STR = ["string", "large_string", "dict_string", "string_view"]
KEY_TYPES_BIN = ["binary", "large_binary"]


def key_array(values, tname):
    if tname.startswith("decimal:"):
        _, p, sc = tname.split(":")
        return pa.array(values, pa.decimal128(int(p), int(sc)))
    if tname in g.INT_TYPES:
        return pa.array(values, g.INT_TYPES[tname][0])
    if tname == "date32":
        return pa.array(values, pa.int32()).cast(pa.date32())
    if tname == "string":
        return pa.array(values, pa.string())
    if tname == "large_string":
        return pa.array(values, pa.large_string())
    if tname == "string_view":
        return pa.array(values, pa.string_view())
    if tname == "dict_string":
        return pa.array(values, pa.string()).dictionary_encode()
    if tname.startswith("ts_"):
        # Seconds since the epoch, as a zone-less timestamp of the unit.
        unit = tname[3:]
        f = {"s": 1, "ms": 1000, "us": 10**6, "ns": 10**9}[unit]
        return pa.array([None if v is None else v * f for v in values], pa.timestamp(unit))
    if tname.startswith("time_"):
        # Seconds since midnight, as a time of day of the unit (TIME, or TIME_NS).
        unit = tname[5:]
        f = {"s": 1, "ms": 1000, "us": 10**6, "ns": 10**9}[unit]
        t = pa.time32(unit) if unit in ("s", "ms") else pa.time64(unit)
        return pa.array([None if v is None else v * f for v in values], t)
    if tname == "binary":
        return pa.array(values, pa.binary())
    if tname == "large_binary":
        return pa.array(values, pa.large_binary())
    raise ValueError(tname)


def key_kind(tname):
    if tname.startswith("decimal:"):
        return ("dec", None)
    if tname in g.INT_TYPES:
        return ("int", tname)
    if tname == "date32":
        return ("date", None)
    if tname.startswith("time_"):
        # (kind, unit) as fuzz_gen's time columns: DuckDB's TIME_NS is a kind of its own.
        return ("time_ns" if tname == "time_ns" else "time", tname[5:])
    if tname in KEY_TYPES_BIN:
        return ("bin", None)
    return ("str", None)


def uuid_text(rng, b):
    """UUID `b` (16 bytes) as text DuckDB reads as it: canonical, upper case, without hyphens,
    in braces, or with hyphens elsewhere."""
    h = b.hex()
    form = rng.randrange(5)
    if form == 0:
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
    if form == 1:
        return h.upper()
    if form == 2:
        return "{" + f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}" + "}"
    if form == 3:
        return h
    cut = sorted(rng.sample(range(1, 32), 3))
    return "-".join(h[a:b] for a, b in zip([0] + cut, cut + [32]))


def uuid_condition(rng, pool):
    """A condition on the right UUID column `ru`: compared with text literals (UUIDs of its
    rows and others), IN lists (long ones too), BETWEEN, IS DISTINCT FROM, or cast to text."""
    def lit():
        b = rng.choice(pool) if rng.random() < 0.6 else rng.getrandbits(128).to_bytes(16, "big")
        return "'" + uuid_text(rng, b) + "'"
    kind = rng.randrange(7)
    if kind == 0:
        return f"ru {rng.choice(['=', '<>', '<', '<=', '>', '>='])} {lit()}"
    if kind == 1:
        n = rng.choice([1, 3, 20])
        return f"ru {rng.choice(['IN', 'NOT IN'])} ({', '.join(lit() for _ in range(n))})"
    if kind == 2:
        return f"ru {rng.choice(['BETWEEN', 'NOT BETWEEN'])} {lit()} AND {lit()}"
    if kind == 3:
        return f"ru IS {rng.choice(['', 'NOT '])}DISTINCT FROM {lit()}"
    if kind == 4:
        return f"{lit()} {rng.choice(['=', '<', '>='])} ru"
    if kind == 5:
        prefix = rng.choice(pool).hex()[:rng.randint(1, 3)]
        return f"ru::VARCHAR LIKE '{prefix}%'"
    return f"CAST(ru AS VARCHAR) {rng.choice(['=', '<', '>'])} {lit().lower()}"


def key_type_per_file(ctx, column, other):
    """A `vary` for g.split_write: cast the key column of each file to a random integer type
    that holds its values (not a signed type meeting UInt64 with --no-u64-meets-signed)."""

    def vary(rng, part):
        vals = [v for v in part.column(column).to_pylist() if v is not None]
        lo, hi = (min(vals), max(vals)) if vals else (0, 0)
        fits = [t for t, (_, tlo, thi) in g.INT_TYPES.items() if tlo <= lo and hi <= thi]
        if not ctx.u64_meets_signed and other == "uint64":
            fits = [t for t in fits if t not in g.SIGNED] or fits
        if not ctx.u64_meets_signed and other in g.SIGNED:
            fits = [t for t in fits if t != "uint64"] or fits
        t = rng.choice(fits)
        i = part.column_names.index(column)
        return part.set_column(i, column, part.column(column).cast(g.INT_TYPES[t][0])), f"{column} as {t}"

    return vary


def vary_columns(rng, paths, columns):
    """Rewrite some of a side's files (by pyarrow, keeping their row-group size) without one of
    `columns`, or with their columns in another order: a column is dropped from a proper
    subset of the files (each column stays in one file at least). Returns what was done."""
    if len(paths) < 2:
        return None
    tables = [pq.read_table(p) for p in paths]
    drop = rng.choice(columns)
    keep_in = rng.randrange(len(paths))
    done = []
    for i, (path, t) in enumerate(zip(paths, tables)):
        changed = False
        r = rng.random()
        if i != keep_in and drop in t.column_names and r < 0.6:
            t = t.drop_columns([drop])
            done.append(f"file {i} without {drop}")
            changed = True
        if rng.random() < 0.3:
            order = list(t.column_names)
            rng.shuffle(order)
            t = t.select(order)
            done.append(f"file {i} as {','.join(order)}")
            changed = True
        if changed:
            md = pq.ParquetFile(path).metadata
            rows = md.row_group(0).num_rows if md.num_row_groups else 1
            pq.write_table(t, path, row_group_size=max(1, rows))
    return "; ".join(done) or None


# Hive partition values the fuzzer writes, by kind: (directory text, SQL literal, DuckDB's
# literal); None in the SQL is Hive's null. Integers are plain (no sign but `-`, no leading
# zero) and strings not all integers nor dates, so that both engines type them alike.
HIVE_VALUES = {
    "int": [("-5", "-5"), ("0", "0"), ("3", "3"), ("12", "12"), ("1099511627776", "1099511627776"),
            ("__HIVE_DEFAULT_PARTITION__", None)],
    "date": [("1970-01-01", "DATE '1970-01-01'"), ("2024-02-29", "DATE '2024-02-29'"),
             ("1999-12-31", "DATE '1999-12-31'"), ("__HIVE_DEFAULT_PARTITION__", None)],
    "str": [("a", "'a'"), ("b c", "'b c'"), ("x%2Fy", "'x/y'"), ("%C3%A9t%C3%A9", "'été'"), ("z", "'z'"),
            ("__HIVE_DEFAULT_PARTITION__", None)],
}


def hive_partition(rng, side_dir, name, kind=None, need_value=False):
    """Move a side's files into `name=value` directories (one value each, from a pool of one
    kind, `kind` if given; with `need_value`, one file's at least not null, so that both
    engines type the column by its kind); returns (kind, the values used as (directory text,
    SQL literal)) or None."""
    paths = sorted(glob.glob(os.path.join(side_dir, "*.parquet")))
    if not paths:
        return None
    kind = kind or rng.choice(list(HIVE_VALUES))
    pool = rng.sample(HIVE_VALUES[kind], rng.randint(1, len(HIVE_VALUES[kind])))
    values = [rng.choice(pool) for _ in paths]
    if need_value and all(lit is None for _, lit in values):
        values[0] = HIVE_VALUES[kind][0]
    used = []
    for p, (text, lit) in zip(paths, values):
        d = os.path.join(side_dir, f"{name}={text}")
        os.makedirs(d, exist_ok=True)
        os.rename(p, os.path.join(d, os.path.basename(p)))
        used.append((text, lit))
    return kind, used


def hive_condition(rng, name, used):
    """A condition on partition column `name` that reads no other column."""
    lits = sorted({lit for _, lit in used if lit is not None})
    r = rng.random()
    if not lits:
        # Every file's value is null: both engines type the column as text.
        return f"{name} IS {'NOT ' if r < 0.5 else ''}NULL"
    lit = rng.choice(lits)
    if r < 0.15:
        return f"{name} IS NULL"
    if r < 0.3:
        return f"{name} IS NOT NULL"
    if r < 0.5:
        return f"{name} IN ({', '.join(rng.sample(lits, rng.randint(1, len(lits))))})"
    if r < 0.65:
        return f"NOT ({name} = {lit})"
    return f"{name} {rng.choice(['=', '<>', '<', '<=', '>', '>='])} {lit}"


# ------------------------------------------------------------------- --join-where conditions

# The kinds a --join-where draw compares column with column: numbers (integers of any width
# and signedness, decimals) with numbers, strings with strings, binary with binary, dates and
# timestamps with each other; each as both bloomjoin's `--where` language and DuckDB compare
# them.
JW_COMPATIBLE = {"num": {"num"}, "str": {"str"}, "bin": {"bin"}, "date": {"date", "ts"}, "ts": {"date", "ts"},
                 "time": {"time"}, "time_ns": {"time_ns"}}
JW_OPS = ["=", "==", "<>", "!=", "<", "<=", ">", ">="]


def jw_kind(key_type):
    """A key column's --join-where kind, by its fuzz type name."""
    if key_type.startswith("decimal:") or key_type in g.INT_TYPES:
        return "num"
    if key_type == "date32":
        return "date"
    if key_type.startswith("ts_"):
        return "ts"
    if key_type.startswith("time_"):
        # DuckDB compares TIME_NS with TIME only by `=` (or after a cast): kinds apart.
        return "time_ns" if key_type == "time_ns" else "time"
    return "bin" if key_type in KEY_TYPES_BIN else "str"


def jw_literal(rng, kind, pool):
    """A literal of a kind, from the column's pool mostly: a Lit (bloomjoin's text, DuckDB's).
    A pool of Lits (a partition column's values) gives one of them as it is."""
    if pool and isinstance(pool[0], g.Lit):
        if rng.random() < 0.7:
            return rng.choice(pool)
        pool = []
    if kind == "num":
        if pool and rng.random() < 0.7:
            v = rng.choice(pool)
            return g.Lit(format(v, "f") if isinstance(v, decimal.Decimal) else str(v))
        return g.Lit(str(rng.randint(-30, 30)))
    if kind == "str":
        return g.str_lit(rng, pool)
    if kind == "bin":
        return g.bin_lit(rng, pool)
    if kind == "date":
        return g.date_lit(rng, pool)
    if kind in ("time", "time_ns"):
        # Times of day: the pool holds whole seconds since midnight.
        secs = rng.choice(pool) if pool and rng.random() < 0.7 else rng.randint(0, 86_399)
        secs = min(86_399, max(0, secs + rng.choice([0, 0, 1, -1])))
        text = f"{secs // 3600:02d}:{secs // 60 % 60:02d}:{secs % 60:02d}"
        return g.Lit(f"TIME '{text}'", f"TIME_NS '{text}'" if kind == "time_ns" else None)
    # Timestamps: the pool holds whole seconds since the epoch (as the case's timestamp keys).
    secs = rng.choice(pool) if pool and rng.random() < 0.7 else rng.randint(-(10**9), 10**9)
    secs += rng.choice([0, 0, 1, -1])
    day, sod = divmod(secs, 86400)
    return g.Lit(f"TIMESTAMP '{g.date_text(day)} {sod // 3600:02d}:{sod // 60 % 60:02d}:{sod % 60:02d}'")


class PairSample:
    """Up to 64 of a join's key-matching pairs (DuckDB's repeatable reservoir sample of `FROM L
    l JOIN R r ON keys`), for --join-where draws to take their literals from values the pairs
    hold: a condition true for some pairs and not others changes the join's answer, one true
    (or false) on every pair tests far less. `pairs` is their count, None if DuckDB cannot
    say (a side's --where it refuses)."""

    def __init__(self, con, pairs_sql):
        self.con, self.pairs_sql, self.cache, self.null_counts = con, pairs_sql, {}, {}
        try:
            self.pairs = con.execute(f"SELECT count(*) {pairs_sql}").fetchall()[0][0]
            # Each side's row as a struct named l or r: `l.x` and `r.x` read its columns.
            con.execute(f"CREATE OR REPLACE TEMP TABLE jw_pairs AS SELECT l, r {pairs_sql} "
                        "USING SAMPLE reservoir(64 ROWS) REPEATABLE (1)")
        except duckdb.Error:
            self.pairs = None

    def values(self, dk, raw=False):
        """The non-null values of a DuckDB expression over the sampled pairs: DuckDB's VARCHAR of
        them (exact for decimals and instants), or (`raw`) Python's; none where DuckDB fails."""
        if not self.pairs:
            return []
        if (dk, raw) not in self.cache:
            try:
                rows = self.con.execute(f"SELECT {dk if raw else f'CAST(({dk}) AS VARCHAR)'} FROM jw_pairs").fetchall()
                self.cache[dk, raw] = [v for (v,) in rows if v is not None]
                self.null_counts[dk] = (len(rows) - len(self.cache[dk, raw]), len(rows))
            except duckdb.Error:
                self.cache[dk, raw] = []
        return self.cache[dk, raw]

    def varied(self, dk):
        """Whether a DuckDB expression takes two values or more on the sampled pairs."""
        return len(set(self.values(dk))) > 1

    def cuts(self, dk):
        """Whether a DuckDB condition is true for some sampled pairs and not for others (so for
        some of all the pairs and not others); False where DuckDB fails."""
        if not self.pairs:
            return False
        try:
            true, rows = self.con.execute(f"SELECT count(*) FILTER (WHERE {dk}), count(*) FROM jw_pairs").fetchall()[0]
        except duckdb.Error:
            return False
        return 0 < true < rows

    def some_null(self, dk):
        """Whether a DuckDB expression is null on some sampled pairs and not on others."""
        self.values(dk)
        nulls, rows = self.null_counts.get(dk, (0, 0))
        return 0 < nulls < rows


class TableSample:
    """The values DuckDB expressions take on a table's rows, for the literals of predicates
    calling functions (fuzz_gen.func_predicate): `values(dk, raw=False)` as PairSample's, over
    the table in memory as DuckDB's Parquet reader types it. DuckDB starts on the first call."""

    def __init__(self, table):
        self.table, self.con, self.cache = table, None, {}

    def values(self, dk, raw=False):
        if (dk, raw) not in self.cache:
            if self.con is None:
                self.con = duck()
                self.con.register("t", as_duckdb_parquet_types(self.table))
            v = dk if raw else f"CAST(({dk}) AS VARCHAR)"
            try:
                # In a fixed order (the draws from them must not depend on DuckDB's).
                rows = self.con.execute(f"SELECT DISTINCT {v} AS v FROM t WHERE v IS NOT NULL ORDER BY v LIMIT 200").fetchall()
                self.cache[dk, raw] = [x for (x,) in rows]
            except (duckdb.Error, UnicodeDecodeError):
                self.cache[dk, raw] = []
        return self.cache[dk, raw]


def jw_lit(rng, cols, name, sample):
    """A literal of column `name`'s kind: mostly one of the values the sampled pairs hold in
    it, else from its pool (jw_literal)."""
    side, kind, pool = cols[name][:3]
    if sample is not None and rng.random() < 0.85:
        dk = f"{side[0]}.{g.q(name)}"
        if kind in ("str", "bin"):
            vals = sample.values(dk, raw=True)
            if vals:
                v = rng.choice(vals)
                return g.Lit(g.sql_str(v)) if kind == "str" else g.bytes_lit(v)
        else:
            lits = [e for e in (g.lit_from_text(kind, t) for t in sample.values(dk)) if e is not None]
            if lits:
                e = rng.choice(lits)
                # A number as written (DuckDB types it as the comparisons without arithmetic do).
                return g.Lit(e.bj) if kind == "num" else g.Lit(e.bj, e.dk)
    return jw_literal(rng, kind, pool)


def jw_operands(cols, sample):
    """The number, date and timestamp columns of a --join-where draw as g.Operands."""
    ops = []
    for name, (side, kind, pool, t) in cols.items():
        refs = lambda rng, name=name: jw_ref(rng, cols, name)
        lit = lambda rng, name=name: jw_lit(rng, cols, name, sample)
        if kind == "num" and t in g.INT_TYPES:
            # Days for a date: row ids, integers of a small pool (g.days_ok).
            ops.append(g.Operand(name, kind, refs, lit, (g.INT_DIGITS[t], 0), days=g.days_ok(pool),
                                 integer=True))
        elif kind == "num" and t and t.startswith("decimal:"):
            _, p, sc = t.split(":")
            ops.append(g.Operand(name, kind, refs, lit, (int(p), int(sc))))
        elif kind == "date" and g.dates_ok(pool):
            # Not the date keys of far days (DuckDB's infinities; see g's arithmetic section).
            ops.append(g.Operand(name, kind, refs, lit))
        elif kind == "ts":
            ops.append(g.Operand(name, kind, refs, lit, unit=t[3:] if t else "us"))
    return ops


def jw_arith(rng, cols, keys, sample):
    """A predicate computing over columns of both sides (g.arith_predicate): (bloomjoin text,
    DuckDB text, whether it reads both sides), or None without such columns. Its literals cut
    the values its arithmetic takes on the sampled pairs."""
    ops = jw_operands(cols, sample)
    if not ops:
        return None
    return jw_draw(rng, cols, keys, sample, ops, g.arith_predicate)


def jw_draw(rng, cols, keys, sample, ops, make):
    """make(rng, ops, first, values) of a first operand mostly no key and varied over the
    sampled pairs: (bloomjoin text, DuckDB text, whether it reads both sides)."""
    # Mostly not a key (la, ra, lid, rid), whose values differ between the sides, and mostly
    # a column whose values differ between the sampled pairs.
    firsts = ops + [o for o in ops if o.name not in keys and o.name[1:] not in {k[1:] for k in keys}] * 2
    if sample is not None and rng.random() < 0.8:
        firsts = [o for o in firsts if sample.varied(f"{cols[o.name][0][0]}.{g.q(o.name)}")] or firsts
    first = rng.choice(firsts)
    # The other side's columns weigh three times as much: comparisons across the sides.
    mine = cols[first.name][0]
    ops = ops + [o for o in ops if cols[o.name][0] != mine] * 2
    bj, dk, used = make(rng, ops, first, sample.values if sample is not None else None)
    return bj, dk, len({cols[n][0] for n in used}) == 2


def jw_func_operands(cols, sample):
    """The columns of a --join-where draw as g.Operands for functions (g.func_operands):
    jw_operands' and the strings, binary and far dates ('xdate')."""
    ops = jw_operands(cols, sample)
    have = {o.name for o in ops}
    for name, (side, kind, pool, t) in cols.items():
        if name in have or kind not in ("str", "bin", "date"):
            continue
        refs = lambda rng, name=name: jw_ref(rng, cols, name)
        lit = lambda rng, name=name: jw_lit(rng, cols, name, sample)
        ops.append(g.Operand(name, "xdate" if kind == "date" else kind, refs, lit))
    for o in ops:
        o.pool = cols[o.name][2]
    return ops


def jw_func(rng, cols, keys, sample):
    """A predicate calling functions over columns of both sides (g.func_predicate): (bloomjoin
    text, DuckDB text, whether it reads both sides), or None without columns. Chosen as
    jw_arith chooses."""
    ops = jw_func_operands(cols, sample)
    if not ops:
        return None
    return jw_draw(rng, cols, keys, sample, ops, g.func_predicate)


def jw_ref(rng, cols, name):
    """A column of the condition: bloomjoin's `left.x` / `right.x` or (the sides' names
    differ) the bare name; DuckDB's `l.x` / `r.x`."""
    side = cols[name][0]
    bj = f"{side}.{g.q(name)}" if rng.random() < 0.6 else g.q(name)
    return bj, f"{side[0]}.{g.q(name)}"


def jw_predicate(rng, cols, keys, sample=None, frng=None):
    """One predicate of a --join-where: (bloomjoin text, DuckDB text, whether it compares a
    left column with a right one). `sample`, a PairSample or None, gives literals values the
    key-matching pairs hold, and with it a predicate true (or false) on every sampled pair is
    mostly drawn again, up to twice: in an AND or an OR it would decide nothing. `frng`, when
    given, draws (g.FUNC_SHARE of the time) a predicate calling functions instead (jw_func),
    from itself: `rng` still draws the predicate it would have."""
    got = jw_predicate_plain(rng, cols, keys, sample)
    if frng is None or frng.random() >= g.FUNC_SHARE:
        return got
    for _ in range(3):
        f = jw_func(frng, cols, keys, sample)
        if f is None:
            return got
        if sample is None or not sample.pairs or frng.random() < 0.25 or sample.cuts(f[1]):
            break
    g.FUNCS[0] += 1
    return f


def jw_predicate_plain(rng, cols, keys, sample=None):
    """One predicate without functions (the generator's before they came), as jw_predicate."""
    for _ in range(2):
        got = jw_predicate_once(rng, cols, keys, sample)
        if sample is None or not sample.pairs or rng.random() < 0.25 or sample.cuts(got[1]):
            return got
    return jw_predicate_once(rng, cols, keys, sample)


def jw_predicate_once(rng, cols, keys, sample):
    left = [n for n in cols if cols[n][0] == "left"]
    right = [n for n in cols if cols[n][0] == "right"]
    pairs = [(a, b) for a in left for b in right if cols[b][1] in JW_COMPATIBLE[cols[a][1]]]
    # A key column against its counterpart (lk and rk, lk2 and rk2, lpart and rpart) is equal
    # in every pair (but for null keys under --nulls-equal): a comparison of them decides
    # nothing, so only sometimes drawn.
    same = [(a, b) for a, b in pairs if a in keys and a[1:] == b[1:]]
    pairs = [p for p in pairs if p not in same] + (same if rng.random() < 0.2 or len(same) == len(pairs) else [])
    # Mostly a column against its counterpart (la and ra, ls and rs, lid and rid): values of
    # one pool, or ranges that overlap, so that the condition holds for some pairs and not
    # for others.
    pairs += [(a, b) for a, b in pairs if a[1:] == b[1:] and a not in keys] * 3
    if rng.random() < g.ARITH_SHARE:
        # Arithmetic over both sides' numbers, dates and timestamps (right.ra - left.la <= 3,
        # right.rid > left.lid * 2, left.lk + INTERVAL '1 day' >= ...).
        got = jw_arith(rng, cols, keys, sample)
        if got:
            return got
    r = rng.random()
    if r < 0.45 and pairs:
        # A left column against a right one, either way round.
        a, b = rng.choice(pairs)
        if rng.random() < 0.5:
            a, b = b, a
        (ab, ad), (bb, bd), op = jw_ref(rng, cols, a), jw_ref(rng, cols, b), rng.choice(JW_OPS)
        return f"{ab} {op} {bb}", f"{ad} {op} {bd}", True
    if r < 0.57 and pairs:
        # x BETWEEN (a column of the other side) AND (a literal or another such column), or
        # the bounds the other way round, all three of one kind.
        a, b = rng.choice(pairs)
        if rng.random() < 0.5:
            a, b = b, a
        others = [n for n in cols if cols[n][0] == cols[b][0] and cols[n][1] == cols[b][1]]
        x, lo = jw_ref(rng, cols, a), jw_ref(rng, cols, b)
        if rng.random() < 0.5:
            c = rng.choice(others)
            hi = jw_ref(rng, cols, c)
        else:
            # A value of x or of the bound's column: a range that holds some pairs.
            lit = jw_lit(rng, cols, rng.choice([a, b]), sample)
            hi = (lit.bj, lit.dk)
        if rng.random() < 0.5:
            lo, hi = hi, lo
        neg = "NOT " if rng.random() < 0.25 else ""
        return f"{x[0]} {neg}BETWEEN {lo[0]} AND {hi[0]}", f"{x[1]} {neg}BETWEEN {lo[1]} AND {hi[1]}", True
    if r < 0.65 and pairs:
        # x IN (a column of the other side, literals of its kind, maybe NULL).
        a, b = rng.choice(pairs)
        if rng.random() < 0.5:
            a, b = b, a
        x = jw_ref(rng, cols, a)
        items = [jw_ref(rng, cols, b)]
        for _ in range(rng.randint(0, 3)):
            lit = jw_lit(rng, cols, a, sample)
            items.append((lit.bj, lit.dk))
        if rng.random() < 0.2:
            items.append(("NULL", "NULL"))
        rng.shuffle(items)
        neg = "NOT " if rng.random() < 0.3 else ""
        return (f"{x[0]} {neg}IN ({', '.join(i[0] for i in items)})",
                f"{x[1]} {neg}IN ({', '.join(i[1] for i in items)})", True)
    names = list(cols)
    if sample is not None and r < 0.85 and rng.random() < 0.8:
        # Mostly a column whose values differ between the sampled pairs: a literal among them
        # cuts them.
        names = [n for n in names if sample.varied(f"{cols[n][0][0]}.{g.q(n)}")] or names
    name = rng.choice(names)
    kind, pool = cols[name][1], cols[name][2]
    x = jw_ref(rng, cols, name)
    if r < 0.85:
        # One side's column against a literal (a LIKE for strings, sometimes).
        if kind == "str" and rng.random() < 0.3:
            pats = [p for p in pool if isinstance(p, str)]
            t = f"{rng.choice(['LIKE', 'NOT LIKE'])} {g.sql_str(g.like_pattern(rng, pats, None))}"
            return f"{x[0]} {t}", f"{x[1]} {t}", False
        lit, op = jw_lit(rng, cols, name, sample), rng.choice(JW_OPS)
        return f"{x[0]} {op} {lit.bj}", f"{x[1]} {op} {lit.dk}", False
    if sample is not None and rng.random() < 0.8:
        # A column null in some pairs and not in others (la and ra are, a fifth of the rows).
        mixed = [n for n in cols if sample.some_null(f"{cols[n][0][0]}.{g.q(n)}")]
        if mixed:
            x = jw_ref(rng, cols, rng.choice(mixed))
    t = f"IS {'NOT ' if rng.random() < 0.5 else ''}NULL"
    return f"{x[0]} {t}", f"{x[1]} {t}", False


def jw_condition(rng, cols, keys, sample=None, depth=0, frng=None):
    """A --join-where: predicates under AND / OR / NOT; (bloomjoin text, DuckDB text, whether
    it compares a left column with a right one somewhere)."""
    r = rng.random()
    if depth >= 2 or r < 0.55:
        return jw_predicate(rng, cols, keys, sample, frng)
    if r < 0.65:
        bj, dk, cross = jw_condition(rng, cols, keys, sample, depth + 1, frng)
        return f"NOT ({bj})", f"NOT ({dk})", cross
    op = rng.choice(["AND", "OR"])
    parts = [jw_condition(rng, cols, keys, sample, depth + 1, frng) for _ in range(rng.choice([2, 2, 2, 3]))]
    return (f" {op} ".join(f"({p[0]})" for p in parts), f" {op} ".join(f"({p[1]})" for p in parts),
            any(p[2] for p in parts))


def join_where(rng, cols, keys, sample=None, frng=None):
    """A random --join-where over the case's columns (`cols`: name -> (side, kind, pool, type);
    the left key columns `keys`; `sample` a PairSample or None) that compares a left column
    with a right one: (bloomjoin text, DuckDB text). With a sample, one true (or false) on
    every sampled pair is mostly drawn again, up to three times: it changes no answer."""
    for _ in range(3):
        bj, dk, cross = jw_condition(rng, cols, keys, sample, frng=frng)
        for _ in range(10):
            if cross:
                break
            # One side's alone (an outer join pads, an anti join keeps a row it fails): with a
            # comparison of both sides, ANDed or ORed.
            b2, d2, cross = jw_predicate(rng, cols, keys, sample, frng)
            op = rng.choice(["AND", "OR"])
            bj, dk = f"({b2}) {op} ({bj})", f"({d2}) {op} ({dk})"
        if sample is None or not sample.pairs or rng.random() < 0.15 or sample.cuts(dk):
            break
    return bj, dk


def join_case(case, ctx):
    rng = case.rng
    family = rng.choice(["int", "int", "int", "date", "str", "str", "bin", "dec"])
    # Some date cases are times of day instead (TIME of seconds, milliseconds and
    # microseconds, TIME_NS), from a generator of their own (a seed's other cases stay what
    # they were).
    trng = random.Random(f"{ctx.seed}:join-time-key:{case.index}")
    if family == "date" and trng.random() < 0.4:
        family = "time"
        case.time_keys = True
    if family == "time":
        units = ["time_s", "time_ms", "time_us", "time_ns"]
        lt, rt = trng.choice(units), trng.choice(units)
        secs = [0, 1, 59, 3600, 43_200, 86_399] + [trng.randrange(86_400) for _ in range(20)]
        pool = sorted(set(trng.sample(secs, trng.randint(1, len(secs)))))
        lpool = rpool = pool
    elif family == "int":
        lt, rt = rng.choice(KEY_TYPES_INT), rng.choice(KEY_TYPES_INT)
        if not ctx.u64_meets_signed and ((lt == "uint64" and rt in g.SIGNED) or (rt == "uint64" and lt in g.SIGNED)):
            case.skipped_u64 = 1
            case.notes.append(f"u64 meets signed ({lt} / {rt}) replaced (--no-u64-meets-signed)")
            if lt == "uint64":
                rt = rng.choice(["uint8", "uint16", "uint32", "uint64"])
            else:
                lt = rng.choice(["uint8", "uint16", "uint32", "uint64"])
        lo = -(2**63) if (lt in g.SIGNED or rt in g.SIGNED) else 0
        pool = g.int_pool(rng, lo, 2**64 - 1, rng.randint(1, 40))
        rangeof = lambda t: (g.INT_TYPES[t][1], g.INT_TYPES[t][2])
        lpool = [v for v in pool if rangeof(lt)[0] <= v <= rangeof(lt)[1]]
        rpool = [v for v in pool if rangeof(rt)[0] <= v <= rangeof(rt)[1]]
    elif family == "dec":
        # Decimal keys by value (issue 16): the sides' scales differ, or one side is an integer
        # type; values exact in both types meet (1.50 meets 1.5 and 7.00 meets 7).
        lsc, rsc = rng.choice([0, 1, 2, 5]), rng.choice([0, 1, 2, 5])
        lt = f"decimal:{rng.choice([12, 18, 38])}:{lsc}"
        rt = rng.choice([f"decimal:{rng.choice([12, 18, 38])}:{rsc}", "int64", "uint64", "int32"])
        both = min(lsc, rsc) if rt.startswith("decimal:") else 0
        ints = g.int_pool(rng, -(10**6), 10**6, rng.randint(1, 30))
        if rt == "uint64":
            ints = [abs(v) for v in ints]
        pool = sorted({decimal.Decimal(v).scaleb(-rng.randint(0, both)) for v in ints})
        lpool = pool + [decimal.Decimal(rng.randint(-999, 999)).scaleb(-lsc) for _ in range(3)]
        rpool = pool if rt.startswith("decimal:") else [int(v) for v in pool if v == v.to_integral_value()]
        if not rpool:
            rpool = [0]
    elif family == "date":
        lt = rt = "date32"
        days = g.INTERESTING_DAYS + [rng.randint(-40, 40) for _ in range(10)]
        pool = sorted(set(rng.sample(days, rng.randint(1, len(days)))))
        lpool = rpool = pool
    else:
        types = KEY_TYPES_STR if family == "str" else KEY_TYPES_BIN
        lt, rt = rng.choice(types), rng.choice(types)
        pool = g.string_pool(rng, rng.randint(1, 30), binary=(family == "bin"))
        lpool = rpool = pool
    # Side-only values: keys the other side lacks.
    lpool = lpool + [v for v in rng.sample(lpool, min(len(lpool), 3))]
    rpool = list(rpool)
    if family == "int":
        lo_r, hi_r = g.INT_TYPES[rt][1], g.INT_TYPES[rt][2]
        rpool += [rng.randint(max(lo_r, -(10**6)), min(hi_r, 10**6)) for _ in range(rng.randint(0, 20))]
    nl = rng.choice([0, 1, 5, 50, 200, 1000, 3000]) if rng.random() < 0.9 else rng.randint(0, 300)
    nr = rng.choice([0, 1, 10, 200, 2000, 5000]) if rng.random() < 0.9 else rng.randint(0, 3000)
    lnull, rnull = g.null_frac(rng), g.null_frac(rng)
    apool = g.int_pool(rng, -(2**31), 2**31 - 1, rng.randint(1, 8))
    spool = g.string_pool(rng, rng.randint(1, 8))
    left = pa.table({
        "lk": key_array(g.draw(rng, lpool, nl, lnull), lt),
        "lid": pa.array(range(nl), pa.int64()),
        "la": pa.array(g.draw(rng, apool, nl, 0.2), pa.int32()),
        "ls": pa.array(g.draw(rng, spool, nl, 0.2), pa.string()),
    })
    right = pa.table({
        "rk": key_array(g.draw(rng, rpool, nr, rnull), rt),
        "rid": pa.array(range(nr), pa.int64()),
        "ra": pa.array(g.draw(rng, apool, nr, 0.2), pa.int32()),
        "rs": pa.array(g.draw(rng, spool, nr, 0.2), pa.string()),
    })
    # A composite key (issue 16) in a quarter of the cases: a second key column of its own
    # family (integers of any width and signedness meeting by value, strings of any string
    # type, dates, timestamps of any unit), with its own nulls; a row joins when both
    # components are equal.
    composite = rng.random() < 0.25
    key2 = None  # (left type, right type, values) of a second key column
    if composite:
        fam2 = rng.choice(["int", "str", "date", "ts"])
        if fam2 == "int":
            lt2, rt2 = rng.choice(KEY_TYPES_INT), rng.choice(KEY_TYPES_INT)
            pool2 = g.int_pool(rng, 0, 127, rng.randint(1, 6))
            extra2 = [rng.randint(0, 127) for _ in range(2)]
        elif fam2 == "str":
            lt2, rt2 = rng.choice(KEY_TYPES_STR), rng.choice(KEY_TYPES_STR)
            pool2 = g.string_pool(rng, rng.randint(1, 6))
            extra2 = g.string_pool(rng, 2)
        elif fam2 == "date":
            lt2 = rt2 = "date32"
            pool2 = sorted(set(rng.sample(g.INTERESTING_DAYS, min(4, len(g.INTERESTING_DAYS)))))
            extra2 = [rng.randint(-40, 40) for _ in range(2)]
        else:
            # Timestamps of any unit on either side meet by instant (whole seconds, so that
            # every unit holds them).
            units = ["ts_s", "ts_ms", "ts_us", "ts_ns"]
            lt2, rt2 = rng.choice(units), rng.choice(units)
            pool2 = sorted({rng.choice([0, -1, 1, 86_399, 951_782_400, -2**31, 2**31 - 1,
                                        rng.randint(-(10**9), 10**9)]) for _ in range(rng.randint(1, 6))})
            extra2 = [rng.randint(-(10**9), 10**9) for _ in range(2)]
            # Half of them times of day instead (TIME of seconds, milliseconds and
            # microseconds, TIME_NS): the same draws, as seconds since midnight (a generator
            # of its own, so that a seed's other draws stay what they were).
            if random.Random(f"{ctx.seed}:join-time:{case.index}").random() < 0.5:
                lt2, rt2 = "time_" + lt2[3:], "time_" + rt2[3:]
                case.time_keys = True
                pool2 = sorted({v % 86_400 for v in pool2})
                extra2 = [v % 86_400 for v in extra2]
        left = left.append_column("lk2", key_array(g.draw(rng, pool2, nl, g.null_frac(rng)), lt2))
        right = right.append_column("rk2", key_array(g.draw(rng, pool2 + extra2, nr, g.null_frac(rng)), rt2))
        case.notes.append(f"composite key: (lk {lt}, lk2 {lt2}) = (rk {rt}, rk2 {rt2})")
        key2 = (lt2, rt2, pool2 + extra2)
    lkeys, rkeys = ("lk,lk2", "rk,rk2") if composite else ("lk", "rk")
    # Sometimes two or three more string columns on the right, from a generator of their own
    # (a seed's other draws stay what they were): a projection of three or more string
    # columns applies the right side's row selection as a mask, fewer skip the rows.
    wrng = random.Random(f"{ctx.seed}:join-wide:{case.index}")
    wide = []
    if wrng.random() < 0.3:
        for c in ["rs2", "rs3", "rs4"][:wrng.randint(2, 3)]:
            pool = g.string_pool(wrng, wrng.randint(1, 50))
            right = right.append_column(c, pa.array(g.draw(wrng, pool, nr, g.null_frac(wrng)), pa.string()))
            wide.append(c)
        case.notes.append(f"more right string columns: {', '.join(wide)}")
    # Sometimes a UUID column on the right (Parquet's UUID logical type), passed on: the output
    # must hold it as a UUID with its values (a generator of its own, as above). A third of
    # the time the UUIDs are inside a struct or a list, which must keep their type too.
    grng = random.Random(f"{ctx.seed}:join-uuid:{case.index}")
    uuids = []
    if grng.random() < 0.2:
        pool = [grng.getrandbits(128).to_bytes(16, "big") for _ in range(grng.randint(1, 20))]
        ru = pa.array(g.draw(grng, pool, nr, g.null_frac(grng)), pa.uuid())
        shape = grng.choice(["flat", "flat", "flat", "flat", "struct", "list"])
        if shape == "struct":
            ru = pa.StructArray.from_arrays([ru, pa.array(range(nr), pa.int32())], ["u", "n"])
        elif shape == "list":
            # Lists of 0 to 2 UUIDs (NULLs among them), some lists NULL.
            sizes = [grng.choice([None, 0, 1, 2, 2]) for _ in range(nr)]
            offsets, at, mask = [0], 0, []
            for n in sizes:
                at += n or 0
                offsets.append(at)
                mask.append(n is None)
            flat = pa.array(g.draw(grng, pool, at, g.null_frac(grng)), pa.uuid())
            ru = pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), flat, mask=pa.array(mask, pa.bool_()))
        right = right.append_column("ru", ru)
        uuids = ["ru"]
        case.uuids = True
        case.notes.append(f"a right UUID column: ru ({shape})")
    os.makedirs(os.path.join(case.dir, "left"))
    os.makedirs(os.path.join(case.dir, "right"))
    # Sometimes the files of one side hold an integer key in different types, each one that
    # holds that file's values (Int32 in one file, Int64 in the next).
    lvary = key_type_per_file(ctx, "lk", other=rt) if family == "int" and rng.random() < 0.2 else None
    rvary = key_type_per_file(ctx, "rk", other=lt) if family == "int" and rng.random() < 0.2 else None
    for d in g.split_write(rng, left, os.path.join(case.dir, "left"), "l", sort_by="lk", vary=lvary):
        case.notes.append(f"left {lt}: {d}")
    for d in g.split_write(rng, right, os.path.join(case.dir, "right"), "r", sort_by="rk", vary=rvary):
        case.notes.append(f"right {rt}: {d}")
    mixed_files = lvary is not None or rvary is not None
    # Sometimes the files of a side differ in their columns (a table that gained or dropped a
    # column, or wrote them in another order): both engines read a side as the union of its
    # files' columns by name, nulls where a file lacks one (a generator of its own, so that a
    # seed's other draws stay what they were).
    urng = random.Random(f"{ctx.seed}:join-columns:{case.index}")
    unioned = False
    varied = set()
    for side, cols in (("left", ["lid", "la", "ls"]), ("right", ["rid", "ra", "rs"] + wide)):
        if urng.random() < 0.2:
            how = vary_columns(urng, sorted(glob.glob(os.path.join(case.dir, side, "*.parquet"))), cols)
            if how:
                unioned = True
                varied.add(side)
                case.notes.append(f"{side} files' columns: {how}")
    # Sometimes a side's files sit in Hive partition directories (`lpart=3/l0.parquet`), whose
    # values are a column of their rows for both engines, sometimes in the side's --where
    # (a generator of its own, so that a seed's other draws stay what they were). Not a side
    # whose files' columns differ: a side's columns are those of the files it reads, and
    # DuckDB's union_by_name reads every file's.
    hrng = random.Random(f"{ctx.seed}:join-hive:{case.index}")
    hive = {}
    # Sometimes both sides are partitioned by one kind and the partition columns join the key
    # as its last component: (lk, lpart) = (rk, rpart), the filter trained on the tuple.
    pkey = hrng.random() < 0.1 and not varied
    for side, name in (("left", "lpart"), ("right", "rpart")):
        if (pkey or hrng.random() < 0.15) and side not in varied:
            kind = hive["left"][1] if pkey and "left" in hive else None
            got = hive_partition(hrng, os.path.join(case.dir, side), name, kind, need_value=pkey)
            if got:
                hive[side] = (name, *got)
                case.notes.append(f"{side} files in {name}= directories ({got[0]}): {', '.join(t for t, _ in got[1])}")
    pkey = pkey and len(hive) == 2
    palone = pkey and nl * nr <= 200_000 and hrng.random() < 0.4
    if palone:
        # The partition columns alone: every file holds one key, which the key tiers probe
        # once (a file they rule out is not read). Every left row of a value meets every
        # right row of it, so only for sides small enough.
        lkeys, rkeys = "lpart", "rpart"
        case.notes.append("the partition columns alone are the key: (lpart) = (rpart)")
    elif pkey:
        lkeys, rkeys = lkeys + ",lpart", rkeys + ",rpart"
        case.notes.append(f"partition columns in the key: ({lkeys}) = ({rkeys})")

    kl, kr = key_kind(lt), key_kind(rt)
    # A time key's pool in its stored unit, as fuzz_gen's time columns hold theirs.
    in_unit = lambda k, pool: [v * g.PER_SECOND[k[1]] for v in pool] if family == "time" else pool  # noqa: E731
    linfo = {"lk": (kl[0], kl[1], in_unit(kl, lpool)), "la": ("int", "int32", apool), "ls": ("str", None, spool)}
    rinfo = {"rk": (kr[0], kr[1], in_unit(kr, rpool)), "ra": ("int", "int32", apool), "rs": ("str", None, spool)}
    r = rng.random()
    # Conditions on the other columns only when a key is a decimal (conditions draw on the
    # kinds int, date, str and bin).
    lcols = [c for c in linfo if linfo[c][0] != "dec"]
    rcols = [c for c in rinfo if rinfo[c][0] != "dec"]
    g.MIXED[0] = 0
    # Functions in the sides' conditions: a generator of their own (fuzz_gen's functions), their
    # literals from the values on the side's rows.
    frng = random.Random(f"{ctx.seed}:join-func:{case.index}")
    g.FUNCS[0] = 0
    g.CASTS[0] = 0
    g.FLOATS[0] = 0
    g.MATHS[0] = 0
    lwhere = g.condition(rng, linfo, lcols, frng=frng, values=TableSample(left).values) if r < 0.6 else None
    rwhere = g.condition(rng, rinfo, rcols, frng=frng, values=TableSample(right).values) if rng.random() < 0.3 else None
    case.funcs += g.FUNCS[0]
    case.casts += g.CASTS[0]
    case.floats += g.FLOATS[0]
    case.maths += g.MATHS[0]
    # A condition on a side's partition column, alone or ANDed to the side's (it then prunes
    # files), or ORed to it (it then prunes none).
    for side in hive:
        if hrng.random() < 0.6:
            name, _, used = hive[side]
            c = hive_condition(hrng, name, used)
            w = lwhere if side == "left" else rwhere
            if w is None:
                w = (c, c)
            else:
                op = "AND" if hrng.random() < 0.75 else "OR"
                w = (f"({w[0]}) {op} {c}", f"({w[1]}) {op} {c}") + tuple(w[2:])
            if side == "left":
                lwhere = w
            else:
                rwhere = w
    # With a (flat) right UUID column, sometimes a condition on it, alone or ANDed or ORed to
    # the right side's: compared with text read as a UUID, in DuckDB's lenient forms, or cast
    # to text (a generator of its own, so that a seed's other draws stay what they were).
    qrng = random.Random(f"{ctx.seed}:join-uuid-where:{case.index}")
    if uuids and shape == "flat" and qrng.random() < 0.6:
        c = uuid_condition(qrng, pool)
        case.uuid_where = True
        case.notes.append(f"a condition on the right UUID column: {c}")
        if rwhere is None:
            rwhere = (c, c)
        else:
            op = qrng.choice(["AND", "OR"])
            rwhere = (f"({rwhere[0]}) {op} {c}", f"({rwhere[1]}) {op} {c}") + tuple(rwhere[2:])
    train_where = lwhere if r < 0.5 else None

    # Parquet's own filter (`sbbf`) holds one column's values: not drawn for composite keys.
    tuple_key = composite or pkey
    layout = rng.choice(["split", "split", "blocked", "classic", "spark-v1", "spark-v2"] + ([] if tuple_key else ["sbbf"]))
    train = [ctx.bin, "--quiet", "train", "-i", "left", "-c", lkeys, "-o", "f.bjf", "--layout", layout,
             "--workers", str(rng.randint(1, 3))]
    # Spark's layouts hold a composite key as Spark's xxhash64 of its columns.
    spark_tuple = tuple_key and layout.startswith("spark")
    if spark_tuple:
        train += ["--spark-keys", "xxhash64"]
    if layout.startswith("spark") and rng.random() < 0.5:
        train += ["--format", "spark"]
    sizing = rng.random()
    if sizing < 0.3:
        unit = {"split": 512, "blocked": 512, "sbbf": 256}.get(layout, 64)
        hashes = 8 if layout in ("split", "sbbf") else rng.randint(1, 8)
        train += ["--bits", str(unit * rng.choice([1, 2, 4, 64])), "--hashes", str(hashes)]
    elif sizing < 0.5:
        train += ["--expected-items", str(rng.randint(1, 500)), "--fpp", rng.choice(["0.5", "0.1", "0.01"])]
    elif sizing < 0.7:
        train += ["--fpp", rng.choice(["0.3", "0.01", "0.0001"])]
    if rng.random() < 0.3:
        train += ["--seed", str(rng.choice([1, 42, 2**32 - 1]) if layout not in ("spark-v1", "sbbf") else 0)]
    if rng.random() < 0.3:
        train += ["--batch-size", str(rng.choice([1, 7, 100, 4096]))]
    if rng.random() < 0.3:
        train += ["--split-rows", str(rng.choice([1, 10, 1000]))]
    if train_where is not None:
        train += ["--where", train_where[0]]
    code, _, err = case.run(train, check_ok=False)
    if code == 2 and train_where is not None and "--where" in err:
        if value_error(err) and side_fails_in_duckdb(case, "left", train_where[1], mixed_files or unioned):
            case.notes.append(f"bloomjoin: {err.strip()}")
            return "both refused"
        return refused(case, err)
    if code == 2 and layout.startswith("spark") and "does not fit a Spark filter" in err:
        # A UInt64 key of 2^63 and more, or a decimal that is no integer, is no Spark long: a
        # documented refusal.
        case.notes.append(f"bloomjoin: {err.strip()}")
        return "refused (spark long)"
    if code == 2 and layout.startswith("spark") and "Spark's BloomFilter has no TIME type" in err:
        # A time of day is no Spark type: a documented refusal.
        case.notes.append(f"bloomjoin: {err.strip()}")
        return "refused (spark time)"
    if code == 2 and spark_tuple and mixed_files and "hashes the key as its Spark type" in err:
        # xxhash64 hashes each column as one Spark type: files that hold a key column in
        # different types are a documented refusal.
        case.notes.append(f"bloomjoin: {err.strip()}")
        return "refused (spark types)"
    if code == 2 and layout == "sbbf" and ("cannot be an sbbf key" in err or "holds time keys" in err
                                           or (mixed_files and "Parquet type" in err)):
        # Decimal keys (Parquet's filter hashes their stored form, which differs by writer)
        # and files storing the key in different physical types: documented refusals.
        case.notes.append(f"bloomjoin: {err.strip()}")
        return "refused (sbbf types)"
    if code != 0:
        raise CaseFailed(f"train exit {code}: {err.strip()}")
    if rng.random() < 0.2:
        # The same training with other workers, batches and splits: the same bytes.
        again = list(train)
        for opt in ("--workers", "--batch-size", "--split-rows"):
            if opt in again:
                i = again.index(opt)
                del again[i:i + 2]
        o = again.index("-o")
        again[o + 1] = "f2.bjf"
        again += ["--workers", str(rng.randint(1, 4)), "--batch-size", str(rng.choice([1, 3, 64, 65536])),
                  "--split-rows", str(rng.choice([1, 2, 50, 100_000]))]
        case.run(again)
        if not same_bytes(case, "f2.bjf", "f.bjf"):
            raise CaseFailed("the same training with other workers, batch size and split rows gave other bytes")
    if rng.random() < 0.25:
        # The same training as 2 to 4 shards, merged: the unsharded filter's bytes. A layout
        # that cannot fold (classic, Spark's) needs fixed sizing to be sharded (a documented
        # refusal); split, blocked and sbbf fold.
        n = rng.randint(2, 4)
        o = train.index("-o")
        fixed = "--bits" in train or "--expected-items" in train
        for i in range(n):
            args = train[:o] + ["-o", f"s{i}.bjf"] + train[o + 2:] + ["--shard", f"{i}/{n}"]
            code, _, err = case.run(args, check_ok=False)
            if code == 0:
                continue
            if code == 2 and layout not in ("split", "blocked", "sbbf") and not fixed and "fixed sizing" in err:
                case.notes.append(f"bloomjoin: {err.strip()}")
                break
            raise CaseFailed(f"train of shard {i}/{n} exit {code}: {err.strip()}")
        else:
            case.run([ctx.bin, "--quiet", "merge", "-o", "m.bjf"] + [f"s{i}.bjf" for i in range(n)])
            if not same_bytes(case, "m.bjf", "f.bjf"):
                raise CaseFailed(f"the merge of {n} shards differs from the unsharded filter")
            case.notes.append(f"{n} shards merged into the unsharded filter's bytes")

    jt = rng.choice(["inner", "left", "left-semi", "left-anti", "right", "right-semi", "right-anti", "full"])
    strategy = rng.choice(["auto", "replicated", "reduce-side"])
    join = [ctx.bin, "--quiet", "join", "--filter", "f.bjf", "--left", "left", "--left-key", lkeys,
            "--right", "right", "--right-key", rkeys, "--type", jt, "--strategy", strategy,
            "--workers", str(rng.randint(1, 4)), "-o", "out"]
    if spark_tuple:
        join += ["--spark-keys", "xxhash64"]
    if strategy != "replicated" and rng.random() < 0.5:
        join += ["--reducers", str(rng.choice([1, 2, 3, 7, 13]))]
    if strategy == "auto" and rng.random() < 0.3:
        join += ["--memory-limit", rng.choice(["16KiB", "64KiB", "1MiB"])]
    r = rng.random()
    if r < 0.15:
        join += ["--no-prefilter"]
    elif r < 0.35:
        # No --filter: the join builds one from the left side's keys (in memory or spilled).
        i = join.index("--filter")
        del join[i:i + 2]
        if rng.random() < 0.5:
            join += ["--filter-fpp", str(rng.choice([0.001, 0.1, 0.5]))]
    if rng.random() < 0.3:
        join += ["--batch-size", str(rng.choice([1, 7, 100, 4096]))]
    if rng.random() < 0.3:
        join += ["--split-rows", str(rng.choice([1, 10, 1000]))]
    if lwhere is not None:
        join += ["--left-where", lwhere[0]]
    if rwhere is not None:
        join += ["--right-where", rwhere[0]]
    # The right files' Parquet Bloom filters (pyarrow's and DuckDB's) skip row groups when the
    # left side has at most --sbbf-max-keys distinct keys (1000 by default: every case here).
    r = rng.random()
    if r < 0.15:
        join += ["--no-sbbf"]
    elif r < 0.3:
        join += ["--sbbf-max-keys", str(rng.choice([0, 1, 3, 100_000]))]
    # The output's codec, from a generator of its own so that a seed's other draws stay what
    # they were: DuckDB reads the parts whatever wrote them.
    crng = random.Random(f"{ctx.seed}:join-codec:{case.index}")
    if crng.random() < 0.3:
        codec = crng.choice(["snappy", "gzip", "lz4", "brotli", "none", "zstd"])
        join += ["--compression", codec]
        if codec in ("zstd", "gzip", "brotli") and crng.random() < 0.5:
            join += ["--compression-level", str(crng.choice({"zstd": [-3, 3, 19], "gzip": [0, 9], "brotli": [0, 11]}[codec]))]
    # A reduce-side join under a budget its partitions need not fit: they are joined in
    # passes, a chunk of left rows at a time (a generator of its own, as above).
    mrng = random.Random(f"{ctx.seed}:join-passes:{case.index}")
    if strategy == "reduce-side" and mrng.random() < 0.3:
        join += ["--memory-limit", mrng.choice(["2KiB", "16KiB", "64KiB"])]
    join += ["--report", "report.json"]
    # Sometimes a projection: some of the output columns in any order, each bare or qualified.
    lnames = ["lk", "lid", "la", "ls"] + (["lk2"] if composite else [])
    rnames = ["rk", "rid", "ra", "rs"] + (["rk2"] if composite else []) + wide + uuids
    if unioned or hive:
        # A side's columns in the order DuckDB's union_by_name gives them (the order they
        # first appear, file by file; a partition column last), which bloomjoin's `*` must
        # follow.
        def union_order(side):
            paths = side_files(case, side)
            return [r[0] for r in duck().execute(f"DESCRIBE SELECT * FROM {files_sql(paths, True)}").fetchall()]
        lnames, rnames = union_order("left"), union_order("right")
    # Sometimes each key pair is one column (`--coalesce-keys`) against DuckDB's
    # COALESCE(l.k, r.k): the keys first, under the left keys' names, then the other left and
    # right columns; with a --select, a bare key name (the left's or the right's) is its
    # pair's coalesced column, and `left.k` / `right.k` the sides' own (a generator of its
    # own, as above).
    krng = random.Random(f"{ctx.seed}:join-coalesce-keys:{case.index}")
    coalesce = krng.random() < 0.2 and jt in ("inner", "left", "right", "full")
    if coalesce and family == "time" and (lt == "time_ns") != (rt == "time_ns"):
        # DuckDB's COALESCE refuses to mix TIME and TIME_NS (bloomjoin's is the finer unit).
        coalesce = False

    def digits(t):
        """(integer digits, scale) of a key type; None for a type that is no exact number."""
        if t.startswith("decimal:"):
            p, sc = map(int, t.split(":")[1:])
            return p - sc, sc
        return {"int32": (10, 0), "int64": (19, 0), "uint64": (20, 0)}.get(t)
    dl, dr = digits(lt), digits(rt)
    if coalesce and dl and dr and max(dl[0], dr[0]) + max(dl[1], dr[1]) > 38:
        # The keys' common type needs more than 38 digits: bloomjoin's coalesced column is a
        # DECIMAL of up to 76, exact; DuckDB's COALESCE is a DECIMAL(38, s) with its scale cut
        # (DECIMAL(18,5) and DECIMAL(38,1): -0.00681 becomes 0.0; seed 135, join case 18).
        coalesce = False
    select = None
    aliases = {}
    star_rep = []  # the sides whose star replaces a column (`__REP_left__`)
    if rng.random() < 0.3:
        cols = {"left-semi": lnames, "left-anti": lnames, "right-semi": rnames, "right-anti": rnames}.get(jt, lnames + rnames)
        select = rng.sample(cols, rng.randint(1, len(cols)))
        items = [(("left." if c in lnames else "right.") + c) if rng.random() < 0.5 else c for c in select]
        # Some renamed with AS (a generator of its own, so that a seed's other draws stay
        # what they were).
        arng = random.Random(f"{ctx.seed}:join-alias:{case.index}")
        for i, c in enumerate(select):
            if arng.random() < 0.25:
                aliases[i] = f"{c}_{arng.choice(['as', 'x'])}"
                items[i] += f" {arng.choice(['AS', 'as'])} {aliases[i]}"
        join += ["--select", ",".join(items)]
    elif random.Random(f"{ctx.seed}:join-star:{case.index}").random() < 0.15:
        # `*` is the default list (coalesced keys once, first; a semi join's side), written
        # out (a generator of its own, as above).
        join += ["--select", "*"]
        case.notes.append("--select *")
        case.star = True
    elif random.Random(f"{ctx.seed}:join-star-mods:{case.index}").random() < 0.15:
        # `left.*` and `right.*` with DuckDB's EXCLUDE, REPLACE and RENAME lists, against the
        # columns they stand for in DuckDB's SELECT (a generator of its own, as above): a
        # replaced column is a condition over both sides (`__rep_left`, computed beside the
        # sides' columns below), in its place.
        srng = random.Random(f"{ctx.seed}:join-star-mods-draw:{case.index}")
        sides = {"left-semi": ["left"], "left-anti": ["left"], "right-semi": ["right"],
                 "right-anti": ["right"]}.get(jt, ["left", "right"])
        star_items, select, items = [], [], []
        for side in sides:
            names_ = lnames if side == "left" else rnames
            ex = [c for c in names_ if srng.random() < 0.25][: len(names_) - 1]
            kept = [c for c in names_ if c not in ex]
            rep = srng.choice(kept) if len(sides) == 2 and not coalesce and srng.random() < 0.4 else None
            ren = [c for c in kept if c != rep and srng.random() < 0.3]
            text = f"{side}.*"
            if ex:
                text += f" EXCLUDE ({', '.join(ex)})" if len(ex) > 1 or srng.random() < 0.5 else f" exclude {ex[0]}"
            if rep:
                # The condition is drawn below, once the case's columns are known.
                text += f" REPLACE (__REP_{side}__ AS {rep})"
                star_rep.append(side)
            if ren:
                text += " RENAME (" + ", ".join(f"{c} AS {c}_rn" for c in ren) + ")"
            elif not rep and srng.random() < 0.4:
                # A pattern on the names, last (DuckDB says which it keeps); one that keeps
                # none is not drawn.
                pat = srng.choice(["LIKE '%k%'", "NOT LIKE '%k%'", "ILIKE 'R_%'", "LIKE '_i%'",
                                   "SIMILAR TO '.(s|a).*'", "NOT ILIKE '%PART'"])
                values = ", ".join(f"({i}, '{c}')" for i, c in enumerate(kept))
                hit = [r[0] for r in duck().execute(
                    f"SELECT n FROM (VALUES {values}) t(i, n) WHERE n {pat} ORDER BY i").fetchall()]
                if hit:
                    text += f" {pat}"
                    kept = hit
            star_items.append(text)
            for c in kept:
                aliases_at = len(select)
                if c == rep:
                    select.append(f"__rep_{side}")
                    aliases[aliases_at] = c
                else:
                    select.append(c)
                    if c in ren:
                        aliases[aliases_at] = f"{c}_rn"
                items.append(f"{side}.{c}")
        join += ["--select", ", ".join(star_items)]
        star_note = len(case.notes)
        case.notes.append(f"--select {', '.join(star_items)}")
        case.star_mods = True
    elif not coalesce and random.Random(f"{ctx.seed}:join-columns:{case.index}").random() < 0.1:
        # DuckDB's COLUMNS('regex'): the columns of both sides (a semi or anti join's side), in
        # the default order, whose names the regex finds a match in, DuckDB saying which (a
        # generator of its own, as above); one that matches none is not drawn.
        crng = random.Random(f"{ctx.seed}:join-columns-draw:{case.index}")
        cols = {"left-semi": lnames, "left-anti": lnames, "right-semi": rnames, "right-anti": rnames}.get(jt, lnames + rnames)
        pat = crng.choice(["k", "^r", "(?i)K$", "^(l|r)k", "[0-9]", "s$", "^.i", "a|s", "^[a-l]", "(?i)^R[A-Z]$"])
        values = ", ".join(f"({i}, '{c}')" for i, c in enumerate(cols))
        hit = [r[0] for r in duck().execute(
            f"SELECT n FROM (VALUES {values}) t(i, n) WHERE regexp_matches(n, '{pat}') ORDER BY i").fetchall()]
        if hit:
            select = hit
            items = [("left." if c in lnames else "right.") + c for c in hit]
            join += ["--select", f"COLUMNS('{pat}')"]
            case.notes.append(f"--select COLUMNS('{pat}')")
            case.columns = True

    # DuckDB's query, built before the join runs: --partition-by draws on its output columns.
    con = duck()
    lf, rf = side_files(case, "left"), side_files(case, "right")
    L = f"(SELECT * FROM {files_sql(lf, mixed_files or unioned)}{' WHERE ' + lwhere[1] if lwhere else ''})"
    R = f"(SELECT * FROM {files_sql(rf, mixed_files or unioned)}{' WHERE ' + rwhere[1] if rwhere else ''})"
    on = "l.lk = r.rk" + (" AND l.lk2 = r.rk2" if composite else "") + (" AND l.lpart = r.rpart" if pkey else "")
    if palone:
        on = "l.lpart = r.rpart"
    # Sometimes null keys match each other (`--nulls-equal`), against DuckDB's
    # IS NOT DISTINCT FROM (a generator of its own, as above).
    on_eq = on  # the key equality itself, for the filter step (whatever --nulls-equal does)
    nrng = random.Random(f"{ctx.seed}:join-nulls-equal:{case.index}")
    nulls_equal = nrng.random() < 0.25
    if nulls_equal:
        join += ["--nulls-equal"]
        on = on.replace(" = ", " IS NOT DISTINCT FROM ")
        case.notes.append("nulls equal")
    # Sometimes an extra join condition over both sides' columns (`--join-where`), in DuckDB's
    # ON clause (and the EXISTS correlation of the semi and anti joins) after the keys (a
    # generator of its own, as above): a pair it is false or NULL for does not match.
    jrng = random.Random(f"{ctx.seed}:join-where:{case.index}")
    jw = None
    jdraw = jrng.random()
    sample = None
    if jdraw < 0.5:
        # A condition on the pairs decides nothing where the keys match no pair (6 in 10 of
        # the joins, mostly sides of no rows or keys the other side lacks): drawn for half the
        # joins with key-matching pairs, a twentieth of those without (its parsing, its
        # side-only conjuncts pushed to a side), 3 in 10 where DuckDB cannot count them. Its
        # literals come mostly from a sample of the pairs (PairSample).
        sample = PairSample(con, f"FROM {L} l JOIN {R} r ON {on}")
        if sample.pairs is None:
            sample = None
        if (sample is None and jdraw >= 0.3) or (sample is not None and not sample.pairs and jdraw >= 0.05):
            jdraw = 1.0
    def case_cols():
        """The case's columns for a --join-where or a computed column: name -> (side, kind,
        pool, type)."""
        jw_cols = {}
        # (kind, pool, type): the type of a number or timestamp column, for its arithmetic.
        side_cols = {
            "left": {"lk": (jw_kind(lt), lpool, lt), "lid": ("num", [0, 1, nl // 2, nl], "int64"),
                     "la": ("num", apool, "int32"), "ls": ("str", spool, None)},
            "right": {"rk": (jw_kind(rt), rpool, rt), "rid": ("num", [0, 1, nr // 2, nr], "int64"),
                      "ra": ("num", apool, "int32"), "rs": ("str", spool, None)},
        }
        if key2:
            side_cols["left"]["lk2"] = (jw_kind(key2[0]), key2[2], key2[0])
            side_cols["right"]["rk2"] = (jw_kind(key2[1]), key2[2], key2[1])
        for c in wide:
            side_cols["right"][c] = ("str", [], None)
        for side, (pname, pkind, used) in hive.items():
            lits = [g.Lit(lit) for _, lit in used if lit is not None]
            # Every file's value null: both engines type the column as text (integers: BIGINT).
            side_cols[side][pname] = ({"int": "num"}.get(pkind, pkind) if lits else "str", lits,
                                      "int64" if pkind == "int" and lits else None)
        for side, names_ in (("left", lnames), ("right", rnames)):
            for c in names_:
                if c in side_cols[side]:
                    jw_cols[c] = (side,) + side_cols[side][c]
        return jw_cols

    if jdraw < 0.5:
        jw_cols = case_cols()
        # Functions in its predicates: a generator of their own (fuzz_gen's functions).
        g.FUNCS[0] = 0
        g.CASTS[0] = 0
        g.FLOATS[0] = 0
        g.MATHS[0] = 0
        jw = join_where(jrng, jw_cols, lkeys.split(","), sample,
                        random.Random(f"{ctx.seed}:join-where-func:{case.index}"))
        case.funcs += g.FUNCS[0]
        case.casts += g.CASTS[0]
        case.floats += g.FLOATS[0]
        case.maths += g.MATHS[0]
        case.jw_funcs = g.FUNCS[0]
        join += ["--join-where", jw[0]]
        on = f"{on} AND ({jw[1]})"
        case.notes.append(f"--join-where {jw[0]}")
    lsel = ", ".join(f"l.{c}" for c in lnames)
    rsel = ", ".join(f"r.{c}" for c in rnames)
    # Sometimes a computed --select column, `(<condition over both sides>) AS cw`, against
    # DuckDB's SELECT expression (a generator of its own): a predicate of the join-where's
    # generator, TRUE, FALSE or NULL on each output row, a missing side's columns NULL.
    crng = random.Random(f"{ctx.seed}:join-computed:{case.index}")
    if select is not None and jt in ("inner", "left", "right", "full") and not coalesce and crng.random() < 0.6:
        cbj, cdk, _ = jw_predicate(crng, case_cols(), lkeys.split(","), None,
                                   random.Random(f"{ctx.seed}:join-computed-func:{case.index}"))
        at = join.index("--select") + 1
        join[at] += f", ({cbj}) AS cw"
        lsel += f", ({cdk}) AS __cw"
        select.append("__cw")
        aliases[len(select) - 1] = "cw"
        case.computed = True
        case.notes.append(f"--select ... ({cbj}) AS cw")
    for side in star_rep:
        rbj, rdk, _ = jw_predicate(random.Random(f"{ctx.seed}:join-star-rep:{case.index}:{side}"), case_cols(),
                                   lkeys.split(","), None,
                                   random.Random(f"{ctx.seed}:join-star-rep-func:{case.index}:{side}"))
        at = join.index("--select") + 1
        join[at] = join[at].replace(f"__REP_{side}__", f"({rbj})")
        lsel += f", ({rdk}) AS __rep_{side}"
        case.notes[star_note] = f"--select {join[at]}"
    if jt in ("left-semi", "left-anti"):
        neg = "NOT " if jt == "left-anti" else ""
        sql = f"SELECT {lsel} FROM {L} l WHERE {neg}EXISTS (SELECT 1 FROM {R} r WHERE {on})"
        names = lnames
    elif jt in ("right-semi", "right-anti"):
        neg = "NOT " if jt == "right-anti" else ""
        sql = f"SELECT {rsel} FROM {R} r WHERE {neg}EXISTS (SELECT 1 FROM {L} l WHERE {on})"
        names = rnames
    elif coalesce:
        join += ["--coalesce-keys"]
        case.notes.append("keys coalesced")
        lk_list, rk_list = lkeys.split(","), rkeys.split(",")
        kw = {"inner": "INNER JOIN", "left": "LEFT JOIN", "right": "RIGHT JOIN", "full": "FULL OUTER JOIN"}[jt]
        lrest = [c for c in lnames if c not in lk_list]
        rrest = [c for c in rnames if c not in rk_list]
        if select is None:
            cols = [f"COALESCE(l.{a}, r.{b}) AS {a}" for a, b in zip(lk_list, rk_list)]
            cols += [f"l.{c}" for c in lrest] + [f"r.{c}" for c in rrest]
            sql = f"SELECT {', '.join(cols)} FROM {L} l {kw} {R} r ON {on}"
            names = lk_list + lrest + rrest
        else:
            # Every column of both sides and each pair coalesced (`__ckI`), for the --select
            # below to pick from: a bare key name picks its pair's, under the name written.
            pair = {k: i for ks in (lk_list, rk_list) for i, k in enumerate(ks)}
            cols = [f"l.{c}" for c in lnames] + [f"r.{c}" for c in rnames]
            cols += [f"COALESCE(l.{a}, r.{b}) AS __ck{i}" for i, (a, b) in enumerate(zip(lk_list, rk_list))]
            sql = f"SELECT {', '.join(cols)} FROM {L} l {kw} {R} r ON {on}"
            names = lnames + rnames + [f"__ck{i}" for i in range(len(lk_list))]
            for i, c in enumerate(select):
                if c in pair and not items[i].startswith(("left.", "right.")):
                    aliases.setdefault(i, c)
                    select[i] = f"__ck{pair[c]}"
                    case.notes.append(f"--select {items[i]}: the coalesced key")
    else:
        kw = {"inner": "INNER JOIN", "left": "LEFT JOIN", "right": "RIGHT JOIN", "full": "FULL OUTER JOIN"}[jt]
        sql = f"SELECT {lsel}, {rsel} FROM {L} l {kw} {R} r ON {on}"
        names = lnames + rnames
    if select is not None:
        sql = f"SELECT {', '.join(g.q(c) + (' AS ' + g.q(aliases[i]) if i in aliases else '') for i, c in enumerate(select))} FROM ({sql})"
        names = [aliases.get(i, c) for i, c in enumerate(select)]
    # Sometimes the output in Hive partition directories of 1 or 2 of its columns
    # (`--partition-by`), those of a type with one plain text form (a generator of its own,
    # so that a seed's other draws stay what they were). DuckDB then reads the parts as a user
    # would, the directories' values as text, against its own join with those columns as text.
    prng = random.Random(f"{ctx.seed}:join-partition-by:{case.index}")
    drawn = partition_columns(prng, con, sql, names) if prng.random() < 0.15 else None
    pby, no_date_text = drawn if drawn else (None, False)
    if pby:
        join += ["--partition-by", ",".join(pby)]
        case.notes.append(f"output partitioned by {', '.join(pby)}")
    # Bounded row groups and files: a part goes on in further files (a generator of its own,
    # as above); DuckDB reads them all, and each must keep within its limits. The limits are
    # drawn for outputs of up to 2,000 files and 4,000 row groups (DuckDB's count of its
    # answer), so that the output's Bloom filters can be probed in each.
    frng = random.Random(f"{ctx.seed}:join-files:{case.index}")
    limits, fargs, n_answer = {}, [], None
    if frng.random() < 0.25:
        try:
            n_answer = con.execute(f"SELECT count(*) FROM ({sql})").fetchall()[0][0]
        except duckdb.Error:
            pass  # no limits: DuckDB says nothing of this answer
        if n_answer is not None:
            if frng.random() < 0.6:
                limits["max_rows"] = max(frng.choice([1, 7, 100, 5000]), -(-n_answer // 2000))
                fargs += ["--max-rows-per-file", str(limits["max_rows"])]
            if frng.random() < 0.4:
                limits["row_group_rows"] = max(frng.choice([1, 3, 64]), -(-n_answer // 4000))
                fargs += ["--row-group-rows", str(limits["row_group_rows"])]
            if frng.random() < 0.3 and n_answer <= 20_000:
                fargs += ["--max-file-size", frng.choice(["1", "2KiB", "64KiB"])]
            if frng.random() < 0.2 and n_answer <= 20_000:
                fargs += ["--row-group-size", frng.choice(["1", "4KiB"])]
            if not fargs:
                limits["max_rows"] = max(10, -(-n_answer // 2000))
                fargs += ["--max-rows-per-file", str(limits["max_rows"])]
            join += fargs
            case.notes.append(f"bounded files: {' '.join(fargs)}")
    # With --s3, half the joins read both sides from S3 (moto), where the map stage fetches
    # splits ahead of its workers (a generator of its own, as above).
    srng = random.Random(f"{ctx.seed}:join-s3:{case.index}")
    if ctx.s3_port and srng.random() < 0.5:
        for opt, side in (("--left", "left"), ("--right", "right")):
            join[join.index(opt) + 1] = s3_side(case, ctx, side)
        case.s3 = True
        case.notes.append("both sides read from S3 (moto)")
    code, _, err = case.run(join, check_ok=False)
    try:
        # A large answer (a few keys met thousands of times on both sides: up to 15 M rows)
        # is compared inside DuckDB; as Python tuples it took 10 GB and 110 s (seed 2611302,
        # join case 577).
        n_theirs = n_answer if n_answer is not None else con.execute(f"SELECT count(*) FROM ({sql})").fetchall()[0][0]
        theirs = None if n_theirs > BIG_ANSWER else case.sql(con, as_partition_text(sql, names, pby))
    except duckdb.Error as e:
        case.notes.append(f"DuckDB: {str(e).splitlines()[0]}")
        return "duckdb can't say" if code == 0 else "both refused"
    if code != 0:
        if jw and "--join-where" in err:
            # The draw compares only kinds both engines compare, and DuckDB answered.
            raise CaseFailed(f"join exit {code}: refused the --join-where DuckDB answers: {err.strip()}")
        if code == 2 and ('-where "' in err):
            for side, w in (("left", lwhere), ("right", rwhere)):
                if (w is not None and f"--{side}-where" in err and value_error(err)
                        and side_fails_in_duckdb(case, side, w[1], mixed_files or unioned)):
                    case.notes.append(f"bloomjoin: {err.strip()}")
                    return "both refused"
            return refused(case, err)
        if code == 2 and layout.startswith("spark") and "does not fit a Spark filter" in err:
            case.notes.append(f"bloomjoin: {err.strip()}")
            return "refused (spark long)"
        long_name = "a file system allows" in err
        if pby and code == 2 and "--partition-by" in err and (long_name or no_date_text):
            # A partition directory's name over the file system's 255 bytes (a string value of
            # 300 characters: Spark's and DuckDB's partitioned writes fail too), or a date no
            # directory name holds: a one-line refusal, and nothing committed.
            out = os.path.join(case.dir, "out")
            if os.path.exists(os.path.join(out, "_SUCCESS")) or output_parts(out):
                raise CaseFailed(f"join exit {code} but out/ holds _SUCCESS or parts: {err.strip()}")
            case.notes.append(f"bloomjoin: {err.strip()[:300]}")
            return "partition name too long" if long_name else "refused (date without a directory name)"
        raise CaseFailed(f"join exit {code} where DuckDB answers: {err.strip()}")
    out = os.path.join(case.dir, "out")
    rerun = None
    if no_date_text:
        raise CaseFailed(f"--partition-by {','.join(pby)} has a date outside the years 1 to 9999, "
                         "which no directory name holds, but the join exited 0")
    if pby:
        parts = check_partitioned_output(case, out, names, pby)
        if theirs is None:
            compare_in_duckdb(case, con, out, sql, n_theirs, names, pby, parts)
        else:
            compare(case, read_partitioned(case, con, parts, names, pby), theirs, names)
        if not parts:
            case.notes.append("partitioned output of no rows: no part")
        # Sometimes the same join again into its committed output (a generator of its own, as
        # above): with --overwrite-partitions it rewrites every directory it wrote, so no
        # earlier part may stay and the rows must be the same (a rerun changes nothing); with
        # --append every earlier part stays and each row is there twice.
        rrng = random.Random(f"{ctx.seed}:join-rerun:{case.index}")
        if theirs is not None and rrng.random() < 0.3:
            rerun = rrng.choice(["--overwrite-partitions", "--append"])
            run_again(case, con, join, out, names, pby, theirs, rerun)
    elif theirs is None:
        compare_in_duckdb(case, con, out, sql, n_theirs, names)
    else:
        compare(case, read_output(out), theirs, names)
    case.notes.append(f"{check_output_blooms(case, con, os.path.join(case.dir, 'out'))} output Bloom filter probes")
    if fargs:
        case.notes.append(f"{check_file_limits(case, out, limits)} files")
    with open(os.path.join(case.dir, "report.json")) as f:
        report = json.load(f)
    # Sometimes the trained filter alone over the right side (`bloomjoin filter`), a map-only
    # job against DuckDB's semi-join with the trained keys (a generator of its own, so that a
    # seed's other draws stay what they were).
    filtered = None
    frng_step = random.Random(f"{ctx.seed}:join-filter:{case.index}")
    if frng_step.random() < 0.3:
        lsrc = f"(SELECT * FROM {files_sql(lf, mixed_files or unioned)}{' WHERE ' + train_where[1] if train_where else ''})"
        filtered = filter_step(case, ctx, frng_step, con, argparse.Namespace(
            train=train, trained=lsrc, right=R, lkeys=lkeys.split(","), rkeys=rkeys.split(","), on=on_eq,
            rwhere=rwhere, rnames=rnames, spark_tuple=spark_tuple,
            rinfo=rinfo, rcols=rcols, rvalues=TableSample(right).values,
            join_probed=("--filter" in join and "--no-prefilter" not in join)))
    skipped = report["right"]["row_groups_skipped_by_sbbf"]
    pruned = report["left"]["files_pruned_by_partition"] + report["right"]["files_pruned_by_partition"]
    # Counted apart, so that the summary shows the Bloom filters of the files, and files of
    # different columns, at work (a key of partition columns alone first: the newest
    # variation).
    if filtered:
        return filtered
    if jw:
        return "pass (join-where)"
    if rerun:
        return f"pass (partitioned output, run again {rerun})"
    if coalesce:
        return "pass (keys coalesced)" if select is None else "pass (keys coalesced, --select)"
    if nulls_equal:
        return "pass (nulls equal)"
    if palone:
        # Ruled out while planned (a trained filter) or at the map stage.
        by_key = report["right"]["files_pruned_by_partition_key"] + report["right"]["files_skipped_by_partition_key"]
        return "pass (partition key alone, files not read)" if by_key else "pass (partition key alone)"
    if fargs:
        return "pass (bounded files)"
    if pby:
        return "pass (partitioned output)"
    if skipped:
        return "pass (sbbf skipped row groups)"
    if pkey:
        return "pass (partition columns in the key)"
    if hive:
        return "pass (hive partitions, files skipped)" if pruned else "pass (hive partitions)"
    return "pass (files' columns differ)" if unioned else "pass"


# ------------------------------------------------------------------- the join's filter step


def trained_fpp(case, con, f):
    """The trained filter's target false-positive rate (`train --fpp`, 0.01 by default), or
    None when it has none it keeps to: sized by `--bits`/`--hashes`, or for fewer
    `--expected-items` than the distinct keys it holds (the left rows passing train's
    `--where` whose key has no null)."""
    train = f.train
    if "--bits" in train:
        return None, "sized by --bits/--hashes"
    fpp = float(train[train.index("--fpp") + 1]) if "--fpp" in train else 0.01
    if "--expected-items" in train:
        n = int(train[train.index("--expected-items") + 1])
        keys = ", ".join(g.q(k) for k in f.lkeys)
        nn = " AND ".join(f"{g.q(k)} IS NOT NULL" for k in f.lkeys)
        distinct = con.execute(f"SELECT count(*) FROM (SELECT DISTINCT {keys} FROM {f.trained} WHERE {nn})").fetchall()[0][0]
        if distinct > n:
            return None, f"--expected-items {n}, under the {distinct} keys trained"
    return fpp, None


def check_filter_output(case, path, cols, pby):
    """A filter job's committed output: `_SUCCESS` names exactly the parts below `path`
    (and, partitioned, each sits in its directories, as `check_partitioned_output` checks);
    each part holds the output columns `cols` (but `pby`), in order. Returns (parts, the
    manifest)."""
    if pby:
        parts = check_partitioned_output(case, path, cols, pby)
    else:
        success = os.path.join(path, "_SUCCESS")
        if not os.path.exists(success):
            raise CaseFailed(f"filter exit 0 but no _SUCCESS in {path}")
        with open(success) as fh:
            manifest = json.load(fh)
        if manifest.get("partition_by") is not None:
            raise CaseFailed(f"filter: _SUCCESS partition_by {manifest.get('partition_by')!r}, expected none")
        parts = output_parts(path)
        rel = sorted(os.path.relpath(p, path) for p in parts)
        listed = manifest.get("parts")
        if not isinstance(listed, list) or sorted(listed) != rel:
            raise CaseFailed(f"filter: _SUCCESS lists parts {listed!r}, the directory holds {rel}")
        stray = sorted(set(os.listdir(path)) - set(rel) - {"_SUCCESS"})
        if stray:
            raise CaseFailed(f"filter: the output holds {', '.join(stray[:5])} beside its parts and _SUCCESS")
        for p in parts:
            got = pq.read_schema(p).names
            if got != cols:
                raise CaseFailed(f"filter: part {os.path.basename(p)} holds columns {got}, expected {cols}")
    with open(os.path.join(path, "_SUCCESS")) as fh:
        return parts, json.load(fh)


def read_filter_output(case, con, path, cols, pby):
    """The rows of a filter job's output `path` (checked by `check_filter_output`), as a
    Counter of canonical row tuples; `_SUCCESS`'s rows_out must be their number."""
    parts, manifest = check_filter_output(case, path, cols, pby)
    ours = collections.Counter()
    if pby:
        for t in read_partitioned(case, con, parts, cols, pby):
            ours.update(canon_table(t))
    else:
        for p in parts:
            ours.update(canon_table(pq.read_table(p)))
    n = sum(ours.values())
    if manifest.get("rows_out") != n:
        raise CaseFailed(f"filter: _SUCCESS says rows_out {manifest.get('rows_out')}, its parts hold {n} rows")
    return ours


def filter_step(case, ctx, rng, con, f):
    """`bloomjoin filter` with the case's trained filter over its right side (the right key,
    its `--right-where`, maybe a `--select`, `--partition-by`, codec, workers, batch size and
    split rows), with `--invert` or not, and the same job with the other `--invert`; each
    output against DuckDB's rows of the right side passing the condition, in three classes:
    a key in the trained set (`f.on`, the join reference's equality, with a left row passing
    train's `--where`), a key outside it (no column null), a null key (any column). Returns
    the outcome, or None when DuckDB cannot say (noted)."""
    invert = rng.random() < 0.5
    cols = list(f.rnames)
    select = None
    if rng.random() < 0.4:
        select = rng.sample(cols, rng.randint(1, len(cols)))
        cols = select
    keyq = [f"r.{g.q(k)}" for k in f.rkeys]
    nn = " AND ".join(f"{k} IS NOT NULL" for k in keyq)
    in_set = f"EXISTS (SELECT 1 FROM {f.trained} l WHERE {f.on})"
    # Partition columns, as the join draws them (over 5,000 rows only of few directories).
    pby = None
    plain = f"SELECT {', '.join(f'r.{g.q(c)}' for c in cols)} FROM {f.right} r"
    if rng.random() < 0.2:
        drawn = partition_columns(rng, con, plain, cols)
        if drawn and drawn[1]:
            case.notes.append(f"filter: --partition-by {','.join(drawn[0])} not drawn (a date no directory name holds)")
        elif drawn:
            # Not a column whose directory name could pass the file system's 255 bytes (every
            # byte of its text escaped as %XX): a documented refusal the join step covers.
            longest = con.execute("SELECT " + ", ".join(
                f"coalesce(max(strlen(CAST({g.q(c)} AS VARCHAR))), 0)" for c in drawn[0]) + f" FROM ({plain})").fetchall()[0]
            if all(3 * n + len(c) + 1 <= 255 for c, n in zip(drawn[0], longest)):
                pby = drawn[0]
            else:
                case.notes.append(f"filter: --partition-by {','.join(drawn[0])} not drawn (a value too long for a directory name)")
    proj = [f"NULLIF(CAST(r.{g.q(c)} AS VARCHAR), '') AS {g.q(c)}" if pby and c in pby else f"r.{g.q(c)}" for c in cols]
    # Sometimes a computed --select column, `(<condition>) AS cw`: a condition of the
    # --where generator over the right side's columns, against DuckDB's SELECT expression (a
    # generator of its own).
    crng = random.Random(f"{ctx.seed}:filter-computed:{case.index}")
    computed = None
    mixed = 0  # the computed condition's comparisons of mismatched types (refused, exit 2)
    if select is not None and f.rcols and crng.random() < 0.5:
        before = g.MIXED[0]
        g.MIXED[0] = 0
        computed = g.condition(crng, f.rinfo, f.rcols, frng=random.Random(f"{ctx.seed}:filter-computed-func:{case.index}"),
                               values=f.rvalues)
        mixed, g.MIXED[0] = g.MIXED[0], before
        cols = cols + ["cw"]
        proj.append(f"({computed[1]}) AS cw")
        case.notes.append(f"filter --select ... ({computed[0]}) AS cw")
        case.fcomputed = True
    ref_sql = (f"SELECT {', '.join(proj)}, CASE WHEN NOT ({nn}) THEN 0 WHEN {in_set} THEN 1 ELSE 2 END AS __class, "
               f"{', '.join(f'{k} AS __key{i}' for i, k in enumerate(keyq))} FROM {f.right} r")
    try:
        ref = case.sql(con, ref_sql)
        fpp, why = trained_fpp(case, con, f)
    except duckdb.Error as e:
        case.notes.append(f"filter step: DuckDB: {str(e).splitlines()[0]}")
        return None
    # Each right row passing --right-where: (output row, class, key), canonical.
    rows = list(canon_table(ref).elements())
    m = len(cols)
    passing, exact, outside, nulls = (collections.Counter() for _ in range(4))
    groups = collections.Counter()  # rows per key outside the set
    for r in rows:
        out, cls, key = r[:m], r[m], r[m + 1:]
        passing[out] += 1
        (nulls, exact, outside)[cls][out] += 1
        if cls == 2:
            groups[key] += 1
    # The false positives: each a key outside the set, all of whose rows the filter keeps
    # (drops, inverted). At most B = 3 x fpp x K + 5 of the K keys outside the set, so at most
    # the rows of the B largest of them, or (the per-row bound) 3 x fpp x their rows + 20,
    # whichever is more: rows come in groups of one key, which the per-row bound alone
    # ignores.
    n_outside = sum(outside.values())
    if fpp is None:
        bound = None
        case.notes.append(f"filter: no bound on false positives ({why})")
    else:
        b_keys = int(3 * fpp * len(groups)) + 5
        bound = max(3 * fpp * n_outside + 20, sum(n for _, n in groups.most_common(b_keys)))
    # Per key, when the output holds every key column as itself (not a partition directory's
    # text): a key's rows are all kept or all dropped.
    kpos = [cols.index(k) for k in f.rkeys] if all(k in cols and not (pby and k in pby) for k in f.rkeys) else None

    base = [ctx.bin, "--quiet", "filter", "--filter", "f.bjf", "--input", "right", "--key", ",".join(f.rkeys),
            "--workers", str(rng.randint(1, 4))]
    if f.spark_tuple:
        base += ["--spark-keys", "xxhash64"]
        if "--format" in f.train:
            # Spark's format records no key types, and xxhash64 depends on them: say the
            # trained columns' (read from a native twin of the filter, which records them),
            # as a user of a Spark filter must (`--spark-type`).
            twin = [a for a in f.train if a not in ("--format", "spark")]
            twin[twin.index("-o") + 1] = "f-native.bjf"
            case.run(twin)
            _, shown, _ = case.run([ctx.bin, "inspect", "--json", "f-native.bjf"])
            shown = json.loads(shown)
            if "key_columns" in shown["metadata"]:
                # A composite key: each column's type.
                types = [c["spark_type"] for c in shown["metadata"]["key_columns"]]
            else:
                # One column (a partition column's): `{"xxhash64": "int"}` or
                # `{"xxhash64": {"decimal": [p, s]}}`.
                t = shown["spark_keys"]["xxhash64"]
                types = [f"decimal({t['decimal'][0]},{t['decimal'][1]})" if isinstance(t, dict) else t]
            base += ["--spark-type", ",".join(types)]
    if f.rwhere is not None:
        base += ["--where", f.rwhere[0]]
    if select is not None:
        base += ["--select", ",".join(g.q(c) for c in select) + (f", ({computed[0]}) AS cw" if computed else "")]
    if rng.random() < 0.4:
        base += ["--batch-size", str(rng.choice([1, 7, 100, 4096]))]
    if rng.random() < 0.4:
        base += ["--split-rows", str(rng.choice([1, 10, 1000]))]
    if rng.random() < 0.3:
        base += ["--compression", rng.choice(["snappy", "gzip", "lz4", "brotli", "none", "zstd"])]

    refusal = []  # why the filter refused, as the case's outcome says it

    def run(inv, out):
        args = base + (["--invert"] if inv else []) + (["--partition-by", ",".join(pby)] if pby else []) + \
               ["-o", out, "--report", out + ".json"]
        code, _, err = case.run(args, check_ok=False)
        if code == 2 and not f.join_probed and "does not fit a Spark filter" in err:
            # The join did not probe the trained filter (no --filter, or --no-prefilter), so
            # nothing checked the right key against it: a value no Spark long holds is a
            # documented refusal.
            case.notes.append(f"filter: {err.strip()}")
            refusal.append("spark long")
            return None
        if code == 2 and mixed and '--select "' in err:
            # The computed column compares mismatched types (`ra = ''`): refused when the job
            # is planned, where DuckDB fails only on a row (here: none it evaluates; seed 145,
            # join case 131, of an empty right side).
            case.notes.append(f"filter: {err.strip()}")
            refusal.append("mismatched types")
            return None
        if code != 0:
            raise CaseFailed(f"filter{' --invert' if inv else ''} exit {code} where the join ran: {err.strip()}")
        return read_filter_output(case, con, os.path.join(case.dir, out), cols, pby)

    ours = run(invert, "fout")
    if ours is None:
        return f"pass (filter refused: {refusal[0]})"
    other = run(not invert, "fout2")
    if other is None:
        raise CaseFailed("filter: refused with the other --invert only")
    show = lambda c: "; ".join(repr(r) for r in list(c.elements())[:3])
    for got, inv in ((ours, invert), (other, not invert)):
        what = "filter --invert" if inv else "filter"
        stray = got - passing
        if stray:
            raise CaseFailed(f"{what}: {sum(stray.values())} output rows are no right rows passing its --where "
                             f"(e.g. {show(stray)})")
        if not inv:
            missing = exact - got
            if missing:
                raise CaseFailed(f"{what}: {sum(missing.values())} rows of a trained key missing (false negatives; "
                                 f"e.g. {show(missing)})")
            extra = got - exact
            wrong = extra - outside
            if wrong:
                raise CaseFailed(f"{what}: {sum(wrong.values())} output rows beyond the semi-join's are no rows of a "
                                 f"non-null key outside the set (e.g. {show(wrong)})")
            n_fp = sum(extra.values())
        else:
            wrong = got - (outside + nulls)
            if wrong:
                raise CaseFailed(f"{what}: {sum(wrong.values())} output rows are rows of a trained key (e.g. {show(wrong)})")
            missing = nulls - got
            if missing:
                raise CaseFailed(f"{what}: {sum(missing.values())} rows of a null key missing (e.g. {show(missing)})")
            n_fp = sum(outside.values()) + sum(nulls.values()) - sum(got.values())
        if bound is not None and n_fp > bound:
            raise CaseFailed(f"{what}: {n_fp} rows of a key outside the set {'dropped' if inv else 'kept'} (false "
                             f"positives), over the bound {bound:.0f} (fpp {fpp}, {len(groups)} keys and {n_outside} "
                             f"rows outside the set)")
        if kpos is not None:
            # Every key outside the set all kept or all dropped.
            per_key = collections.Counter()
            for r, n in got.items():
                per_key[tuple(r[i] for i in kpos)] += n
            want_key = collections.Counter()
            for r, n in passing.items():
                want_key[tuple(r[i] for i in kpos)] += n
            split = [k for k, n in per_key.items() if n != want_key[k]]
            if split:
                raise CaseFailed(f"{what}: the rows of key {split[0]!r} are split: {per_key[split[0]]} of "
                                 f"{want_key[split[0]]} kept")
    if ours + other != passing:
        raise CaseFailed(f"filter and filter --invert: {sum(ours.values())} + {sum(other.values())} rows, not the "
                         f"{sum(passing.values())} right rows passing --where (each exactly once)")
    probes = check_output_blooms(case, con, os.path.join(case.dir, "fout"))
    kept = ours if not invert else other
    case.notes.append(f"filter{' --invert' if invert else ''}: {sum(ours.values())} rows of {sum(passing.values())}; "
                      f"{sum(exact.values())} of a trained key, {sum((kept - exact).values())} false positives of "
                      f"{n_outside} rows outside the set (bound {'none' if bound is None else f'{bound:.0f}'}), "
                      f"{sum(nulls.values())} of a null key; {probes} Bloom probes"
                      + (f"; partitioned by {','.join(pby)}" if pby else ""))
    return "pass (filter, inverted)" if invert else "pass (filter)"


# ------------------------------------------------------------------------------ where kind

DECIMAL_MAX = 38


def literal_digits(text):
    """(integer digits, fraction digits) of a number literal, None if not a plain number."""
    t = text.lstrip("+-")
    if not t or "e" in t.lower() or not all(c.isdigit() or c in "._" for c in t):
        return None
    whole, _, frac = t.partition(".")
    whole = whole.lstrip("0")
    return len(whole), len(frac)


# A function that fails on a value (not on types): an invalid date, a count out of range.
FUNC_VALUE_ERROR = re.compile(r"\b(make_date|to_timestamp|epoch(_ms|_us|_ns)?|julian)\(\): .*out of (the )?range"
                              r"|\b(date_diff|date_sub)\('\w+', \.\.\.\): .*(leaves? BIGINT|out of the range)"
                              r"|\bstrptime\(x, '.*'\): .* holds '")


def value_error(err):
    """Whether bloomjoin failed on a value a CAST or a function does not convert (not on
    types): the join fuzzer asks DuckDB whether it fails on the side's rows too (seed 105,
    join case 119: make_date(1970, la, la) of la = 16)."""
    return ("CAST(.. AS " in err and " holds " in err) or FUNC_VALUE_ERROR.search(err) is not None


def side_fails_in_duckdb(case, side, where_dk, union):
    """Whether DuckDB fails on a join side's condition over every row of the side's files (a
    CAST that fails on some row): its join may never evaluate the condition there (a plan that
    reads no file of the side, a join that leaves no row), where bloomjoin evaluates it on
    every row (seed 16, join case 100: the left files' partitions met no right one)."""
    try:
        duck().execute(f"SELECT count(*) FROM {files_sql(side_files(case, side), union)} WHERE {where_dk}").fetchall()
        return False
    except duckdb.Error as e:
        case.notes.append(f"DuckDB on the {side} side's rows: {str(e).splitlines()[0]}")
        return True


def refused(case, err):
    """bloomjoin refused a condition: fine when it compares mismatched types, else a failure."""
    case.notes.append(f"bloomjoin: {err.strip()}")
    if g.MIXED[0] == 0:
        raise CaseFailed(f"refused a condition without mismatched types: {err.strip()}")
    return "refused"


def as_duckdb_parquet_types(table):
    """Timestamps in seconds or milliseconds as microseconds (zone kept), as DuckDB reads Parquet."""
    fields = [
        pa.field(f.name, pa.timestamp("us", f.type.tz))
        if pa.types.is_timestamp(f.type) and f.type.unit in ("s", "ms") else f
        for f in table.schema
    ]
    return table.cast(pa.schema(fields))


# The share of `where` tables that get times of day (fuzz_gen.time_columns).
TIME_SHARE = 0.3
# The share that get a date and timestamps holding infinities (fuzz_gen.infinite_columns).
INFINITE_SHARE = 0.2
# The share that get a string column of dates and times as text (fuzz_gen.when_text_columns).
WHEN_TEXT_SHARE = 0.3


def where_case(case, ctx):
    rng = case.rng
    n = rng.choice([0, 1, 3, 20, 100, 500, 2000])
    table, info = g.where_table(rng, n)
    # Times of day, and infinite dates and timestamps, in shares of the tables, each from a
    # generator of its own: the other tables stay what a seed gave before they came.
    for what, share, make in (("times", TIME_SHARE, g.time_columns),
                              ("infinities", INFINITE_SHARE, g.infinite_columns),
                              ("when-texts", WHEN_TEXT_SHARE, g.when_text_columns)):
        xrng = random.Random(f"{ctx.seed}:where-{what}:{case.index}")
        if xrng.random() < share:
            xcols, more = make(xrng, n)
            for name, col in xcols.items():
                table = table.append_column(name, col)
            info.update(more)
    os.makedirs(os.path.join(case.dir, "t"))
    # A quarter of the tables go to DuckDB's writer, without the columns whose types it would
    # change (second and millisecond timestamps, time zones, dictionaries): split_write offers
    # a table to DuckDB only when every column keeps its type, which the full table never does.
    prefer = None
    if rng.random() < 0.25:
        keep = g.duckdb_keeps(table, os.path.join(case.dir, "types.parquet"))
        table = table.select(keep)
        info = {k: v for k, v in info.items() if k in keep}
        prefer = "duckdb"
    for d in g.split_write(rng, table, os.path.join(case.dir, "t"), "t", sort_by=rng.choice(list(info)),
                           prefer=prefer):
        case.notes.append(f"table: {d}")
    names = list(info)
    if rng.random() < 0.5:
        # Focus on a few columns, so that column-to-column comparisons meet often.
        names = rng.sample(names, rng.randint(1, 4))
    g.MIXED[0] = 0
    # Functions in a share of the predicates: a generator of their own (fuzz_gen's functions),
    # their literals from the values DuckDB computes on the table's rows.
    g.FUNCS[0] = 0
    g.CASTS[0] = 0
    g.FLOATS[0] = 0
    g.MATHS[0] = 0
    bj, dk = g.condition(rng, info, names, frng=random.Random(f"{ctx.seed}:where-func:{case.index}"),
                         values=TableSample(table).values)
    case.funcs = g.FUNCS[0]
    case.casts = g.CASTS[0]
    case.floats = g.FLOATS[0]
    case.maths = g.MATHS[0]
    case.times = any(re.search(rf"\b{n}\b", bj) for n in info if info[n][0] in ("time", "time_ns"))
    case.infinities = (any(re.search(rf"\b{n}\b", bj) for n in info if n.endswith("_inf") or "_inf_" in n)
                       or re.search(r"'\s*-?(inf|infinity|epoch)\s*'", bj, re.I) is not None)
    case.texts = bool(re.search(r"\bs_when\b", bj) and re.search(r"(AS|::)\s*(DATE|TIMESTAMP)\b", bj))
    case.zoned = re.search(r"TIMESTAMPTZ|WITH TIME ZONE|\d\d:\d\d(\.\d+)?(Z|[+-]\d\d[\d:]*| (UTC|utc|GMT|Etc/UTC))'",
                           bj, re.I) is not None
    case.units = re.search(r"(\bAS|::)\s*TIMESTAMP_(S|MS|NS)\b", bj) is not None
    case.at_zones = re.search(r"\bAT TIME ZONE\b|\btimezone\(", bj) is not None
    case.diffs = bool(re.search(r"\b(date_?diff|date_?sub|last_day|epoch(_ms|_us|_ns)?|julian|to_timestamp|make_date|strftime|(try_)?strptime)\(", bj)
                      or re.search(r"(date_part\('|EXTRACT\()(epoch|julian)\b", bj, re.I))
    case.notes.append(f"condition: {bj}")

    con = duck()
    files = sorted(glob.glob(os.path.join(case.dir, "t", "*.parquet")))
    # Sometimes some files lack one of the condition's columns (never every file): it is null
    # in their rows, for bloomjoin (files unioned by name) as for DuckDB over the rows unioned
    # by name (a generator of its own, so that a seed's other draws stay what they were).
    urng = random.Random(f"{ctx.seed}:where-columns:{case.index}")
    cols = [c for c in names if c != "rid"]
    varied = None
    if cols and urng.random() < 0.2:
        varied = vary_columns(urng, files, cols)
        if varied:
            case.notes.append(f"files' columns: {varied}")
    # DuckDB evaluates the condition over the rows in memory, not over the Parquet files: its
    # row-group pruning trusts float min/max statistics, which leave NaN out, and drops NaN
    # rows (`f32 >= 0.0` skips a row group [-1.0, NaN]; DuckDB over the same rows in Arrow,
    # and Polars, keep the NaN). See docs/RELIABILITY.md.
    # The rows go to DuckDB with the types its Parquet reader gives them: a second, millisecond
    # or microsecond timestamp is a TIMESTAMP (microseconds). Over Arrow it would bind
    # TIMESTAMP_S/MS and round a string literal to that unit (seed 20261125, where 2973).
    con.register("t", as_duckdb_parquet_types(pa.concat_tables([pq.read_table(f) for f in files], promote_options="default")))
    case.log.append(f"-- DuckDB: CREATE VIEW t AS SELECT * FROM {files_sql(files)}  (read by pyarrow)")
    try:
        theirs = case.sql(con, f"SELECT rid FROM t WHERE {dk}")
        duck_ok = True
    except duckdb.Error as e:
        duck_ok = False
        case.notes.append(f"DuckDB: {str(e).splitlines()[0]}")

    side = rng.choice(["left", "right"])
    # With --left-where, train the filter with the same --where: its count of passing rows is a
    # second evaluation (train's reader and splits), and the filter still covers the left side.
    train = [ctx.bin, "--quiet", "train", "-i", "t", "-c", "rid", "-o", "f.bjf", "--report", "train.json",
             "--workers", str(rng.randint(1, 2))]
    if side == "left":
        train += ["--where", bj]
        if rng.random() < 0.3:
            train += ["--split-rows", str(rng.choice([1, 10, 1000])), "--batch-size", str(rng.choice([1, 7, 100]))]
    code, _, err = case.run(train, check_ok=False)
    if code == 2 and side == "left" and "--where" in err:
        if not duck_ok:
            # DuckDB failed too (a CAST that fails on a row the condition needs).
            case.notes.append(f"bloomjoin: {err.strip()}")
            return "both refused"
        return refused(case, err)
    if code != 0:
        raise CaseFailed(f"train exit {code}: {err.strip()}")
    if side == "left" and duck_ok:
        with open(os.path.join(case.dir, "train.json")) as f:
            passing = json.load(f)["rows_passing_where"]
        if passing != theirs.num_rows:
            raise CaseFailed(f"train --where: {passing} rows pass, DuckDB {theirs.num_rows}")
        # `scan --where` (the train benchmark's baseline) reads the same rows: it counts those
        # that pass and sums their rid, which DuckDB's rows give too. (No draw of the seed.)
        _, out, _ = case.run([ctx.bin, "scan", "-i", "t", "-c", "rid", "--where", bj, "--workers", "2"])
        m = re.search(r": (\d+) rows pass --where of \d+ read, 0 nulls(?:, wrapping sum (-?\d+))? in ", out)
        if not m:
            raise CaseFailed(f"scan --where printed {out.strip()!r}")
        want = sum(v for v in theirs.column("rid").to_pylist() if v is not None)
        if int(m.group(1)) != theirs.num_rows or int(m.group(2) or 0) != want:
            raise CaseFailed(f"scan --where: {m.group(1)} rows, sum {m.group(2)}; DuckDB {theirs.num_rows} rows, sum {want}")
    join = [ctx.bin, "--quiet", "join", "--filter", "f.bjf", "--left", "t", "--left-key", "rid",
            "--right", "t", "--right-key", "rid", "--type", "left-semi", "--select", "rid",
            "--workers", str(rng.randint(1, 3)), "-o", "out", "--report", "join.json",
            f"--{side}-where", bj]
    if rng.random() < 0.3:
        join += ["--batch-size", str(rng.choice([1, 7, 100]))]
    if rng.random() < 0.3:
        join += ["--split-rows", str(rng.choice([1, 10, 1000]))]
    if rng.random() < 0.3:
        join += ["--strategy", "reduce-side"]
    code, _, err = case.run(join, check_ok=False)
    if code == 2:
        if os.path.exists(os.path.join(case.dir, "out", "_SUCCESS")):
            raise CaseFailed("exit 2 but the output was committed")
        if not duck_ok:
            case.notes.append(f"bloomjoin: {err.strip()}")
            return "both refused"
        return refused(case, err)
    if code != 0:
        raise CaseFailed(f"join exit {code}: {err.strip()}")
    if not duck_ok:
        return "duckdb can't say"
    compare(case, read_output(os.path.join(case.dir, "out")), theirs, ["rid"])
    # Counted apart, so that the summary shows the files of different columns at work, and the
    # row groups and pages the condition's statistics ruled out (never read, by train or the
    # join).
    if varied:
        return "pass (files' columns differ)"
    with open(os.path.join(case.dir, "join.json")) as f:
        r = json.load(f)[side]
    skipped, pages = r["row_groups_skipped_by_where"], r["rows_skipped_by_page_index"]
    if side == "left":
        with open(os.path.join(case.dir, "train.json")) as f:
            r = json.load(f)
        skipped += r["row_groups_skipped_by_where"]
        pages += r["rows_skipped_by_page_index"]
    if pages:
        return "pass (pages skipped by the page index)"
    return "pass (row groups skipped by statistics)" if skipped else "pass"


# ------------------------------------------------------------------------------ decoder kind


def decoder_bases(ctx):
    """Valid filter files of every layout and format over small tables, made once per run,
    with the tables and DuckDB's inner join of them."""
    d = os.path.join(ctx.root, "decoder-bases")
    if ctx.bases is not None:
        return ctx.bases
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    rng = random.Random(f"{ctx.seed}:decoder-bases")
    bases = []
    for family in ("int", "str"):
        if family == "int":
            lk = pa.array(g.draw(rng, list(range(-50, 50)) + [2**62, -(2**63)], 300, 0.05), pa.int64())
            rk = pa.array(g.draw(rng, list(range(-100, 100)), 2000, 0.05), pa.int32())
        else:
            pool = g.string_pool(rng, 40)
            lk = pa.array(g.draw(rng, pool[:30], 300, 0.05), pa.string())
            rk = pa.array(g.draw(rng, pool, 2000, 0.05), pa.string())
        for side, k in (("left", lk), ("right", rk)):
            os.makedirs(os.path.join(d, f"{family}-{side}"))
            pq.write_table(pa.table({"k": k, "v": pa.array(range(len(k)), pa.int64())}),
                           os.path.join(d, f"{family}-{side}", "p.parquet"), row_group_size=256)
        con = duck()
        lf = os.path.join(d, f"{family}-left", "p.parquet")
        rf = os.path.join(d, f"{family}-right", "p.parquet")
        expected = con.sql(
            f"SELECT l.k, l.v, r.k, r.v FROM read_parquet('{lf}') l JOIN read_parquet('{rf}') r ON l.k = r.k").to_arrow_table()
        for layout, fmt in [("split", "native"), ("blocked", "native"), ("classic", "native"), ("spark-v1", "native"),
                            ("spark-v2", "native"), ("spark-v1", "spark"), ("spark-v2", "spark"), ("sbbf", "native")]:
            for sizing in (["--fpp", "0.01"], ["--bits", "512", "--hashes", "8" if layout in ("split", "sbbf") else "3"]):
                name = f"{family}-{layout}-{fmt}-{sizing[1]}.bf"
                args = [ctx.bin, "--quiet", "train", "-i", os.path.join(d, f"{family}-left"), "-c", "k",
                        "--layout", layout, "--format", fmt, "-o", os.path.join(d, name)] + sizing
                p = subprocess.run(args, capture_output=True)
                if p.returncode != 0:
                    sys.exit(f"fuzz: could not make the decoder's base filter: {' '.join(args)}: {p.stderr.decode()}")
                with open(os.path.join(d, name), "rb") as f:
                    data = f.read()
                bases.append({"name": name, "family": family, "layout": layout, "format": fmt, "bytes": data,
                              "left": os.path.join(d, f"{family}-left"), "right": os.path.join(d, f"{family}-right"),
                              "expected": expected})
    ctx.bases = bases
    return bases


def xxh3_available():
    try:
        import xxhash  # noqa: F401

        return True
    except ImportError:
        return False


def mutate(rng, data, others, native):
    """A random mutation of `data` and a description of it."""
    data = bytearray(data)
    how = rng.choice(["flip", "flip", "truncate", "extend", "splice", "field", "field", "zero-run"])
    if how == "flip" and data:
        n = rng.choice([1, 1, 2, 8])
        pos = [rng.randrange(len(data)) if rng.random() < 0.5 else rng.randrange(min(len(data), 64)) for _ in range(n)]
        for p in pos:
            data[p] ^= 1 << rng.randrange(8)
        desc = f"flip bits at {pos}"
    elif how == "truncate":
        cut = rng.choice([0, 1, 4, 8, 12, 47, 48, rng.randrange(len(data) + 1), len(data) - 1, len(data) - 8])
        cut = max(0, min(cut, len(data)))
        data = data[:cut]
        desc = f"truncate to {cut} bytes"
    elif how == "extend":
        extra = bytes(rng.randrange(256) for _ in range(rng.choice([1, 7, 8, 64])))
        data += extra
        desc = f"append {len(extra)} bytes"
    elif how == "splice":
        other = rng.choice(others)
        a = rng.randrange(len(data) + 1)
        b = rng.randrange(len(other) + 1)
        data = data[:a] + other[b:]
        desc = f"splice: first {a} bytes, then another filter from byte {b}"
    elif how == "zero-run":
        a = rng.randrange(len(data) + 1)
        n = rng.randint(1, 64)
        data[a:a + n] = bytes(min(n, len(data) - a))
        desc = f"zero {n} bytes at {a}"
    else:
        # A header field (native: the documented offsets; Spark: version, k, word count) set
        # to an extreme.
        fields = [(8, 2), (10, 1), (11, 1), (12, 4), (16, 8), (24, 8), (32, 8), (40, 4), (44, 4)] if native \
            else [(0, 4), (4, 4), (8, 4), (12, 8)]
        off, size = rng.choice(fields)
        if off + size <= len(data):
            val = rng.choice([0, 1, 2, 3, 4, 5, 31, 32, 33, 63, 64, 511, 512, 513, 2**(8 * size) - 1,
                              2**(8 * size - 1), 2**(8 * size - 1) - 1, 2**20, 2**20 + 1, 2**31, 2**39, 2**39 + 512])
            val %= 2**(8 * size)
            order = "little" if native else "big"
            data[off:off + size] = val.to_bytes(size, order)
            desc = f"set {size} bytes at {off} to {val}"
        else:
            desc = "no-op (file too short for the field)"
    if native and len(data) >= 8 and rng.random() < 0.6 and xxh3_available():
        import xxhash

        data[-8:] = xxhash.xxh3_64_intdigest(bytes(data[:-8]), seed=0).to_bytes(8, "little")
        desc += ", checksum recomputed"
    return bytes(data), desc


def decoder_case(case, ctx):
    rng = case.rng
    bases = decoder_bases(ctx)
    base = rng.choice(bases)
    data, desc = mutate(rng, base["bytes"], [b["bytes"] for b in bases], base["format"] == "native")
    case.notes.append(f"base {base['name']}: {desc}")
    with open(os.path.join(case.dir, "m.bf"), "wb") as f:
        f.write(data)
    ok = lambda code: code in (0, 2)
    code, _, err = case.run([ctx.bin, "inspect", "m.bf"] + (["--json"] if rng.random() < 0.5 else []), check_ok=False)
    if not ok(code):
        raise CaseFailed(f"inspect exit {code}: {err.strip()}")
    keys = ["0", "1", "-1", "49", "9223372036854775807", "-9223372036854775808", "18446744073709551615", "a", "", "日本"]
    probe = [ctx.bin, "probe", "--filter", "m.bf"] + keys
    if base["format"] == "spark" or rng.random() < 0.3:
        probe += ["--key-type", "integer" if base["family"] == "int" else "bytes"]
    code, _, err = case.run(probe, check_ok=False)
    if not ok(code):
        raise CaseFailed(f"probe exit {code}: {err.strip()}")
    join = [ctx.bin, "--quiet", "join", "--filter", "m.bf", "--left", base["left"], "--left-key", "k",
            "--right", base["right"], "--right-key", "k", "--workers", str(rng.randint(1, 2)),
            "--select", "left.k,left.v,right.k,right.v", "-o", "out"]
    if rng.random() < 0.3:
        join += ["--strategy", "reduce-side"]
    code, _, err = case.run(join, check_ok=False)
    if not ok(code):
        raise CaseFailed(f"join exit {code}: {err.strip()}")
    if code == 0:
        tables = read_output(os.path.join(case.dir, "out"))
        tables = [t.rename_columns(["k", "v", "k_right", "v_right"]) for t in tables]
        exp = base["expected"].rename_columns(["k", "v", "k_right", "v_right"])
        compare(case, tables, exp, ["k", "v", "k_right", "v_right"])
        return "pass (join ran)"
    return "pass (refused)"


# ------------------------------------------------------------------------------ driver


RUN_KIND = {"join": join_case, "where": where_case, "decoder": decoder_case}
CTX = None  # the run's settings, set before the worker processes fork


def run_case(job):
    """Run case `i` of `kind`; a summary the parent prints (cases run in worker processes)."""
    kind, i = job
    case = Case(kind, i, CTX.seed, CTX.root)
    r = {"kind": kind, "i": i, "skipped_u64": 0}
    try:
        r["outcome"] = RUN_KIND[kind](case, CTX)
        r["why"] = " | ".join(case.notes[-2:])
        shutil.rmtree(case.dir)
    except CaseFailed as e:
        case.keep(str(e))
        r.update(outcome="FAILED", error=str(e), notes=case.notes, log=case.log, dir=case.dir)
    r["skipped_u64"] = case.skipped_u64
    r["s3"] = case.s3
    r["funcs"] = case.funcs
    r["casts"] = case.casts
    r["floats"] = case.floats
    r["maths"] = case.maths
    r["times"] = case.times
    r["infinities"] = case.infinities
    r["texts"] = case.texts
    r["diffs"] = case.diffs
    r["zoned"] = case.zoned
    r["units"] = case.units
    r["at_zones"] = case.at_zones
    r["jw_funcs"] = case.jw_funcs
    r["computed"] = case.computed
    r["fcomputed"] = case.fcomputed
    r["star"] = case.star
    r["star_mods"] = case.star_mods
    r["columns"] = case.columns
    r["time_keys"] = case.time_keys
    r["uuids"] = case.uuids
    r["uuid_where"] = case.uuid_where
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--cases", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--kind", choices=["join", "where", "decoder", "all"], default="all")
    ap.add_argument("--keep", default=None, help="directory for failing cases (default: out/fuzz)")
    ap.add_argument("--case", type=int, default=None, help="run only this case number")
    ap.add_argument("--first", type=int, default=0, help="number of the first case (to split a long run)")
    ap.add_argument("--jobs", type=int, default=1, help="cases run at once (the results do not depend on it)")
    ap.add_argument("--u64-meets-signed", action=argparse.BooleanOptionalAction, default=True)
    ap.add_argument("--progress", type=int, default=0, help="print a line every N cases")
    ap.add_argument("--verbose", action="store_true", help="say why each refused or undecided case was")
    ap.add_argument("--s3", metavar="MOTO_SERVER", default=None,
                    help="start this moto_server and read both sides of half the joins from it")
    args = ap.parse_args()
    moto, s3_port = start_s3(args.s3) if args.s3 else (None, None)
    try:
        run_all(args, s3_port)
    finally:
        if moto is not None:
            moto_local.stop(moto)


def run_all(args, s3_port):
    global CTX

    CTX = argparse.Namespace(
        bin=os.path.abspath(args.bin), seed=args.seed, u64_meets_signed=args.u64_meets_signed, bases=None,
        s3_port=s3_port,
        root=os.path.abspath(args.keep or os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "out", "fuzz")),
    )
    os.makedirs(CTX.root, exist_ok=True)
    CTX.root = tempfile.mkdtemp(prefix=f"seed{args.seed}-", dir=CTX.root)
    indices = [args.case] if args.case is not None else range(args.first, args.first + args.cases)
    jobs = [(args.kind if args.kind != "all" else KINDS[i % len(KINDS)], i) for i in indices]
    if any(k == "decoder" for k, _ in jobs):
        decoder_bases(CTX)  # once, before the workers fork
    counts = collections.defaultdict(collections.Counter)
    failures = []
    skipped_u64 = 0
    on_s3 = 0
    funcs = collections.Counter()  # cases whose conditions call functions, and how they ended
    start = time.monotonic()
    if args.jobs > 1:
        pool = multiprocessing.get_context("fork").Pool(args.jobs)
        results = pool.imap(run_case, jobs)
    else:
        pool = None
        results = map(run_case, jobs)
    done = 0
    for n, r in enumerate(results):
        done = n + 1
        kind, i = r["kind"], r["i"]
        counts[kind][r["outcome"]] += 1
        skipped_u64 += r["skipped_u64"]
        on_s3 += r["s3"] and r["outcome"].startswith("pass")
        if r["funcs"]:
            funcs["cases"] += 1
            funcs["pass" if r["outcome"].startswith("pass") else "other"] += 1
            funcs["jw"] += r["jw_funcs"] > 0
        # Cases by what their conditions hold, and how many of them passed.
        for what in ("casts", "floats", "maths", "times", "infinities", "texts", "zoned", "units", "at_zones", "diffs", "computed", "fcomputed", "star", "star_mods", "columns", "time_keys", "uuids", "uuid_where"):
            if r.get(what):
                funcs[what] += 1
                funcs[f"{what} passed"] += r["outcome"].startswith("pass")
        if r["outcome"] == "FAILED":
            failures.append((kind, i))
            print(f"\nFAILED {kind} case {i} (--seed {args.seed} --case {i}{' --kind ' + kind if args.kind != 'all' else ''}): {r['error']}")
            for note in r["notes"]:
                print(f"  # {note}")
            for line in r["log"]:
                print(f"  {line}")
            print(f"  files kept in {r['dir']} (repro.sh)")
            sys.stdout.flush()
        elif args.verbose and not r["outcome"].startswith("pass"):
            print(f"{kind} case {i}: {r['outcome']}: {r['why']}")
        if args.progress and (n + 1) % args.progress == 0:
            print(f"fuzz: {n + 1} cases, {len(failures)} failed, {time.monotonic() - start:.0f} s", flush=True)
    if pool is not None:
        pool.close()
        pool.join()
    if done != len(jobs):
        # A StopIteration escaping a case ends map() and imap() quietly, as if every case had
        # run (a generator's next() on nothing did, seed 7, join case 53).
        print(f"fuzz: only {done} of {len(jobs)} cases reported: a case raised StopIteration?")
        sys.exit(1)
    if not failures:
        shutil.rmtree(CTX.root, ignore_errors=True)
    total = sum(sum(c.values()) for c in counts.values())
    parts = []
    for kind in ("join", "where", "decoder"):
        if counts[kind]:
            detail = ", ".join(f"{v} {k}" for k, v in sorted(counts[kind].items()))
            parts.append(f"{kind} {sum(counts[kind].values())} ({detail})")
    skipped = f"; {skipped_u64} UInt64-meets-signed key pairs replaced (--no-u64-meets-signed)" if skipped_u64 else ""
    if args.s3:
        skipped += f"; {on_s3} passing joins read their sides from S3"
    if funcs["cases"]:
        jw = f", {funcs['jw']} in a --join-where" if funcs["jw"] else ""
        skipped += f"; {funcs['cases']} cases called functions ({funcs['pass']} passed{jw})"
    if funcs["casts"]:
        skipped += f"; {funcs['casts']} cases cast with CAST, which can fail ({funcs['casts passed']} passed)"
    if funcs["floats"]:
        skipped += f"; {funcs['floats']} cases divided or computed in floats ({funcs['floats passed']} passed)"
    if funcs["maths"]:
        skipped += f"; {funcs['maths']} cases with numeric functions ({funcs['maths passed']} passed)"
    if funcs["computed"]:
        skipped += f"; {funcs['computed']} joins with a computed --select column ({funcs['computed passed']} passed)"
    if funcs["fcomputed"]:
        skipped += f"; {funcs['fcomputed']} filter steps with a computed --select column ({funcs['fcomputed passed']} passed)"
    if funcs["star"]:
        skipped += f"; {funcs['star']} joins with --select * ({funcs['star passed']} passed)"
    if funcs["star_mods"]:
        skipped += f"; {funcs['star_mods']} joins with left.* or right.* and EXCLUDE, REPLACE, RENAME or a pattern ({funcs['star_mods passed']} passed)"
    if funcs["columns"]:
        skipped += f"; {funcs['columns']} joins with --select COLUMNS('regex') ({funcs['columns passed']} passed)"
    if funcs["time_keys"]:
        skipped += f"; {funcs['time_keys']} joins on a time-of-day key component ({funcs['time_keys passed']} passed)"
    if funcs["uuids"]:
        skipped += f"; {funcs['uuids']} joins with a UUID column on the right ({funcs['uuids passed']} passed)"
    if funcs["uuid_where"]:
        skipped += (f"; {funcs['uuid_where']} joins with a condition on it, compared with text "
                    f"({funcs['uuid_where passed']} passed)")
    if funcs["times"]:
        skipped += f"; {funcs['times']} cases compared times of day ({funcs['times passed']} passed)"
    if funcs["infinities"]:
        skipped += f"; {funcs['infinities']} cases read infinite dates or timestamps or wrote 'infinity' or 'epoch' ({funcs['infinities passed']} passed)"
    if funcs["texts"]:
        skipped += f"; {funcs['texts']} cases cast dates and times as text ({funcs['texts passed']} passed)"
    if funcs["zoned"]:
        skipped += f"; {funcs['zoned']} cases wrote a TIMESTAMPTZ or a UTC offset ({funcs['zoned passed']} passed)"
    if funcs["at_zones"]:
        skipped += f"; {funcs['at_zones']} cases converted with AT TIME ZONE ({funcs['at_zones passed']} passed)"
    if funcs["units"]:
        skipped += f"; {funcs['units']} cases cast to TIMESTAMP_S, _MS or _NS ({funcs['units passed']} passed)"
    if funcs["diffs"]:
        skipped += f"; {funcs['diffs']} cases called date_diff, date_sub, last_day, epoch, epoch_ms, epoch_us, epoch_ns, julian, to_timestamp, make_date, strftime or strptime ({funcs['diffs passed']} passed)"
    first = f" (cases {args.first}..{args.first + args.cases - 1})" if args.first else ""
    print(f"fuzz: seed {args.seed}{first}, {total} cases in {time.monotonic() - start:.0f} s, {len(failures)} failed: "
          + "; ".join(parts) + skipped)
    if failures:
        print(f"fuzz: failing cases kept in {CTX.root}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
