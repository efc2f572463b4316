#!/usr/bin/env python3
"""What a function costs in a `--where`: TPC-H lineitem, one condition at a time.

For each condition, `bloomjoin train --input lineitem.parquet --column l_orderkey --where COND`
as a whole process (wall, user CPU and peak RSS by /usr/bin/time), next to
the baseline written without the function (the same rows or the same column read), and
DuckDB's `SELECT count(*) FROM lineitem WHERE COND` timed in this process on 2 threads.
Engines alternate, RUNS rounds, medians. The rows passing (the train report's
`rows_passing_where`) must equal DuckDB's count, or the script fails.

A second table runs the same case mappings on a copy of `l_comment` with one non-ASCII
character per value (written once into the work directory), where the per-character Unicode
path runs instead of the ASCII one.

    scripts/bench-where.sh [SCALE] [RUNS]      (sets up the venv, the data and the binary)
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb

# (name, condition, baseline condition): the baseline reads the same columns without the
# function.
CASES = [
    ("lower LIKE", "lower(l_comment) LIKE '%green%'", "l_comment LIKE '%green%'"),
    ("ILIKE", "l_comment ILIKE '%green%'", "l_comment LIKE '%green%'"),
    ("upper =", "upper(l_shipmode) = 'AIR'", "l_shipmode = 'AIR'"),
    ("lower = lower", "lower(l_comment) = lower(l_comment)", "l_comment = l_comment"),
    ("length", "length(l_comment) > 40", "l_comment IS NOT NULL"),
    ("IS NOT DISTINCT FROM", "l_shipmode IS NOT DISTINCT FROM 'AIR'", "l_shipmode = 'AIR'"),
    ("starts_with", "starts_with(l_comment, 'ly')", "l_comment LIKE 'ly%'"),
    ("contains", "contains(l_comment, 'green')", "l_comment LIKE '%green%'"),
    ("substr =", "substr(l_shipmode, 1, 3) = 'AIR'", "l_shipmode LIKE 'AIR%'"),
    ("left =", "left(l_comment, 2) = 'ly'", "l_comment LIKE 'ly%'"),
    ("strpos", "strpos(l_comment, 'green') > 0", "l_comment LIKE '%green%'"),
    ("trim =", "trim(l_comment) = l_comment", "l_comment = l_comment"),
    ("replace LIKE", "replace(l_comment, 'green', 'blue') LIKE '%blue%'", "l_comment LIKE '%green%'"),
    ("|| =", "l_shipmode || l_shipinstruct = 'AIRNONE'", "l_shipmode = 'AIR' AND l_shipinstruct = 'NONE'"),
    ("regexp_matches", "regexp_matches(l_comment, 'gre+n')", "l_comment LIKE '%green%'"),
    ("~ anchored", "l_comment ~ '^ly'", "l_comment LIKE 'ly%'"),
    ("~* word", r"l_comment ~* '\bgreen\b'", "l_comment LIKE '%green%'"),
    ("regexp_full_match", "regexp_full_match(l_shipmode, 'AIR|RAIL')", "l_shipmode IN ('AIR', 'RAIL')"),
    ("regexp_extract =", r"regexp_extract(l_comment, '^(\w+)', 1) = 'carefully'", "l_comment LIKE 'carefully%'"),
    ("regexp_replace LIKE", r"regexp_replace(l_comment, '\s+', '', 'g') LIKE '%greenly%'", "l_comment LIKE '%green%'"),
    (
        "year",
        "year(l_shipdate) = 1995",
        "l_shipdate >= DATE '1995-01-01' AND l_shipdate < DATE '1996-01-01'",
    ),
    ("% =", "l_orderkey % 10 = 0", "l_orderkey IS NOT NULL"),
    ("CAST AS INTEGER =", "CAST(l_extendedprice AS INTEGER) = 1000",
     "l_extendedprice >= 999.5 AND l_extendedprice < 1000.5"),
    ("CAST AS VARCHAR LIKE", "CAST(l_orderkey AS VARCHAR) LIKE '12%'", "l_orderkey IS NOT NULL"),
    ("CAST date AS VARCHAR LIKE", "CAST(l_shipdate AS VARCHAR) LIKE '1995-%'",
     "l_shipdate >= DATE '1995-01-01' AND l_shipdate < DATE '1996-01-01'"),
    ("TRY_CAST string AS INTEGER", "TRY_CAST(l_linenumber || '' AS INTEGER) = 3", "l_linenumber = 3"),
    # DOUBLE arithmetic: `/` of decimals, a product after a cast, against exact arithmetic.
    ("/ of decimals (DOUBLE) >", "l_extendedprice / l_quantity > 1000", "l_extendedprice > 1000 * l_quantity"),
    ("DOUBLE * >", "CAST(l_extendedprice AS DOUBLE) * (1 - l_discount) > 50000",
     "l_extendedprice * (1 - l_discount) > 50000"),
    ("TRY_CAST string AS DOUBLE", "TRY_CAST(l_linenumber || '' AS DOUBLE) = 3", "l_linenumber = 3"),
    # Numeric functions: exact rounding of decimals, a DOUBLE function, floor of a quotient.
    ("round of decimals (math)", "round(l_extendedprice * (1 - l_discount), 0) > 50000",
     "l_extendedprice * (1 - l_discount) >= 50000.5"),
    ("sqrt (math)", "sqrt(l_quantity) > 5", "l_quantity > 25"),
    # Row groups skipped by the condition's statistics: the baseline adds 0, which the
    # statistics do not judge, and reads every row group.
    ("range of the sorted key (statistics)", "l_orderkey < 100000", "l_orderkey + 0 < 100000"),
    ("BETWEEN on the sorted key (statistics)", "l_orderkey BETWEEN 3000000 AND 3100000",
     "l_orderkey + 0 BETWEEN 3000000 AND 3100000"),
    # Pages skipped by the page index within the row group kept: 2 of its 6 pages read.
    ("narrow BETWEEN on the sorted key (statistics, page index)",
     "l_orderkey BETWEEN 3000000 AND 3010000", "l_orderkey + 0 BETWEEN 3000000 AND 3010000"),
    ("floor of / (math)", "floor(l_extendedprice / l_quantity) = 1000",
     "l_extendedprice >= 1000 * l_quantity AND l_extendedprice < 1001 * l_quantity"),
    # A cast that fails on most rows, kept from them by a guard: every batch fails on the
    # fast path and is evaluated again through the guards (expr::lazy).
    ("guarded CAST (AND)", "l_quantity < 10 AND CAST(l_extendedprice AS SMALLINT) > 10000",
     "l_quantity < 10 AND l_extendedprice > 10000"),
    ("guarded CAST (CASE)", "CASE WHEN l_quantity < 10 THEN CAST(l_extendedprice AS SMALLINT) END > 10000",
     "l_quantity < 10 AND l_extendedprice > 10000"),
]

# The same on a column whose every value holds one non-ASCII character ('é' replaces the
# first 'e'; values without one get ' é' at the end).
UNICODE_CASES = [
    ("lower LIKE (Unicode)", "lower(c) LIKE '%green%'", "c LIKE '%green%'"),
    ("ILIKE (Unicode)", "c ILIKE '%GREEN%'", "c LIKE '%green%'"),
    ("upper = (Unicode)", "upper(c) = c", "c = c"),
    ("length (Unicode)", "length(c) > 40", "c IS NOT NULL"),
    ("substr = (Unicode)", "substr(c, 2, 4) = 'ly é'", "c LIKE '_ly é%'"),
    ("strpos (Unicode)", "strpos(c, 'green') > 0", "c LIKE '%green%'"),
]


def child(cmd: list[str], tmp: str) -> tuple[float, float, float]:
    """Runs cmd; its wall seconds, and its user CPU seconds and peak RSS in MiB by /usr/bin/time."""
    t = Path(tmp) / "time"
    start = time.perf_counter()
    if subprocess.run(["/usr/bin/time", "-f", "%U %M", "-o", str(t), *cmd]).returncode:
        sys.exit(f"failed: {' '.join(cmd)}")
    wall = time.perf_counter() - start
    user, rss = t.read_text().split()[-2:]
    return wall, float(user), int(rss) / 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--tpch", required=True, help="the TPC-H directory (lineitem.parquet)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", help="run only the cases whose name contains this")
    a = ap.parse_args()
    lineitem = str(Path(a.tpch) / "lineitem.parquet")
    con = duckdb.connect()
    con.execute("SET threads = 2")
    with tempfile.TemporaryDirectory() as w:
        uni = str(Path(w) / "unicode.parquet")
        con.execute(
            f"""COPY (SELECT l_orderkey, CASE WHEN position('e' IN l_comment) > 0
                  THEN regexp_replace(l_comment, 'e', 'é') ELSE l_comment || ' é' END AS c
                  FROM '{lineitem}') TO '{uni}' (FORMAT parquet, COMPRESSION snappy)"""
        )
        out, report = str(Path(w) / "f.bf"), str(Path(w) / "r.json")
        for title, path, cases in (
            ("TPC-H lineitem (ASCII)", lineitem, CASES),
            ("l_comment with one non-ASCII character a value", uni, UNICODE_CASES),
        ):
            cases = [c for c in cases if a.only is None or a.only in c[0]]
            if not cases:
                continue
            conds = list(dict.fromkeys(c for _, f, b in cases for c in (f, b)))
            times: dict[str, list[tuple[float, float, float]]] = {c: [] for c in conds}
            duck: dict[str, list[float]] = {c: [] for c in conds}
            rows: dict[str, int] = {}
            for _ in range(a.runs):
                for c in conds:
                    times[c].append(
                        child(
                            [a.bin, "train", "-q", "--input", path, "--column", "l_orderkey",
                             "--where", c, "--output", out, "--overwrite", "--report", report],
                            w,
                        )
                    )
                    got = json.loads(Path(report).read_text())["rows_passing_where"]
                    t = time.perf_counter()
                    want = con.execute(f"SELECT count(*) FROM '{path}' WHERE {c}").fetchone()[0]
                    duck[c].append(time.perf_counter() - t)
                    if got != want:
                        sys.exit(f"{c}: bloomjoin passes {got} rows, DuckDB {want}")
                    rows[c] = got
            med = {c: [statistics.median(x[i] for x in times[c]) for i in range(3)] for c in conds}
            dmed = {c: statistics.median(duck[c]) for c in conds}
            print(f"\n{title}: medians of {a.runs} runs\n")
            print("| condition | wall | user | peak RSS | rows | baseline wall | ratio | DuckDB |")
            print("|---|---:|---:|---:|---:|---:|---:|---:|")
            for _, f, b in cases:
                (wf, uf, rf), (wb, _, _) = med[f], med[b]
                print(
                    f"| `{f}` | {wf:.3f} s | {uf:.2f} s | {rf:.0f} MiB | {rows[f]:,} | "
                    f"{wb:.3f} s | {wf / wb:.2f}x | {dmed[f]:.3f} s |"
                )


if __name__ == "__main__":
    main()
