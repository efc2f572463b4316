#!/usr/bin/env python3
"""Where a bloomjoin command spends its CPU time, by stage.

Usage: scripts/profile-stages.py [--freq HZ] -- bloomjoin train|join ...

Samples the command with `perf record --call-graph dwarf` (CPU-clock sampling, so it works in
VMs without hardware counters) and attributes every sample to the first stage, walking from
the leaf frame to the root, whose pattern matches a frame: a memset under the Snappy codec is
decompression, a hash inside the Bloom predicate is the filter probe. Prints a markdown table
of the stages' shares of all samples (all threads) and the command's wall time.
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile
import time

# (stage, frame pattern); the first stage matching a frame, leaf to root, takes the sample.
STAGES = [
    ("decompress (snappy/zstd read)", r"decompress|snap::|ZSTD_decompress|ZSTD_decode|lz4"),
    ("encode + compress (Parquet write)", r"arrow_writer|column::writer|ZSTD_compress|ZSTD_encode|encodings::encoding::|PartWriter"),
    ("Bloom insert/probe + key hashing", r"bloomjoin::bloom::|bloomjoin::key::"),
    ("--where predicate", r"bloomjoin::expr::"),
    ("hash join (reduce)", r"bloomjoin::reduce::"),
    ("shuffle (partition, channels)", r"bloomjoin::shuffle::|crossbeam|arrow_select::"),
    ("decode (Parquet to Arrow)", r"parquet::"),
    ("read I/O (syscalls, page cache)", r"bloomjoin::plan::.*fetch|RangeReader|read_at|pread|filemap_|copy_to_iter|ksys_pread"),
    ("allocation, page faults", r"malloc|_int_free|cfree|exc_page_fault|clear_page|mmap|munmap"),
]
PATTERNS = [(name, re.compile(p)) for name, p in STAGES]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--freq", type=int, default=499)
    ap.add_argument("cmd", nargs="+")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        t0 = time.perf_counter()
        subprocess.run(["perf", "record", "-q", "-F", str(a.freq), "--call-graph", "dwarf,8192",
                        "-o", data, "--"] + a.cmd, check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - t0
        script = subprocess.run(["perf", "script", "-i", data], check=True, capture_output=True,
                                text=True, errors="replace").stdout
    counts = collections.Counter()
    total = 0
    for sample in script.split("\n\n"):
        frames = [l.strip().split(" ", 1)[-1] for l in sample.splitlines()[1:] if l.strip()]
        if not frames:
            continue
        total += 1
        stage = next((name for f in frames for name, p in PATTERNS if p.search(f)), "other")
        counts[stage] += 1
    print(f"wall {wall:.2f} s (under perf), {total} samples at {a.freq} Hz over all threads\n")
    print("| stage | share of CPU samples |")
    print("|---|---:|")
    for name, _ in STAGES + [("other", None)]:
        if counts[name]:
            print(f"| {name} | {counts[name] / total * 100:.0f} % |")


if __name__ == "__main__":
    sys.exit(main())
