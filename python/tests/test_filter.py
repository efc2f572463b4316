"""bloomjoin.Filter: reading, probing every kind of input, info, bytes, merge, pickling."""

from __future__ import annotations

import datetime
import json
import pickle
import subprocess
import threading

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import bloomjoin
from conftest import ROOT, SAMPLE, bin_path, cli, cli_json

GOLDEN = ROOT / "tests" / "golden"


@pytest.fixture
def int_filter(int_keys, tmp_path):
    out = tmp_path / "ints.bjf"
    cli("train", "-i", int_keys, "-c", "k", "--expected-items", "50000", "--fpp", "0.001",
        "-o", out)
    return out


def test_open_and_from_bytes_read_the_same_filter(int_filter):
    a = bloomjoin.Filter.open(int_filter)
    b = bloomjoin.Filter.from_bytes(int_filter.read_bytes())
    c = bloomjoin.Filter.from_bytes(bytearray(int_filter.read_bytes()))
    assert a.to_bytes() == b.to_bytes() == c.to_bytes() == int_filter.read_bytes()
    assert (a.location, b.location) == (str(int_filter), "<bytes>")
    assert (a.layout, a.key_family, a.format) == ("split", "integer", "native")
    assert a.num_bits % 512 == 0 and a.num_hashes > 0 and a.seed == 0


def test_open_accepts_file_urls_and_pathlike(int_filter):
    assert bloomjoin.Filter.open(f"file://{int_filter}").to_bytes() == int_filter.read_bytes()
    assert bloomjoin.Filter.open(int_filter).to_bytes() == int_filter.read_bytes()


def test_info_is_what_inspect_json_prints(int_filter):
    assert bloomjoin.Filter.open(int_filter).info() == cli_json("inspect", int_filter, "--json")


@pytest.mark.parametrize(
    "name", ["blocked_int.bjf", "classic_int.bjf", "blocked_str.bjf", "split_int.bjf", "split_str.bjf"])
def test_info_matches_inspect_on_golden_filters(name):
    path = GOLDEN / name
    assert bloomjoin.Filter.open(path).info() == cli_json("inspect", path, "--json")


def test_info_matches_inspect_on_a_spark_file():
    path = ROOT / "tests" / "data" / "spark" / "v2s42_long_n1000_p0_03.bin"
    info = bloomjoin.Filter.open(path).info()
    assert info == cli_json("inspect", path, "--json")
    assert info["format"] == "spark v2" and info["key_family"] == "any"


def test_contains_takes_every_kind_of_array(int_filter):
    f = bloomjoin.Filter.open(int_filter)
    # Trained on -60000 + 3i for i < 50000, except every 997th i (null): -60000 is not in.
    keys = [-60_000, -59_997, 5, 0, 3 * 997 - 60_000, 2**40, None, 89_997]
    expected = [False, True, False, True, False, False, False, True]
    assert f.contains(pa.array(keys, pa.int64())).to_pylist() == expected
    inputs = {
        "pyarrow int32": pa.array(keys[:5] + [7, None, 89_997], pa.int32()),
        "chunked": pa.chunked_array([pa.array(keys[:3], pa.int64()), pa.array(keys[3:], pa.int64())]),
        "empty chunks": pa.chunked_array([pa.array([], pa.int64()), pa.array(keys, pa.int64())]),
        "polars": pl.Series("k", keys, dtype=pl.Int64),
        "polars chunks": pl.concat([pl.Series("k", keys[:4]), pl.Series("k", keys[4:])], rechunk=False),
        "list": keys,
        "tuple": tuple(keys),
        "sliced": pa.array([7] + keys + [7], pa.int64()).slice(1, len(keys)),
    }
    for name, values in inputs.items():
        got = f.contains(values)
        got = got.to_list() if isinstance(got, pl.Series) else got.to_pylist()
        assert got == expected, name
    no_nulls = [k for k in keys if k is not None]
    want = [e for k, e in zip(keys, expected) if k is not None]
    assert f.contains(np.array(no_nulls, dtype=np.int64)).to_pylist() == want
    assert f.contains(np.array(no_nulls, dtype=np.int64)[::2]).to_pylist() == want[::2]
    assert f.contains(np.array([5, -59_997], dtype=np.int32)).to_pylist() == [False, True]
    assert f.contains(np.array([5, 0], dtype=np.uint16)).to_pylist() == [False, True]


def test_contains_returns_pyarrow_booleans_or_a_polars_series(int_filter):
    f = bloomjoin.Filter.open(int_filter)
    out = f.contains(pa.chunked_array([[1, 2], [3]], pa.int64()))
    assert isinstance(out, pa.BooleanArray) and len(out) == 3 and out.null_count == 0
    s = f.contains(pl.Series("UserId", [1, -59_997]))
    assert isinstance(s, pl.Series) and s.name == "UserId" and s.dtype == pl.Boolean
    assert s.to_list() == [False, True]
    assert len(f.contains(pa.array([], pa.int64()))) == 0


def test_contains_on_strings_of_every_arrow_kind(str_keys, tmp_path):
    out = tmp_path / "s.bjf"
    cli("train", "-i", str_keys, "-c", "s", "-o", out)
    f = bloomjoin.Filter.open(out)
    keys = ["user-1-é", "k0", "", "日本", "nope", None]
    want = [True, True, True, True, False, False]
    for t in [pa.string(), pa.large_string(), pa.string_view(), pa.binary(), pa.large_binary()]:
        values = pa.array([k.encode() if (k is not None and "binary" in str(t)) else k for k in keys], t)
        assert f.contains(values).to_pylist() == want, t
    assert f.contains(pa.array(keys).dictionary_encode()).to_pylist() == want
    assert f.contains(pl.Series(keys)).to_list() == want
    assert f.contains(np.array(keys[:-1], dtype=object)).to_pylist() == want[:-1]
    assert ("k0" in f, b"k0" in f, "nope" in f, None in f) == (True, True, False, False)


def test_in_converts_one_key_like_contains(int_filter):
    f = bloomjoin.Filter.open(int_filter)
    assert -59_997 in f and 5 not in f and -60_000 not in f and None not in f
    assert np.int32(-59_997) in f
    # A date is its day number (Date32 keys are integer keys): day 0 is in, day 5 is not.
    assert datetime.date(1970, 1, 1) in f and datetime.date(1970, 1, 6) not in f


def test_to_bytes_and_write_in_both_formats(int_keys, tmp_path):
    spark = tmp_path / "f.spark"
    cli("train", "-i", int_keys, "-c", "k", "--layout", "spark-v2", "--expected-items",
        "50000", "-o", tmp_path / "f.bjf")
    cli("train", "-i", int_keys, "-c", "k", "--layout", "spark-v2", "--format", "spark",
        "--expected-items", "50000", "-o", spark)
    native = bloomjoin.Filter.open(tmp_path / "f.bjf")
    assert native.to_bytes(format="spark") == spark.read_bytes()
    n = native.write(tmp_path / "out.spark", format="spark")
    assert (tmp_path / "out.spark").read_bytes() == spark.read_bytes() and n == spark.stat().st_size
    from_spark = bloomjoin.Filter.open(spark)
    assert from_spark.format == "spark" and from_spark.to_bytes() == spark.read_bytes()
    keys = pa.array(range(-70_000, 70_000, 11), pa.int64())
    assert from_spark.contains(keys).to_pylist() == native.contains(keys).to_pylist()
    with pytest.raises(bloomjoin.OutputExistsError):
        native.write(tmp_path / "out.spark", format="spark")
    native.write(tmp_path / "out.spark", overwrite=True)
    assert (tmp_path / "out.spark").read_bytes() == (tmp_path / "f.bjf").read_bytes()


def test_merge_is_the_cli_merge(tmp_path):
    users = SAMPLE / "users"
    parts = []
    for i in range(3):
        p = tmp_path / f"part-{i}.bjf"
        cli("train", "-i", users, "-c", "Id", "--expected-items", "3000", "--shard", f"{i}/3",
            "-o", p)
        parts.append(p)
    cli("merge", "-o", tmp_path / "cli.bjf", *parts)
    cli("train", "-i", users, "-c", "Id", "--expected-items", "3000", "-o", tmp_path / "all.bjf")
    merged = bloomjoin.Filter.merge([bloomjoin.Filter.open(parts[0]), parts[1], str(parts[2])])
    assert merged.to_bytes() == (tmp_path / "cli.bjf").read_bytes()
    # Shards OR back into the unsharded filter's bits.
    whole = bloomjoin.Filter.open(tmp_path / "all.bjf")
    assert merged.info()["fill_ratio"] == whole.info()["fill_ratio"]
    assert merged.location == "<merged>"
    # One location or one Filter instead of a list is a usage error, not a string read one
    # character at a time ("o: No such file"); the same shard twice is refused as by the CLI.
    for one in (str(parts[0]), bloomjoin.Filter.open(parts[0])):
        with pytest.raises(bloomjoin.UsageError, match="takes a list"):
            bloomjoin.Filter.merge(one)
    with pytest.raises(bloomjoin.BloomjoinError, match="both shard 0/3"):
        bloomjoin.Filter.merge([parts[0], parts[0]])


def test_pickle_round_trips(int_filter):
    f = bloomjoin.Filter.open(int_filter)
    g = pickle.loads(pickle.dumps(f))
    assert g.to_bytes() == f.to_bytes()
    keys = pa.array(range(-1000, 1000), pa.int64())
    assert g.contains(keys).equals(f.contains(keys))


def test_a_filter_is_shared_by_threads(int_filter):
    f = bloomjoin.Filter.open(int_filter)
    keys = pa.array(range(-100_000, 100_000), pa.int64())
    want = f.contains(keys)
    results = []

    def work():
        for _ in range(5):
            results.append(f.contains(keys).equals(want))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [True] * 20


def test_repr_names_the_parameters(int_filter):
    r = repr(bloomjoin.Filter.open(int_filter))
    assert r.startswith("Filter(") and "layout='split'" in r and "key_family='integer'" in r


def test_composite_key_filters_take_struct_arrays_and_tuples(tmp_path):
    """A filter over (a, b) probes a struct array of the two columns (pyarrow or Polars) and
    `(a, b) in f`, with the same answers as `bloomjoin probe` on tab-separated tuples; a
    null struct or a null component is never in the set."""
    ids = list(range(0, 30_000, 3))
    names = [f"n{i % 7}" for i in ids]
    src = tmp_path / "t.parquet"
    pq.write_table(pa.table({"id": pa.array(ids, pa.int64()), "name": names}), src)
    out = tmp_path / "t.bjf"
    cli("train", "-i", src, "-c", "id,name", "--expected-items", "10000", "--fpp", "0.01",
        "-o", out)
    f = bloomjoin.Filter.open(out)
    assert f.key_family == "tuple"

    probe_ids = list(range(-50, 30_050))
    probe_names = [f"n{i % 7}" for i in probe_ids]
    keys = pa.StructArray.from_arrays(
        [pa.array(probe_ids, pa.int32()), pa.array(probe_names)], names=["x", "y"])
    got = f.contains(keys).to_pylist()
    lines = "".join(f"{i}\t{n}\n" for i, n in zip(probe_ids, probe_names))
    r = subprocess.run([str(bin_path()), "probe", "--filter", str(out)], input=lines,
                       capture_output=True, text=True, check=True)
    want = [a == "maybe" for a in r.stdout.split()]
    assert got == want
    # Every trained tuple is in; most others are not.
    present = {(i, n) for i, n in zip(ids, names)}
    assert all(g for g, k in zip(got, zip(probe_ids, probe_names)) if k in present)
    absent = [g for g, k in zip(got, zip(probe_ids, probe_names)) if k not in present]
    assert sum(absent) < 0.05 * len(absent)

    df = pl.DataFrame({"x": probe_ids, "y": probe_names})
    s = df.select(pl.struct("x", "y").map_batches(f.contains)).to_series()
    assert s.to_list() == want
    assert (3, "n3") in f
    assert [(i, n) in f for i, n in zip(probe_ids[:500], probe_names[:500])] == want[:500]
    assert (None, "n3") not in f
    nulls = pa.StructArray.from_arrays(
        [pa.array([3, 3, None]), pa.array(["n3", "n3", "n3"])], names=["a", "b"],
        mask=pa.array([False, True, False]))
    assert f.contains(nulls).to_pylist() == [True, False, False]
    # A struct of the wrong arity, or a single column, is a KeyTypeError naming the problem.
    with pytest.raises(bloomjoin.KeyTypeError):
        f.contains(pa.array(probe_ids))
    with pytest.raises(bloomjoin.KeyTypeError, match="2 columns, the struct has 3 fields"):
        f.contains(pa.StructArray.from_arrays(
            [pa.array([1]), pa.array(["a"]), pa.array([2])], names=["a", "b", "c"]))
    # The same check for `in`: a 3-tuple is not a key of a two-column filter (it was hashed and
    # answered False before).
    with pytest.raises(bloomjoin.KeyTypeError, match="2 columns, the tuple has 3 values"):
        (3, "n3", 1) in f
    with pytest.raises(bloomjoin.KeyTypeError, match="2 columns, the tuple has 1 value"):
        (3,) in f
