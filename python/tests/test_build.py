"""bloomjoin.Filter.build: a filter from keys in memory, the one `train` builds over them."""

from __future__ import annotations

import datetime
import decimal
import json
import pickle

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

import bloomjoin
from bloomjoin.errors import KeyTypeError, UsageError
from conftest import ROOT, cli

# Keys with duplicates and nulls: 30,000 rows, 9,000 distinct values, every 11th null.
N = 30_000
INTS = pa.array([None if i % 11 == 4 else (i * 7919) % 9000 for i in range(N)], pa.int64())
STRS = pa.array([None if i % 13 == 2 else f"user-{(i * 31) % 7000}" for i in range(N)])
ABSENT_INTS = pa.array(range(10_000, 60_000), pa.int64())
ABSENT_STRS = pa.array([f"other-{i}" for i in range(50_000)])

# train's options as (CLI flags, Filter.build keywords).
SIZINGS = {
    "fpp alone": ([], {}),
    "fpp 0.001": (["--fpp", "0.001"], {"fpp": 0.001}),
    "expected items": (["--expected-items", "12000", "--fpp", "0.02"],
                       {"expected_items": 12_000, "fpp": 0.02}),
}
LAYOUTS = ["split", "blocked", "classic", "spark-v1", "spark-v2", "sbbf"]


def trained(tmp_path, table: pa.Table, column: str, flags: list) -> bloomjoin.Filter:
    """`bloomjoin train` over `table` written as one Parquet row group."""
    src, out = tmp_path / "keys.parquet", tmp_path / "keys.bjf"
    pq.write_table(table, src, row_group_size=len(table))
    cli("train", "-i", src, "-c", column, "-o", out, "--overwrite", *map(str, flags))
    return bloomjoin.Filter.open(out)


def same_filter(built: bloomjoin.Filter, train: bloomjoin.Filter, probes, metadata=True) -> None:
    """Everything inspect says but where the filter came from (and, unless `metadata`, what
    its metadata says), and every probe's answer."""
    a, b = built.info(), train.info()
    for info in (a, b):
        for k in ("location", "file_bytes") + (() if metadata else ("metadata",)):
            info.pop(k)
        info.get("metadata", {}).pop("inputs", None)
    assert a == b
    for values in probes:
        assert built.contains(values).equals(train.contains(values))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("sizing", SIZINGS)
@pytest.mark.parametrize("kind", ["int64", "string"])
def test_build_is_the_filter_train_builds(tmp_path, layout, sizing, kind):
    keys, absent = (INTS, ABSENT_INTS) if kind == "int64" else (STRS, ABSENT_STRS)
    flags, kwargs = SIZINGS[sizing]
    train = trained(tmp_path, pa.table({"k": keys}), "k", ["--layout", layout, *flags])
    chunked = pa.chunked_array([keys.slice(0, 1000), keys.slice(1000)])
    built = bloomjoin.Filter.build(chunked, column="k", layout=layout, **kwargs)
    same_filter(built, train, [keys, absent])
    assert built.location == "<built>" and built.info()["metadata"]["column"] == "k"
    # Spark's format holds no metadata: the very bytes.
    if layout.startswith("spark"):
        assert built.to_bytes("spark") == train.to_bytes("spark")


M = 5000
KEY_TYPES = {
    "int8": pa.array([i % 100 - 50 for i in range(M)], pa.int8()),
    "uint64": pa.array([2**63 + i * 7 for i in range(M)], pa.uint64()),
    "large_string": pa.array([f"s{i % 997}" for i in range(M)], pa.large_string()),
    "string_view": pa.array([f"v{i % 991}" for i in range(M)], pa.string_view()),
    "binary": pa.array([bytes([i % 256, i % 7]) for i in range(M)], pa.binary()),
    "fixed_size_binary": pa.array([bytes([i % 256, i % 13, 1]) for i in range(M)], pa.binary(3)),
    "dictionary": pa.array([f"d{i % 50}" for i in range(M)]).dictionary_encode(),
    "date32": pa.array([datetime.date(2020, 1, 1) + datetime.timedelta(days=i % 400)
                        for i in range(M)], pa.date32()),
    "timestamp_ms": pa.array([i * 1000 for i in range(M)], pa.timestamp("ms")),
    "timestamp_us_utc": pa.array([i * 10**6 for i in range(M)], pa.timestamp("us", "UTC")),
    "decimal": pa.array([decimal.Decimal(i % 300) / 4 for i in range(M)], pa.decimal128(12, 2)),
    "time32_ms": pa.array([i * 7_919 % 86_400_000 for i in range(M)], pa.time32("ms")),
    "time64_ns": pa.array([i * 1_000_000_007 % (86_400 * 10**9) for i in range(M)], pa.time64("ns")),
}


@pytest.mark.parametrize("layout", ["split", "classic", "spark-v2", "sbbf"])
@pytest.mark.parametrize("kind", KEY_TYPES)
def test_every_key_type_builds_what_train_builds_or_is_refused_alike(tmp_path, kind, layout):
    keys = KEY_TYPES[kind]
    src, out = tmp_path / "keys.parquet", tmp_path / "keys.bjf"
    pq.write_table(pa.table({"k": keys}), src, row_group_size=len(keys))
    r = cli("train", "-i", src, "-c", "k", "--layout", layout, "-o", out, check=False)
    if r.returncode != 0:
        # Refused alike (a timestamp or decimal sbbf, a key no Spark long holds), in the
        # same words.
        reason = r.stderr.strip().split(": ")[-1]
        with pytest.raises(bloomjoin.errors.BloomjoinError) as e:
            bloomjoin.Filter.build(keys, column="k", layout=layout)
        assert reason in str(e.value), (reason, str(e.value))
        return
    same_filter(bloomjoin.Filter.build(keys, column="k", layout=layout),
                bloomjoin.Filter.open(out), [keys])


def test_times_of_day_are_keys_by_value_in_any_unit():
    # datetime.time is pyarrow's time64[us]; the same times in seconds or nanoseconds are the
    # same keys, and a time off the microsecond grid is another key.
    times = [datetime.time(h, m, s) for h in range(24) for m in range(0, 60, 7) for s in (0, 30)]
    f = bloomjoin.Filter.build(pa.array(times))
    assert f.key_family == "time" and f.info()["metadata"]["key_type"] == "Time64(µs)"
    assert all(t in f for t in times)
    secs = [t.hour * 3600 + t.minute * 60 + t.second for t in times]
    assert f.contains(pa.array(secs, pa.time32("s"))).to_pylist() == [True] * len(secs)
    assert f.contains(pa.array([s * 10**9 for s in secs], pa.time64("ns"))).to_pylist() == [True] * len(secs)
    off = f.contains(pa.array([s * 10**9 + 1 for s in secs], pa.time64("ns"))).to_pylist()
    assert sum(off) < len(secs) // 10, sum(off)
    # A time is no timestamp: the filter refuses one as no key of its kind.
    with pytest.raises(bloomjoin.errors.KeyTypeError):
        f.contains(pa.array([0], pa.timestamp("us")))


def test_uuid_keys_are_their_bytes_and_never_meet_strings(tmp_path):
    import uuid
    uuids = [uuid.UUID(int=i * 0x0123456789ABCDEF0011 + 7) for i in range(200)]
    # pa.uuid() keys (what pa.array of uuid.UUID values makes) and a Parquet UUID column
    # train the same filter, which records that it holds UUIDs.
    built = bloomjoin.Filter.build(pa.array(uuids), column="k")
    assert built.info()["metadata"]["logical_type"] == "UUID"
    src = tmp_path / "u.parquet"
    pq.write_table(pa.table({"k": pa.array(uuids)}), src)
    cli("train", "-i", src, "-c", "k", "-o", tmp_path / "u.bjf")
    trained_ = bloomjoin.Filter.open(tmp_path / "u.bjf")
    assert trained_.info()["metadata"]["logical_type"] == "UUID"
    same_filter(built, trained_, [pa.array(uuids)])
    for f in (built, trained_):
        assert f.contains(pa.array(uuids)).to_pylist() == [True] * len(uuids)
        assert f.contains(pa.array([u.bytes for u in uuids], pa.binary(16))).to_pylist() == [True] * len(uuids)
        # `in` takes a UUID, or its text as DuckDB and the uuid module read it.
        assert uuids[3] in f and str(uuids[4]) in f and str(uuids[5]).upper() in f
        assert str(uuid.UUID(int=1)) not in f
        with pytest.raises(bloomjoin.errors.KeyTypeError, match="is not a UUID"):
            "not-a-uuid" in f
        # Strings never equal a UUID's bytes: an array of them is refused, not answered False.
        with pytest.raises(bloomjoin.errors.KeyTypeError, match="the keys are strings"):
            f.contains(pa.array([str(u) for u in uuids]))


def test_the_spark_format_and_xxhash64_keys_are_trains(tmp_path):
    flags = ["--layout", "spark-v2", "--format", "spark", "--spark-keys", "xxhash64",
             "--seed", "-1640531527"]
    train = trained(tmp_path, pa.table({"k": STRS}), "k", flags)
    built = bloomjoin.Filter.build(STRS, layout="spark-v2", format="spark",
                                   spark_keys="xxhash64", seed=-1640531527)
    assert built.format == "spark"
    assert built.to_bytes() == (tmp_path / "keys.bjf").read_bytes() == train.to_bytes()


def test_a_composite_key_is_a_struct_of_its_columns(tmp_path):
    a = pa.array([None if i % 17 == 0 else i % 300 for i in range(N)], pa.int32())
    table = pa.table({"a": a, "b": STRS})
    train = trained(tmp_path, table, "a,b", [])
    tuples = pa.StructArray.from_arrays([a, STRS], names=["a", "b"])
    built = bloomjoin.Filter.build(tuples)
    other = pa.StructArray.from_arrays([pa.array(range(N), pa.int32()), ABSENT_STRS.slice(0, N)],
                                       names=["a", "b"])
    same_filter(built, train, [tuples, other])
    assert [c["name"] for c in built.info()["metadata"]["key_columns"]] == ["a", "b"]
    # Polars: a struct Series of the columns, the same filter.
    df = pl.from_arrow(table)
    from_polars = bloomjoin.Filter.build(df.select(pl.struct("a", "b")).to_series())
    # The same bits; only the recorded type of "b" differs (Polars' strings are Utf8View).
    assert from_polars.info()["metadata"]["key_columns"][1]["key_type"] == "Utf8View"
    same_filter(from_polars, built, [tuples, other], metadata=False)
    present = df.filter(pl.col("a").is_not_null() & pl.col("b").is_not_null()).head(100)
    assert all((r["a"], r["b"]) in built for r in present.iter_rows(named=True))


def test_column_picks_the_key_columns_of_a_table(tmp_path):
    a = pa.array([None if i % 17 == 0 else i % 300 for i in range(N)], pa.int32())
    table = pa.table({"a": a, "b": STRS, "other": INTS})
    train = trained(tmp_path, table, "b,a", [])
    for values in (table, table.to_batches()[0], pl.from_arrow(table)):
        built = bloomjoin.Filter.build(values, column=["b", "a"])
        same_filter(built, train, [pa.StructArray.from_arrays([STRS, a], names=["b", "a"])],
                    metadata=isinstance(values, pa.lib._Tabular))
    one = bloomjoin.Filter.build(table, column="b")
    assert one.to_bytes() == bloomjoin.Filter.build(STRS, column="b").to_bytes()
    with pytest.raises(UsageError, match=r'"c" is not a field of the keys \(they have a, b, other\)'):
        bloomjoin.Filter.build(table, column="c")


def test_the_bytes_do_not_depend_on_chunks_workers_or_container():
    whole = bloomjoin.Filter.build(INTS, column="k").to_bytes()
    parts = [INTS.slice(i, 997) for i in range(0, N, 997)]
    assert bloomjoin.Filter.build(pa.chunked_array(parts), column="k").to_bytes() == whole
    for workers in (1, 2, 3):
        assert bloomjoin.Filter.build(INTS, column="k", workers=workers).to_bytes() == whole
    # A Polars Series names the column itself.
    assert bloomjoin.Filter.build(pl.Series("k", INTS.to_pylist())).to_bytes() == whole
    # NumPy and lists have no nulls here: the keys that are not null.
    valid = INTS.drop_null()
    no_nulls = bloomjoin.Filter.build(valid, column="k")
    assert bloomjoin.Filter.build(valid.to_numpy(), column="k").to_bytes() == no_nulls.to_bytes()
    assert bloomjoin.Filter.build(valid.to_pylist(), column="k").to_bytes() == no_nulls.to_bytes()


def test_no_key_is_missing_and_nulls_are_skipped():
    f = bloomjoin.Filter.build(INTS)
    assert f.contains(INTS.drop_null()).false_count == 0
    info = f.info()
    assert info["inserted"] == N - INTS.null_count
    assert info["estimated_fpp"] <= 0.01
    absent = f.contains(ABSENT_INTS)
    assert absent.true_count / len(ABSENT_INTS) < 0.02


def test_a_built_filter_serves_the_join_and_pyarrow_datasets(tmp_path):
    """What a Python user builds, the command line's join and a pyarrow dataset read."""
    users = pq.read_table(ROOT / "data" / "sample" / "users")
    ids = users.filter(pa.compute.greater(users["Reputation"], 1500))["Id"]
    f = bloomjoin.Filter.build(ids, column="Id")
    path = tmp_path / "ids.bjf"
    assert f.write(path) == path.stat().st_size
    comments = ROOT / "data" / "sample" / "comments"
    common = ["join", "--left", ROOT / "data" / "sample" / "users", "--left-key", "Id",
              "--left-where", "Reputation > 1500", "--right", comments, "--right-key", "UserId",
              "--type", "right-semi"]
    cli(*common, "--filter", path, "--output", tmp_path / "a", "--report", tmp_path / "a.json")
    cli(*common, "--no-prefilter", "--output", tmp_path / "b", "--report", tmp_path / "b.json")
    with_filter = json.loads((tmp_path / "a.json").read_text())
    without = json.loads((tmp_path / "b.json").read_text())
    assert with_filter["rows_out"] == without["rows_out"] > 0
    assert with_filter["right"]["rows_dropped_by_filter"] > 0
    # The trained filter of the same keys (one row group: the sample's users are one file).
    data = ds.dataset(comments, format="parquet")
    kept = data.to_table(filter=f.expression("UserId", data.schema.field("UserId").type))
    assert kept.num_rows >= with_filter["rows_out"]
    assert pickle.loads(pickle.dumps(f)).to_bytes() == f.to_bytes()


def test_bad_keys_and_options_are_clear_errors():
    with pytest.raises(KeyTypeError, match=r"build\(\): column \"keys\": type Float64 cannot be a key"):
        bloomjoin.Filter.build(pa.array([1.5, 2.5]))
    with pytest.raises(KeyTypeError, match=r"build\(\) takes an array of keys, not one str"):
        bloomjoin.Filter.build("abc")
    with pytest.raises(UsageError, match="--bits and --hashes go together"):
        bloomjoin.Filter.build(INTS, bits=4096)
    with pytest.raises(UsageError, match=r"build\(\): unknown field `where`"):
        bloomjoin.Filter.build(INTS, where="k > 1")
    with pytest.raises(UsageError, match="column: names 2 key columns, the keys are one array"):
        bloomjoin.Filter.build(INTS, column="a,b")
    with pytest.raises(UsageError, match="a composite key needs a native layout"):
        bloomjoin.Filter.build(pa.StructArray.from_arrays([INTS, STRS], names=["a", "b"]), layout="sbbf")
    with pytest.raises(UsageError, match="--format"):
        bloomjoin.Filter.build(INTS, format="spark")
    # A key that a Spark filter cannot hold: what train says of it, named by the function.
    with pytest.raises(bloomjoin.errors.InputError, match=r"^build\(\): UInt64 key 9223372036854775808 does not fit a Spark filter"):
        bloomjoin.Filter.build(pa.array([2**63], pa.uint64()), layout="spark-v2")
    assert bloomjoin.Filter.build(pa.array([], pa.int64())).info()["inserted"] == 0
