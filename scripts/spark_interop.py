#!/usr/bin/env python3
"""Live interop checks between bloomjoin and a real Apache Spark (local[2], through py4j).

(a) Spark's BloomFilter.readFrom accepts our spark-v1/spark-v2 files, and Spark's
    mightContain agrees with `bloomjoin probe` on every probe key (>= 10^5 per filter).
(b) `bloomjoin probe` agrees with Spark on filters Spark wrote (df.stat.bloomFilter, V2, and
    BloomFilter.create(V1, ...)).
(c) The PySpark job jobs/spark/prefilter_join.py gives the same join as `bloomjoin join`, and
    `bloomjoin join --filter <Spark's filter>` gives the same join as Spark.
(d) `--spark-keys xxhash64`: for string, int, bigint, decimal (p <= 18 and p > 18), date,
    timestamp and UInt64 keys, our filter is byte-identical to Spark's filter of
    `xxhash64(col)` (df.select(xxhash64(col)).stat.bloomFilter); `bloomjoin probe` agrees with
    Spark's `might_contain(filter, xxhash64(k))`; the PySpark job's string-key join with our
    filter and `bloomjoin join --filter <Spark's xxhash64 filter> --spark-keys xxhash64` give
    the same rows as a plain Spark join.
(e) `--spark-keys xxhash64` with two-column keys, (bigint, string), (int, int) with nulls
    on both sides and (bigint, timestamp): our filter (`train --column a,b`) is byte-identical to Spark's filter of
    `xxhash64(a, b)` over the rows without a null; Spark's `might_contain(filter,
    xxhash64(a, b))` equals `bloomjoin probe` of tab-separated tuples on thousands of present
    and absent tuples (our native file and our Spark-format one); the PySpark job's
    two-column prefiltered join (functions and command line) equals Spark's plain join and
    `bloomjoin join` on the same filter, and `bloomjoin join --filter <Spark's xxhash64(a, b)
    filter> --spark-keys xxhash64` gives the same rows.
(f) Hive partition directories written by Spark's partitionBy (a date, a string Spark escapes
    in paths with a null, an int): `bloomjoin join` reads them as typed columns, prunes files
    with --right-where on them and gives Spark's own join.
(g) `bloomjoin join --partition-by dt,region,h` of the same inputs: Spark reads the output back
    (partition columns inferred as date, string, int) as its own join, and Spark's partitionBy
    of those rows makes the same directory names (escaping, __HIVE_DEFAULT_PARTITION__).
(h) INT96 timestamps Spark writes (0001-01-01 to 9999-12-31, top-level, in a struct and an
    array): `bloomjoin join` on them as keys equals Spark's join, and Spark reads bloomjoin's
    output of those columns as its input.

Run by scripts/spark-interop.sh (which makes the venv). Exits 1 on any mismatch; the last
line is `N passed, M failed`.
"""

import os
import datetime
import decimal
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(os.environ.get("BLOOMJOIN_BIN", ROOT / "target" / "debug" / "bloomjoin"))
sys.path.insert(0, str(ROOT / "jobs" / "spark"))
import prefilter_join as job  # noqa: E402

PASSED = 0
FAILED = 0


def check(name, ok, detail=""):
    global PASSED, FAILED
    if ok:
        PASSED += 1
        print(f"  ok    {name}{(': ' + detail) if detail else ''}", flush=True)
    else:
        FAILED += 1
        print(f"  FAIL  {name}{(': ' + detail) if detail else ''}", flush=True)


def bj(*args):
    r = subprocess.run([str(BIN), *map(str, args)], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"bloomjoin {' '.join(map(str, args))} failed: {r.stderr.strip()}")
    return r.stdout


def bj_probe(filter_path, key_type, keys_file):
    out = bj("probe", "--filter", filter_path, "--key-type", key_type, "--keys", keys_file)
    return [line == "maybe" for line in out.splitlines()]


def write_keys(path, keys):
    with open(path, "w", encoding="utf-8") as f:
        for k in keys:
            f.write(f"{k}\n")


def parquet_rows(path, columns):
    t = pq.read_table(path, columns=columns)
    return sorted(zip(*(t.column(c).to_pylist() for c in columns)))


def pair_j(i):
    """The left column `j` of the row with id `i` (null for one id in 11)."""
    return None if i % 11 == 0 else (i // 7) % 1000


def main():
    if not BIN.exists():
        raise SystemExit(f"{BIN} is missing: build it with `cargo build`")
    work = Path(tempfile.mkdtemp(prefix="bloomjoin-spark-"))
    rng = random.Random(20240611)

    # --- data ---------------------------------------------------------------------------
    n_left = 60_000
    left_ids = rng.sample(range(-(2**40), 2**40), n_left)
    left_ids[:5] = [0, 1, -1, 2**63 - 1, -(2**63)]
    left = pa.table(
        {
            "id": pa.array(left_ids, pa.int64()),
            "lv": pa.array([abs(i) % 1000 for i in left_ids], pa.int64()),
            "name": pa.array([f"user-{i}-é" for i in left_ids], pa.string()),
            # The key types of --spark-keys xxhash64 (section d).
            "i32": pa.array([i % (2**31) - 2**30 for i in left_ids], pa.int32()),
            "dec": pa.array([decimal.Decimal(i % 10**12 - 5 * 10**11).scaleb(-2) for i in left_ids],
                            pa.decimal128(15, 2)),
            "wide": pa.array([decimal.Decimal(i).scaleb(-3) * 10**9 for i in left_ids],
                             pa.decimal128(30, 3)),
            "day": pa.array([i % 100_000 - 50_000 for i in left_ids], pa.date32()),
            "ts": pa.array([i % (4 * 10**15) - 2 * 10**15 for i in left_ids], pa.timestamp("us", tz="UTC")),
            "u64": pa.array([i % (2**40) + 2**63 for i in left_ids], pa.uint64()),
            # A second INT column with nulls, for the (int, int) key of section e.
            "j": pa.array([pair_j(i) for i in left_ids], pa.int32()),
        }
    )
    (work / "left").mkdir()
    pq.write_table(left, work / "left" / "l.parquet", row_group_size=20_000)
    left_set = set(left_ids)
    (work / "right").mkdir()
    row = 0
    for f in range(2):
        uids = [rng.choice(left_ids) if rng.random() < 0.3 else rng.randrange(-(2**40), 2**40)
                for _ in range(100_000)]
        right = pa.table(
            {
                "uid": pa.array(uids, pa.int64()),
                "who": pa.array([f"w{row + i}" for i in range(len(uids))], pa.string()),
                "row": pa.array(range(row, row + len(uids)), pa.int64()),
                "uname": pa.array([f"user-{u}-é" for u in uids], pa.string()),
                # (ri, rj) = (i32, j) of the left row with id uid (section e).
                "ri": pa.array([u % (2**31) - 2**30 for u in uids], pa.int32()),
                "rj": pa.array([pair_j(u) for u in uids], pa.int32()),
                "rts": pa.array([u % (4 * 10**15) - 2 * 10**15 for u in uids],
                                pa.timestamp("us", tz="UTC")),
            }
        )
        row += len(uids)
        pq.write_table(right, work / "right" / f"r{f}.parquet", row_group_size=25_000)

    probe_ids = rng.sample(left_ids, 40_000) + [rng.randrange(-(2**62), 2**62) for _ in range(80_000)]
    probe_ids += [-5, 0, 5, 2**63 - 1, -(2**63)]
    write_keys(work / "probe_ids.txt", probe_ids)
    probe_names = [f"user-{i}-é" for i in rng.sample(left_ids, 3000)] + [
        f"user-{rng.randrange(-(2**40), 2**40)}-é" for _ in range(4000)
    ] + ["", "a", "ab", "abc", "✓✓", "\x7f"]
    write_keys(work / "probe_names.txt", probe_names)

    # --- Spark --------------------------------------------------------------------------
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    t0 = time.time()
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("bloomjoin-interop")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.memory", "1g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    print(f"Spark {spark.version} up in {time.time() - t0:.1f}s; work dir {work}", flush=True)
    jvm = spark._jvm
    sketch = jvm.org.apache.spark.util.sketch
    left_df = spark.read.parquet(str(work / "left"))
    right_df = spark.read.parquet(str(work / "right"))
    pq.write_table(pa.table({"k": pa.array(probe_ids, pa.int64())}), work / "probes.parquet")
    probes_df = spark.read.parquet(str(work / "probes.parquet"))

    def spark_long_answers(data):
        """Spark's mightContain (SQL might_contain) for every probe id, in probe order."""
        hits = probes_df.where(job.might_contain(spark, data, "k")).select("k").collect()
        hit_set = {r[0] for r in hits}
        return [k in hit_set for k in probe_ids]

    def spark_string_answers(jfilter):
        return [bool(jfilter.mightContainString(s)) for s in probe_names]

    agreed_keys = 0

    # --- (a) our filters in Spark ---------------------------------------------------------
    print("(a) Spark reads bloomjoin's spark-v1/spark-v2 filters", flush=True)
    for layout, seed in [("spark-v1", 0), ("spark-v2", 0), ("spark-v2", 42), ("spark-v2", 4294967295)]:
        path = work / f"ours_{layout}_{seed}.spark"
        bj("train", "-q", "--input", work / "left", "--column", "id", "--layout", layout,
           "--seed", seed, "--expected-items", n_left, "--fpp", "0.01", "--format", "spark",
           "--output", path)
        data = path.read_bytes()
        jf = job.load_filter(spark, data)
        cls = jf.getClass().getSimpleName()
        want_cls = "BloomFilterImpl" if layout == "spark-v1" else "BloomFilterImplV2"
        check(f"{path.name}: readFrom gives {want_cls}", cls == want_cls, cls)
        check(f"{path.name}: Spark re-serializes the same bytes", job.filter_to_bytes(spark, jf) == data)
        ours = bj_probe(path, "integer", work / "probe_ids.txt")
        theirs = spark_long_answers(data)
        diff = sum(a != b for a, b in zip(ours, theirs))
        check(f"{path.name}: mightContain == bloomjoin probe on {len(probe_ids)} long keys",
              len(ours) == len(theirs) and diff == 0,
              f"{diff} differ, {sum(theirs)} maybe")
        agreed_keys += len(probe_ids) if diff == 0 else 0
        misses = sum(1 for k, t in zip(probe_ids, theirs) if k in left_set and not t)
        check(f"{path.name}: no false negatives in Spark", misses == 0)
    # Strings: putBinary/putString of the UTF-8 bytes.
    for layout in ["spark-v1", "spark-v2"]:
        path = work / f"ours_{layout}_names.spark"
        bj("train", "-q", "--input", work / "left", "--column", "name", "--layout", layout,
           "--expected-items", n_left, "--fpp", "0.01", "--format", "spark", "--output", path)
        jf = job.load_filter(spark, path.read_bytes())
        ours = bj_probe(path, "bytes", work / "probe_names.txt")
        theirs = spark_string_answers(jf)
        diff = sum(a != b for a, b in zip(ours, theirs))
        check(f"{path.name}: mightContainString == bloomjoin probe on {len(probe_names)} strings",
              len(ours) == len(theirs) and diff == 0, f"{diff} differ")
        agreed_keys += len(probe_names) if diff == 0 else 0
    # Same keys, same sizing: our spark-v2 file is byte-identical to df.stat.bloomFilter.
    spark_long = job.export_filter(spark, left_df, "id", n_left, 0.01)
    check("train --layout spark-v2 == df.stat.bloomFilter('id', n, 0.01) byte for byte",
          (work / "ours_spark-v2_0.spark").read_bytes() == spark_long)
    spark_names = job.export_filter(spark, left_df, "name", n_left, 0.01)
    check("train --layout spark-v2 == df.stat.bloomFilter('name', n, 0.01) byte for byte",
          (work / "ours_spark-v2_names.spark").read_bytes() == spark_names)

    # --- (b) Spark's filters in bloomjoin -------------------------------------------------
    print("(b) bloomjoin reads Spark's filters", flush=True)
    (work / "spark_long.bin").write_bytes(spark_long)
    (work / "spark_names.bin").write_bytes(spark_names)
    ours = bj_probe(work / "spark_long.bin", "integer", work / "probe_ids.txt")
    theirs = spark_long_answers(spark_long)
    diff = sum(a != b for a, b in zip(ours, theirs))
    check(f"df.stat.bloomFilter (long): bloomjoin probe == Spark on {len(probe_ids)} keys",
          len(ours) == len(theirs) and diff == 0, f"{diff} differ")
    agreed_keys += len(probe_ids) if diff == 0 else 0
    jf = job.load_filter(spark, spark_names)
    ours = bj_probe(work / "spark_names.bin", "bytes", work / "probe_names.txt")
    theirs = spark_string_answers(jf)
    diff = sum(a != b for a, b in zip(ours, theirs))
    check(f"df.stat.bloomFilter (string): bloomjoin probe == Spark on {len(probe_names)} keys",
          len(ours) == len(theirs) and diff == 0, f"{diff} differ")
    agreed_keys += len(probe_names) if diff == 0 else 0
    # A V1 filter built through Spark's API (as Spark <= 4.0 writes), seed ignored.
    version = getattr(sketch, "BloomFilter$Version")
    v1 = sketch.BloomFilter.create(version.V1, 3000, sketch.BloomFilter.optimalNumOfBits(3000, 0.02), 0)
    for k in left_ids[:3000]:
        v1.putLong(k)
    v1_bytes = job.filter_to_bytes(spark, v1)
    (work / "spark_v1.bin").write_bytes(v1_bytes)
    ours = bj_probe(work / "spark_v1.bin", "integer", work / "probe_ids.txt")
    theirs = spark_long_answers(v1_bytes)
    diff = sum(a != b for a, b in zip(ours, theirs))
    check(f"BloomFilter.create(V1, ...): bloomjoin probe == Spark on {len(probe_ids)} keys",
          len(ours) == len(theirs) and diff == 0, f"{diff} differ")
    agreed_keys += len(probe_ids) if diff == 0 else 0
    info = bj("inspect", work / "spark_v1.bin")
    check("inspect shows Spark's V1 format", "spark v1" in info and "spark-v1" in info)
    # Spark's partial filters merge in bloomjoin like mergeInPlace.
    parts = []
    for i in range(2):
        part = left_df.where(f"id % 2 {'=' if i == 0 else '!='} 0")
        data = job.export_filter(spark, part, "id", n_left, 0.01)
        (work / f"spark_part{i}.bin").write_bytes(data)
        parts.append(work / f"spark_part{i}.bin")
    bj("merge", "-q", "-o", work / "spark_merged.bin", *parts)
    check("bloomjoin merge of Spark partials == Spark's single-pass filter",
          (work / "spark_merged.bin").read_bytes() == spark_long)

    # --- (c) joins ------------------------------------------------------------------------
    print("(c) joins: PySpark job vs bloomjoin join", flush=True)
    cols = ["id", "lv", "uid", "who", "row"]
    ours_filter = work / "ours_spark-v2_0.spark"
    joined = job.prefilter_join(spark, ours_filter.read_bytes(), left_df, "id", right_df, "uid")
    spark_rows = sorted(tuple(r) for r in joined.select(*cols).collect())
    plain = left_df.join(right_df, left_df["id"] == right_df["uid"]).select(*cols).collect()
    plain_rows = sorted(tuple(r) for r in plain)
    check("PySpark prefilter join == plain Spark join", spark_rows == plain_rows,
          f"{len(spark_rows)} rows")
    for name, flt in [("our filter", ours_filter), ("Spark's filter", work / "spark_long.bin")]:
        out = work / f"bj_join_{flt.stem}"
        report = work / f"bj_join_{flt.stem}.json"
        bj("join", "-q", "--filter", flt, "--left", work / "left", "--left-key", "id",
           "--right", work / "right", "--right-key", "uid", "--select", ",".join(cols),
           "--output", out, "--report", report)
        rows = parquet_rows(out, cols)
        check(f"bloomjoin join --filter {name} == PySpark job's join", rows == spark_rows,
              f"{len(rows)} rows vs {len(spark_rows)}")
        dropped = json.loads(report.read_text())["right"]["rows_dropped_by_filter"]
        check(f"bloomjoin join --filter {name} dropped rows", dropped > 100_000, f"{dropped}")

    # The job's command line: export-filter, then prefilter (in this session).
    job_filter = work / "job_filter.spark"
    job_out = work / "job_out"
    rc = job.main(["export-filter", "--input", str(work / "left"), "--column", "id",
                   "--expected-items", str(n_left), "--fpp", "0.01", "--output", str(job_filter)],
                  stop_session=False)
    check("job export-filter writes Spark's filter", rc == 0 and job_filter.read_bytes() == spark_long)
    rc = job.main(["prefilter", "--filter", str(ours_filter), "--left", str(work / "left"),
                   "--left-key", "id", "--right", str(work / "right"), "--right-key", "uid",
                   "--output", str(job_out)], stop_session=False)
    rows = sorted(tuple(r) for r in zip(*(pq.read_table(job_out).column(c).to_pylist() for c in cols)))
    check("job prefilter (command line) == bloomjoin join", rc == 0 and rows == spark_rows,
          f"{len(rows)} rows")

    # --- (d) --spark-keys xxhash64 ---------------------------------------------------------
    print("(d) --spark-keys xxhash64: Spark's xxhash64(key) as the inserted long", flush=True)
    for col in ["name", "i32", "id", "dec", "wide", "day", "ts", "u64"]:
        path = work / f"ours_xx_{col}.spark"
        bj("train", "-q", "--input", work / "left", "--column", col, "--layout", "spark-v2",
           "--spark-keys", "xxhash64", "--expected-items", n_left, "--fpp", "0.01",
           "--format", "spark", "--output", path)
        theirs = job.export_filter(spark, left_df, col, n_left, 0.01, "xxhash64")
        check(f"train --spark-keys xxhash64 --column {col} ({left_df.schema[col].dataType.simpleString()})"
              " == Spark's filter of xxhash64(col), byte for byte", path.read_bytes() == theirs)
    # Probes of string keys: might_contain(filter, xxhash64(k)) in Spark, probe in bloomjoin.
    xx_names = work / "ours_xx_name.spark"
    names_df = spark.createDataFrame([(s,) for s in probe_names], "k string")
    hits = names_df.where(job.might_contain(spark, xx_names.read_bytes(), F.xxhash64("k"))).collect()
    hit_set = {r[0] for r in hits}
    theirs = [s in hit_set for s in probe_names]
    out = bj("probe", "--filter", xx_names, "--key-type", "bytes", "--spark-keys", "xxhash64",
             "--keys", work / "probe_names.txt")
    ours = [line == "maybe" for line in out.splitlines()]
    diff = sum(a != b for a, b in zip(ours, theirs))
    check(f"might_contain(filter, xxhash64(k)) == bloomjoin probe on {len(probe_names)} strings",
          len(ours) == len(theirs) and diff == 0, f"{diff} differ, {sum(theirs)} maybe")
    agreed_keys += len(probe_names) if diff == 0 else 0
    # A native filter records the mode: probe needs no option, inspect shows it.
    native = work / "ours_xx_name.bjf"
    bj("train", "-q", "--input", work / "left", "--column", "name", "--layout", "spark-v2",
       "--spark-keys", "xxhash64", "--expected-items", n_left, "--fpp", "0.01", "--output", native)
    ours_native = [line == "maybe" for line in
                   bj("probe", "--filter", native, "--keys", work / "probe_names.txt").splitlines()]
    check("native xxhash64 filter: probe == Spark's answers", ours_native == theirs)
    check("inspect shows the Spark key mode", "xxhash64" in bj("inspect", native))
    # Joins on the string key.
    cols = ["id", "name", "uname", "row"]
    joined = job.prefilter_join(spark, xx_names.read_bytes(), left_df, "name", right_df, "uname",
                                spark_keys="xxhash64")
    spark_rows = sorted(tuple(r) for r in joined.select(*cols).collect())
    plain = left_df.join(right_df, left_df["name"] == right_df["uname"]).select(*cols).collect()
    plain_rows = sorted(tuple(r) for r in plain)
    check("PySpark prefilter join on xxhash64(name) == plain Spark join",
          spark_rows == plain_rows and len(plain_rows) > 10_000, f"{len(spark_rows)} rows")
    kept = right_df.where(job.might_contain(spark, xx_names.read_bytes(),
                                            job.xxhash64_key(left_df, "name", right_df, "uname")))
    check("the xxhash64 prefilter drops right rows in Spark", kept.count() < 0.5 * right_df.count())
    spark_xx = work / "spark_xx_name.bin"
    spark_xx.write_bytes(job.export_filter(spark, left_df, "name", n_left, 0.01, "xxhash64"))
    for name, flt, extra in [("our native filter", native, []),
                             ("our Spark-format filter", xx_names, ["--spark-keys", "xxhash64"]),
                             ("Spark's xxhash64 filter", spark_xx, ["--spark-keys", "xxhash64"])]:
        out = work / f"bj_xx_join_{flt.name.replace('.', '_')}"
        report = work / f"bj_xx_join_{flt.name.replace('.', '_')}.json"
        bj("join", "-q", "--filter", flt, *extra, "--left", work / "left", "--left-key", "name",
           "--right", work / "right", "--right-key", "uname", "--select", ",".join(cols),
           "--output", out, "--report", report)
        rows = parquet_rows(out, cols)
        dropped = json.loads(report.read_text())["right"]["rows_dropped_by_filter"]
        check(f"bloomjoin join --filter {name} (xxhash64, string key) == Spark's join",
              rows == plain_rows, f"{len(rows)} rows, {dropped} dropped by the filter")
        check(f"bloomjoin join --filter {name} dropped rows", dropped > 100_000, f"{dropped}")
    # The job's command line with --spark-keys.
    job_out = work / "job_xx_out"
    rc = job.main(["prefilter", "--filter", str(xx_names), "--left", str(work / "left"),
                   "--left-key", "name", "--right", str(work / "right"), "--right-key", "uname",
                   "--spark-keys", "xxhash64", "--output", str(job_out)], stop_session=False)
    rows = sorted(tuple(r) for r in zip(*(pq.read_table(job_out).column(c).to_pylist() for c in cols)))
    check("job prefilter --spark-keys xxhash64 (command line) == plain Spark join",
          rc == 0 and rows == plain_rows, f"{len(rows)} rows")

    # --- (e) two-column keys in xxhash64 mode ---------------------------------------------
    print("(e) --spark-keys xxhash64, two-column keys: Spark's xxhash64(a, b)", flush=True)
    def us_text(us):
        """Microseconds since the epoch as `probe` reads a timestamp (UTC)."""
        t = datetime.datetime(1970, 1, 1) + datetime.timedelta(microseconds=us)
        return t.strftime("%Y-%m-%d %H:%M:%S.%f")

    left_ts = left.column("ts").cast(pa.int64()).to_pylist()
    for (a, b), (ra, rb) in [(("id", "name"), ("uid", "uname")), (("i32", "j"), ("ri", "rj")),
                             (("id", "ts"), ("uid", "rts"))]:
        key, rkey = f"{a},{b}", f"{ra},{rb}"
        types = f"{left_df.schema[a].dataType.simpleString()}, {left_df.schema[b].dataType.simpleString()}"
        ours_spark = work / f"ours_xx_{a}_{b}.spark"
        ours_native = work / f"ours_xx_{a}_{b}.bjf"
        for out, extra in [(ours_spark, ["--format", "spark"]), (ours_native, [])]:
            bj("train", "-q", "--input", work / "left", "--column", key, "--layout", "spark-v2",
               "--spark-keys", "xxhash64", "--expected-items", n_left, "--fpp", "0.01",
               *extra, "--output", out)
        theirs_bytes = job.export_filter(spark, left_df, key, n_left, 0.01, "xxhash64")
        check(f"train --column {key} --spark-keys xxhash64 ({types}) == Spark's filter of "
              f"xxhash64({a}, {b}), byte for byte", ours_spark.read_bytes() == theirs_bytes)
        # Probes: present and absent tuples, no nulls (a probe line cannot say null).
        if b == "ts":
            # Timestamps as microseconds (no Python time zone in the way), as TIMESTAMP in Spark.
            present = rng.sample(list(zip(left_ids, left_ts)), 3000)
            absent = [(r[0], r[1] + 1) for r in present[:1000]]  # the id present, 1 us later
            absent += [(rng.randrange(-(2**40), 2**40), rng.randrange(-(2 * 10**15), 2 * 10**15))
                       for _ in range(2000)]
        else:
            rows = [r for r in left_df.select(a, b).where(F.col(b).isNotNull()).collect()]
            present = [tuple(r) for r in rng.sample(rows, 3000)]
        if b == "ts":
            pass
        elif b == "name":
            absent = [(rng.randrange(-(2**40), 2**40), f"user-{rng.randrange(2**40)}-é")
                      for _ in range(3000)]
            absent += [(r[0], r[1] + "x") for r in present[:500]]  # the id present, the name not
        else:
            absent = [(rng.randrange(-(2**30), 2**30), rng.randrange(1000)) for _ in range(3000)]
        tuples = present + absent
        if b == "ts":
            probe_df = spark.createDataFrame(tuples, f"{a} bigint, us bigint").select(
                a, F.timestamp_micros("us").alias(b))
        else:
            probe_df = spark.createDataFrame(
                tuples, f"{a} {left_df.schema[a].dataType.simpleString()}, "
                        f"{b} {left_df.schema[b].dataType.simpleString()}")
        probe_df = probe_df.withColumn("pos", F.monotonically_increasing_id())
        hit_pos = {r[0] for r in probe_df.where(
            job.might_contain(spark, ours_spark.read_bytes(), F.xxhash64(a, b))).select("pos").collect()}
        ordered = [r[0] for r in probe_df.select("pos").orderBy("pos").collect()]
        theirs = [p in hit_pos for p in ordered]
        tuples_file = work / f"tuples_{a}_{b}.txt"
        write_keys(tuples_file, [f"{x}\t{us_text(y) if b == 'ts' else y}" for x, y in tuples])
        fams, stypes = {"name": ("integer,bytes", "bigint,string"), "j": ("integer,integer", "int,int"),
                        "ts": ("integer,timestamptz", "bigint,timestamp")}[b]
        for name, flt, extra in [("native", ours_native, []),
                                 ("Spark-format", ours_spark,
                                  ["--spark-keys", "xxhash64", "--key-type", fams,
                                   "--spark-type", stypes])]:
            out = bj("probe", "--filter", flt, *extra, "--keys", tuples_file)
            ours = [line == "maybe" for line in out.splitlines()]
            diff = sum(x != y for x, y in zip(ours, theirs))
            check(f"might_contain(filter, xxhash64({a}, {b})) == bloomjoin probe ({name} file) "
                  f"on {len(tuples)} tuples", len(ours) == len(theirs) and diff == 0,
                  f"{diff} differ, {sum(theirs[:len(present)])}/{len(present)} present maybe, "
                  f"{sum(theirs[len(present):])}/{len(absent)} absent maybe")
            agreed_keys += len(tuples) if diff == 0 else 0
        check(f"every present tuple ({a}, {b}) is maybe", all(theirs[:len(present)]))
        info = json.loads(bj("inspect", "--json", ours_native))
        recorded = [c.get("spark_type") for c in info["metadata"]["key_columns"]]
        check(f"inspect records the Spark types of ({a}, {b})", recorded == stypes.split(","),
              f"{recorded}")
        # Joins: Spark's plain join, the PySpark prefiltered join, bloomjoin's (rows compared
        # by the unique left id and the right row: Spark and pyarrow give timestamps in other
        # Python forms).
        cols = [a, "row"] if b == "ts" else [a, b, "row"]
        plain = left_df.join(right_df, (left_df[a] == right_df[ra]) & (left_df[b] == right_df[rb]))
        plain_rows = sorted(tuple(r) for r in plain.select(*cols).collect())
        joined = job.prefilter_join(spark, ours_spark.read_bytes(), left_df, key, right_df, rkey,
                                    spark_keys="xxhash64")
        spark_rows = sorted(tuple(r) for r in joined.select(*cols).collect())
        check(f"PySpark prefilter join on xxhash64({ra}, {rb}) == plain Spark join",
              spark_rows == plain_rows and len(plain_rows) > 10_000, f"{len(spark_rows)} rows")
        kept = right_df.where(job.might_contain(spark, ours_spark.read_bytes(),
                                                job.xxhash64_key(left_df, key, right_df, rkey)))
        check(f"the xxhash64({ra}, {rb}) prefilter drops right rows in Spark",
              kept.count() < 0.5 * right_df.count())
        spark_xx = work / f"spark_xx_{a}_{b}.bin"
        spark_xx.write_bytes(theirs_bytes)
        for name, flt, extra in [("our native filter", ours_native, []),
                                 ("our Spark-format filter", ours_spark, ["--spark-keys", "xxhash64"]),
                                 ("Spark's xxhash64 filter", spark_xx, ["--spark-keys", "xxhash64"])]:
            out = work / f"bj_xx2_join_{flt.name.replace('.', '_')}"
            report = work / f"bj_xx2_join_{flt.name.replace('.', '_')}.json"
            bj("join", "-q", "--filter", flt, *extra, "--left", work / "left", "--left-key", key,
               "--right", work / "right", "--right-key", rkey, "--select", ",".join(cols),
               "--output", out, "--report", report)
            rows = parquet_rows(out, cols)
            dropped = json.loads(report.read_text())["right"]["rows_dropped_by_filter"]
            check(f"bloomjoin join --filter {name} (xxhash64({a}, {b})) == Spark's join",
                  rows == plain_rows, f"{len(rows)} rows, {dropped} dropped by the filter")
            check(f"bloomjoin join --filter {name} ({a}, {b}) dropped rows", dropped > 100_000,
                  f"{dropped}")
    # The job's command line with a two-column key.
    job_out = work / "job_xx2_out"
    rc = job.main(["prefilter", "--filter", str(work / "ours_xx_id_name.spark"),
                   "--left", str(work / "left"), "--left-key", "id,name",
                   "--right", str(work / "right"), "--right-key", "uid,uname",
                   "--spark-keys", "xxhash64", "--output", str(job_out)], stop_session=False)
    cols = ["id", "name", "row"]
    rows = sorted(tuple(r) for r in zip(*(pq.read_table(job_out).column(c).to_pylist() for c in cols)))
    plain = left_df.join(right_df, (left_df["id"] == right_df["uid"]) & (left_df["name"] == right_df["uname"]))
    check("job prefilter --left-key id,name --spark-keys xxhash64 (command line) == plain Spark join",
          rc == 0 and rows == sorted(tuple(r) for r in plain.select(*cols).collect()),
          f"{len(rows)} rows")

    # --- (f) a table Spark writes partitioned -------------------------------------------------
    print("(f) Hive partition directories written by Spark's partitionBy", flush=True)
    # A date, a string with characters Spark escapes in paths (and a null: Hive's default
    # partition) and an integer, as directories; bloomjoin reads them as typed columns, with a
    # --where on them skipping files, and must give Spark's own rows.
    regions = ["a/b", "x y", "é:1", None]
    parted = (right_df.select("uid", "who", "row")
              .withColumn("dt", F.expr("date_add(DATE'2024-01-01', CAST(pmod(row, 3) AS INT))"))
              .withColumn("region", F.element_at(F.array(*[F.lit(r) for r in regions]),
                                                 (F.col("row") % 4 + 1).cast("int")))
              .withColumn("h", (F.col("row") % 2).cast("int")))
    parted.write.partitionBy("dt", "region", "h").parquet(str(work / "right_parts"))
    read_back = spark.read.parquet(str(work / "right_parts"))
    types = {f.name: f.dataType.simpleString() for f in read_back.schema.fields}
    check("Spark reads its partitions as date, string and int",
          (types["dt"], types["region"], types["h"]) == ("date", "string", "int"), str(types))
    where = "dt >= DATE '2024-01-02' AND (region IS NULL OR region <> 'x y') AND h = 1"
    cols = ["id", "who", "dt", "region", "h"]
    spark_rows = sorted(
        (tuple(r) for r in left_df.join(read_back.where(where), left_df["id"] == read_back["uid"])
         .select(*cols).collect()), key=repr)
    out = work / "bj_parts"
    report = work / "bj_parts.json"
    bj("join", "-q", "--left", work / "left", "--left-key", "id", "--right", work / "right_parts",
       "--right-key", "uid", "--right-where", where, "--select", ",".join(cols), "--output", out,
       "--report", report)
    t = pq.read_table(out, columns=cols)
    rows = sorted(zip(*(t.column(c).to_pylist() for c in cols)), key=repr)
    r = json.loads(report.read_text())["right"]
    check("bloomjoin join over Spark's partitions == Spark's join", rows == spark_rows,
          f"{len(rows)} rows vs {len(spark_rows)}")
    check("the partition columns' conjuncts skip Spark's files",
          r["files_pruned_by_partition"] > 0 and r["files"] > 0,
          f"{r['files']} read, {r['files_pruned_by_partition']} skipped")
    check("bloomjoin types Spark's partitions as Date32, Utf8 and Int64",
          [str(t.schema.field(c).type) for c in ("dt", "region", "h")] == ["date32[day]", "string", "int64"],
          str(t.schema))

    # --- (g) bloomjoin writes partitioned, Spark reads ----------------------------------------
    print("(g) Hive partition directories written by bloomjoin join --partition-by", flush=True)
    # The join of (f) without the --right-where, written by --partition-by dt,region,h: Spark
    # reads the directories back with its own partition inference (the values come from the
    # unescaped directory names, null from __HIVE_DEFAULT_PARTITION__) and must see its own
    # join; Spark's partitionBy of the same rows must make the same directory names.
    pby = ["dt", "region", "h"]
    spark_join = left_df.join(read_back, left_df["id"] == read_back["uid"]).select(*cols)
    # Spark reads an empty string partition value back as null, like a null.
    ri = cols.index("region")
    spark_rows = sorted((tuple(None if i == ri and v == "" else v for i, v in enumerate(r))
                         for r in spark_join.collect()), key=repr)
    out = work / "bj_pby"
    bj("join", "-q", "--left", work / "left", "--left-key", "id", "--right", work / "right_parts",
       "--right-key", "uid", "--select", ",".join(cols), "--partition-by", ",".join(pby),
       "--output", out)
    spark_out = work / "spark_pby"
    spark_join.write.partitionBy(*pby).parquet(str(spark_out))

    def parquet_dirs(root):
        return sorted({p.parent.relative_to(root).as_posix() for p in root.rglob("*.parquet")})

    ours_dirs, spark_dirs = parquet_dirs(out), parquet_dirs(spark_out)
    check("bloomjoin's partition directories == Spark's partitionBy directories",
          ours_dirs == spark_dirs,
          f"{len(ours_dirs)} directories" if ours_dirs == spark_dirs else
          f"only bloomjoin: {sorted(set(ours_dirs) - set(spark_dirs))}, "
          f"only Spark: {sorted(set(spark_dirs) - set(ours_dirs))}")
    escaped = {"region=a%2Fb", "region=x y", "region=é%3A1", "region=__HIVE_DEFAULT_PARTITION__"}
    seen = {part for d in ours_dirs for part in d.split("/") if part.startswith("region=")}
    check("bloomjoin escapes region like Spark (a%2Fb, x y, é%3A1, __HIVE_DEFAULT_PARTITION__)",
          seen == escaped, str(sorted(seen)))
    in_files = {f.name for p in out.rglob("*.parquet") for f in pq.read_schema(p)}
    check("bloomjoin's files hold no partition column", in_files == {"id", "who"},
          str(sorted(in_files)))
    ours_df = spark.read.parquet(str(out))
    types = {f.name: f.dataType.simpleString() for f in ours_df.schema.fields}
    check("Spark infers bloomjoin's partitions as date, string and int",
          [types.get(c) for c in pby] == ["date", "string", "int"], str(types))
    rows = sorted((tuple(r) for r in ours_df.select(*cols).collect()), key=repr)
    check("Spark's read of bloomjoin's partitioned output == Spark's join", rows == spark_rows,
          f"{len(rows)} rows vs {len(spark_rows)}")

    # --- (h) INT96 timestamps as Spark writes them --------------------------------------------
    print("(h) INT96 timestamps written by Spark, 0001 to 9999", flush=True)
    # Spark writes INT96 by default (spark.sql.parquet.outputTimestampType), with no Arrow
    # schema: bloomjoin must read them in microseconds (the parquet crate's nanoseconds end in
    # 2262), as Spark does, top-level and nested, as keys and passed on.
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    spark.conf.set("spark.sql.parquet.int96RebaseModeInWrite", "CORRECTED")
    spark.conf.set("spark.sql.parquet.int96RebaseModeInRead", "CORRECTED")
    spark.conf.set("spark.sql.parquet.datetimeRebaseModeInWrite", "CORRECTED")
    spark.conf.set("spark.sql.parquet.datetimeRebaseModeInRead", "CORRECTED")
    stamps = ["0001-01-01 00:00:00", "1500-06-01 12:00:00.123456", "2024-01-01 00:00:00",
              "9999-12-31 23:59:59.999999", None, "2262-04-12 00:00:00"]
    old_type = spark.conf.get("spark.sql.parquet.outputTimestampType")
    spark.conf.set("spark.sql.parquet.outputTimestampType", "INT96")
    (spark.createDataFrame(list(enumerate(stamps)), "id int, s string")
     .select("id", F.to_timestamp("s").alias("ts"))
     .withColumn("st", F.struct(F.col("ts").alias("t"), F.col("id").alias("n")))
     .withColumn("arr", F.array("ts", F.lit(None).cast("timestamp")))
     .coalesce(1).write.parquet(str(work / "int96")))
    spark.conf.set("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
    keys = ["9999-12-31 23:59:59.999999", "0001-01-01 00:00:00", "2024-01-01 00:00:00",
            "1500-06-01 12:00:00", "2262-04-12 00:00:00", None]
    # A TIMESTAMP_NTZ key: INT96 is read without a time zone, as DuckDB reads it (a
    # zoned key against it is refused as any zoned against a zone-less timestamp).
    (spark.createDataFrame(list(enumerate(keys)), "rid int, s string")
     .select("rid", F.to_timestamp("s").cast("timestamp_ntz").alias("ts")).coalesce(1)
     .write.parquet(str(work / "micros")))
    spark.conf.set("spark.sql.parquet.outputTimestampType", old_type)
    int96_files = sorted((work / "int96").glob("*.parquet"))
    physical = {c.name: c.physical_type for c in pq.ParquetFile(int96_files[0]).schema}
    check("Spark wrote its timestamps as INT96", physical.get("ts") == "INT96", str(physical))
    i96, mic = spark.read.parquet(str(work / "int96")), spark.read.parquet(str(work / "micros"))
    spark_rows = sorted((tuple(r) for r in i96.join(mic, i96["ts"] == mic["ts"])
                         .select("id", "rid").collect()), key=repr)
    out = work / "bj_int96"
    bj("join", "-q", "--left", work / "micros", "--left-key", "ts", "--right", work / "int96",
       "--right-key", "ts", "--select", "right.id, left.rid", "--output", out)
    t = pq.read_table(out)
    rows = sorted(zip(t.column("id").to_pylist(), t.column("rid").to_pylist()), key=repr)
    check("bloomjoin join on Spark's INT96 key == Spark's join", rows == spark_rows and len(rows) == 4,
          f"{rows} vs {spark_rows}")
    out = work / "bj_int96_all"
    bj("join", "-q", "--left", work / "micros", "--left-key", "rid", "--right", work / "int96",
       "--right-key", "id", "--select", "right.*", "--output", out)
    # Microseconds since the epoch (bloomjoin's timestamps are written without a time zone,
    # which Spark reads as TIMESTAMP_NTZ: cast in the UTC session, the same instants).
    micros = ["id", "unix_micros(CAST(ts AS TIMESTAMP)) AS ts",
              "unix_micros(CAST(st.t AS TIMESTAMP)) AS st",
              "transform(arr, x -> unix_micros(CAST(x AS TIMESTAMP))) AS arr"]
    want = sorted((tuple(r) for r in i96.selectExpr(*micros).collect()), key=repr)
    ours = spark.read.parquet(str(out)).selectExpr(*micros)
    got = sorted((tuple(r) for r in ours.collect()), key=repr)
    check("Spark reads bloomjoin's output of INT96 columns (top-level, struct, array) as its input",
          got == want and len(got) == 6,
          f"{len(got)} rows, 0001-01-01 to 9999-12-31" if got == want else f"{got} vs {want}")

    spark.stop()
    print(f"keys on which Spark and bloomjoin agreed: {agreed_keys} ({time.time() - t0:.0f}s)")
    if not FAILED and not os.environ.get("KEEP_WORK"):
        shutil.rmtree(work, ignore_errors=True)
    print(f"{PASSED} passed, {FAILED} failed")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
