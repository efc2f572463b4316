#!/usr/bin/env python3
"""Filter.contains from Python against the library's own batch probe, in one process.

Trains a blocked filter on 1,000,000 distinct Int64 keys (fpp 1 %), builds a 10,000,000-element
Int64 pyarrow array (half of it trained keys, half random), then times, alternating, `repeat`
times each:
  rust      the library's batch probe (BloomFilter::probe_array) on the same array, called
            from Rust after a single import (bloomjoin._bloomjoin._rust_probe_seconds): the
            baseline; also on slices of 65,536 keys, as contains() probes;
  contains  f.contains(array) from Python: Arrow C data import, probe, BooleanArray export;
and the same for a ChunkedArray of 10 chunks, a Polars Series and a NumPy array when those
are installed. Prints the median rate of each and its ratio to the baseline.

    pip install ./python          # release build (the figures in docs/BENCHMARKS.md)
    python scripts/bench-python.py [--repeat 9]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import bloomjoin
from bloomjoin import _bloomjoin

N_KEYS = 1_000_000
N_PROBES = 10_000_000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=9)
    args = ap.parse_args()

    rng = np.random.default_rng(17)
    keys = rng.choice(2**62, size=N_KEYS, replace=False).astype(np.int64)
    probes = np.concatenate(
        [rng.choice(keys, N_PROBES // 2), rng.integers(-(2**63), 2**63 - 1, N_PROBES // 2)]
    )
    rng.shuffle(probes)
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "keys.parquet"
        pq.write_table(pa.table({"k": keys}), data)
        report = bloomjoin.train(input=str(data), column="k", expected_items=N_KEYS,
                                 fpp=0.01, output=str(Path(tmp) / "f.bjf"))
        f = bloomjoin.Filter.open(Path(tmp) / "f.bjf")
    p = report["params"]
    print(f"filter: {p['layout']}, m={p['num_bits']} bits ({p['num_bits'] / 8 / 2**20:.2f} MiB), "
          f"k={p['num_hashes']}, {N_KEYS} keys; probes: {N_PROBES} Int64")

    array = pa.array(probes)
    inputs = {"pyarrow Array": array,
              "pyarrow ChunkedArray (10 chunks)": pa.chunked_array(
                  [array.slice(i * N_PROBES // 10, N_PROBES // 10) for i in range(10)]),
              "NumPy int64": probes}
    try:
        import polars as pl
        inputs["Polars Series"] = pl.Series("k", probes)
    except ImportError:
        pass

    expected = f.contains(array)
    assert expected.true_count >= N_PROBES // 2
    for name, values in inputs.items():
        out = f.contains(values)
        got = out.to_arrow() if hasattr(out, "to_arrow") else out
        assert got.equals(expected), name

    rust, sliced, py = [], [], {name: [] for name in inputs}
    for _ in range(args.repeat):
        rust += _bloomjoin._rust_probe_seconds(f, array, 1)
        sliced += _bloomjoin._rust_probe_seconds(f, array, 1, _bloomjoin._PROBE_SLICE)
        for name, values in inputs.items():
            t = time.perf_counter()
            f.contains(values)
            py[name].append(time.perf_counter() - t)

    base = N_PROBES / statistics.median(rust) / 1e6
    print(f"{'':44} {'M keys/s':>9} {'vs Rust':>8}")
    print(f"{'Rust probe_array, whole array (baseline)':44} {base:9.1f} {1:8.0%}")
    rate = N_PROBES / statistics.median(sliced) / 1e6
    print(f"{'Rust probe_array, 65,536-key slices':44} {rate:9.1f} {rate / base:8.0%}")
    for name, times in py.items():
        rate = N_PROBES / statistics.median(times) / 1e6
        print(f"{'contains(' + name + ')':44} {rate:9.1f} {rate / base:8.0%}")


if __name__ == "__main__":
    main()
