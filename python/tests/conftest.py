"""Shared fixtures: the repository, the command-line binary and small Parquet inputs.

The tests compare the package with the `bloomjoin` binary of the same checkout:
$BLOOMJOIN_BIN, else target/debug/bloomjoin (under $CARGO_TARGET_DIR when set). scripts/test.sh
sets it (scripts/bin.sh); a missing binary fails the tests that need it.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"


def bin_path() -> Path:
    if os.environ.get("BLOOMJOIN_BIN"):
        return Path(os.environ["BLOOMJOIN_BIN"])
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return target / "debug" / "bloomjoin"


def cli(*args, check=True) -> subprocess.CompletedProcess:
    """Run the bloomjoin binary; fail the test with its stderr if it fails and `check`."""
    exe = bin_path()
    assert exe.exists(), f"{exe} is missing: build it (scripts/bin.sh) or set BLOOMJOIN_BIN"
    r = subprocess.run(
        [str(exe), "--quiet", *map(str, args)], capture_output=True, text=True, cwd=ROOT
    )
    if check and r.returncode != 0:
        pytest.fail(f"bloomjoin {' '.join(map(str, args))}: exit {r.returncode}: {r.stderr}")
    return r


def cli_json(*args) -> dict:
    return json.loads(cli(*args).stdout)


@pytest.fixture
def int_keys(tmp_path) -> Path:
    """A Parquet file of 50,000 int64 keys (every third integer from -60,000) with nulls."""
    keys = [None if i % 997 == 0 else -60_000 + 3 * i for i in range(50_000)]
    path = tmp_path / "ints.parquet"
    pq.write_table(pa.table({"k": pa.array(keys, pa.int64())}), path, row_group_size=10_000)
    return path


@pytest.fixture
def str_keys(tmp_path) -> Path:
    """A Parquet file of 30,000 string keys (including unicode and the empty string)."""
    keys = [f"user-{i}-é" if i % 5 else f"k{i}" for i in range(30_000)] + ["", "日本"]
    path = tmp_path / "strs.parquet"
    pq.write_table(pa.table({"s": pa.array(keys, pa.string())}), path)
    return path
