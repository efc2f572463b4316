"""CAST of a string column to DATE, TIMESTAMP, TIME and TIMESTAMPTZ against DuckDB's casts.

Usage: strtime_check.py BLOOMJOIN OUT_DIR [N [SEED]]

Generates N strings (default 20,000) near and around the shapes DuckDB's casts read: dates
with one to twelve year digits, one to three month and day digits, every separator, ` (BC)`,
signs, spaces and tabs, `infinity`, `inf`, `epoch`; then times (hours of up to ten digits,
minutes and seconds of up to three, fractions of up to eleven), `T`, offsets and zones, and
trailing text; and times of day alone. DuckDB computes TRY_CAST of each to the three types,
in a Parquet file beside the string; `bloomjoin train --where` must find every row's three
casts equal to DuckDB's (IS NOT DISTINCT FROM, so NULL meets NULL). The differing strings are
printed. Then CAST (not TRY_CAST) must fail, naming the column, for a string TRY_CAST gives
NULL, and pass for the ones it reads. TIMESTAMPTZ is checked the same way over the strings
without a time zone's name or with one bloomjoin reads (`America/New_York`, `EST5EDT`, ICU's
`UTC+02` and `PST`, ...: the wall-clock time there); one with a name it does not read must be
refused, even by TRY_CAST (scripts/zone_check.py compares the names themselves).

Not generated: a UTC offset followed by a colon (`+05:30:`). There DuckDB reads past the end
of the string: the same text is a timestamp or NULL depending on the bytes after it in memory
(over an Arrow table, the next string), and `'...+05:30: x'` is a timestamp to DuckDB 2.0.1
where its source of August 2026, which bloomjoin follows, rejects it."""
import json
import os
import random
import re
import shutil
import subprocess
import sys

import duckdb
import pyarrow as pa

BIN, OUT = sys.argv[1], sys.argv[2]
N = int(sys.argv[3]) if len(sys.argv) > 3 else 20_000
SEED = int(sys.argv[4]) if len(sys.argv) > 4 else 11
shutil.rmtree(OUT, ignore_errors=True)
os.makedirs(OUT)
rng = random.Random(SEED)
SPACES = [" ", " ", "\t", "  ", "\n", "\r", "\x0b"]


def digits(lo, hi, lead=0.1):
    n = rng.randint(lo, hi)
    s = "".join(rng.choice("0123456789") for _ in range(n))
    if rng.random() < lead:
        s = "0" * rng.randint(1, 4) + s
    return s


def pick(*weighted):
    """One of (weight, thunk-or-value)."""
    total = sum(w for w, _ in weighted)
    r = rng.random() * total
    for w, v in weighted:
        r -= w
        if r < 0:
            return v() if callable(v) else v
    return weighted[-1][1]


def year():
    return pick((6, lambda: str(rng.choice([1970, 2020, 2024, 1, 9999, 1969, 2000, 1600, 0, 10000]))),
                (3, lambda: digits(1, 12, 0.2)),
                (1, lambda: str(rng.choice([5881580, 5877641, 5877642, 99999999, 100000000, 292278]))))


def md(hi):
    return pick((6, lambda: str(rng.randint(1, hi)).zfill(rng.choice([1, 2, 2, 2]))),
                (2, lambda: str(rng.choice([0, 13, 29, 30, 31, 32, 99]))),
                (1, lambda: digits(0, 3, 0.3)))


def date():
    if rng.random() < 0.08:
        word = rng.choice(["infinity", "inf", "INF", "Infinity", "infin", "epoch", "EPOCH", "epo",
                           "infinityx", "epochs", "nan", "today"])
        return rng.choice(["", "", "-", "+"]) + word
    sep = pick((8, "-"), (2, "/"), (1, "\\"), (1, " "), (1, "."), (0.5, "x"))
    sep2 = sep if rng.random() < 0.9 else rng.choice("-/ .")
    s = rng.choice(["", "", "", "-", "+"]) + year() + sep + md(12) + sep2 + md(31)
    if rng.random() < 0.08:
        s += rng.choice([" (BC)", " (bc)", " (Bc)", "(BC)", " (BC", "  (BC)", " (AD)", "\t(BC)"])
    return s


def clock(hours=None):
    h = hours or pick((8, lambda: str(rng.randint(0, 23)).zfill(rng.choice([1, 2, 2]))),
                      (2, lambda: str(rng.choice([24, 25, 99, 100]))),
                      (1, lambda: digits(1, 10, 0.2)))
    s = h + ":"
    r = rng.random()
    if r < 0.03:
        return s
    s += pick((8, lambda: str(rng.randint(0, 59)).zfill(rng.choice([1, 2, 2]))), (1, "60"), (1, lambda: digits(0, 3)))
    r = rng.random()
    if r < 0.2:
        return s
    s += ":"
    if rng.random() < 0.03:
        return s
    s += pick((8, lambda: str(rng.randint(0, 59)).zfill(rng.choice([1, 2, 2]))), (1, "60"), (1, lambda: digits(0, 3)))
    if rng.random() < 0.4:
        s += "." + digits(0, 11, 0)
    return s


def zone():
    return pick((3, "Z"), (2, lambda: rng.choice("+-") + digits(1, 2, 0)),
                (2, lambda: rng.choice("+-") + digits(2, 2, 0) + rng.choice([":", ""]) + digits(1, 2, 0)),
                (1, lambda: rng.choice("+-") + digits(2, 2, 0) + ":" + digits(2, 2, 0) + ":" + digits(1, 2, 0)),
                (2, lambda: " " + rng.choice(["UTC", "utc", "America/New_York", "Europe/Berlin", "Foo/Bar",
                                               "Etc/GMT+5", "EST5EDT", "x y", "", "GMT", "Etc/UTC", "zulu",
                                               "UTC+02", "Etc/GMT-0", "PST", "Asia/Kathmandu",
                                               "australia/lord_howe", "SystemV/EST5EDT"])),
                (1, lambda: rng.choice(["z", "+", "-", " +05", "+05 ", "+5:30", "+05:3", "Zx", " ~", " Z", "Z "])))


def text():
    r = rng.random()
    if r < 0.12:
        s = clock() + (zone() if rng.random() < 0.2 else "") + (rng.choice(["", " x", "abc", "  "]) if rng.random() < 0.2 else "")
    elif r < 0.5:
        s = date()
    else:
        s = date() + rng.choice([" ", " ", "T", "t", "  ", "\t", "", "_"]) + clock()
        if rng.random() < 0.35:
            s += zone()
    if rng.random() < 0.15:
        s = rng.choice(SPACES) + s
    if rng.random() < 0.15:
        s += rng.choice(SPACES + ["x", "1", "ab", " 1", "."])
    return s


strings = sorted({text() for _ in range(N)} | {
    "", " ", "2024-01-05", "2024-1-5", " 2024-01-05 ", "2024/01/05", "2024 01 05", "2024\\01\\05",
    "2024-01-05abc", "2024-01-05 12:34", "2024-01-05T12:34", "2024-01-0512", "24-01-05",
    "-2024-01-05", "2024-01-05 (BC)", "0-01-05 (BC)", "infinity", "-infinity", "epoch", " Infinity ",
    "2024-02-30", "2024-01-05 25:00:00", "2024-01-05 24:00:00", "2024-01-05 12:00:00+05",
    "2024-01-05 12:00:00 America/New_York", "12:00:00+05", "25:00:00", "24:00:00", "1:2:3",
    "12:34:56.1234567", "5881580-07-10", "5881580-07-11", "-5877641-06-25", "5881580-07-10 12:00",
    "294247-01-10 04:00:54.775806", "294247-01-10 04:00:54.775807", "-290308-12-21 19:59:05.224193 (BC)",
})
t = pa.table({"id": pa.array(range(len(strings)), pa.int64()), "s": pa.array(strings, pa.string())})
con = duckdb.connect()
con.execute("SET TimeZone = 'UTC'")
con.register("strings", t)
f = os.path.join(OUT, "s.parquet")
con.execute(f"""COPY (SELECT id, s, TRY_CAST(s AS DATE) AS want_d, TRY_CAST(s AS TIMESTAMP) AS want_ts,
                 TRY_CAST(s AS TIME) AS want_t FROM strings ORDER BY id) TO '{f}'""")
read = {k: con.execute(f"SELECT count(*) FROM '{f}' WHERE {k} IS NOT NULL").fetchone()[0]
        for k in ("want_d", "want_ts", "want_t")}

same = ("TRY_CAST(s AS DATE) IS NOT DISTINCT FROM want_d AND TRY_CAST(s AS TIMESTAMP) IS NOT "
        "DISTINCT FROM want_ts AND TRY_CAST(s AS TIME) IS NOT DISTINCT FROM want_t")
report = os.path.join(OUT, "r.json")
run = subprocess.run([BIN, "-q", "train", "-i", f, "-c", "id", "--where", f"NOT ({same})", "-o",
                      os.path.join(OUT, "x.bjf"), "--report", report], capture_output=True, text=True)
failed = 0
if run.returncode != 0:
    print(f"FAILED: bloomjoin exited {run.returncode}: {run.stderr.strip()}")
    failed += 1
else:
    differ = json.load(open(report))["rows_passing_where"]
    if differ:
        failed += 1
        # Which: each cast alone, for the first strings of each.
        for ty, col in (("DATE", "want_d"), ("TIMESTAMP", "want_ts"), ("TIME", "want_t")):
            out = os.path.join(OUT, f"differ-{ty}")
            subprocess.run([BIN, "-q", "filter", "-i", f, "-k", "id", "--filter", os.path.join(OUT, "x.bjf"),
                            "--where", f"TRY_CAST(s AS {ty}) IS DISTINCT FROM {col}", "-o", out,
                            "--select", "id,s", "--report", os.path.join(OUT, "fr.json")], check=True)
            rows = json.load(open(os.path.join(OUT, "fr.json")))["rows_out"]
            if rows:
                shown = con.execute(f"SELECT s, {col}::VARCHAR FROM '{f}' WHERE id IN (SELECT id FROM "
                                    f"'{out}/*.parquet') LIMIT 8").fetchall()
                print(f"FAILED {ty}: {rows} strings differ, e.g. (string, DuckDB): {shown}")
        print(f"FAILED: {differ} of {len(strings)} strings cast differently")

# CAST fails for a string TRY_CAST makes NULL, naming the column; it passes where all are read.
for ty, col in (("DATE", "want_d"), ("TIMESTAMP", "want_ts"), ("TIME", "want_t")):
    bad = con.execute(f"SELECT id FROM '{f}' WHERE {col} IS NULL AND s IS NOT NULL LIMIT 1").fetchone()
    good = con.execute(f"SELECT min(id), max(id) FROM '{f}' WHERE {col} IS NOT NULL").fetchone()
    if bad:
        run = subprocess.run([BIN, "-q", "train", "-i", f, "-c", "id", "--where",
                              f"id = {bad[0]} AND CAST(s AS {ty}) IS NOT NULL", "-o", os.path.join(OUT, "y.bjf")],
                             capture_output=True, text=True)
        err = run.stderr.strip()
        if run.returncode != 2 or 'column "s" holds' not in err or "\n" in err or os.path.exists(os.path.join(OUT, "y.bjf")):
            print(f"FAILED CAST(s AS {ty}) of a string it does not read: exit {run.returncode}: {err}")
            failed += 1
    ok = subprocess.run([BIN, "-q", "train", "-i", f, "-c", "id", "--where",
                         f"{col} IS NOT NULL AND CAST(s AS {ty}) = {col}", "-o", os.path.join(OUT, "z.bjf"),
                         "--overwrite", "--report", report], capture_output=True, text=True)
    if ok.returncode != 0 or json.load(open(report))["rows_passing_where"] != read[col.replace("want_", "want_")]:
        print(f"FAILED CAST(s AS {ty}) of the strings it reads: exit {ok.returncode}: {ok.stderr.strip()}")
        failed += 1
# TIMESTAMPTZ: the instant, the offset subtracted; after a zone's name, the wall-clock time
# there (the bundled database's, expr::zone). A name bloomjoin does not read is refused, even
# by TRY_CAST: those strings are checked to fail, the others to agree.
UTC_NAMES = {n.lower() for n in ["UTC", "GMT", "UCT", "Universal", "Zulu", "Greenwich", "GMT0", "GMT+0",
                                 "GMT-0", "Etc/UTC", "Etc/GMT", "Etc/UCT", "Etc/Universal", "Etc/Zulu",
                                 "Etc/Greenwich", "Etc/GMT0", "Etc/GMT+0", "Etc/GMT-0"]}


# The generated names bloomjoin reads (zone(): IANA names, ICU's `UTC+02` and its legacy `PST`).
KNOWN_NAMES = {"america/new_york", "europe/berlin", "etc/gmt+5", "est5edt", "utc+02", "asia/kathmandu",
               "australia/lord_howe", "pst"}


def zone_name(s):
    """The time zone's name after a timestamp's time, in lowercase; None where there is none."""
    m = re.search(r"\d:[\d:.]*\s*(?:Z|[+-][\d:]*)?[ ]([A-Za-z][A-Za-z0-9_/+\-:]*)", s)
    return m.group(1).lower() if m else None


def named(s):
    """Whether a time zone's name after a timestamp's time is one the bundled database lacks."""
    n = zone_name(s)
    return n is not None and n not in UTC_NAMES | KNOWN_NAMES


def known_zone(s):
    """Whether a zone's name the database holds follows a timestamp's time."""
    return zone_name(s) in KNOWN_NAMES


tz_strings = [x for x in strings if not named(x)]
zoned = [x for x in strings if named(x)]
tz = pa.table({"id": pa.array(range(len(tz_strings)), pa.int64()), "s": pa.array(tz_strings, pa.string())})
con.execute("SELECT 1").fetchall()  # no unfinished result before register
con.register("tz_strings", tz)
ftz = os.path.join(OUT, "tz.parquet")
con.execute(f"COPY (SELECT id, s, TRY_CAST(s AS TIMESTAMPTZ) AS want_tz FROM tz_strings ORDER BY id) TO '{ftz}'")
read["want_tz"] = con.execute(f"SELECT count(*) FROM '{ftz}' WHERE want_tz IS NOT NULL").fetchone()[0]
run = subprocess.run([BIN, "-q", "train", "-i", ftz, "-c", "id", "--where",
                      "TRY_CAST(s AS TIMESTAMPTZ) IS DISTINCT FROM want_tz", "-o", os.path.join(OUT, "tz.bjf"),
                      "--report", report], capture_output=True, text=True)
if run.returncode != 0:
    print(f"FAILED TIMESTAMPTZ: bloomjoin exited {run.returncode}: {run.stderr.strip()}")
    failed += 1
elif differ := json.load(open(report))["rows_passing_where"]:
    out = os.path.join(OUT, "differ-TIMESTAMPTZ")
    subprocess.run([BIN, "-q", "filter", "-i", ftz, "-k", "id", "--filter", os.path.join(OUT, "tz.bjf"),
                    "-o", out, "--select", "id,s"], check=True)
    shown = con.execute(f"SELECT s, want_tz::VARCHAR FROM '{ftz}' WHERE id IN (SELECT id FROM "
                        f"'{out}/*.parquet') LIMIT 8").fetchall()
    print(f"FAILED TIMESTAMPTZ: {differ} of {len(tz_strings)} strings cast differently, e.g. (string, DuckDB): {shown}")
    failed += 1
bad = con.execute(f"SELECT id FROM '{ftz}' WHERE want_tz IS NULL AND s IS NOT NULL LIMIT 1").fetchone()
checks = [(ftz, f"id = {bad[0]} AND CAST(s AS TIMESTAMPTZ) IS NOT NULL", 'column "s" holds')]
# A zone's name bloomjoin does not read that DuckDB reads (ICU's `SystemV/EST5EDT`), alone in a
# file: refused, even by TRY_CAST.
zoned_read = [x for x in zoned if con.execute("SELECT TRY_CAST(? AS TIMESTAMPTZ)", [x]).fetchone()[0] is not None]
if zoned_read:
    fz = os.path.join(OUT, "zoned.parquet")
    con.execute("SELECT 1").fetchall()
    con.register("zoned", pa.table({"id": [0], "s": [zoned_read[0]]}))
    con.execute(f"COPY zoned TO '{fz}'")
    checks.append((fz, "TRY_CAST(s AS TIMESTAMPTZ) IS NULL", "names a time zone the bundled time zone database does not know"))
else:
    print("FAILED: no generated string names a time zone DuckDB reads and the database lacks")
    failed += 1
for f_, where, says in checks:
    run = subprocess.run([BIN, "-q", "train", "-i", f_, "-c", "id", "--where", where, "-o",
                          os.path.join(OUT, "y.bjf")], capture_output=True, text=True)
    err = run.stderr.strip()
    if run.returncode != 2 or says not in err or "\n" in err or os.path.exists(os.path.join(OUT, "y.bjf")):
        print(f"FAILED TIMESTAMPTZ refusal ({where} over {f_}): exit {run.returncode}: {err}")
        failed += 1
ok = subprocess.run([BIN, "-q", "train", "-i", ftz, "-c", "id", "--where",
                     "want_tz IS NOT NULL AND CAST(s AS TIMESTAMPTZ) = want_tz", "-o", os.path.join(OUT, "z.bjf"),
                     "--overwrite", "--report", report], capture_output=True, text=True)
if ok.returncode != 0 or json.load(open(report))["rows_passing_where"] != read["want_tz"]:
    print(f"FAILED CAST(s AS TIMESTAMPTZ) of the strings it reads: exit {ok.returncode}: {ok.stderr.strip()}")
    failed += 1
print(f"CAST of strings: {len(strings)} strings, DuckDB reads {read['want_d']} as dates, {read['want_ts']} "
      f"as timestamps, {read['want_t']} as times, {read['want_tz']} of the {len(tz_strings)} without a zone's "
      f"name the database lacks as timestamps with time zone ({sum(map(known_zone, tz_strings))} of them "
      f"with one it holds; {len(zoned)} with one it lacks, refused); "
      f"{'all agree' if not failed else f'{failed} checks FAILED'}")
sys.exit(1 if failed else 0)
