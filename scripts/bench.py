#!/usr/bin/env python3
"""Whole-job benchmarks: bloomjoin next to baselines in the same run.

Runs every engine of a workload alternately (engine A, B, C, A, B, C, ...), `--runs` times,
and reports the median wall time, the ratio to the workload's baseline, and peak RSS (from
wait4's rusage of each run's process). Every join output is checked against DuckDB's row count.

Used by scripts/bench-train.sh and scripts/bench-join.sh; prints a markdown table and writes
JSON with every run to --json.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run(cmd, env=None):
    """Run a command; return (seconds, peak RSS bytes, stdout)."""
    with tempfile.TemporaryFile() as errf:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=errf, env=env)
        out = p.stdout.read()
        # wait4 gives this child's own rusage (ru_maxrss in KiB on Linux, including the
        # children it waited for).
        _, status, ru = os.wait4(p.pid, 0)
        dt = time.perf_counter() - t0
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            errf.seek(0)
            sys.stderr.write(errf.read().decode(errors="replace"))
            raise SystemExit(f"failed ({code}): {' '.join(cmd)}")
    return dt, ru.ru_maxrss * 1024, out.decode(errors="replace")


def py(code):
    return [sys.executable, "-c", code]


def duckdb_sql(sql, threads):
    return py(
        "import duckdb,sys; c=duckdb.connect(); c.execute('SET enable_progress_bar=false'); c.execute('SET threads=%d'); "
        "r=c.execute(sys.argv[1]).fetchall(); print(r)" % threads
    ) + [sql]


def bench(workloads, runs):
    results = []
    for wl in workloads:
        times = {e: [] for e, _ in wl["engines"]}
        rss = {e: 0 for e, _ in wl["engines"]}
        outs = {}
        for prep in wl.get("prepare", []):
            run(prep)
        for r in range(runs):
            for name, cmd in wl["engines"]:
                for path in wl.get("clean", {}).get(name, []):
                    shutil.rmtree(path, ignore_errors=True)
                    if os.path.isfile(path):
                        os.remove(path)
                dt, m, out = run(cmd)
                times[name].append(dt)
                rss[name] = max(rss[name], m)
                outs[name] = out
        check = wl.get("check")
        if check:
            check()
        base = statistics.median(times[wl["baseline"]])
        for name, _ in wl["engines"]:
            med = statistics.median(times[name])
            results.append(
                {
                    "workload": wl["name"],
                    "engine": name,
                    "median_s": med,
                    "runs_s": times[name],
                    "ratio_to_baseline": med / base,
                    "baseline": wl["baseline"],
                    "peak_rss_mib": rss[name] / 2**20,
                    "rows": wl.get("rows"),
                }
            )
    return results


def table(results):
    lines = [
        "| workload | engine | median s | x baseline | peak RSS MiB | runs (s) |",
        "|---|---|---:|---:|---:|---|",
    ]
    for r in results:
        lines.append(
            "| {workload} | {engine} | {median_s:.2f} | {ratio_to_baseline:.2f} (vs {baseline}) | {peak_rss_mib:.0f} | {runs} |".format(
                runs=", ".join(f"{t:.2f}" for t in r["runs_s"]), **r
            )
        )
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--data", required=True, help="TPC-H parquet directory")
    ap.add_argument("--work", required=True)
    ap.add_argument("--suite", choices=["train", "join"], required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    d = lambda t: os.path.join(a.data, f"{t}.parquet")
    w = lambda n: os.path.join(a.work, n)
    B = a.bin
    W = str(a.workers)
    workloads = []
    if a.suite == "train":
        li = d("lineitem")
        n = int(run(duckdb_sql(f"select count(distinct l_orderkey) from '{li}'", a.workers))[2].strip("[](),\n "))
        pn = int(run(duckdb_sql(f"select count(*) from '{d('part')}' where p_name like '%green%'", a.workers))[2].strip("[](),\n "))
        workloads.append(
            {
                "name": "train lineitem.l_orderkey",
                "baseline": "arrow-rs scan",
                "rows": n,
                "engines": [
                    ("arrow-rs scan", [B, "scan", "-q", "--input", li, "--column", "l_orderkey", "--workers", W]),
                    ("bloomjoin train W=2", [B, "train", "-q", "--input", li, "--column", "l_orderkey", "--expected-items", str(n), "--fpp", "0.01", "--workers", W, "--output", w("orderkey.bjf"), "--overwrite"]),
                    ("bloomjoin train W=1", [B, "train", "-q", "--input", li, "--column", "l_orderkey", "--expected-items", str(n), "--fpp", "0.01", "--workers", "1", "--output", w("orderkey1.bjf"), "--overwrite"]),
                    ("duckdb sum(col)", duckdb_sql(f"select sum(l_orderkey) from '{li}'", a.workers)),
                ],
            }
        )
        workloads.append(
            {
                "name": "train part.p_partkey where p_name LIKE '%green%'",
                "baseline": "arrow-rs scan",
                "rows": pn,
                "engines": [
                    ("arrow-rs scan", [B, "scan", "-q", "--input", d("part"), "--column", "p_name", "--workers", W]),
                    ("bloomjoin train W=2", [B, "train", "-q", "--input", d("part"), "--column", "p_partkey", "--where", "p_name LIKE '%green%'", "--expected-items", str(pn), "--workers", W, "--output", w("part.bjf"), "--overwrite"]),
                    ("duckdb sum(col)", duckdb_sql(f"select sum(p_partkey) from '{d('part')}' where p_name like '%green%'", a.workers)),
                ],
            }
        )
    else:
        jobs = [
            ("lineitem x part (p_name LIKE '%green%')", "part", "p_partkey", "p_name LIKE '%green%'", "lineitem", "l_partkey"),
            ("lineitem x orders (o_orderdate in 1995-03)", "orders", "o_orderkey",
             "o_orderdate >= DATE '1995-03-01' AND o_orderdate < DATE '1995-04-01'", "lineitem", "l_orderkey"),
            ("orders x customer (c_mktsegment = 'BUILDING')", "customer", "c_custkey", "c_mktsegment = 'BUILDING'", "orders", "o_custkey"),
        ]
        for name, lt, lk, where, rt, rk in jobs:
            sql_where = where.replace("DATE '", "DATE '")
            q = f"select * from '{d(lt)}' l join '{d(rt)}' r on l.{lk} = r.{rk} where {sql_where}"
            expected = int(run(duckdb_sql(f"select count(*) from ({q})", a.workers))[2].strip("[](),\n "))
            filt = w(f"{lt}.bjf")
            train = [B, "train", "-q", "--input", d(lt), "--column", lk, "--where", where, "--workers", W, "--output", filt, "--overwrite"]
            out_b, out_d, out_p = w(f"{lt}-bj"), w(f"{lt}-duck.parquet"), w(f"{lt}-polars.parquet")
            join = [B, "join", "-q", "--filter", filt, "--left", d(lt), "--left-key", lk, "--left-where", where,
                    "--right", d(rt), "--right-key", rk, "--workers", W, "--output", out_b, "--overwrite",
                    "--report", w(f"{lt}-report.json")]
            both = ["sh", "-c", " ".join("'" + x.replace("'", "'\\''") + "'" for x in train) + " && " +
                    " ".join("'" + x.replace("'", "'\\''") + "'" for x in join)]
            duck = py(
                "import duckdb,sys; c=duckdb.connect(); c.execute('SET enable_progress_bar=false'); c.execute('SET threads=%d'); "
                "c.execute(\"COPY (\" + sys.argv[1] + \") TO '\" + sys.argv[2] + \"' (FORMAT parquet, COMPRESSION zstd)\")" % a.workers
            ) + [q, out_d]
            pw = where.replace("DATE '1995-03-01'", "'1995-03-01'").replace("DATE '1995-04-01'", "'1995-04-01'")
            polars = py(
                "import os,sys; os.environ['POLARS_MAX_THREADS']=sys.argv[6]\n"
                "import polars as pl\n"
                "l=pl.scan_parquet(sys.argv[1]).sql('select * from self where '+sys.argv[2])\n"
                "r=pl.scan_parquet(sys.argv[3])\n"
                "l.join(r,left_on=sys.argv[4],right_on=sys.argv[5]).sink_parquet(sys.argv[7],compression='zstd')"
            ) + [d(lt), pw, d(rt), lk, rk, W, out_p]

            def check(out_b=out_b, out_d=out_d, out_p=out_p, expected=expected, name=name):
                got = int(run(duckdb_sql(f"select count(*) from '{out_b}/part-*.parquet'", 2))[2].strip("[](),\n "))
                dd = int(run(duckdb_sql(f"select count(*) from '{out_d}'", 2))[2].strip("[](),\n "))
                pp = int(run(duckdb_sql(f"select count(*) from '{out_p}'", 2))[2].strip("[](),\n "))
                if not (got == dd == pp == expected):
                    raise SystemExit(f"{name}: row counts differ: bloomjoin {got}, duckdb {dd}, polars {pp}, expected {expected}")

            workloads.append(
                {
                    "name": name,
                    "baseline": "duckdb",
                    "rows": expected,
                    "prepare": [train],
                    "engines": [
                        ("bloomjoin join", join),
                        ("bloomjoin train+join", both),
                        ("duckdb", duck),
                        ("polars", polars),
                    ],
                    "check": check,
                }
            )
    results = bench(workloads, a.runs)
    print(table(results))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
