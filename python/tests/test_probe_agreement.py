"""`Filter.contains` agrees with `bloomjoin probe` on a million keys, for every layout and
both file formats, including filters that Spark itself wrote (tests/data/spark)."""

from __future__ import annotations

import random

import pyarrow as pa
import pytest

import bloomjoin
from conftest import ROOT, cli

N_PROBES = 1_000_000
SPARK_DIR = ROOT / "tests" / "data" / "spark"


def int_probes() -> list[int]:
    rng = random.Random(7)
    near = [rng.randrange(-70_000, 100_000) for _ in range(N_PROBES // 2)]
    wide = [rng.randrange(-(2**63), 2**63) for _ in range(N_PROBES // 2 - 2)]
    return near + wide + [-(2**63), 2**63 - 1]


def str_probes() -> list[str]:
    rng = random.Random(8)
    out = []
    for _ in range(N_PROBES):
        i = rng.randrange(40_000)
        out.append(f"user-{i}-é" if rng.random() < 0.5 else f"k{i}")
    out[:3] = ["", "日本", "user--é"]
    return out


def probe_cli(filter_path, keys, tmp_path, key_type=None) -> list[bool]:
    keys_file = tmp_path / "keys.txt"
    keys_file.write_text("\n".join(map(str, keys)) + "\n", encoding="utf-8")
    args = ["probe", "--filter", filter_path, "--keys", keys_file]
    if key_type:
        args += ["--key-type", key_type]
    lines = cli(*args).stdout.splitlines()
    assert len(lines) == len(keys)
    assert set(lines) <= {"maybe", "no"}
    return [line == "maybe" for line in lines]


def assert_agree(filter_path, keys, arrow_type, tmp_path, key_type=None):
    f = bloomjoin.Filter.open(filter_path)
    ours = f.contains(pa.array(keys, arrow_type)).to_pylist()
    theirs = probe_cli(filter_path, keys, tmp_path, key_type)
    assert len(ours) == len(theirs) == N_PROBES
    mismatches = [i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b]
    assert not mismatches, f"{len(mismatches)} mismatches, first at key {keys[mismatches[0]]!r}"
    # The probes are a real mix: some keys pass, most do not.
    assert 0 < sum(ours) < N_PROBES


LAYOUTS = ["split", "blocked", "classic", "spark-v1", "spark-v2"]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_contains_agrees_with_probe_on_integer_keys(layout, int_keys, tmp_path):
    out = tmp_path / "f.bjf"
    cli("train", "-i", int_keys, "-c", "k", "--layout", layout, "--fpp", "0.01", "-o", out)
    assert_agree(out, int_probes(), pa.int64(), tmp_path)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_contains_agrees_with_probe_on_string_keys(layout, str_keys, tmp_path):
    out = tmp_path / "f.bjf"
    cli("train", "-i", str_keys, "-c", "s", "--layout", layout, "--fpp", "0.05", "-o", out)
    assert_agree(out, str_probes(), pa.string(), tmp_path)


@pytest.mark.parametrize("layout", ["spark-v1", "spark-v2"])
def test_contains_agrees_with_probe_on_spark_format_files(layout, int_keys, tmp_path):
    out = tmp_path / "f.spark"
    cli("train", "-i", int_keys, "-c", "k", "--layout", layout, "--format", "spark",
        "--expected-items", "50000", "--fpp", "0.01", "-o", out)
    assert bloomjoin.Filter.open(out).format == "spark"
    assert_agree(out, int_probes(), pa.int64(), tmp_path, key_type="integer")


@pytest.mark.parametrize(
    "name,kind",
    [
        ("v1_long_n5000_p0_001.bin", "integer"),
        ("v2s42_long_n5000_p0_001.bin", "integer"),
        ("v2s0_string_n5000_p0_001.bin", "bytes"),
        ("v1_string_n1000_p0_03.bin", "bytes"),
    ],
)
def test_contains_agrees_with_probe_on_filters_spark_wrote(name, kind, tmp_path):
    path = SPARK_DIR / name
    f = bloomjoin.Filter.open(path)
    assert (f.format, f.key_family) == ("spark", "any")
    if kind == "integer":
        # The manifest's long keys are multiples of 3 from 0; probe around and far away.
        rng = random.Random(9)
        keys = [rng.randrange(-20_000, 60_000) for _ in range(N_PROBES - 1)] + [2**63 - 1]
        assert_agree(path, keys, pa.int64(), tmp_path, key_type="integer")
    else:
        # The manifest's string keys are key-0, key-1, ...
        rng = random.Random(10)
        keys = [f"key-{rng.randrange(20_000)}" for _ in range(N_PROBES)]
        assert_agree(path, keys, pa.string(), tmp_path, key_type="bytes")
