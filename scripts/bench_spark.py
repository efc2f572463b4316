#!/usr/bin/env python3
"""Spark's side of scripts/bench.py: one benchmark run in a local[2] Spark, in its own process.

  bench_spark.py train --input F --column C [--where SQL] --expected-items N --fpp P
  bench_spark.py join --left F --left-key K --left-where SQL --right F --right-key K [--select COLS] --output DIR

`train` builds `df.stat.bloomFilter(C, N, P)`; `join` runs `SELECT * (or COLS) FROM l JOIN r
ON ... WHERE ...` with Spark's runtime Bloom filter on and writes zstd Parquet. The last line on
stdout is JSON: the query's own seconds (without JVM start and stop) and, for joins, whether
the optimizer injected a runtime Bloom filter (bloom_filter_agg / might_contain in the
optimized plan) and the physical join it planned. Runs under the venv of
`scripts/venv.sh spark`.
"""
import argparse
import json
import time

from pyspark.sql import SparkSession


JOINS = ["BroadcastHashJoin", "ShuffledHashJoin", "SortMergeJoin", "BroadcastNestedLoopJoin"]


def session():
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("bloomjoin-bench")
        .config("spark.driver.memory", "4g")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.parquet.compression.codec", "zstd")
        .config("spark.sql.optimizer.runtime.bloomFilter.enabled", "true")
        # Defaults: the filtered side must scan more than 10 GB and the creating side be
        # estimated under 10 MB; TPC-H's tables at scales 1-10 miss both, so the filter would
        # never be tried.
        .config("spark.sql.optimizer.runtime.bloomFilter.applicationSideScanSizeThreshold", "1MB")
        .config("spark.sql.optimizer.runtime.bloomFilter.creationSideThreshold", "10GB")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def stop(spark):
    """Stop Spark and wait for the JVM, so that the caller's wait4 sees its peak RSS and the
    next run does not start while it shuts down."""
    gateway = spark.sparkContext._gateway
    spark.stop()
    gateway.shutdown()
    gateway.proc.stdin.close()  # the JVM exits at EOF on its stdin
    gateway.proc.wait()


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("train")
    t.add_argument("--input", required=True)
    t.add_argument("--column", required=True)
    t.add_argument("--where")
    t.add_argument("--expected-items", type=int, required=True)
    t.add_argument("--fpp", type=float, required=True)
    j = sub.add_parser("join")
    for side in ("left", "right"):
        j.add_argument(f"--{side}", required=True)
        j.add_argument(f"--{side}-key", required=True)
    j.add_argument("--left-where", required=True)
    j.add_argument("--select", default="*")
    j.add_argument("--output", required=True)
    a = ap.parse_args()

    spark = session()
    result = {}
    t0 = time.perf_counter()
    if a.cmd == "train":
        df = spark.read.parquet(a.input)
        if a.where:
            df = df.where(a.where)
        # The Python DataFrame API has no bloomFilter; the JVM's DataFrameStatFunctions does.
        bits = df._jdf.stat().bloomFilter(a.column, a.expected_items, a.fpp).bitSize()
        result["bits"] = bits
    else:
        spark.read.parquet(a.left).createOrReplaceTempView("l")
        spark.read.parquet(a.right).createOrReplaceTempView("r")
        df = spark.sql(f"SELECT {a.select} FROM l JOIN r ON l.{a.left_key} = r.{a.right_key} WHERE {a.left_where}")
        qe = df._jdf.queryExecution()
        plan = qe.optimizedPlan().toString()
        result["runtime_bloom_filter"] = "bloom_filter_agg" in plan or "might_contain" in plan
        physical = qe.executedPlan().toString()  # before adaptive execution re-plans
        result["join"] = next((j for j in JOINS if j in physical), "?")
        df.write.mode("overwrite").parquet(a.output)
    result["query_s"] = time.perf_counter() - t0
    stop(spark)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
