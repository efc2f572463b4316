"""strptime and try_strptime against DuckDB's, row by row.

Usage: strptime_check.py BLOOMJOIN OUT_DIR [N [SEED]]

For each of about 60 formats (common ones and random runs of every specifier strptime reads,
with literal text and spaces between them), N strings (default 1,500): DuckDB 2.0.1's
strftime of random instants in that format, often mutated (case changed, spaces added or
removed, a digit changed or dropped, leading zeros dropped, a UTC offset written, the string
cut or extended), and DuckDB's words (`infinity`, ` -Infinity `, `epoch`, `epochs`). DuckDB
computes `try_strptime(s, format)` of each into a Parquet file beside the strings, and
`strptime` where that is not NULL; `bloomjoin train --where` must find every row's answers
equal to DuckDB's (IS NOT DISTINCT FROM). The expressions that differ are printed with a row
count. A string that strptime does not read fails the job in both engines; that is what
try_strptime's NULL says, row by row."""
import json
import os
import random
import shutil
import subprocess
import sys

import duckdb
import pyarrow as pa

BIN, OUT = sys.argv[1], sys.argv[2]
N = int(sys.argv[3]) if len(sys.argv) > 3 else 1_500
SEED = int(sys.argv[4]) if len(sys.argv) > 4 else 31
shutil.rmtree(OUT, ignore_errors=True)
os.makedirs(OUT)
rng = random.Random(SEED)

COMMON = ["%d/%m/%Y", "%m/%d/%Y %I:%M %p", "%Y-%m-%dT%H:%M:%S%z", "%Y%m%d", "%b %d, %Y", "%A, %B %-d, %Y",
          "%G-W%V-%u", "%Y %j", "%Y %U %w", "%W %Y %w", "%Y-%m-%d %H:%M:%S.%f", "%Y-%m-%d %H:%M:%S.%n",
          "%c", "%y%m%d", "%d.%m.%y %H:%M", "%x %X", "%Y-%m-%d %H:%M:%S.%g %z", "%a %b %d %H:%M:%S %Y",
          "%d-%b-%Y", "%Y/%-m/%-d %-H:%-M:%-S", "%j/%Y", "%V %G", "%u %V %G", "%Y %m %d %j", "%H:%M %p %d %B %Y",
          "%Y-%m-%d %T%z", "%Y%n", "%G %U"]
SPECS = ["%Y", "%G", "%y", "%-y", "%m", "%-m", "%d", "%-d", "%j", "%-j", "%H", "%-H", "%I", "%-I", "%p", "%M",
         "%-M", "%S", "%-S", "%g", "%f", "%n", "%a", "%A", "%w", "%u", "%b", "%h", "%B", "%U", "%W", "%V", "%z",
         "%T", "%x", "%%"]
TEXT = ["-", "/", " ", ":", "  ", "T", "é", ",", "", "", ""]
formats = list(COMMON)
while len(formats) < 60:
    formats.append("".join(rng.choice(SPECS) + rng.choice(TEXT) for _ in range(rng.randint(1, 5))).strip() or "%Y")

con = duckdb.connect()
con.execute("SET TimeZone = 'UTC'")
MIN_US, MAX_US = -62135596800 * 10**6, 253402300799 * 10**6  # years 1 to 9999
OFFSETS = ["+00", "+05:30", "-0800", "+1", "-11:59:59", "+14", "Z", "+5:3", "-00:30", "+2400", "+99"]
WORDS = ["infinity", " -Infinity ", "epoch", "epochs", "inf", "-inf", "EPOCH  ", "infinity x"]


def mutate(s):
    r = rng.random()
    if r < 0.35 or not s:
        return s
    ops = rng.randint(1, 2)
    for _ in range(ops):
        k = rng.randrange(9)
        i = rng.randrange(len(s) + 1)
        if k == 0:
            s = s.upper() if rng.random() < 0.5 else s.lower()
        elif k == 1:
            s = s[:i] + rng.choice([" ", "  ", "\t"]) + s[i:]
        elif k == 2:
            s = s.replace(" ", "", 1) if " " in s else s
        elif k == 3:
            digits = [j for j, c in enumerate(s) if c.isdigit()]
            if digits:
                j = rng.choice(digits)
                s = s[:j] + str(rng.randrange(10)) + s[j + 1:]
        elif k == 4:
            digits = [j for j, c in enumerate(s) if c.isdigit()]
            if digits:
                j = rng.choice(digits)
                s = s[:j] + s[j + 1:]
        elif k == 5:
            s = s.replace("0", "", 1)
        elif k == 6:
            s = s.replace("+00", rng.choice(OFFSETS), 1)
        elif k == 7:
            s = s[:i]
        else:
            s = s + rng.choice(["x", " ", "0", "1", "  "])
    return s


cols = {}
for k, fmt in enumerate(formats):
    us = [rng.randint(MIN_US, MAX_US) if rng.random() < 0.7 else rng.randint(-10**15, 10**15) for _ in range(N)]
    written = con.execute("SELECT list(strftime(make_timestamp(u), $f) ORDER BY i) FROM "
                          "(SELECT unnest($us) AS u, generate_subscripts($us, 1) AS i)",
                          {"f": fmt, "us": us}).fetchall()[0][0]
    out = []
    for s in written:
        r = rng.random()
        if r < 0.04:
            out.append(None)
        elif r < 0.08:
            out.append(rng.choice(WORDS))
        else:
            out.append(mutate(s))
    cols[f"s{k}"] = pa.array(out, pa.string())
table = pa.table(cols)


def q(f):
    return "'" + f.replace("'", "''") + "'"


exprs = [f"try_strptime(s{k}, {q(f)})" for k, f in enumerate(formats)]
exprs += [f"CASE WHEN try_strptime(s{k}, {q(f)}) IS NOT NULL THEN strptime(s{k}, {q(f)}) END"
          for k, f in enumerate(formats) if k % 4 == 0]
con.register("t", table)
wants = ", ".join(f"{e} AS want_{i}" for i, e in enumerate(exprs))
f = os.path.join(OUT, "p.parquet")
con.execute(f"COPY (SELECT *, {wants} FROM t) TO '{f}'")

same = " AND ".join(f"({e}) IS NOT DISTINCT FROM want_{i}" for i, e in enumerate(exprs))
report = os.path.join(OUT, "r.json")
s0 = list(table.column_names)[0]
run = subprocess.run([BIN, "-q", "train", "-i", f, "-c", s0, "--where", f"NOT ({same})", "-o",
                      os.path.join(OUT, "x.bjf"), "--report", report], capture_output=True, text=True)
failed = 0
if run.returncode != 0:
    print(f"FAILED: bloomjoin exited {run.returncode}: {run.stderr.strip()[:2000]}")
    failed += 1
if run.returncode != 0 or json.load(open(report))["rows_passing_where"]:
    for i, e in enumerate(exprs):
        r = subprocess.run([BIN, "-q", "train", "-i", f, "-c", s0, "--where", f"({e}) IS DISTINCT FROM want_{i}",
                            "-o", os.path.join(OUT, "y.bjf"), "--overwrite", "--report", report],
                           capture_output=True, text=True)
        rows = json.load(open(report))["rows_passing_where"] if r.returncode == 0 else r.stderr.strip()
        if rows:
            failed += 1
            print(f"FAILED {e}: {rows}")
nonnull = sum(con.execute(f"SELECT count(want_{i}) FROM '{f}'").fetchall()[0][0] for i in range(len(formats)))
print(f"strptime: {len(exprs)} expressions ({len(formats)} formats) over {N} strings each, "
      f"{nonnull} of {len(formats) * N} read by try_strptime; "
      f"{'all agree with DuckDB' if not failed else f'{failed} FAILED'}")
sys.exit(1 if failed else 0)
