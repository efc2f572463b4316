#!/usr/bin/env python3
"""Whole-job benchmarks: bloomjoin next to its peers in the same run (scripts/bench.sh).

Runs every engine of a workload alternately (engine A, B, C, A, B, C, ...), `--runs` times,
and reports the median wall time, the median CPU seconds (user + system), the ratios to the
workload's baseline (and, for joins, to the faster of DuckDB and Polars), and peak RSS (from
wait4's rusage of each run's process). The joins run with a narrow projection (8 to 12
columns) and with `*`, bloomjoin with both strategies (replicated, the default on one machine
here, and reduce-side), and each goal of issue 13 is printed MET or NOT MET. Polars runs twice:
as it comes, and with its runtime join filters off ("polars, runtime join filters off"), the
filter of the build side's keys that Polars 2.1 pushes into the probe side's scan; the goals
use the first, and the second is reported next to them.
Spark (scripts/bench_spark.py) is timed as a whole process, JVM start included; the time of
its query alone, measured inside the process, is a row of its own ("query alone").

Every join output is checked against DuckDB's: row count, and per column (by name) the sum
of the hashes of its values as text, plus the same over whole rows; a mismatch exits
non-zero naming the workload, engine and columns.

Writes a markdown section into --doc (between `<!-- bench:begin sfN -->` and
`<!-- bench:end sfN -->`, replaced on rerun), the chart --chart, and every run to --json.

This process starts every timed command, so it must stay small: a child's peak RSS includes
the peak RSS of the process that spawned it (the kernel carries it over at exec), so the
driver's own peak is a floor under every measurement (printed with the results). DuckDB
runs in child processes; matplotlib is imported after the last run.
"""
import argparse
import datetime
import json
import math
import os
import re
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

import bench_s3

HERE = os.path.dirname(os.path.abspath(__file__))
SCAN, DUCKDB, POLARS, SPARK = "arrow-rs scan", "duckdb", "polars", "spark local[2]"
SCAN_WHERE_COLUMN = "arrow-rs scan of the --where column alone"
TRAIN_FPP = "bloomjoin train --fpp alone W=2"
TRAIN_W2, TRAIN_W1 = "bloomjoin train --expected-items W=2", "bloomjoin train --expected-items W=1"
TRAIN_REPLACE = "bloomjoin train --fpp alone W=2 --overwrite"
JOIN, TRAIN_JOIN = "bloomjoin join", "bloomjoin train+join"
JOIN_REDUCE = "bloomjoin join reduce-side"
# The join without --filter: it builds its filter from the left side (the whole job on one machine).
JOIN_BUILT = "bloomjoin join built-filter"
QUERY_ALONE = " (query alone)"
# Polars 2.1 pushes a runtime filter of the build side's keys into the probe side's Parquet
# scan, as our prefilter does; this engine turns that off, to show what it is worth to Polars.
POLARS_NO_RF = "polars, runtime join filters off"


def run(cmd):
    """Run a command; return (seconds, peak RSS bytes, stdout, CPU seconds)."""
    with tempfile.TemporaryFile() as errf:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=errf)
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
    return dt, ru.ru_maxrss * 1024, out.decode(errors="replace"), ru.ru_utime + ru.ru_stime


def py(code):
    return [sys.executable, "-c", code]


DUCKDB_SETUP = "import duckdb,json,sys; c=duckdb.connect(); c.execute('SET enable_progress_bar=false'); "


def duckdb_timed(sql, threads):
    """The timed DuckDB engine: run sql (a query, or a COPY) and print its result."""
    return py(DUCKDB_SETUP + f"c.execute('SET threads={threads}'); print(c.execute(sys.argv[1]).fetchall())") + [sql]


def duckdb_rows(sql):
    """Untimed helper query in a child process: its rows as dicts."""
    code = DUCKDB_SETUP + (
        "cur=c.execute(sys.argv[1]); names=[d[0] for d in cur.description]; "
        "print(json.dumps([dict(zip(names, r)) for r in cur.fetchall()], default=str))"
    )
    return json.loads(run(py(code) + [sql])[2])


def checksum(files):
    """count(*), and per column name sum(hash(value as text)), plus one over whole rows (the
    columns in name order), of the Parquet files matching a glob. Text makes the sums
    independent of the physical types engines pick (Int32/Int64, string views, ...)."""
    src = f"read_parquet('{files}')"
    names = sorted(r["column_name"] for r in duckdb_rows(f"DESCRIBE SELECT * FROM {src}"))
    text = [f'CAST("{n}" AS VARCHAR)' for n in names]
    sums = [f'sum(hash({t})) AS "{n}"' for t, n in zip(text, names)]
    sql = f"SELECT count(*) AS \"count(*)\", {', '.join(sums)}, sum(hash({', '.join(text)})) AS \"(whole rows)\" FROM {src}"
    return duckdb_rows(sql)[0]


def scalar(sql):
    return next(iter(duckdb_rows(sql)[0].values()))


def bench(workloads, runs):
    results = []
    for wl in workloads:
        print(f"{wl['name']}: {', '.join(e for e, _ in wl['engines'])} x {runs}", file=sys.stderr, flush=True)
        times = {e: [] for e, _ in wl["engines"]}
        cpu = {e: [] for e, _ in wl["engines"]}
        query_times = {}
        rss = {e: 0 for e, _ in wl["engines"]}
        for prep in wl.get("prepare", []):
            run(prep)
        for _ in range(runs):
            for name, cmd in wl["engines"]:
                if name in wl.get("remove_before", {}):
                    try:
                        os.remove(wl["remove_before"][name])
                    except FileNotFoundError:
                        pass
                dt, m, out, c = run(cmd)
                times[name].append(dt)
                cpu[name].append(c)
                rss[name] = max(rss[name], m)
                if name == SPARK:
                    info = json.loads(out.strip().splitlines()[-1])
                    query_times.setdefault(name + QUERY_ALONE, []).append(info.pop("query_s"))
                    wl["spark"] = info
        if "outputs" in wl:
            wl["checked"] = check_outputs(wl)
        if "report" in wl:
            wl["filter"] = filter_counters(wl["report"])
        rows = [(e, t, rss[e] / 2**20) for e, t in times.items()] + [(e, t, None) for e, t in query_times.items()]
        med = {e: statistics.median(t) for e, t, _ in rows}
        base = med[wl["baseline"]]
        peer = min(med[DUCKDB], med[POLARS]) if wl["suite"] in ("join", "hive", "nulls") else None
        for engine, t, mib in rows:
            results.append(
                {
                    "suite": wl["suite"],
                    "workload": wl["name"],
                    "engine": engine,
                    "median_s": med[engine],
                    "runs_s": t,
                    "median_cpu_s": statistics.median(cpu[engine]) if engine in cpu else None,
                    "baseline": wl["baseline"],
                    "ratio_to_baseline": med[engine] / base,
                    "ratio_to_best_peer": med[engine] / peer if peer else None,
                    "peak_rss_mib": mib,
                }
            )
    return results


def check_outputs(wl):
    """Every engine's output against DuckDB's (or the workload's reference engine's): the
    same row count and checksums."""
    reference = wl.get("reference", DUCKDB)
    want = checksum(wl["outputs"][reference])
    for engine, files in wl["outputs"].items():
        if engine == reference:
            continue
        got = checksum(files)
        bad = [c for c in sorted(want.keys() | got.keys()) if want.get(c) != got.get(c)]
        if bad:
            detail = ", ".join(f"{c}: {got.get(c, 'missing')} vs {want.get(c, 'missing')}" for c in bad)
            raise SystemExit(f"CHECK FAILED: {wl['name']}: {engine}'s output differs from {reference}'s in {detail}")
    print(f"  outputs of {', '.join(wl['outputs'])}: {want['count(*)']} rows, "
          f"{len(want) - 1} checksums equal", file=sys.stderr)
    return {"rows": want["count(*)"], "checksums": want}


def filter_counters(report_path):
    with open(report_path) as f:
        r = json.load(f)
    return {
        "strategy": r["strategy"]["used"],
        "right_rows_read": r["right"]["rows_read"],
        "row_groups_skipped": r["right"]["row_groups_skipped"],
        "dropped_by_filter": r["right"]["rows_dropped_by_filter"],
        "dropped_by_keys": r["right"]["rows_dropped_by_keys"],
        "false_positives": r["prefilter"]["false_positives"],
        "observed_fpp": r["prefilter"]["observed_fpp"],
        "rows_out": r["rows_out"],
        "right_files": r["right"]["files"],
        "files_skipped_by_partition_key": r["right"].get("files_skipped_by_partition_key", 0),
        "rows_skipped_by_partition_key": r["right"].get("rows_skipped_by_partition_key", 0),
    }


def train_workloads(a, d, w):
    """Issue 14's columns: lineitem.l_partkey (rows 30x the distinct keys), orders.o_orderkey
    (every key distinct) and part.p_partkey under a --where; bloomjoin trains with --fpp alone
    (one pass, sized by folding) and with --expected-items (the exact distinct count)."""
    B, W = a.bin, str(a.workers)
    out = []
    for name, table, col, where, where_col in [
        ("train lineitem.l_partkey", "lineitem", "l_partkey", None, None),
        ("train orders.o_orderkey", "orders", "o_orderkey", None, None),
        ("train part.p_partkey where p_name LIKE '%green%'", "part", "p_partkey", "p_name LIKE '%green%'", "p_name"),
    ]:
        sql_where = f" WHERE {where}" if where else ""
        n = scalar(f"SELECT count(DISTINCT {col}) FROM '{d(table)}'{sql_where}")
        # Each run writes a new filter, as `train` does by default (it refuses to replace one):
        # the file a run left is removed before the next, untimed. Replacing a filter with
        # --overwrite costs the file system's eviction of the old file (ext4: about 6 ms for
        # orders' 9.5 MB), which TRAIN_REPLACE measures on its own.
        out_path = w(f"{table}.bjf")
        args = ["--input", d(table), "--column", col, "--fpp", "0.01"] + (["--where", where] if where else [])
        base = [B, "train", "-q"] + args + ["--output", out_path]
        train = base + ["--expected-items", str(n)]
        replace = [B, "train", "-q"] + args + ["--output", w(f"{table}-replaced.bjf"), "--overwrite", "--workers", W]
        spark = [a.spark_python, os.path.join(HERE, "bench_spark.py"), "train", "--input", d(table), "--column", col,
                 "--expected-items", str(n), "--fpp", "0.01"] + (["--where", where] if where else [])
        engines = [
            # The plain scan of the same column, with the same --where: it reads what train
            # reads (the key and the predicate's columns, the same row groups and pages) and
            # counts the passing keys.
            (SCAN, [B, "scan", "-q", "--input", d(table), "--column", col, "--workers", W]
             + (["--where", where] if where else [])),
            (TRAIN_FPP, base + ["--workers", W]),
            (TRAIN_W2, train + ["--workers", W]),
            (TRAIN_W1, train + ["--workers", "1"]),
            (TRAIN_REPLACE, replace),
            (DUCKDB + " sum(col)", duckdb_timed(f"SELECT sum({col}) FROM '{d(table)}'{sql_where}", a.workers)),
        ]
        if where_col:
            # Until 2026-12-05 the baseline of a train with a --where: the scan of the
            # predicate's column alone (no key, no predicate), kept for comparison.
            engines.insert(1, (SCAN_WHERE_COLUMN, [B, "scan", "-q", "--input", d(table), "--column", where_col,
                                                   "--workers", W]))
        if not a.skip_spark:
            engines.append((SPARK, spark))
        out.append(
            {
                "suite": "train",
                "name": name,
                "baseline": SCAN,
                "keys": n,
                "remove_before": {e: out_path for e in (TRAIN_FPP, TRAIN_W2, TRAIN_W1)},
                "engines": engines,
            }
        )
    return out


def print_train_ratios(results):
    """Train-to-scan ratios, wall and CPU, for each train workload and bloomjoin train mode."""
    med = {(r["workload"], r["engine"]): r for r in results if r["suite"] == "train"}
    for wl in dict.fromkeys(w for w, _ in med):
        scan = med[(wl, SCAN)]
        for e in (TRAIN_FPP, TRAIN_W2, TRAIN_REPLACE):
            r = med[(wl, e)]
            print(f"{wl}: {e}: {r['median_s'] / scan['median_s']:.2f}x the scan's wall time, "
                  f"{r['median_cpu_s'] / scan['median_cpu_s']:.2f}x its CPU seconds "
                  f"({r['median_s']:.2f} s, {r['median_cpu_s']:.2f} s CPU; scan {scan['median_s']:.2f} s, "
                  f"{scan['median_cpu_s']:.2f} s CPU)", file=sys.stderr)
            alone = med.get((wl, SCAN_WHERE_COLUMN))
            if alone:
                print(f"{wl}: {e}: {r['median_s'] / alone['median_s']:.2f}x the wall time of the scan of the "
                      f"--where column alone, {r['median_cpu_s'] / alone['median_cpu_s']:.2f}x its CPU seconds",
                      file=sys.stderr)


# Narrow projections (8 to 12 columns) of the joins; "*" is the other projection.
NARROW = {
    "part": "l_orderkey, l_partkey, l_suppkey, l_quantity, l_extendedprice, l_discount, l_shipdate, "
    "p_partkey, p_name, p_brand, p_type",
    "orders": "l_orderkey, l_partkey, l_quantity, l_extendedprice, l_discount, l_shipdate, "
    "o_orderkey, o_custkey, o_orderdate, o_totalprice",
    "customer": "o_orderkey, o_custkey, o_orderdate, o_totalprice, o_orderpriority, "
    "c_custkey, c_name, c_nationkey, c_acctbal",
    "partsupp": "l_orderkey, l_partkey, l_suppkey, l_quantity, l_extendedprice, l_shipdate, "
    "ps_partkey, ps_suppkey, ps_availqty, ps_supplycost",
    # The right-semi join outputs the big side's columns only.
    "part-semi": "l_orderkey, l_partkey, l_suppkey, l_quantity, l_extendedprice, l_discount, l_shipdate",
}


def join_workloads(a, d, w):
    B, W = a.bin, str(a.workers)
    out = []
    inner = "inner"
    for base, lt, lk, where, rt, rk, how in [
        ("lineitem x part (p_name LIKE '%green%')", "part", "p_partkey", "p_name LIKE '%green%'", "lineitem", "l_partkey", inner),
        ("lineitem x orders (o_orderdate in 1995-03)", "orders", "o_orderkey",
         "o_orderdate >= DATE '1995-03-01' AND o_orderdate < DATE '1995-04-01'", "lineitem", "l_orderkey", inner),
        ("orders x customer (c_mktsegment = 'BUILDING')", "customer", "c_custkey", "c_mktsegment = 'BUILDING'", "orders", "o_custkey", inner),
        # A composite key (issue 16): one filter and one hash table over the tuple.
        ("lineitem x partsupp on (partkey, suppkey) (ps_availqty < 500)", "partsupp", "ps_partkey,ps_suppkey",
         "ps_availqty < 500", "lineitem", "l_partkey,l_suppkey", inner),
        # The Bloom filter's own job: the big side's rows whose key is on the small side.
        ("lineitem right-semi part (p_name LIKE '%green%')", "part", "p_partkey", "p_name LIKE '%green%'",
         "lineitem", "l_partkey", "right-semi"),
    ]:
        composite = "," in lk
        semi = how == "right-semi"
        filt = w(f"{lt}.bjf")
        train = [B, "train", "-q", "--input", d(lt), "--column", lk, "--where", where, "--workers", W,
                 "--output", filt, "--overwrite"]
        for proj in ("narrow", "*"):
            cols = NARROW[lt + ("-semi" if semi else "")] if proj == "narrow" else "*"
            name = f"{base} [{proj}]"
            tag = f"{lt}{'-semi' if semi else ''}-{'narrow' if proj == 'narrow' else 'all'}"
            report = w(f"{tag}-report.json")
            outs = {e: w(f"{tag}-{re.sub('[ ,]+', '_', e)}")
                    for e in (JOIN, JOIN_REDUCE, JOIN_BUILT, DUCKDB, POLARS, POLARS_NO_RF, SPARK)}
            select = [] if proj == "*" else ["--select", cols]
            join = [B, "join", "-q", "--filter", filt, "--left", d(lt), "--left-key", lk, "--left-where", where,
                    "--right", d(rt), "--right-key", rk, "--workers", W, "--output", outs[JOIN], "--overwrite",
                    "--report", report] + select + (["--type", how] if semi else [])
            def variant(engine, drop, extra=()):
                """The join command writing to the engine's output, without the options in drop."""
                args = [x if x != outs[JOIN] else outs[engine] for x in join]
                for flag in drop:
                    i = args.index(flag)
                    del args[i:i + 2]
                return args + list(extra)

            join_reduce = variant(JOIN_REDUCE, ["--report"], ["--strategy", "reduce-side"])
            join_built = variant(JOIN_BUILT, ["--report", "--filter"])
            on = " AND ".join(f"l.{x} = r.{y}" for x, y in zip(lk.split(","), rk.split(",")))
            q = f"SELECT {cols} FROM '{d(lt)}' l JOIN '{d(rt)}' r ON {on} WHERE {where}"
            if semi:
                q = f"SELECT {cols} FROM '{d(rt)}' r SEMI JOIN (SELECT * FROM '{d(lt)}' WHERE {where}) l ON {on}"
            polars = py(
                "import os,sys; os.environ['POLARS_MAX_THREADS']=sys.argv[6]\n"
                "import polars as pl\n"
                "l=pl.scan_parquet(sys.argv[1]).sql('select * from self where '+sys.argv[2])\n"
                "r=pl.scan_parquet(sys.argv[3])\n"
                # coalesce=False keeps the right key column, as the other engines do.
                "j=l.join(r,left_on=sys.argv[4].split(','),right_on=sys.argv[5].split(','),coalesce=False)"
                " if sys.argv[9]=='inner' else "
                # A semi join keeps the big side's rows (Polars keeps its left table's).
                "r.join(l,left_on=sys.argv[5].split(','),right_on=sys.argv[4].split(','),how='semi')\n"
                "j=j if sys.argv[8]=='*' else j.select([c.strip() for c in sys.argv[8].split(',')])\n"
                "j.sink_parquet(sys.argv[7],compression='zstd')"
            ) + [d(lt), re.sub(r"DATE ('[-0-9]+')", r"\1", where), d(rt), lk, rk, W, outs[POLARS] + ".parquet", cols,
                 "inner" if not semi else "semi"]
            spark = [a.spark_python, os.path.join(HERE, "bench_spark.py"), "join", "--left", d(lt), "--left-key", lk,
                     "--left-where", where, "--right", d(rt), "--right-key", rk, "--select", cols,
                     "--output", outs[SPARK]]
            engines = [
                (JOIN, join),
                (JOIN_REDUCE, join_reduce),
                (JOIN_BUILT, join_built),
                (TRAIN_JOIN, ["sh", "-c", f"{shlex.join(train)} && {shlex.join(join)}"]),
                (DUCKDB, duckdb_timed(f"COPY ({q}) TO '{outs[DUCKDB]}.parquet' (FORMAT parquet, COMPRESSION zstd)", a.workers)),
                (POLARS, polars),
                (POLARS_NO_RF, ["env", "POLARS_JOIN_RUNTIME_FILTERS=0"]
                 + [x if x != outs[POLARS] + ".parquet" else outs[POLARS_NO_RF] + ".parquet" for x in polars]),
            ]
            outputs = {
                JOIN: outs[JOIN] + "/part-*.parquet",
                JOIN_REDUCE: outs[JOIN_REDUCE] + "/part-*.parquet",
                JOIN_BUILT: outs[JOIN_BUILT] + "/part-*.parquet",
                DUCKDB: outs[DUCKDB] + ".parquet",
                POLARS: outs[POLARS] + ".parquet",
                POLARS_NO_RF: outs[POLARS_NO_RF] + ".parquet",
            }
            # scripts/bench_spark.py runs inner joins on one key column.
            if not a.skip_spark and not composite and not semi:
                engines.append((SPARK, spark))
                outputs[SPARK] = outs[SPARK] + "/*.parquet"
            out.append(
                {
                    "suite": "join",
                    "name": name,
                    "baseline": DUCKDB,
                    "prepare": [train],
                    "engines": engines,
                    "outputs": outputs,
                    "report": report,
                }
            )
    return out


def polars_select(body):
    """A timed Polars engine: `body` builds the lazy frame `j` from sys.argv[1] and [2]; its
    columns sys.argv[5] (a comma list) go to sys.argv[3] as zstd Parquet, on sys.argv[4]
    threads."""
    return py(
        "import os,sys,datetime; os.environ['POLARS_MAX_THREADS']=sys.argv[4]\n"
        "import polars as pl\n"
        + body
        + "j.select([c.strip() for c in sys.argv[5].split(',')]).sink_parquet(sys.argv[3],compression='zstd')"
    )


# The hive suite's right side: lineitem in Hive partition directories by ship year
# (`yr=1995/data_0.parquet`, as DuckDB's COPY ... PARTITION_BY writes them), made once.
JOIN_ONE_FILE = "bloomjoin join, one file (row filter on l_shipdate)"


def partitioned_lineitem(d, parts, select, by):
    """lineitem's `select` columns written by DuckDB into Hive directories of column `by`
    under `parts`, once (untimed); returns `parts`."""
    if not os.path.exists(os.path.join(parts, ".done")):
        run(py(DUCKDB_SETUP + "c.execute(sys.argv[1])") + [
            f"COPY (SELECT {select} FROM '{d('lineitem')}') TO '{parts}' "
            f"(FORMAT parquet, PARTITION_BY ({by}), OVERWRITE_OR_IGNORE)"])
        open(os.path.join(parts, ".done"), "w").close()
    return parts


def hive_workloads(a, d, w):
    """lineitem x part (p_name LIKE '%green%') for the lines shipped in 1995: bloomjoin on the
    lineitem partitioned by year (`--right-where "yr = 1995"` reads one year's files), the same
    join on the one-file lineitem (a row filter on l_shipdate), DuckDB and Polars on the
    partitions (both prune them). The narrow projection (no partition column) for all."""
    B, W = a.bin, str(a.workers)
    parts = partitioned_lineitem(d, w("lineitem-by-year"), "*, year(l_shipdate) AS yr", "yr")
    where, cols = "p_name LIKE '%green%'", NARROW["part"]
    year = "l_shipdate >= DATE '1995-01-01' AND l_shipdate < DATE '1996-01-01'"
    outs = {e: w(f"hive-{e.split(',')[0].replace(' ', '_')}{'-one' if e == JOIN_ONE_FILE else ''}")
            for e in (JOIN, JOIN_ONE_FILE, DUCKDB, POLARS)}
    join = [B, "join", "-q", "--left", d("part"), "--left-key", "p_partkey", "--left-where", where,
            "--right", parts, "--right-key", "l_partkey", "--right-where", "yr = 1995", "--select", cols,
            "--workers", W, "--output", outs[JOIN], "--overwrite"]
    one = [B, "join", "-q", "--left", d("part"), "--left-key", "p_partkey", "--left-where", where,
           "--right", d("lineitem"), "--right-key", "l_partkey", "--right-where", year, "--select", cols,
           "--workers", W, "--output", outs[JOIN_ONE_FILE], "--overwrite"]
    q = (f"SELECT {cols} FROM '{d('part')}' l JOIN read_parquet('{parts}/**/*.parquet', hive_partitioning = true) r "
         f"ON l.p_partkey = r.l_partkey WHERE {where} AND r.yr = 1995")
    polars = polars_select(
        "l=pl.scan_parquet(sys.argv[1]).filter(pl.col('p_name').str.contains('green'))\n"
        "r=pl.scan_parquet(sys.argv[2]+'/**/*.parquet',hive_partitioning=True).filter(pl.col('yr')==1995)\n"
        "j=l.join(r,left_on='p_partkey',right_on='l_partkey',coalesce=False)\n"
    ) + [d("part"), parts, outs[POLARS] + ".parquet", W, cols]
    return [pruning_workload(a, "lineitem (by year, yr = 1995) x part (p_name LIKE '%green%') [narrow]",
                             outs, join, one, q, polars)]


def pruning_workload(a, name, outs, join, one, q, polars, extra=()):
    """A hive workload of the four engines (bloomjoin on the partitions, bloomjoin on the one
    file, DuckDB's query `q`, Polars), writing into `outs`; `extra`: more bloomjoin engines
    as (name, command, output files), after the first."""
    wl = {
        "suite": "hive",
        "name": name,
        "baseline": DUCKDB,
        "engines": [
            (JOIN, join),
            (JOIN_ONE_FILE, one),
            (DUCKDB, duckdb_timed(f"COPY ({q}) TO '{outs[DUCKDB]}.parquet' (FORMAT parquet, COMPRESSION zstd)", a.workers)),
            (POLARS, polars),
        ],
        "outputs": {
            JOIN: outs[JOIN] + "/part-*.parquet",
            JOIN_ONE_FILE: outs[JOIN_ONE_FILE] + "/part-*.parquet",
            DUCKDB: outs[DUCKDB] + ".parquet",
            POLARS: outs[POLARS] + ".parquet",
        },
    }
    for i, (engine, cmd, files) in enumerate(extra):
        wl["engines"].insert(1 + i, (engine, cmd))
        wl["outputs"][engine] = files
    return wl


def dpp_workloads(a, d, w):
    """Dynamic partition pruning: lineitem in one directory a ship day (`l_shipdate=1995-03-01/`,
    2,526 of them, as DuckDB's COPY ... PARTITION_BY writes them), right-semi joined on
    l_shipdate alone with the order dates of March 1995's urgent orders. The key is the
    partition column: bloomjoin probes each file's day once and reads only the files of the
    days the left side has. The same join on the one-file lineitem (a row filter on
    l_shipdate), DuckDB and Polars on the partitions. The right side's narrow columns."""
    B, W = a.bin, str(a.workers)
    parts = partitioned_lineitem(d, w("lineitem-by-day"), "*", "l_shipdate")
    where = "o_orderdate >= DATE '1995-03-01' AND o_orderdate < DATE '1995-04-01' AND o_orderpriority = '1-URGENT'"
    cols = NARROW["part-semi"]
    outs = {e: w(f"dpp-{e.split(',')[0].replace(' ', '_')}{'-one' if e == JOIN_ONE_FILE else ''}")
            for e in (JOIN, JOIN_ONE_FILE, DUCKDB, POLARS)}
    join = [B, "join", "-q", "--type", "right-semi", "--left", d("orders"), "--left-key", "o_orderdate",
            "--left-where", where, "--right-key", "l_shipdate", "--select", cols, "--workers", W, "--overwrite"]
    q = (f"SELECT {cols} FROM read_parquet('{parts}/**/*.parquet', hive_partitioning = true) r "
         f"WHERE r.l_shipdate IN (SELECT o_orderdate FROM '{d('orders')}' WHERE {where})")
    polars = polars_select(
        "l=pl.scan_parquet(sys.argv[1]).filter((pl.col('o_orderdate')>=datetime.date(1995,3,1))"
        "&(pl.col('o_orderdate')<datetime.date(1995,4,1))&(pl.col('o_orderpriority')=='1-URGENT'))\n"
        "r=pl.scan_parquet(sys.argv[2]+'/**/*.parquet',hive_partitioning=True,hive_schema={'l_shipdate':pl.Date})\n"
        "j=r.join(l.select('o_orderdate'),left_on='l_shipdate',right_on='o_orderdate',how='semi')\n"
    ) + [d("orders"), parts, outs[POLARS] + ".parquet", W, cols]
    # Train + join: with a trained filter the other days' files are not even opened.
    filt, tj_out = w("dpp-days.bjf"), w("dpp-bloomjoin_train_join")
    train = [B, "train", "-q", "--input", d("orders"), "--column", "o_orderdate", "--where", where,
             "--output", filt, "--overwrite"]
    tj = join + ["--filter", filt, "--right", parts, "--output", tj_out]
    wl = pruning_workload(
        a, "lineitem (by day) right-semi orders (urgent, 1995-03) on the partition column alone [narrow]", outs,
        join + ["--right", parts, "--output", outs[JOIN], "--report", outs[JOIN] + ".json"],
        join + ["--right", d("lineitem"), "--output", outs[JOIN_ONE_FILE]], q, polars,
        [(TRAIN_JOIN, ["sh", "-c", f"{shlex.join(train)} && {shlex.join(tj)}"], tj_out + "/part-*.parquet")])
    wl["report"] = outs[JOIN] + ".json"
    return [wl]


PARTITIONED, FLAT = "bloomjoin join --partition-by", "bloomjoin join, one directory"


def partitioned_output_workloads(a, d, w):
    """lineitem x orders (one month) with `*`, written in Hive partition directories of
    l_shipmode (7 of them) and of l_shipdate (151: more than a worker keeps parts open, so
    rows wait in its overflow): bloomjoin --partition-by, the same join into one directory,
    DuckDB's COPY ... PARTITION_BY and Polars' sink_parquet(PartitionBy). Every partitioned
    output is read back as partitions (DuckDB detects the directories) for the checksums."""
    return [partitioned_output(a, d, w, "l_shipmode", None),
            partitioned_output(a, d, w, "l_shipdate", "151 directories")]


def partitioned_output(a, d, w, col, dirs):
    """One workload of partitioned_output_workloads: the join written by `col` (`dirs`, if
    given, says how many directories that makes in the workload's name)."""
    B, W = a.bin, str(a.workers)
    where = "o_orderdate >= DATE '1995-03-01' AND o_orderdate < DATE '1995-04-01'"
    outs = {e: w(f"pby-{col}-{i}") for i, e in enumerate((PARTITIONED, FLAT, DUCKDB, POLARS))}
    join = [B, "join", "-q", "--left", d("orders"), "--left-key", "o_orderkey", "--left-where", where,
            "--right", d("lineitem"), "--right-key", "l_orderkey", "--workers", W, "--overwrite"]
    q = (f"SELECT * FROM '{d('orders')}' l JOIN '{d('lineitem')}' r ON l.o_orderkey = r.l_orderkey "
         f"WHERE l.{where.replace(' AND ', ' AND l.')}")
    polars = py(
        "import os,sys,datetime; os.environ['POLARS_MAX_THREADS']=sys.argv[4]\n"
        "import polars as pl\n"
        "l=pl.scan_parquet(sys.argv[1]).filter((pl.col('o_orderdate')>=datetime.date(1995,3,1))&(pl.col('o_orderdate')<datetime.date(1995,4,1)))\n"
        "r=pl.scan_parquet(sys.argv[2])\n"
        "l.join(r,left_on='o_orderkey',right_on='l_orderkey',coalesce=False).sink_parquet("
        "pl.PartitionBy(sys.argv[3],key=sys.argv[5],include_key=False),mkdir=True,compression='zstd')"
    ) + [d("orders"), d("lineitem"), outs[POLARS], W, col]
    engines = [
        (PARTITIONED, join + ["--output", outs[PARTITIONED], "--partition-by", col]),
        (FLAT, join + ["--output", outs[FLAT]]),
        (DUCKDB, duckdb_timed(f"COPY ({q}) TO '{outs[DUCKDB]}' (FORMAT parquet, COMPRESSION zstd, "
                              f"PARTITION_BY ({col}), OVERWRITE_OR_IGNORE)", a.workers)),
        (POLARS, polars),
    ]
    return {
        "suite": "hive",
        "name": f"lineitem x orders (o_orderdate in 1995-03) [*], written by {col}" + (
            f" ({dirs})" if dirs else ""),
        "baseline": DUCKDB,
        "prepare": [["rm", "-rf", outs[DUCKDB], outs[POLARS]]],
        "engines": engines,
        "outputs": {
            PARTITIONED: outs[PARTITIONED] + "/**/*.parquet",
            FLAT: outs[FLAT] + "/part-*.parquet",
            DUCKDB: outs[DUCKDB] + "/**/*.parquet",
            POLARS: outs[POLARS] + "/**/*.parquet",
        },
    }


# The nulls suite: lineitem and part with some keys nulled (copies written once into the work
# directory), joined with null keys matching each other.
JOIN_NULLS = "bloomjoin join --nulls-equal"


def nulls_equal_workloads(a, d, w):
    """Null keys that match (`--nulls-equal`) against DuckDB's IS NOT DISTINCT FROM and
    Polars' nulls_equal=True: the green parts and the parts without a key (p_partkey nulled
    in 1 part of 10,000) x lineitem (l_partkey nulled in the lines of 1 order of 50), a
    right-semi join (the lines of those parts, and the lines without a part) and an inner one
    (every null line meets every null part), the narrow projection. The copies are written
    once by DuckDB into the work directory."""
    B, W = a.bin, str(a.workers)
    line, part = w("nulls-lineitem.parquet"), w("nulls-part.parquet")
    if not (os.path.exists(line) and os.path.exists(part)):
        run(duckdb_timed(
            f"COPY (SELECT * REPLACE (CASE WHEN l_orderkey % 50 = 0 THEN NULL ELSE l_partkey END AS l_partkey) "
            f"FROM '{d('lineitem')}') TO '{line}' (FORMAT parquet, COMPRESSION snappy)", a.workers))
        run(duckdb_timed(
            f"COPY (SELECT * REPLACE (CASE WHEN p_partkey % 10000 = 0 THEN NULL ELSE p_partkey END AS p_partkey) "
            f"FROM '{d('part')}') TO '{part}' (FORMAT parquet, COMPRESSION snappy)", a.workers))
    where = "p_name LIKE '%green%' OR p_partkey IS NULL"
    out = []
    for jt, cols in (("right-semi", NARROW["part-semi"]), ("inner", NARROW["part"])):
        outs = {e: w(f"nulls-{jt}-{i}") for i, e in enumerate((JOIN_NULLS, DUCKDB, POLARS))}
        join = [B, "join", "-q", "--left", part, "--left-key", "p_partkey", "--left-where", where,
                "--right", line, "--right-key", "l_partkey", "--type", jt, "--nulls-equal",
                "--select", cols, "--workers", W, "--overwrite", "--output", outs[JOIN_NULLS]]
        if jt == "right-semi":
            q = (f"SELECT {cols} FROM '{line}' l WHERE EXISTS (SELECT 1 FROM '{part}' p "
                 f"WHERE ({where}) AND p.p_partkey IS NOT DISTINCT FROM l.l_partkey)")
            how = "semi"
        else:
            q = (f"SELECT {cols} FROM '{line}' l JOIN (SELECT * FROM '{part}' WHERE {where}) p "
                 f"ON p.p_partkey IS NOT DISTINCT FROM l.l_partkey")
            how = "inner"
        polars = polars_select(
            "l=pl.scan_parquet(sys.argv[1])\n"
            "p=pl.scan_parquet(sys.argv[2]).filter(pl.col('p_name').str.contains('green')|pl.col('p_partkey').is_null())\n"
            f"j=l.join(p,left_on='l_partkey',right_on='p_partkey',how='{how}',nulls_equal=True,coalesce=False)\n"
        ) + [line, part, outs[POLARS] + ".parquet", W, cols]
        out.append({
            "suite": "nulls",
            "name": f"lineitem {jt} part (p_name LIKE '%green%' or no key), nulls equal [narrow]",
            "baseline": DUCKDB,
            "engines": [
                (JOIN_NULLS, join),
                (DUCKDB, duckdb_timed(f"COPY ({q}) TO '{outs[DUCKDB]}.parquet' (FORMAT parquet, COMPRESSION zstd)",
                                      a.workers)),
                (POLARS, polars),
            ],
            "outputs": {
                JOIN_NULLS: outs[JOIN_NULLS] + "/part-*.parquet",
                DUCKDB: outs[DUCKDB] + ".parquet",
                POLARS: outs[POLARS] + ".parquet",
            },
        })
    return out


def goals(results):
    """The project's goals, each with the measured ratio."""
    med = {(r["workload"], r["engine"]): r for r in results}
    out = []

    def goal(text, ratio, limit, at_most, note=""):
        met = ratio <= limit if at_most else ratio >= limit
        out.append({"goal": text, "ratio": ratio, "limit": limit, "met": met, "note": note})

    for wl, suite in dict.fromkeys((r["workload"], r["suite"]) for r in results):
        m = lambda e: med[(wl, e)]["median_s"]
        has = lambda e: (wl, e) in med
        spark_note = lambda e: f" ({m(SPARK + QUERY_ALONE) / m(e):.1f}x against Spark's query alone)"
        if suite == "nulls":
            # No goal of its own: the figures say what --nulls-equal costs against the peers.
            continue
        if suite == "s3":
            # Over an object store: the join within 0.8x the peer that reads the same store
            # (Polars), as on one machine; reading ahead against waiting request by request.
            # (The local copies show what the store costs; moto's own throughput bounds it.)
            if has(bench_s3.POLARS_S3):
                goal(f"{wl}: {bench_s3.JOIN_S3} <= 0.8x Polars on S3 wall",
                     m(bench_s3.JOIN_S3) / m(bench_s3.POLARS_S3), 0.8, True)
                on, off = bench_s3.JOIN_S3, bench_s3.JOIN_S3_OFF
            else:
                on, off = bench_s3.TRAIN_S3, bench_s3.TRAIN_S3_OFF
            goal(f"{wl}: reading ahead <= 0.5x the wall time without it", m(on) / m(off), 0.5, True)
            continue
        if suite == "hive" and has(PARTITIONED):
            # Writing partitions: within 0.8x the faster peer's partitioned write, as the other
            # joins; and what the directories cost against the same join written flat.
            best = min(m(DUCKDB), m(POLARS))
            goal(f"{wl}: {PARTITIONED} <= 0.8x min(DuckDB, Polars) wall", m(PARTITIONED) / best, 0.8, True)
            goal(f"{wl}: {PARTITIONED} <= 1.2x the same join written flat", m(PARTITIONED) / m(FLAT), 1.2, True)
            continue
        if suite == "hive":
            # Partition pruning: the join over partitions within 0.8x the faster peer, as the
            # other joins; and what the partitions save against the one-file lineitem.
            best = min(m(DUCKDB), m(POLARS))
            goal(f"{wl}: {JOIN} <= 0.8x min(DuckDB, Polars) wall", m(JOIN) / best, 0.8, True)
            goal(f"{wl}: {JOIN} <= 0.8x the one-file lineitem's join wall", m(JOIN) / m(JOIN_ONE_FILE), 0.8, True)
            if has(TRAIN_JOIN):
                goal(f"{wl}: {TRAIN_JOIN} <= 0.8x min(DuckDB, Polars) wall", m(TRAIN_JOIN) / best, 0.8, True)
                goal(f"{wl}: {TRAIN_JOIN} <= 0.8x the one-file lineitem's join wall", m(TRAIN_JOIN) / m(JOIN_ONE_FILE),
                     0.8, True)
            continue
        if suite == "train":
            # Issue 14: train with --fpp alone within 1.3x the wall time and the CPU seconds
            # of the plain scan of the same column (with the same --where).
            cpu = lambda e: med[(wl, e)]["median_cpu_s"]
            for e in (TRAIN_FPP, TRAIN_W2):
                goal(f"{wl}: {e} <= 1.3x the plain scan's wall time", m(e) / m(SCAN), 1.3, True)
                goal(f"{wl}: {e} <= 1.3x the plain scan's CPU seconds", cpu(e) / cpu(SCAN), 1.3, True,
                     f" ({cpu(e):.2f} s against {cpu(SCAN):.2f} s)")
            if has(SPARK):
                goal(f"{wl}: train >= 10x faster than Spark", m(SPARK) / m(TRAIN_FPP), 10, False,
                     spark_note(TRAIN_FPP))
            goal(f"{wl}: W=1 -> W=2 speedup >= 1.7x", m(TRAIN_W1) / m(TRAIN_W2), 1.7, False)
        else:
            # Issue 13: train + join within 0.8x the wall time of the faster of DuckDB and
            # Polars; the join no more CPU seconds than Polars; peak RSS below DuckDB's.
            best = min(m(DUCKDB), m(POLARS))
            goal(f"{wl}: {TRAIN_JOIN} <= 0.8x min(DuckDB, Polars) wall", m(TRAIN_JOIN) / best, 0.8, True)
            goal(f"{wl}: {JOIN} <= 0.8x min(DuckDB, Polars) wall", m(JOIN) / best, 0.8, True)
            if has(JOIN_BUILT):
                goal(f"{wl}: {JOIN_BUILT} (no train step) <= 0.8x min(DuckDB, Polars) wall",
                     m(JOIN_BUILT) / best, 0.8, True)
            cpu = lambda e: med[(wl, e)]["median_cpu_s"]
            goal(f"{wl}: {JOIN} CPU seconds <= Polars'", cpu(JOIN) / cpu(POLARS), 1.0, True,
                 f" ({cpu(JOIN):.2f} s against {cpu(POLARS):.2f} s)")
            rss = lambda e: med[(wl, e)]["peak_rss_mib"]
            goal(f"{wl}: {JOIN} peak RSS < DuckDB's", rss(JOIN) / rss(DUCKDB), 1.0, True,
                 f" ({rss(JOIN):.0f} MiB against {rss(DUCKDB):.0f} MiB)")
            if has(SPARK):
                for e in (JOIN, TRAIN_JOIN):
                    goal(f"{wl}: {e} >= 10x faster than Spark", m(SPARK) / m(e), 10, False, spark_note(e))
    return out


def without_runtime_filters(results):
    """Not goals: the joins against Polars with its runtime join filters off (POLARS_NO_RF),
    the hash join without a prefilter that issue 13 was written against."""
    med = {(r["workload"], r["engine"]): r for r in results}
    out = []
    for wl in dict.fromkeys(r["workload"] for r in results if r["suite"] == "join"):
        if (wl, POLARS_NO_RF) not in med:
            continue
        off, on = med[(wl, POLARS_NO_RF)], med[(wl, POLARS)]
        join, tj = med[(wl, JOIN)], med[(wl, TRAIN_JOIN)]
        out.append(
            f"{wl}: Polars takes {off['median_s']:.2f} s and {off['median_cpu_s']:.2f} CPU s without them "
            f"({off['median_s'] / on['median_s']:.2f}x its time with them); against that, {JOIN} "
            f"{join['median_s'] / off['median_s']:.2f}x the wall time and {join['median_cpu_s'] / off['median_cpu_s']:.2f}x "
            f"the CPU seconds, {TRAIN_JOIN} {tj['median_s'] / off['median_s']:.2f}x the wall time"
        )
    return out


def markdown(meta, results, workloads, goal_list):
    title = f"TPC-H scale {meta['scale']}"
    if meta["suite"] == "hive":
        title = f"Hive partitions, {title}"
    if meta["suite"] == "nulls":
        title = f"Null keys that match (--nulls-equal), {title}"
    if meta["suite"] == "s3":
        title = f"Object store (S3 API, moto, {bench_s3.LAG_MS} ms a request), {title}"
    lines = [
        f"### {title}",
        "",
        f"`{meta['command']}` on {meta['date']}: {meta['machine']}; binary {meta['binary']}; "
        f"suite at commit {meta['commit']}. Medians of {meta['runs']} run(s), engines alternating, "
        "2 workers/threads everywhere; "
        + ("" if meta["suite"] == "s3" else "Spark's time is the whole process (JVM start included), "
           "\"query alone\" its query timed inside the process. ")
        + "Peak RSS has a floor of "
        f"{meta['rss_floor_mib']:.0f} MiB: a process inherits the high-water mark of the one that "
        "spawned it (here the Python driver). Generated by scripts/bench.sh: a rerun replaces this section.",
    ]
    if meta["suite"] == "s3":
        lines += ["", bench_s3.__doc__.split("\n\n", 1)[1].strip()]
    if meta["suite"] == "nulls":
        lines += ["", " ".join(nulls_equal_workloads.__doc__.split()) + " Every output's row count and "
                  "checksums equal DuckDB's."]
    for suite in ("train", "join", "hive", "s3", "nulls"):
        rows = [r for r in results if r["suite"] == suite]
        if not rows:
            continue
        peer = suite in ("join", "hive", "nulls")
        lines += [
            "",
            f"| workload | engine | median s | x {rows[0]['baseline']} |" + (" x min(DuckDB, Polars) |" if peer else "")
            + " CPU s | peak RSS MiB | runs (s) |",
            "|---|---|---:|---:|" + ("---:|" if peer else "") + "---:|---:|---|",
        ]
        for r in rows:
            lines.append(
                f"| {r['workload']} | {r['engine']} | {r['median_s']:.2f} | {r['ratio_to_baseline']:.2f} |"
                + (f" {r['ratio_to_best_peer']:.2f} |" if peer else "")
                + (f" {r['median_cpu_s']:.2f} |" if r.get("median_cpu_s") is not None else " – |")
                + (f" {r['peak_rss_mib']:.0f} |" if r["peak_rss_mib"] is not None else " – |")
                + f" {', '.join(f'{t:.2f}' for t in r['runs_s'])} |"
            )
    joins = [wl for wl in workloads if wl["suite"] == "join"]
    if joins:
        lines += [
            "",
            "Join outputs and filters: rows out of every engine (each output's row count and checksums equal "
            "DuckDB's), bloomjoin's filter counters (`--report` of the last run), and the join Spark planned "
            "and whether its optimizer injected a runtime Bloom filter (`bloom_filter_agg`/`might_contain`).",
            "",
            "| workload | strategy | rows out | right rows read | row groups skipped | dropped by the filter "
            "| dropped by the left keys | false positives | observed fpp | Spark join | Spark runtime Bloom filter |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|",
        ]
        for wl in joins:
            f, s = wl["filter"], wl.get("spark", {"join": "–", "runtime_bloom_filter": None})
            fpp = "–" if f["observed_fpp"] is None else f"{f['observed_fpp']:.4f}"
            spark_bf = {True: "yes", False: "no", None: "–"}[s["runtime_bloom_filter"]]
            lines.append(
                f"| {wl['name']} | {f['strategy']} | {wl['checked']['rows']} | {f['right_rows_read']} "
                f"| {f['row_groups_skipped']} | {f['dropped_by_filter']} | {f['dropped_by_keys']} "
                f"| {f['false_positives']} | {fpp} | {s['join']} | {spark_bf} |"
            )
    for wl in workloads:
        if wl["suite"] == "s3" and "checked" in wl:
            lines += ["", f"{wl['name']}: {wl['checked']['rows']} rows out, every output's checksums equal "
                      f"those of {wl['reference']}."]
        if wl["suite"] == "hive" and "filter" in wl:
            f = wl["filter"]
            lines += [
                "",
                f"{wl['name']}: bloomjoin's right side had {f['right_files']} files; "
                f"{f['files_skipped_by_partition_key']} of them ({f['rows_skipped_by_partition_key']} rows) were not "
                f"read, their day ruled out by the key tiers; {f['right_rows_read']} rows read, "
                f"{wl['checked']['rows']} rows out (`--report` of the last run).",
            ]
    if goal_list:
        lines += ["", "Goals:", ""]
    lines += [
        f"- {'MET' if g['met'] else '**NOT MET**'}: {g['goal']}: {g['ratio']:.2f}x{g['note']}" for g in goal_list
    ]
    context = without_runtime_filters(results)
    if context:
        lines += ["", "Polars 2.1 pushes a filter of the build side's keys into the probe side's Parquet scan "
                  "(`POLARS_JOIN_RUNTIME_FILTERS`, on by default), as bloomjoin's prefilter does. Not goals: the "
                  f"joins against Polars with it off (\"{POLARS_NO_RF}\" above):", ""]
        lines += [f"- {c}" for c in context]
    return "\n".join(lines)


def update_doc(path, key, section):
    """Replace the section between this key's markers (`sfN`, `hive-sfN`), or add it before
    "## Reproduce"."""
    begin, end = f"<!-- bench:begin {key} -->", f"<!-- bench:end {key} -->"
    with open(path) as f:
        doc = f.read()
    block = f"{begin}\n{section}\n{end}"
    if begin in doc and end in doc:
        doc = doc[: doc.index(begin)] + block + doc[doc.index(end) + len(end) :]
    else:
        at = doc.find("\n## Reproduce")
        at = len(doc) if at < 0 else at + 1
        doc = doc[:at] + block + "\n\n" + doc[at:]
    with open(path, "w") as f:
        f.write(doc)


def chart(path, meta, results):
    """Grouped bars: median seconds per workload and engine, one panel per suite."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    suites = [s for s in ("train", "join") if any(r["suite"] == s for r in results)]
    family = lambda e: e.replace(" sum(col)", "")  # one color for DuckDB in both panels
    engines = list(dict.fromkeys(family(r["engine"]) for r in results))
    colors = {e: plt.cm.tab10(i % 10) for i, e in enumerate(engines)}
    fig, axes = plt.subplots(1, len(suites), figsize=(7 * len(suites), 6), squeeze=False)
    for ax, suite in zip(axes[0], suites):
        rows = [r for r in results if r["suite"] == suite]
        wls = list(dict.fromkeys(r["workload"] for r in rows))
        engs = list(dict.fromkeys(r["engine"] for r in rows))
        width = 0.8 / len(engs)
        for i, e in enumerate(engs):
            xs = [wls.index(r["workload"]) + (i - (len(engs) - 1) / 2) * width for r in rows if r["engine"] == e]
            ys = [r["median_s"] for r in rows if r["engine"] == e]
            bars = ax.bar(xs, ys, width, label=e, color=colors[family(e)])
            ax.bar_label(bars, fmt="%.2g", fontsize=6)
        medians = [r["median_s"] for r in rows]
        if max(medians) > 20 * min(medians):  # Spark dwarfs the rest
            ax.set_yscale("log")
            ax.set_ylim(bottom=10 ** math.floor(math.log10(min(medians))))
            ax.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
            ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_xticks(range(len(wls)))
        ax.set_xticklabels([re.sub(r" (\(|where )", r"\n\1", wl) for wl in wls], fontsize=8)
        ax.set_ylabel("median seconds" + (" (log scale)" if ax.get_yscale() == "log" else ""))
        ax.set_title(suite)
        ax.legend(fontsize=8, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.12))
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle(f"bloomjoin and peers, TPC-H SF{meta['scale']}, median of {meta['runs']} run(s)\n{meta['machine']}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def machine():
    with open("/proc/cpuinfo") as f:
        model = re.search(r"model name\s*:\s*(.*)", f.read())
    with open("/proc/meminfo") as f:
        mem_kib = int(re.search(r"MemTotal:\s*(\d+)", f.read()).group(1))
    return f"{os.cpu_count()} CPUs {model.group(1) if model else '?'}, {mem_kib / 2**20:.0f} GiB"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--spark-python", required=True, help="python of the venv with pyspark")
    ap.add_argument("--data", required=True, help="TPC-H parquet directory")
    ap.add_argument("--scale", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--suite", choices=["train", "join", "all", "hive", "s3", "nulls"], default="all")
    ap.add_argument("--moto-python", help="python of the venv with moto (the s3 suite)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--skip-spark", action="store_true", help="train and join without Spark (quick runs)")
    ap.add_argument("--json", required=True)
    ap.add_argument("--doc", required=True)
    ap.add_argument("--chart", required=True)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    d = lambda t: os.path.join(a.data, f"{t}.parquet")
    w = lambda n: os.path.join(a.work, n)
    workloads = []
    if a.suite in ("train", "all"):
        workloads += train_workloads(a, d, w)
    if a.suite in ("join", "all"):
        workloads += join_workloads(a, d, w)
    if a.suite == "nulls":
        workloads += nulls_equal_workloads(a, d, w)
    if a.suite == "hive":
        workloads += hive_workloads(a, d, w)
        workloads += dpp_workloads(a, d, w)
        workloads += partitioned_output_workloads(a, d, w)
    store = None
    if a.suite == "s3":
        store = bench_s3.Store(a.moto_python, a.work)
    try:
        if store:
            workloads += bench_s3.workloads(a, d, w, store, run, DUCKDB_SETUP, duckdb_timed, NARROW)
        results = bench(workloads, a.runs)
    finally:
        if store:
            store.stop()
    print_train_ratios(results)
    floor_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # before matplotlib

    git = lambda *args: subprocess.run(["git", *args], capture_output=True, text=True, cwd=HERE).stdout.strip()
    meta = {
        "scale": a.scale,
        "runs": a.runs,
        "suite": a.suite,
        "command": f"scripts/bench.sh --scale {a.scale} --runs {a.runs} --suite {a.suite}"
        + (" --skip-spark" if a.skip_spark else ""),
        "date": datetime.date.today().isoformat(),
        "machine": machine(),
        "binary": subprocess.run([a.bin, "--version"], capture_output=True, text=True).stdout.strip(),
        "commit": git("rev-parse", "--short", "HEAD") + ("-dirty" if git("status", "--porcelain") else ""),
        "rss_floor_mib": floor_mib,
    }
    goal_list = goals(results)
    section = markdown(meta, results, workloads, goal_list)
    print(section)
    # The hive, s3 and nulls suites have sections of their own and no chart.
    own = a.suite if a.suite in ("hive", "s3", "nulls") else None
    key = f"{own}-sf{a.scale}" if own else f"sf{a.scale}"
    update_doc(a.doc, key, section)
    if not own:
        chart(a.chart, meta, results)
    keep = ("suite", "name", "keys", "spark", "filter", "checked")
    with open(a.json, "w") as f:
        json.dump({**meta, "results": results, "goals": goal_list,
                   "workloads": [{k: wl[k] for k in keep if k in wl} for wl in workloads]}, f, indent=1)
    print(f"wrote {a.doc} (section {key}){'' if own else ', ' + a.chart}, {a.json}", file=sys.stderr)


if __name__ == "__main__":
    main()
