"""The string functions against DuckDB's, row by row: lower, upper, length, strlen,
bit_length, ascii, unicode, chr, reverse, starts_with, ends_with, contains, strpos, substr,
left, right, trim, ltrim, rtrim, replace, concat, ||, concat_ws, split_part, lpad, rpad,
repeat, translate, levenshtein, hamming (mismatches), length_grapheme, md5, sha1, sha256;
and DOUBLEs and times cast to text.

Usage: text_func_check.py BLOOMJOIN OUT_DIR [N [SEED]]

Generates N rows (default 3,000) of strings made of pieces that count differently in bytes,
characters and grapheme clusters: ASCII, accented letters precomposed and with combining
marks, emoji with skin tones, flags and joiners, Hangul syllables and jamo, Indic conjuncts,
Thai, CR LF, space separators and random code points of every plane; short strings (so that
prefixes, separators and equal lengths meet), separators, paddings, small integers (negative
too) and code points. DuckDB computes each expression into a Parquet file beside the values;
`bloomjoin train --where` must find every row's answers equal to DuckDB's (IS NOT DISTINCT
FROM, so NULL meets NULL). The expressions that differ are printed with their count of rows.

The functions that fail on some values (`lpad` and `rpad` on an empty padding they need,
`hamming` on strings of different lengths or empty ones) are asked under a CASE that keeps
those rows away, of both engines."""
import math
import os
import random
import struct
import shutil
import sys

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

import rowcheck

BIN, OUT = sys.argv[1], sys.argv[2]
N = int(sys.argv[3]) if len(sys.argv) > 3 else 3_000
SEED = int(sys.argv[4]) if len(sys.argv) > 4 else 41
shutil.rmtree(OUT, ignore_errors=True)
os.makedirs(OUT)
rng = random.Random(SEED)

PIECES = [
    "a", "b", "c", "x", "A", "Z", "0", "7", ",", "-", " ", ",,", "ab",
    "é", "e\u0301", "ß", "İ", "Σ", "ς",
    "😀", "👍🏽", "🇫🇷", "🇩🇪", "👨\u200d👩\u200d👧", "\u200d", "\ufe0f",
    "한", "\u1100\u1161\u11a8", "\u1100", "\u11a8",
    "क्ष", "\u0915\u094d", "ि", "\u0995\u09cd\u09b7", "ก", "\u0e33", "\u0e40",
    "\r\n", "\r", "\n", "\t", "\u3000", "\u00a0", "\u0300", "\u0301\u0302",
]


def random_char():
    """A code point of any plane but the surrogates."""
    while True:
        c = rng.choice([rng.randint(0x20, 0x7E), rng.randint(0xA0, 0x2FFF), rng.randint(0x3000, 0xD7FF),
                        rng.randint(0xE000, 0xFFFD), rng.randint(0x10000, 0x10FFFF)])
        if not 0xD800 <= c <= 0xDFFF:
            return chr(c)


def random_float(single=False):
    """A float of any kind: random bits, short decimals, powers of ten around where the
    printed form turns to an exponent, integers, signed zeros, infinities and NaN (a FLOAT's
    rounded to a FLOAT)."""
    k = rng.random()
    if k < 0.05:
        return None
    if k < 0.1:
        return rng.choice([0.0, -0.0, math.inf, -math.inf, math.nan])
    if k < 0.35:
        bits = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
        v = bits if math.isfinite(bits) else 1.0
    elif k < 0.6:
        v = round(rng.uniform(-1000, 1000), rng.randint(0, 6)) * 10.0 ** rng.randint(-8, 20)
    elif k < 0.85:
        v = rng.choice([1, -1, 1.5, 9.5, 1.25, 3]) * 10.0 ** rng.randint(-7, 18)
    else:
        v = float(rng.randint(-2**60, 2**60) >> rng.randint(0, 60))
    if single:
        # The nearest FLOAT (beyond its range, a FLOAT's largest).
        v = max(-3.4e38, min(3.4e38, v))
        v = struct.unpack("<f", struct.pack("<f", v))[0]
    return v


def text(most, pieces=PIECES, null=0.05):
    if rng.random() < null:
        return None
    out = []
    for _ in range(rng.randint(0, most)):
        out.append(random_char() if rng.random() < 0.1 else rng.choice(pieces))
    return "".join(out)


SHORT = ["a", "b", ",", "é", "e\u0301", "😀", "🇫🇷", " ", "ab"]
rows = {
    "id": list(range(N)),
    "s1": [text(10) for _ in range(N)],
    "s2": [text(6) for _ in range(N)],
    "s3": [text(3, SHORT) for _ in range(N)],
    "sep": [rng.choice([",", "", "a", ",,", "é", " ", "😀", "e\u0301", None]) for _ in range(N)],
    "pad": [rng.choice(["x", "ab", "", "é😀", "🇫🇷", "e\u0301", None]) for _ in range(N)],
    "n": [None if rng.random() < 0.05 else rng.randint(-8, 12) for _ in range(N)],
    "cp": [None if rng.random() < 0.05 else ord(random_char()) if rng.random() < 0.8
           else rng.choice([0, 0x7F, 0x80, 0xFFFF, 0x10FFFF, 0xE9]) for _ in range(N)],
    "f64": [random_float() for _ in range(N)],
    "f32": [random_float(single=True) for _ in range(N)],
    "tm": [None if rng.random() < 0.05 else rng.randrange(86_400_000_000) // rng.choice([1, 10, 1000, 10**6])
           * rng.choice([1, 10, 1000, 10**6]) % 86_400_000_000 for _ in range(N)],
    "tmn": [None if rng.random() < 0.05 else rng.randrange(86_400 * 10**9) // rng.choice([1, 1000, 10**9])
            * rng.choice([1, 1000, 10**9]) % (86_400 * 10**9) for _ in range(N)],
}
table = pa.table({
    "id": pa.array(rows["id"], pa.int64()),
    "s1": pa.array(rows["s1"], pa.string()),
    # Large and view strings read alike.
    "s2": pa.array(rows["s2"], pa.large_string()),
    "s3": pa.array(rows["s3"], pa.string()),
    "sep": pa.array(rows["sep"], pa.string()),
    "pad": pa.array(rows["pad"], pa.string()),
    "n": pa.array(rows["n"], pa.int32()),
    "cp": pa.array(rows["cp"], pa.int32()),
    "f64": pa.array(rows["f64"], pa.float64()),
    "f32": pa.array(rows["f32"], pa.float32()),
    "tm": pa.array(rows["tm"], pa.time64("us")),
    "tmn": pa.array(rows["tmn"], pa.time64("ns")),
})

exprs = []
for x in ("s1", "s2", "s3"):
    exprs += [f"lower({x})", f"upper({x})", f"length({x})", f"strlen({x})", f"bit_length({x})",
              f"ascii({x})", f"unicode({x})", f"reverse({x})", f"trim({x})"]
exprs += [
    "starts_with(s1, s3)", "ends_with(s1, s3)", "contains(s1, s3)", "strpos(s1, s3)", "instr(s2, s3)",
    "prefix(s2, s3)", "suffix(s2, s3)",
    "substr(s1, n)", "substr(s1, n, 3)", "substr(s2, 2, n)", "left(s1, n)", "right(s1, n)",
    "ltrim(s1, s3)", "rtrim(s1, s3)", "trim(s2, 'a😀é')",
    "replace(s1, s3, s2)", "replace(s1, 'e\u0301', 'E')",
    "concat(s1, n, s2)", "s1 || s3", "concat_ws(sep, s1, s2, n)", "concat_ws(sep, s3, NULL, s1)",
    "concat_ws(', ', s1, s2, s3)", "concat_ws(NULL, s1)",
    "split_part(s1, sep, n)", "split_part(s2, s3, n)", "split_part(s1, '', n)", "split_part(s1, ',', -1)",
    "split_part(s2, ',,', 2)", "split_part(s1, sep, -2)",
    "CASE WHEN pad <> '' OR length(s1) >= n THEN lpad(s1, n, pad) END",
    "CASE WHEN pad <> '' OR length(s2) >= n THEN rpad(s2, n, pad) END",
    "lpad(s1, 12, 'é😀')", "rpad(s3, 4, 'ab')", "lpad(s1, n, NULL)", "CASE WHEN s3 <> '' OR length(s1) >= 3 THEN rpad(s1, 3, s3) END",
    "repeat(s3, n)", "repeat(s1, 3)", "repeat(s2, -1)",
    "translate(s1, s3, s2)", "translate(s1, 'abé', 'x😀')", "translate(s2, sep, pad)",
    "chr(cp)", "chr(n + 64)", "chr(cp) || s3",
    "levenshtein(s1, s2)", "levenshtein(s3, s1)", "levenshtein(s3, 'a😀')",
    "CASE WHEN s1 <> '' THEN hamming(s1, translate(s1, 'abc', 'xyz')) END",
    "CASE WHEN s3 <> '' THEN mismatches(s3, reverse(s3)) END",
    "CASE WHEN length(s3) = length(s2) AND s3 <> '' THEN hamming(s3, s2) END",
    "length(reverse(s1)) = length(s1)",
    "split_part(reverse(s1), ',', n) = reverse(split_part(s1, ',', -n))",
    # (A FLOAT is refused: DuckDB writes some FLOATs by their digits as a DOUBLE.)
    "CAST(f64 AS VARCHAR)", "CAST(CAST(f32 AS DOUBLE) AS VARCHAR)", "f64::VARCHAR || '|' || f32::DOUBLE",
    "concat(s3, f32::DOUBLE, n)", "concat_ws(',', f64, tm, tmn)", "CAST(tm AS VARCHAR)", "CAST(tmn AS VARCHAR)",
    "CAST(f64 / 7 AS VARCHAR)", "CAST(f64 * 3 AS VARCHAR)", "CAST(n / 3 AS VARCHAR)", "CAST(f64 / n AS VARCHAR)",
    "length_grapheme(s1)", "length_grapheme(s2)", "length_grapheme(s3 || sep)",
    "md5(s1)", "sha1(s2)", "sha256(s3 || n)", "md5(s2) < '8'",
]

con = duckdb.connect()
con.register("t", table)
wants = ", ".join(f"{e} AS want_{i}" for i, e in enumerate(exprs))
f = os.path.join(OUT, "t.parquet")
con.execute(f"COPY (SELECT *, {wants} FROM t ORDER BY id) TO '{f}'")
pq.ParquetFile(f)  # readable

failed = rowcheck.differing(BIN, f, OUT, exprs)

# reverse() of every code point between others that cluster with marks, conjuncts, emoji,
# joiners, flags, Hangul and line breaks: grapheme clusters as DuckDB's (Unicode 15.1).
AROUND = ["a{c}b{c}{c}", "\u0915\u094d{c}\u0915", "{c}\u094d\u0915", "\u0995{c}\u0995{c}\u200d{c}",
          "\U0001F600{c}\u1100{c}", "\U0001F1EB{c}\U0001F1F7", "\r{c}\n", "\u0915\u093c{c}\u094d\u0937"]
cps = [c for c in range(1, 0x110000) if not 0xD800 <= c <= 0xDFFF]
sweep = pa.table({"id": pa.array(range(len(cps)), pa.int64()), "cp": pa.array(cps, pa.int32()),
                  "s": pa.array(["".join(a.format(c=chr(c)) for a in AROUND) for c in cps], pa.string())})
con.register("sweep", sweep)
g = os.path.join(OUT, "sweep.parquet")
con.execute(f"COPY (SELECT *, reverse(s) AS want_0 FROM sweep) TO '{g}'")
del sweep
differ = rowcheck.differing(BIN, g, OUT, ["reverse(s)"])
if differ:
    failed += 1
    print(f"FAILED reverse() of every code point among others, of {len(cps)}")
distinct = con.execute(f"SELECT count(DISTINCT want_{exprs.index('reverse(s1)')}) FROM '{f}'").fetchall()[0][0]
print(f"string functions: {len(exprs)} expressions over {N} rows ({distinct} distinct reverse(s1)), and "
      f"reverse() of {len(cps)} code points; "
      f"{'all agree with DuckDB' if not failed else f'{failed} FAILED'}")
sys.exit(1 if failed else 0)
