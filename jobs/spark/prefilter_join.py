#!/usr/bin/env python3
"""Spark jobs (PySpark, Spark 4.1+) that share Bloom filters with bloomjoin.

Two subcommands:

``prefilter``
    Read a filter that ``bloomjoin train --layout spark-v1|spark-v2 --format spark`` wrote to
    a location (any Hadoop path: file://, hdfs://, s3a://, gs://, abfss://), hand it to every
    task, drop the right rows whose key the filter rules out with Spark's own ``mightContain``
    (the catalyst expression ``BloomFilterMightContain``, the one Spark's runtime bloom-filter
    joins use), then join. Spark's ``might_contain`` takes BIGINT values only: with a filter
    of plain keys the key must be an integer column; with ``--spark-keys xxhash64`` (a filter
    from ``bloomjoin train --spark-keys xxhash64``) the job probes
    ``might_contain(filter, xxhash64(key))``, so string, decimal, date and timestamp keys work
    too (the right key is cast to the left key's type first: Spark's xxhash64 depends on the
    type, and the filter hashed the left key's). A composite key (``--left-key a,b
    --right-key x,y``, a filter from ``bloomjoin train --column a,b --spark-keys xxhash64``)
    probes ``might_contain(filter, xxhash64(x, y))``, each right column cast to its left
    column's type, and joins on ``a = x AND b = y``.

``export-filter``
    The reverse: build a filter with Spark's ``df.stat.bloomFilter(col, n, fpp)`` (Spark 4.1+
    writes version 2, seed 0) and write its ``BloomFilter.writeTo`` bytes to a location, for
    ``bloomjoin join --filter <location>``. With ``--spark-keys xxhash64`` it inserts
    ``xxhash64(col)`` instead, as Spark's runtime filters do (``bloomjoin join --filter
    <location> --spark-keys xxhash64`` reads it); ``--column a,b`` inserts ``xxhash64(a, b)``.
    In xxhash64 mode rows with a null key column are not inserted (as ``bloomjoin train``
    does: a null never joins).

Examples::

    spark-submit jobs/spark/prefilter_join.py prefilter --filter s3a://b/users.spark \\
        --left s3a://b/users --left-key Id --right s3a://b/comments --right-key UserId \\
        --output s3a://b/joined
    spark-submit jobs/spark/prefilter_join.py export-filter --input s3a://b/users \\
        --column Id --expected-items 10000000 --fpp 0.01 --output s3a://b/users.spark

A two-column key, with a filter from ``bloomjoin train --column Id,DisplayName --layout
spark-v2 --spark-keys xxhash64 --format spark -o s3a://b/users_by_id_name.spark``::

    spark-submit jobs/spark/prefilter_join.py prefilter --spark-keys xxhash64 \\
        --filter s3a://b/users_by_id_name.spark --left s3a://b/users --left-key Id,DisplayName \\
        --right s3a://b/comments --right-key UserId,UserDisplayName --output s3a://b/joined2

The functions are importable (``scripts/spark_interop.py`` uses them with a local session).
"""

import argparse
import functools
import sys

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import ByteType, IntegerType, LongType, ShortType

INTEGRAL = (ByteType, ShortType, IntegerType, LongType)


def read_bytes(spark: SparkSession, location: str) -> bytes:
    """The bytes of one file at a Hadoop location, read through Spark's binaryFile source."""
    rows = spark.read.format("binaryFile").load(location).select("content").collect()
    if len(rows) != 1:
        raise SystemExit(f"{location}: expected one filter file, found {len(rows)}")
    return bytes(rows[0][0])


def write_bytes(spark: SparkSession, location: str, data: bytes) -> None:
    """Write bytes to a Hadoop location (create, overwrite), through the Hadoop FileSystem."""
    jvm = spark._jvm
    path = jvm.org.apache.hadoop.fs.Path(location)
    fs = path.getFileSystem(spark._jsc.hadoopConfiguration())
    out = fs.create(path, True)
    try:
        out.write(bytearray(data))
    finally:
        out.close()


def load_filter(spark: SparkSession, data: bytes):
    """Spark's BloomFilter.readFrom on the bytes (a JVM object): proves Spark accepts them."""
    jvm = spark._jvm
    stream = jvm.java.io.ByteArrayInputStream(bytearray(data))
    return jvm.org.apache.spark.util.sketch.BloomFilter.readFrom(stream)


def filter_to_bytes(spark: SparkSession, jfilter) -> bytes:
    """BloomFilter.writeTo of a JVM filter, as bytes."""
    out = spark._jvm.java.io.ByteArrayOutputStream()
    jfilter.writeTo(out)
    return bytes(out.toByteArray())


def might_contain(spark: SparkSession, data: bytes, key):
    """A Column: Spark's ``might_contain(<filter bytes>, key)`` (BloomFilterMightContain).

    The serialized filter is a literal of the plan, so Spark ships it once with every task
    and each task deserializes it once (``BloomFilter.readFrom``), as for its own runtime
    bloom filters; the key must be BIGINT (integral columns are cast).
    """
    from pyspark.sql.classic.column import Column

    jvm = spark._jvm
    expr = jvm.org.apache.spark.sql.catalyst.expressions
    utils = jvm.org.apache.spark.sql.classic.ExpressionUtils
    binary = jvm.org.apache.spark.sql.types.DataTypes.BinaryType
    lit = expr.Literal.create(bytearray(data), binary)
    key = F.col(key) if isinstance(key, str) else key
    mc = expr.BloomFilterMightContain(lit, utils.expression(key.cast("bigint")._jc))
    return Column(utils.column(mc))


def key_columns(key) -> list:
    """A key as a list of column names: ``"a,b"`` or ``["a", "b"]`` (a composite key), ``"a"``."""
    cols = [c.strip() for c in key.split(",")] if isinstance(key, str) else list(key)
    if not cols or any(not c for c in cols):
        raise SystemExit(f"key {key!r}: expected one column or several, comma-separated")
    return cols


def xxhash64_key(left: DataFrame, left_key, right: DataFrame, right_key):
    """``xxhash64(right_key...)`` with each right key column as its left key column's type
    (``try_cast``: a value that type cannot hold matches no left key, and hashes as a NULL,
    which Spark skips). One column or a composite key (``"a,b"``)."""
    lcols, rcols = key_columns(left_key), key_columns(right_key)
    if len(lcols) != len(rcols):
        raise SystemExit(f"--left-key {left_key} and --right-key {right_key} differ in arity")
    return F.xxhash64(
        *[F.col(r).try_cast(left.schema[lc].dataType) for lc, r in zip(lcols, rcols)]
    )


def prefilter_join(
    spark: SparkSession,
    filter_bytes: bytes,
    left: DataFrame,
    left_key: str,
    right: DataFrame,
    right_key: str,
    how: str = "inner",
    spark_keys: str = "plain",
) -> DataFrame:
    """Join ``left`` and ``right`` on ``left_key == right_key``, dropping right rows the filter
    (trained on the left keys) rules out before the join. ``how`` must be a join type whose
    result the prefilter cannot change (inner, left, left_semi, left_anti: right rows without
    a left match are never output); right and full outer joins are refused. ``spark_keys``
    says what the filter holds: the keys (``plain``, integer keys only) or ``xxhash64`` of
    them (any key type Spark hashes). The keys may be composite (``"a,b"`` and ``"x,y"``,
    xxhash64 only): the join is on every pair of columns being equal."""
    if how not in ("inner", "left", "left_outer", "left_semi", "left_anti"):
        raise SystemExit(f"--type {how}: the prefilter would drop right rows this join outputs")
    if spark_keys not in ("plain", "xxhash64"):
        raise SystemExit(f"--spark-keys {spark_keys}: expected plain or xxhash64")
    lcols, rcols = key_columns(left_key), key_columns(right_key)
    if len(lcols) != len(rcols):
        raise SystemExit(f"--left-key {left_key} and --right-key {right_key} differ in arity")
    if spark_keys == "plain" and len(rcols) > 1:
        raise SystemExit(
            f"--right-key {right_key}: a composite key needs a filter of xxhash64 keys "
            "(bloomjoin train --column a,b --spark-keys xxhash64) and --spark-keys xxhash64"
        )
    dtype = right.schema[rcols[0]].dataType
    if spark_keys == "plain" and not isinstance(dtype, INTEGRAL):
        raise SystemExit(
            f"--right-key {right_key}: type {dtype.simpleString()}; Spark's might_contain takes "
            "BIGINT only (train the filter on an integer key, or with --spark-keys xxhash64)"
        )
    load_filter(spark, filter_bytes)  # fail early, with Spark's own error, on a bad file
    key = xxhash64_key(left, lcols, right, rcols) if spark_keys == "xxhash64" else rcols[0]
    kept = right.where(might_contain(spark, filter_bytes, key))
    cond = [left[lc] == kept[rc] for lc, rc in zip(lcols, rcols)]
    return left.join(kept, cond, how)


def export_filter(
    spark: SparkSession, df: DataFrame, column: str, n: int, fpp: float, spark_keys: str = "plain"
) -> bytes:
    """Spark's ``df.stat.bloomFilter(column, n, fpp)`` serialized with ``writeTo``; with
    ``spark_keys="xxhash64"`` the filter of ``xxhash64(column)`` instead, or of
    ``xxhash64(a, b)`` for ``column="a,b"``, over the rows without a null key column."""
    cols = key_columns(column)
    if spark_keys == "xxhash64":
        not_null = functools.reduce(lambda a, b: a & b, [F.col(c).isNotNull() for c in cols])
        df = df.where(not_null).select(F.xxhash64(*cols).alias("__xxhash64"))
        column = "__xxhash64"
    elif len(cols) > 1:
        raise SystemExit(f"--column {column}: a composite key needs --spark-keys xxhash64")
    jfilter = df._jdf.stat().bloomFilter(column, n, fpp)
    return filter_to_bytes(spark, jfilter)


def main(argv=None, stop_session: bool = True) -> int:
    """The command line. ``stop_session=False`` leaves an existing session running (tests)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("prefilter", help="join with a bloomjoin filter as the prefilter")
    a.add_argument("--filter", required=True, help="the filter (Spark format) location")
    a.add_argument("--left", required=True, nargs="+", help="left Parquet location(s)")
    a.add_argument("--left-key", required=True,
                   help="the left key column, or several comma-separated (xxhash64 only)")
    a.add_argument("--right", required=True, nargs="+", help="right Parquet location(s)")
    a.add_argument("--right-key", required=True,
                   help="the right key column(s), paired with --left-key in order")
    a.add_argument("--type", default="inner", help="inner, left, left_semi or left_anti")
    a.add_argument("--output", required=True, help="output Parquet directory")
    a.add_argument("--spark-keys", default="plain", choices=["plain", "xxhash64"],
                   help="what the filter holds: the keys, or xxhash64 of them")
    a.add_argument("--master", help="Spark master (default: spark-submit's)")
    b = sub.add_parser("export-filter", help="write Spark's df.stat.bloomFilter for bloomjoin")
    b.add_argument("--input", required=True, nargs="+", help="Parquet location(s)")
    b.add_argument("--column", required=True,
                   help="the key column, or several comma-separated (xxhash64 only)")
    b.add_argument("--expected-items", type=int, required=True)
    b.add_argument("--fpp", type=float, default=0.03)
    b.add_argument("--output", required=True, help="where to write the filter")
    b.add_argument("--spark-keys", default="plain", choices=["plain", "xxhash64"],
                   help="insert the keys, or xxhash64 of them")
    b.add_argument("--master", help="Spark master (default: spark-submit's)")
    args = p.parse_args(argv)

    builder = SparkSession.builder.appName(f"bloomjoin-{args.cmd}")
    if args.master:
        builder = builder.master(args.master)
    spark = builder.getOrCreate()
    try:
        if args.cmd == "prefilter":
            data = read_bytes(spark, args.filter)
            left = spark.read.parquet(*args.left)
            right = spark.read.parquet(*args.right)
            out = prefilter_join(spark, data, left, args.left_key, right, args.right_key, args.type,
                                 args.spark_keys)
            out.write.mode("errorifexists").parquet(args.output)
        else:
            df = spark.read.parquet(*args.input)
            data = export_filter(spark, df, args.column, args.expected_items, args.fpp,
                                 args.spark_keys)
            write_bytes(spark, args.output, data)
    finally:
        if stop_session:
            spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
