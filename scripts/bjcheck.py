#!/usr/bin/env python3
"""Check bloomjoin job outputs: row counts, order-independent checksums, and DuckDB's join.

Used by scripts/ci-sample.sh and scripts/crosscheck.sh (with the venv of scripts/venv.sh).

  bjcheck.py checksum DIR                       rows and checksum of the Parquet parts in DIR
  bjcheck.py expect JOB.toml [--update]         a job's output against jobs/expected/NAME.json
  bjcheck.py duckdb JOB.toml [--set K=V]... [--output DIR] [--expected] [--earlier-set K=V]...
        run the job's join in DuckDB from the job file alone, compare the row multiset with
        bloomjoin's output exactly, and (--expected) DuckDB's count and checksum with the
        checked-in expected result. With --earlier-set, the output was first written by the
        job with those settings too (applied after the --set ones), then by the job, whose
        join.append or join.overwrite-partitions says what became of the earlier rows: all
        kept (UNION ALL), or kept in the partition directories the job wrote no row to. The
        parts on disk must be the ones _SUCCESS names.
  bjcheck.py filter --input LOC... --key COLS [--where EXPR] [--select COLS] [--invert]
                    [--partition-by COLS]
                    --train-input LOC... --train-column COLS [--train-where EXPR]
                    --fpp P --output DIR
        check the output of `bloomjoin filter` (those options) by a filter trained by `bloomjoin
        train` (the --train-* ones, at --fpp) against DuckDB: DuckDB takes the trained key set
        (the distinct non-null key tuples of the training rows) and the input rows that pass
        --where, and the output must hold every such row whose key is in the set (no false
        negatives, as multisets over the output's columns) and nothing but such rows and rows
        of a non-null key outside the set (the filter's false positives), at most
        3 x fpp x (input rows of a key outside the set) + 20 of those; its columns must be the
        --select ones (default: every input column), the parts on disk the ones _SUCCESS names
        and _SUCCESS's rows_out their rows. Repeat --input and --train-input for several
        locations; a composite key is `a,b` (and --train-column `x,y`, paired in order). With
        --invert the output must be the other rows: no row of a trained key, every row of a
        null key, and every row of a key outside the set but for the false positives' (within
        the same bound). With --partition-by the output is read back from its Hive partition
        directories, those columns as text.

A job's `join-where` (bloomjoin's --join-where, also through --set join.join-where=EXPR) is
part of DuckDB's join condition for every join type: `ON keys AND (EXPR)` for inner, left,
right and full joins, `[NOT] EXISTS (... WHERE keys AND (EXPR))` for the semi and anti joins,
so a pair for which it is false or NULL does not match (an outer join's row without a passing
pair comes out once with nulls on the other side; right-anti keeps null-key rows). Its
qualifiers become DuckDB's aliases: `left.COL` -> `l.COL`, `right.COL` -> `r.COL` (and
`left."x y"` -> `l."x y"`), whole words outside 'string literals' and "quoted names"; a bare
name is left to DuckDB, which resolves it to the one side that has it (case-insensitively,
where bloomjoin is case-sensitive) or refuses it as ambiguous. The rest of the expression is
passed as written (the `--where` language is DuckDB's SQL).

The checksum of a table (an order-independent fingerprint of its row multiset):

  canonical value  NULL -> "\\N"; integers in decimal; decimals as their exact digits, with
                   as many after the point as the type's scale ("901.00"); strings as they
                   are; booleans "true"/"false"; timestamps as integer milliseconds since
                   the epoch; dates as YYYY-MM-DD; floats as their exact hexadecimal form
                   (Python's float.hex: "0x1.8000000000000p+0", "nan", "-0x0.0p+0")
                   (other types are refused)
  canonical row    the canonical values of its columns, in order, joined by U+001F
  checksum         sum over rows of the first 8 bytes of MD5(UTF-8 of the canonical row),
                   read as a big-endian unsigned integer, mod 2^64; written as 16 hex digits

Exit status: 0 when everything matches, 1 on any mismatch, 2 on bad usage.
"""

import glob
import hashlib
import json
import os
import sys
import urllib.parse

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib  # type: ignore

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEP = "\x1f"
NULL = "\\N"


def utc_connection():
    """A DuckDB connection whose session time zone is UTC, as bloomjoin reads timestamps with a
    time zone (their parts, AT TIME ZONE, casts to text), whatever the machine's zone."""
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    return con


def die(msg, code=2):
    print(f"bjcheck: {msg}", file=sys.stderr)
    sys.exit(code)


# ---------------------------------------------------------------------------- checksums


def canonical_column(col):
    """The canonical text of every value of an Arrow column (None for nulls)."""
    t = col.type
    if pa.types.is_dictionary(t):
        col = col.cast(t.value_type)
        t = t.value_type
    if pa.types.is_timestamp(t):
        col = col.cast(pa.timestamp("ms", tz=t.tz)).cast(pa.int64())
    elif pa.types.is_date(t):
        col = pc.strftime(col.cast(pa.timestamp("s")), format="%Y-%m-%d")
    elif pa.types.is_boolean(t):
        return [None if v is None else ("true" if v else "false") for v in col.to_pylist()]
    elif pa.types.is_floating(t):
        # Every bit of the value (a float32 widens exactly), so the multisets compare exactly.
        return [None if v is None else float(v).hex() for v in col.to_pylist()]
    elif pa.types.is_decimal(t):
        # Fixed-point text: the scale's digits ("901.00"), never an exponent.
        return [None if v is None else format(v, "f") for v in col.to_pylist()]
    elif not (
        pa.types.is_integer(t)
        or pa.types.is_string(t)
        or pa.types.is_large_string(t)
        or pa.types.is_string_view(t)
    ):
        die(f"column type {t} has no canonical text (only integers, decimals, floats, strings, booleans, dates, timestamps)")
    return [None if v is None else str(v) for v in col.to_pylist()]


def checksum(table):
    """(rows, checksum) of an Arrow table, per the definition above."""
    cols = [canonical_column(table.column(i)) for i in range(table.num_columns)]
    total = 0
    for row in zip(*cols):
        text = SEP.join(NULL if v is None else v for v in row)
        total += int.from_bytes(hashlib.md5(text.encode("utf-8")).digest()[:8], "big")
    return table.num_rows, total % (1 << 64)


def partitioned_parts(path):
    """The part files below a partitioned output, relative to it, sorted: every
    `part-*.parquet` in its name=value directories (none below names that begin with `_` or
    `.`, which readers skip)."""
    found = []
    for root, dirs, files in os.walk(path):
        dirs[:] = [d for d in dirs if not d.startswith(("_", "."))]
        found += [os.path.relpath(os.path.join(root, f), path) for f in files if f.startswith("part-") and f.endswith(".parquet")]
    return sorted(found)


def read_partitioned(con, path, names, pcols):
    """bloomjoin's output written with --partition-by, as a reader of Hive partitions takes it:
    DuckDB with hive_partitioning, the partition columns read as text (their types are the
    reader's guess), in the order of `names`; and what is wrong with the layout: each file's
    directories must be the partition columns in --partition-by order, its columns the other
    output columns in order."""
    if not os.path.exists(os.path.join(path, "_SUCCESS")):
        die(f"{path}: no _SUCCESS: the job did not complete", 1)
    parts = partitioned_parts(path)
    wrong = []
    files_cols = [n for n in names if n not in pcols]
    for rel in parts:
        dirs = rel.split(os.sep)[:-1]
        got = [urllib.parse.unquote(d.split("=", 1)[0]) for d in dirs]
        if got != pcols:
            wrong.append(f"{rel}: directories {got}, not --partition-by {pcols}")
        cols = pq.read_schema(os.path.join(path, rel)).names
        if cols != files_cols:
            wrong.append(f"{rel}: columns {cols}, not {files_cols}")
    if not parts:
        return None, wrong
    types = ", ".join(f"{qs(c)}: VARCHAR" for c in pcols)
    files = ", ".join(qs(os.path.join(path, p)) for p in parts)
    table = con.sql(
        f"SELECT {', '.join(qi(n) for n in names)} FROM read_parquet([{files}], hive_partitioning = true, hive_types = {{{types}}})"
    ).to_arrow_table()
    return table, wrong[:3]


def read_output(path):
    """bloomjoin's output: every part-*.parquet in the directory, as one Arrow table."""
    if not os.path.exists(os.path.join(path, "_SUCCESS")):
        die(f"{path}: no _SUCCESS: the job did not complete", 1)
    parts = sorted(glob.glob(os.path.join(path, "part-*.parquet")))
    if not parts:
        die(f"{path}: no part-*.parquet", 1)
    tables = [pq.read_table(p) for p in parts]
    return pa.concat_tables(tables)


# ---------------------------------------------------------------------------- job files


def toml_value(raw):
    """A --set value: TOML if it parses as one, else the raw string (as bloomjoin does)."""
    try:
        return tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw


def load_job(path, sets=()):
    with open(path, "rb") as f:
        job = tomllib.load(f)
    for s in sets:
        lhs, _, raw = s.partition("=")
        table, _, key = lhs.partition(".")
        if table not in job:
            die(f"--set {s}: {path} has no [{table}]")
        v = toml_value(raw)
        if key in ("input", "left", "right") and isinstance(v, str):
            v = [v]
        job[table][key] = v
    if "join" not in job:
        die(f"{path}: no [join] step to check")
    return job


def expand(locations):
    """Input locations to Parquet files, as bloomjoin expands local paths: a directory is
    every *.parquet below it, skipping names that start with _ or ."""
    files = []
    for loc in locations:
        if os.path.isdir(loc):
            for d, dirs, names in os.walk(loc):
                dirs[:] = sorted(x for x in dirs if not x.startswith(("_", ".")))
                files += [
                    os.path.join(d, n)
                    for n in sorted(names)
                    if n.endswith(".parquet") and not n.startswith(("_", "."))
                ]
        elif any(c in loc for c in "*?["):
            files += sorted(glob.glob(loc, recursive=True))
        else:
            files.append(loc)
    if not files:
        die(f"no Parquet files in {locations}")
    return sorted(set(files))


def qi(name):
    return '"' + name.replace('"', '""') + '"'


def qs(text):
    return "'" + text.replace("'", "''") + "'"


def hive_names(path):
    """The Hive partition columns of a file: the name=value directories of its path as given
    (names percent-decoded), in order, as bloomjoin and DuckDB read them."""
    dirs = os.path.normpath(path).split(os.sep)[:-1]
    return [urllib.parse.unquote(d.split("=", 1)[0]) for d in dirs if "=" in d and not d.startswith("=")]


def columns_of(con, files):
    """The columns of `*` over the files: the files' own, then the partition columns in the
    order of their directories (DuckDB lists those by name)."""
    cols = [r[0] for r in con.execute(f"DESCRIBE SELECT * FROM {parquet_source(files)}").fetchall()]
    hive = hive_names(files[0])
    return [c for c in cols if c not in hive] + [c for c in hive if c in cols]


def parquet_source(files):
    """The files as one table, their columns unioned by name (a file without a column reads
    it as NULL), as bloomjoin reads a side's files."""
    return f"read_parquet([{', '.join(qs(f) for f in files)}], union_by_name = true)"


def select_items(sel):
    """A --select list cut at its commas outside parentheses, 'strings' and "quoted names"."""
    items, depth, quote, start = [], 0, None, 0
    for i, c in enumerate(sel):
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth = max(0, depth - 1)
        elif c == "," and depth == 0:
            items.append(sel[start:i])
            start = i + 1
    items.append(sel[start:])
    return items


def unquote(name):
    """A column name as a --select list writes it: bare, or "quoted" ("" a quote)."""
    name = name.strip()
    return name[1:-1].replace('""', '"') if len(name) >= 2 and name[0] == name[-1] == '"' else name


def split_as(item):
    """`thing AS name` (AS in any case, the name bare or "quoted"): (thing, name), else None."""
    item = item.strip()
    if item.endswith('"'):
        # The quoted name that ends the item: the last '"' that opens a name reaching the end.
        i, start = 0, None
        while i < len(item):
            if item[i] in "'\"":
                q, j = item[i], i + 1
                while j < len(item) and not (item[j] == q and item[j + 1:j + 2] != q):
                    j += 2 if item[j] == q else 1
                if q == '"' and j == len(item) - 1:
                    start = i
                i = j + 1
            else:
                i += 1
        if start is None:
            return None
        head, name = item[:start], unquote(item[start:])
    else:
        words = item.split()
        if len(words) < 3:
            return None
        head, name = item[: -len(words[-1])], words[-1]
    head = head.rstrip()
    if head[-2:].lower() != "as" or not head[:-2].endswith((" ", "\t")):
        return None
    return head[:-2].strip(), name


def star_item(item):
    """A `*` item of --select (`*`, `left.*`, `right.*`, then maybe DuckDB's `EXCLUDE (a,
    "b")`, `REPLACE (expr AS a)` and `RENAME (a AS b)`, in that order, a list in parentheses or
    one item): (side "l", "r" or None, the names excluded, [(expression, column replaced)],
    [(column, new name)]), or None for another item."""
    side = None
    if item[:8].lower() == "columns(" and item.endswith(")"):
        # DuckDB's COLUMNS('regex'): the columns whose names the regex finds a match in.
        inner = item[8:-1].strip()
        return None, [], [], [], None if inner == "*" else f"regexp_matches(n, {inner})"
    for prefix, sd in (("left.", "l"), ("right.", "r")):
        if item.startswith(prefix + "*"):
            side, item = sd, item[len(prefix):]
    if not item.startswith("*"):
        return None
    rest = item[1:].strip()
    lists = {"exclude": [], "replace": [], "rename": []}
    for word in lists:
        if rest[:len(word)].lower() != word:
            continue
        rest = rest[len(word):].strip()
        if rest.startswith("("):
            depth, quote = 0, None
            for i, c in enumerate(rest):
                if quote:
                    quote = None if c == quote else quote
                elif c in "'\"":
                    quote = c
                elif c == "(":
                    depth += 1
                elif c == ")":
                    depth -= 1
                    if depth == 0:
                        break
            inner, rest = rest[1:i], rest[i + 1:].strip()
        elif word == "exclude":
            inner, _, rest = rest.partition(" ")
        else:
            inner, rest = rest, ""
        for x in (x.strip() for x in select_items(inner)):
            if word == "exclude":
                lists[word].append(unquote(x))
            else:
                pair = split_as(x)
                if pair is None:
                    die(f"select item {item!r}: {x!r} has no AS")
                lists[word].append(pair if word == "replace" else (unquote(pair[0]), pair[1]))
    pattern = None
    if rest.split(" ")[0].lower() in ("not", "like", "ilike", "similar"):
        pattern, rest = f"n {rest}", ""
    if rest:
        die(f"select item {item!r}: after a *, only EXCLUDE, REPLACE and RENAME, in that order, or a pattern")
    return side, lists["exclude"], lists["replace"], lists["rename"], pattern


def matching(names, pattern):
    """The names DuckDB's `* LIKE 'pattern'` (or ILIKE, SIMILAR TO, NOT ..., COLUMNS('regex'))
    keeps, in order: `pattern` is its condition on the name, n."""
    if pattern is None:
        return names
    values = ", ".join(f"({i}, {qs(n)})" for i, n in enumerate(names))
    rows = duckdb.connect().execute(f"SELECT n FROM (VALUES {values}) t(i, n) WHERE {pattern} ORDER BY i").fetchall()
    return [r[0] for r in rows]


def resolve_select(spec, left_cols, right_cols):
    """bloomjoin's --select rules: (side, source name, output name) per output column. Under
    `coalesce-keys` each key pair is one column, of side "c" and source its position: first
    by default, and what a bare key name (left or right) selects."""
    jt = spec.get("type", "inner")
    outputs_right = jt not in ("left-semi", "left-anti")
    outputs_left = jt not in ("right-semi", "right-anti")
    lkeys = [k.strip() for k in spec["left-key"].split(",")]
    rkeys = [k.strip() for k in spec["right-key"].split(",")]
    coalesce = bool(spec.get("coalesce-keys"))
    picked = []
    sel = spec.get("select")

    def every():
        out, lc, rc = [], left_cols, right_cols
        if coalesce:
            out += [("c", i, k) for i, k in enumerate(lkeys)]
            lc = [c for c in left_cols if c not in lkeys]
            rc = [c for c in right_cols if c not in rkeys]
        if outputs_left:
            out += [("l", c, None) for c in lc]
        if outputs_right:
            out += [("r", c, None) for c in rc]
        return out

    if sel is None:
        picked = every()
    else:
        for item in (x.strip() for x in select_items(sel)):
            star = star_item(item)
            if star is not None:
                side, excluded, replaced, renamed, pattern = star
                cols = every() if side is None else [(side, c, None) for c in (left_cols if side == "l" else right_cols)]

                def hits(x):
                    # The columns of the star x names: `left.x` / `right.x` one side's in a bare *.
                    only = {"left": "l", "right": "r"}.get(x.split(".", 1)[0]) if side is None and "." in x else None
                    name = x.split(".", 1)[1] if only else x
                    return [i for i, p in enumerate(cols)
                            if (lkeys[p[1]] if p[0] == "c" else p[1]) == name and only in (None, p[0])]

                for x in excluded:
                    gone = hits(x)
                    if not gone:
                        die(f"EXCLUDE {x!r} of {item!r} is no column")
                    cols = [p for i, p in enumerate(cols) if i not in gone]
                name_of = lambda p: lkeys[p[1]] if p[0] == "c" else p[1]
                kept = matching([name_of(p) for p in cols], pattern)
                cols = [p for p in cols if name_of(p) in kept]
                for x, to in renamed:
                    (i,) = hits(x)
                    cols[i] = (cols[i][0], cols[i][1], to)
                for expr, x in replaced:
                    (i,) = hits(x)
                    # The replacement, resolved as the item `expr AS x` would be.
                    qx = x if x.replace("_", "a").isalnum() else '"' + x.replace('"', '""') + '"'
                    sub = dict(spec, select=f"{expr} AS {qx}")
                    ((rside, rname, _),) = resolve_select(sub, left_cols, right_cols)
                    cols[i] = (rside, rname, x)
                picked += cols
                continue
            # `column AS alias` (AS in any case, the alias bare or "quoted") names the output
            # column.
            alias = None
            pair = split_as(item)
            if pair is not None:
                item, alias = pair
            is_column = ((coalesce and item in lkeys + rkeys)
                         or (item.startswith("left.") and item[5:] in left_cols)
                         or (item.startswith("right.") and item[6:] in right_cols)
                         or item in left_cols or item in right_cols)
            if not is_column:
                # An expression, named by its alias: DuckDB computes it over the aliases l, r.
                if not alias:
                    die(f"select item {item!r} is no column and has no name")
                picked.append(("e", item, alias))
            elif coalesce and item in lkeys + rkeys:
                i = lkeys.index(item) if item in lkeys else rkeys.index(item)
                picked.append(("c", i, alias or item))
            elif item.startswith("left."):
                picked.append(("l", item[5:], alias))
            elif item.startswith("right."):
                picked.append(("r", item[6:], alias))
            else:
                in_l = item in left_cols and outputs_left
                in_r = item in right_cols and outputs_right
                if in_l == in_r:
                    die(f"select item {item!r} is ambiguous or unknown")
                picked.append(("l" if in_l else "r", item, alias))
    # The aliases first (taken as given), then the bare names in order, a right one that is
    # taken getting "_right" until it is free.
    names = [alias if alias else name for _, name, alias in picked]
    # (An expression's "name" is its text; its alias is always given.)
    for i, (side, name, alias) in enumerate(picked):
        if side == "r" and not alias:
            while any(j != i and names[j] == names[i] for j in range(len(names))):
                names[i] += "_right"
    return [(side, name, o) for (side, name, _), o in zip(picked, names)]


def sides_to_aliases(expr):
    """A `join-where` expression with its side qualifiers as the reference query's aliases:
    `left.` -> `l.`, `right.` -> `r.` where `left` / `right` is a whole word (not after a `.`)
    followed by `.` and a name or a "quoted name"; nothing inside 'string literals' ('' a
    quote) or "quoted names" ("" a quote) changes."""
    out, i, n = [], 0, len(expr)
    while i < n:
        c = expr[i]
        if c in "'\"":
            # A literal or quoted name runs to its closing quote; a doubled quote is one
            # character of it. An unclosed one runs to the end (DuckDB will refuse it).
            j = i + 1
            while j < n:
                if expr[j] == c:
                    if j + 1 < n and expr[j + 1] == c:
                        j += 2
                        continue
                    break
                j += 1
            out.append(expr[i:j + 1])
            i = j + 1
        elif c.isalpha() or c == "_":
            j = i
            while j < n and (expr[j].isalnum() or expr[j] in "_$"):
                j += 1
            word = expr[i:j]
            after_dot = i > 0 and expr[i - 1] == "."
            names_next = j + 1 < n and expr[j] == "." and (expr[j + 1].isalpha() or expr[j + 1] in '_"')
            if word in ("left", "right") and names_next and not after_dot:
                out.append("l." if word == "left" else "r.")
                i = j + 1
            else:
                out.append(word)
                i = j
        elif c.isdigit():
            # A number (`1e5`, `1_000`): its letters are no word.
            j = i
            while j < n and (expr[j].isalnum() or expr[j] in "_."):
                j += 1
            out.append(expr[i:j])
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def duckdb_sql(con, job):
    """The job's join as one DuckDB query, from the job file alone."""
    j = job["join"]
    lf, rf = expand(j["left"]), expand(j["right"])
    lcols, rcols = columns_of(con, lf), columns_of(con, rf)
    src = parquet_source
    lw = f" WHERE {j['left-where']}" if j.get("left-where") else ""
    rw = f" WHERE {j['right-where']}" if j.get("right-where") else ""
    L = f"(SELECT * FROM {src(lf)}{lw})"
    R = f"(SELECT * FROM {src(rf)}{rw})"
    # A composite key (`a,b`) pairs its columns in order; a NULL in any of them never matches,
    # in DuckDB as in bloomjoin, but under `nulls-equal` (IS NOT DISTINCT FROM, column by
    # column).
    lkeys = [k.strip() for k in j["left-key"].split(",")]
    rkeys = [k.strip() for k in j["right-key"].split(",")]
    if len(lkeys) != len(rkeys):
        die(f"left-key {j['left-key']!r} and right-key {j['right-key']!r} differ in length")
    eq = "IS NOT DISTINCT FROM" if j.get("nulls-equal") else "="
    on = " AND ".join(f"l.{qi(a)} {eq} r.{qi(b)}" for a, b in zip(lkeys, rkeys))
    # `join-where`: part of the join condition (ON, or the EXISTS correlation), so that a pair
    # it does not hold for (false or NULL) is no match, whatever the join type.
    jw = j.get("join-where")
    if jw is not None:
        if not isinstance(jw, str) or not jw.strip():
            die(f"join-where {jw!r} is not a condition")
        on = f"{on} AND ({sides_to_aliases(jw)})"
    cols = resolve_select(j, lcols, rcols)
    # A coalesced key pair (`coalesce-keys`): the left key, else the right one.
    proj = ", ".join(
        f"COALESCE(l.{qi(lkeys[name])}, r.{qi(rkeys[name])}) AS {qi(out)}" if side == "c"
        else f"({sides_to_aliases(name)}) AS {qi(out)}" if side == "e"
        else f"{side}.{qi(name)} AS {qi(out)}"
        for side, name, out in cols)
    jt = j.get("type", "inner")
    if jt in ("inner", "left", "right", "full"):
        kw = {"inner": "INNER JOIN", "left": "LEFT JOIN", "right": "RIGHT JOIN", "full": "FULL OUTER JOIN"}[jt]
        sql = f"SELECT {proj} FROM {L} l {kw} {R} r ON {on}"
    elif jt in ("left-semi", "left-anti"):
        neg = "NOT " if jt == "left-anti" else ""
        sql = f"SELECT {proj} FROM {L} l WHERE {neg}EXISTS (SELECT 1 FROM {R} r WHERE {on})"
    elif jt in ("right-semi", "right-anti"):
        neg = "NOT " if jt == "right-anti" else ""
        sql = f"SELECT {proj} FROM {R} r WHERE {neg}EXISTS (SELECT 1 FROM {L} l WHERE {on})"
    else:
        die(f"unknown join type {jt!r}")
    return sql, [c[2] for c in cols]


def expected_path(job_path):
    name = os.path.splitext(os.path.basename(job_path))[0]
    return os.path.join(ROOT, "jobs", "expected", name + ".json")


def fmt(rows, ck):
    return f"{rows} rows, checksum {ck:016x}"


# ---------------------------------------------------------------------------- commands


def cmd_checksum(args):
    rows, ck = checksum(read_output(args[0]))
    print(json.dumps({"rows": rows, "checksum": f"{ck:016x}"}))
    return 0


def cmd_expect(args):
    update = "--update" in args
    job_path = [a for a in args if a != "--update"][0]
    job = load_job(job_path)
    out = job["join"]["output"]
    table = read_output(out)
    rows, ck = checksum(table)
    exp_path = expected_path(job_path)
    got = {"job": os.path.relpath(job_path, ROOT), "columns": table.column_names, "rows": rows, "checksum": f"{ck:016x}"}
    if update:
        with open(exp_path, "w") as f:
            json.dump(got, f, indent=2, ensure_ascii=False)
            f.write("\n")
        print(f"wrote {os.path.relpath(exp_path, ROOT)}: {fmt(rows, ck)}")
        return 0
    if not os.path.exists(exp_path):
        print(f"MISMATCH {job_path}: no expected result {os.path.relpath(exp_path, ROOT)}")
        return 1
    with open(exp_path) as f:
        exp = json.load(f)
    bad = [k for k in ("columns", "rows", "checksum") if exp.get(k) != got[k]]
    if bad:
        for k in bad:
            print(f"MISMATCH {job_path}: {k}: expected {exp.get(k)}, got {got[k]}")
        return 1
    print(f"ok {job_path}: {fmt(rows, ck)}, as expected")
    return 0


def earlier_rows(con, job, earlier_job, sql, names, pcols):
    """The SQL of the rows the output holds after `earlier_job` wrote it and `job` (of SQL
    `sql`) wrote it again, as `job`'s write mode says."""
    earlier_sql, earlier_names = duckdb_sql(con, earlier_job)
    if earlier_names != names:
        die(f"the earlier run's columns {earlier_names} are not the job's {names}")
    if pcols:
        earlier_sql = partition_text(earlier_sql, names, pcols)
    j = job["join"]
    if j.get("append"):
        return f"({earlier_sql}) UNION ALL ({sql})"
    if j.get("overwrite-partitions"):
        if not pcols:
            die("overwrite-partitions without partition-by")
        same = " AND ".join(f"e.{qi(c)} IS NOT DISTINCT FROM n.{qi(c)}" for c in pcols)
        return (
            f"(SELECT e.* FROM ({earlier_sql}) e WHERE NOT EXISTS (SELECT 1 FROM ({sql}) n WHERE {same}))"
            f" UNION ALL ({sql})"
        )
    return sql


def partition_text(sql, names, pcols):
    """`sql` with the partition columns as their directories hold them: text, an empty
    string as null (Hive's default partition, as Spark writes it)."""
    return "SELECT " + ", ".join(
        f"NULLIF(CAST({qi(n)} AS VARCHAR), '') AS {qi(n)}" if n in pcols else qi(n) for n in names
    ) + f" FROM ({sql})"


def manifest_mismatch(output, pcols):
    """What differs between the parts `_SUCCESS` names and those on disk (None: nothing)."""
    with open(os.path.join(output, "_SUCCESS")) as f:
        named = sorted(os.path.normpath(p) for p in json.load(f)["parts"])
    there = partitioned_parts(output) if pcols else sorted(
        os.path.basename(p) for p in glob.glob(os.path.join(output, "part-*.parquet")))
    if named != there:
        return f"_SUCCESS names {len(named)} parts, {len(there)} on disk ({sorted(set(named) ^ set(there))[:3]})"
    return None


def cmd_duckdb(args):
    sets, output, want_expected, job_path, earlier = [], None, False, None, []
    it = iter(args)
    for a in it:
        if a == "--set":
            sets.append(next(it))
        elif a == "--earlier-set":
            earlier.append(next(it))
        elif a == "--output":
            output = next(it)
        elif a == "--expected":
            want_expected = True
        else:
            job_path = a
    job = load_job(job_path, sets)
    output = output or job["join"]["output"]
    label = job_path + "".join(f" --set {s}" for s in sets) + "".join(f" after --set {s}" for s in earlier)
    con = utc_connection()
    sql, names = duckdb_sql(con, job)
    failures = []
    pby = job["join"].get("partition-by")
    pcols = [c.strip() for c in pby.split(",")] if pby else []
    if pby:
        sql = partition_text(sql, names, pcols)
    if earlier:
        sql = earlier_rows(con, job, load_job(job_path, sets + earlier), sql, names, pcols)
        wrong = manifest_mismatch(output, pcols)
        if wrong:
            failures.append(wrong)
    if pby:
        theirs = con.sql(sql).to_arrow_table()
        ours, wrong = read_partitioned(con, output, names, pcols)
        failures += wrong
        if ours is None:
            ours = theirs.schema.empty_table()
    else:
        ours = read_output(output)
        theirs = con.sql(sql).to_arrow_table()
    if ours.column_names != names:
        failures.append(f"columns: bloomjoin {ours.column_names}, DuckDB {names}")
    con.register("ours", ours)
    con.register("theirs", theirs)
    only_ours = con.execute("SELECT count(*) FROM (SELECT * FROM ours EXCEPT ALL SELECT * FROM theirs)").fetchone()[0]
    only_theirs = con.execute("SELECT count(*) FROM (SELECT * FROM theirs EXCEPT ALL SELECT * FROM ours)").fetchone()[0]
    if only_ours or only_theirs or ours.num_rows != theirs.num_rows:
        failures.append(
            f"row multisets differ: bloomjoin {ours.num_rows} rows, DuckDB {theirs.num_rows}; "
            f"{only_ours} only in bloomjoin's, {only_theirs} only in DuckDB's"
        )
    rows, ck = checksum(theirs)
    ours_ck = checksum(ours)
    if (rows, ck) != ours_ck and not failures:
        failures.append(f"checksums differ: bloomjoin {fmt(*ours_ck)}, DuckDB {fmt(rows, ck)}")
    if want_expected:
        with open(expected_path(job_path)) as f:
            exp = json.load(f)
        if (exp["rows"], exp["checksum"]) != (rows, f"{ck:016x}"):
            failures.append(f"DuckDB gives {fmt(rows, ck)}, jobs/expected says {exp['rows']} rows, checksum {exp['checksum']}")
    if failures:
        for f in failures:
            print(f"MISMATCH {label}: {f}")
        return 1
    extra = ", reproduces jobs/expected" if want_expected else ""
    print(f"ok {label}: DuckDB and bloomjoin agree exactly ({fmt(rows, ck)}{extra})")
    return 0


def filter_args(args):
    """The options of `bjcheck.py filter`, as a dict (lists for the repeatable ones)."""
    opts = {"input": [], "train-input": []}
    single = ("key", "where", "select", "train-column", "train-where", "fpp", "output", "partition-by")
    it = iter(args)
    for a in it:
        name = a[2:] if a.startswith("--") else None
        if name == "invert":
            opts["invert"] = True
        elif name in ("input", "train-input"):
            opts[name].append(next(it))
        elif name in single:
            opts[name] = next(it)
        else:
            die(f"filter: unknown argument {a!r}")
    for name in ("input", "train-input"):
        if not opts[name]:
            die(f"filter: --{name} is required")
    for name in ("key", "train-column", "fpp", "output"):
        if name not in opts:
            die(f"filter: --{name} is required")
    return opts


def names_of(text):
    """A comma-separated list of column names (`a, b`)."""
    return [c.strip() for c in text.split(",")]


def filter_select(sel, input_cols):
    """`filter --select` as (output name, SQL over the input's view i) per output column: a
    column, `column AS name`, or `expression AS name` (DuckDB computes it over i's columns)."""
    if not sel:
        return [(c, f"i.{qi(c)}") for c in input_cols]
    picks = []
    for item in (x.strip() for x in select_items(sel)):
        star = star_item(item) if item not in input_cols else None
        if star is not None:
            _, excluded, replaced, renamed, pattern = star
            for c in matching(input_cols, pattern):
                if c in excluded:
                    continue
                expr = next((e for e, x in replaced if x == c), None)
                if expr is not None:
                    picks.append((c, f"i.{qi(expr)}" if expr in input_cols else f"({expr})"))
                else:
                    picks.append((dict(renamed).get(c, c), f"i.{qi(c)}"))
            continue
        if item in input_cols:
            picks.append((item, f"i.{qi(item)}"))
            continue
        pair = split_as(item)
        if pair is None:
            die(f"select item {item!r} is no column and has no name")
        head, name = pair
        picks.append((name, f"i.{qi(head)}" if head in input_cols else f"({head})"))
    return picks


def cmd_filter(args):
    o = filter_args(args)
    output = o["output"]
    keys, tkeys = names_of(o["key"]), names_of(o["train-column"])
    if len(keys) != len(tkeys):
        die(f"--key {o['key']!r} and --train-column {o['train-column']!r} differ in length")
    fpp = float(o["fpp"])
    label = f"filter {output} (--key {o['key']}" + (" --invert" if o.get("invert") else "") + "".join(
        f" --{n} {o[n]!r}" for n in ("where", "select") if o.get(n)) + f"; trained on {o['train-column']}"
    label += f" where {o['train-where']!r}, fpp {fpp})" if o.get("train-where") else f", fpp {fpp})"
    con = utc_connection()
    files, tfiles = expand(o["input"]), expand(o["train-input"])
    picks = filter_select(o.get("select"), columns_of(con, files))
    cols = [name for name, _ in picks]
    # --partition-by: those columns as their directories hold them (text; an empty string as
    # null), as the output is read back.
    pcols = names_of(o["partition-by"]) if o.get("partition-by") else []
    proj = ", ".join(
        f"NULLIF(CAST({sql} AS VARCHAR), '') AS {qi(c)}" if c in pcols else f"{sql} AS {qi(c)}" for c, sql in picks)
    where = f" WHERE {o['where']}" if o.get("where") else ""
    twhere = f"({o['train-where']}) AND " if o.get("train-where") else ""
    # The input rows that pass --where (i), and the trained key set (k): the distinct key
    # tuples of the training rows that pass train --where, none of their columns null (a
    # null in any of them is a null key, which train skips).
    con.execute(f"CREATE TEMP VIEW i AS SELECT * FROM {parquet_source(files)}{where}")
    con.execute(
        f"CREATE TEMP TABLE k AS SELECT DISTINCT {', '.join(qi(c) for c in tkeys)} "
        f"FROM {parquet_source(tfiles)} WHERE {twhere}"
        + " AND ".join(f"{qi(c)} IS NOT NULL" for c in tkeys))
    in_set = "EXISTS (SELECT 1 FROM k WHERE " + " AND ".join(
        f"k.{qi(t)} = i.{qi(c)}" for t, c in zip(tkeys, keys)) + ")"
    not_null = " AND ".join(f"i.{qi(c)} IS NOT NULL" for c in keys)
    # exact: the semi-join (the rows of a key in the set); outside: the rows of a non-null key
    # outside it, the only ones a false positive may keep.
    con.execute(f"CREATE TEMP TABLE exact AS SELECT {proj} FROM i WHERE {in_set}")
    con.execute(f"CREATE TEMP TABLE outside AS SELECT {proj} FROM i WHERE {not_null} AND NOT {in_set}")
    con.execute(f"CREATE TEMP TABLE passing AS SELECT {proj} FROM i")
    con.execute(f"CREATE TEMP TABLE nulls AS SELECT {proj} FROM i WHERE NOT ({not_null})")
    failures = []
    if not os.path.exists(os.path.join(output, "_SUCCESS")):
        die(f"{output}: no _SUCCESS: the job did not complete", 1)
    wrong = manifest_mismatch(output, pcols)
    if wrong:
        failures.append(wrong)
    with open(os.path.join(output, "_SUCCESS")) as f:
        success = json.load(f)
    if pcols:
        ours, wrong = read_partitioned(con, output, cols, pcols)
        failures += wrong
        if ours is None:
            ours = con.sql("SELECT * FROM passing LIMIT 0").to_arrow_table()
    else:
        tables = []
        for part in sorted(glob.glob(os.path.join(output, "part-*.parquet"))):
            t = pq.read_table(part, partitioning=None)
            if t.column_names != cols:
                failures.append(f"{os.path.basename(part)}: columns {t.column_names}, not --select/the input's {cols}")
                if sorted(t.column_names) != sorted(cols):
                    for f in failures:
                        print(f"MISMATCH {label}: {f}")
                    return 1
            tables.append(t.select(cols))  # the rows compare column by column, by name
        ours = pa.concat_tables(tables) if tables else con.sql("SELECT * FROM exact LIMIT 0").to_arrow_table()
    if success.get("rows_out") != ours.num_rows:
        failures.append(f"_SUCCESS says rows_out {success.get('rows_out')}, its parts hold {ours.num_rows} rows")
    con.register("ours", ours)

    def count(sql):
        return con.execute(f"SELECT count(*) FROM ({sql})").fetchone()[0]

    n_exact, n_outside = count("SELECT * FROM exact"), count("SELECT * FROM outside")
    not_input = count("SELECT * FROM ours EXCEPT ALL SELECT * FROM passing")
    if not_input:
        failures.append(f"{not_input} output rows are not input rows that pass --where")
    bound = 3 * fpp * n_outside + 20
    if o.get("invert"):
        # --invert: the rows of a key outside the set and of a null key, but for the false
        # positives' rows (few), and no row of a trained key.
        wrong = count("SELECT * FROM ours EXCEPT ALL (SELECT * FROM outside UNION ALL SELECT * FROM nulls)") - not_input
        if wrong:
            failures.append(f"{wrong} output rows are rows of a trained key (--invert keeps the others)")
        missing_nulls = count("SELECT * FROM nulls EXCEPT ALL SELECT * FROM ours")
        if missing_nulls:
            failures.append(f"{missing_nulls} rows of a null key are missing from the output (--invert keeps them)")
        n_dropped = count("SELECT * FROM outside EXCEPT ALL SELECT * FROM ours")
        if n_dropped > bound:
            failures.append(f"{n_dropped} rows of a key outside the set dropped (false positives), over the bound"
                            f" 3 x {fpp} x {n_outside} + 20 = {bound:.0f}")
        counts = (f"{ours.num_rows} rows out of {count('SELECT * FROM passing')} passing --where: of the"
                  f" {n_outside} rows of a key outside the {count('SELECT * FROM k')} trained keys, {n_dropped}"
                  f" dropped as false positives (at most {bound:.0f}); {count('SELECT * FROM nulls')} of a null key;"
                  f" {wrong} of the {n_exact} of a trained key kept")
    else:
        null_keys = count(f"SELECT * FROM ours EXCEPT ALL SELECT {proj} FROM i WHERE {not_null}") - not_input
        if null_keys:
            failures.append(f"{null_keys} output rows have a null key")
        missing = count("SELECT * FROM exact EXCEPT ALL SELECT * FROM ours")
        if missing:
            failures.append(f"{missing} rows of a trained key are missing from the output (false negatives)")
        # The false positives: the output's rows beyond the semi-join's, each of a key outside
        # the set, and few.
        con.execute("CREATE TEMP TABLE extra AS SELECT * FROM ours EXCEPT ALL SELECT * FROM exact")
        n_extra = count("SELECT * FROM extra")
        in_set_extra = count("SELECT * FROM extra EXCEPT ALL SELECT * FROM outside")
        if in_set_extra:
            failures.append(f"{in_set_extra} output rows beyond the semi-join's are not rows of a key outside the set")
        if n_extra > bound:
            failures.append(f"{n_extra} false-positive rows, over the bound 3 x {fpp} x {n_outside} + 20 = {bound:.0f}")
        counts = (f"{ours.num_rows} rows out of {count('SELECT * FROM passing')} passing --where: {n_exact} of the"
                  f" semi-join with the {count('SELECT * FROM k')} trained keys, {n_extra} false positives (at most"
                  f" {bound:.0f}: {n_outside} rows have a key outside the set)")
    if failures:
        for f in failures:
            print(f"MISMATCH {label}: {f}")
        print(f"  ({counts})")
        return 1
    print(f"ok {label}: {counts}")
    return 0


def main(argv):
    commands = {"checksum": cmd_checksum, "expect": cmd_expect, "duckdb": cmd_duckdb, "filter": cmd_filter}
    if len(argv) < 2 or argv[1] not in commands:
        die("usage: bjcheck.py checksum DIR | expect JOB [--update] | duckdb JOB [--set K=V]... [--output DIR] [--expected]"
            " | filter --input LOC... --key COLS ... --train-input LOC... --train-column COLS ... --fpp P --output DIR")
    os.chdir(ROOT)
    return commands[argv[1]](argv[2:])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
