#!/usr/bin/env python3
"""Filter.build from Python against train over Parquet and a hash pass by pyarrow and Polars.

Two key arrays, generated with a fixed seed: 10,000,000 Int64 keys (2,000,000 distinct) and
5,000,000 strings (1,000,000 distinct, 12 to 16 bytes). For each, times in one process,
alternating, `repeat` rounds:
  build           Filter.build(keys): --fpp 0.01 alone (split, sized by folding);
  build items     Filter.build(keys, expected_items=distinct, fpp=0.01);
  train parquet   bloomjoin.train over the same keys written once to Parquet (one row
                  group per 1,048,576 rows, zstd): what a user without build() would do;
  pyarrow unique  pyarrow.compute.unique(keys): the key set a Python user would otherwise
                  build for pyarrow.compute.is_in (the baseline);
  polars unique   Series.unique() on the same keys, already in Polars.
Prints the median seconds and keys per second of each, the ratio to the baseline, the filter's
size and its false-positive rate measured on 1,000,000 absent keys, and the process's peak RSS
before and after the timings.

    pip install ./python          # release build
    python scripts/bench-build.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

import bloomjoin


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def workloads(rng: np.random.Generator) -> dict:
    ints = rng.choice(2**62, size=2_000_000, replace=False).astype(np.int64)
    int_keys = pa.array(rng.choice(ints, 10_000_000))
    int_absent = pa.array(rng.integers(2**62, 2**63 - 1, 1_000_000, dtype=np.int64))
    words = np.array([f"key-{i:08x}" for i in rng.choice(2**40, 1_000_000, replace=False)])
    str_keys = pa.array(rng.choice(words, 5_000_000).tolist(), pa.string())
    str_absent = pa.array([f"absent-{i}" for i in range(1_000_000)], pa.string())
    return {
        "int64, 10M rows, 2M distinct": (int_keys, int_absent, 2_000_000),
        "string, 5M rows, 1M distinct": (str_keys, str_absent, 1_000_000),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    rng = np.random.default_rng(29)
    data = workloads(rng)
    with tempfile.TemporaryDirectory() as tmp:
        for name, (keys, absent, distinct) in data.items():
            src = Path(tmp) / "keys.parquet"
            pq.write_table(pa.table({"k": keys}), src, row_group_size=1 << 20,
                           compression="zstd")
            series = pl.from_arrow(keys)
            out = Path(tmp) / "trained.bjf"
            methods = {
                "build": lambda: bloomjoin.Filter.build(keys),
                "build items": lambda: bloomjoin.Filter.build(
                    keys, expected_items=distinct, fpp=0.01),
                "train parquet": lambda: bloomjoin.train(
                    input=str(src), column="k", output=str(out), overwrite=True),
                "pyarrow unique": lambda: pc.unique(keys),
                "polars unique": lambda: series.unique(),
            }
            rss_before = peak_rss_mib()
            times = {m: [] for m in methods}
            for _ in range(args.repeat):
                for m, run in methods.items():
                    t = time.perf_counter()
                    run()
                    times[m].append(time.perf_counter() - t)
            rss_after = peak_rss_mib()
            base = statistics.median(times["pyarrow unique"])
            print(f"\n{name} ({args.repeat} rounds, medians)")
            print(f"  {'method':<16}{'seconds':>9}{'Mkeys/s':>9}{'vs pyarrow unique':>19}")
            for m, ts in times.items():
                med = statistics.median(ts)
                print(f"  {m:<16}{med:>9.3f}{len(keys) / med / 1e6:>9.1f}{base / med:>18.2f}x")
            for label, f in (("build", bloomjoin.Filter.build(keys)),
                             ("train", bloomjoin.Filter.open(out))):
                info = f.info()
                fp = f.contains(absent).true_count / len(absent)
                print(f"  {label}: {info['num_bits'] / 8 / 2**20:.2f} MiB, k={info['num_hashes']}, "
                      f"estimated fpp {info['estimated_fpp']:.4f}, measured {fp:.4f} on "
                      f"{len(absent):,} absent keys")
            assert bloomjoin.Filter.build(keys).contains(keys).false_count == keys.null_count
            print(f"  peak RSS: {rss_before:.0f} MiB before the timings, {rss_after:.0f} MiB after")


if __name__ == "__main__":
    main()
