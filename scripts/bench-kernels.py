#!/usr/bin/env python3
"""Print criterion's kernel results (target/criterion, from `cargo bench --bench bloom`) as a
markdown table: median time per iteration, million keys per second, ns per key, and the 1 GiB
probe as a share of the random-read baselines measured in the same run."""
import json
import os
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "target/criterion"
rows = {}
for group in sorted(os.listdir(root)):
    gdir = os.path.join(root, group)
    if not os.path.isdir(gdir) or group == "report":
        continue
    for bench in sorted(os.listdir(gdir)):
        new = os.path.join(gdir, bench, "new")
        if not os.path.isfile(os.path.join(new, "estimates.json")):
            continue
        est = json.load(open(os.path.join(new, "estimates.json")))
        meta = json.load(open(os.path.join(new, "benchmark.json")))
        elems = (meta.get("throughput") or {}).get("Elements")
        med_ns = est["median"]["point_estimate"]
        rows[(group, meta["function_id"])] = (med_ns, elems)

print("| group | benchmark | median ms | M keys/s | ns/key |")
print("|---|---|---:|---:|---:|")
for (group, name), (ns, n) in rows.items():
    rate = f"{n / ns * 1e3:.0f}" if n else ""
    per = f"{ns / n:.2f}" if n else ""
    print(f"| {group} | {name} | {ns / 1e6:.1f} | {rate} | {per} |")
probe = rows.get(("1 GiB", "probe blocked (hashed)"))
for base in ("baseline random read u64 (filter's memory)", "baseline random read u64 (plain Vec)"):
    b = rows.get(("1 GiB", base))
    if probe and b:
        print(f"\n1 GiB probe rate = {b[0] / probe[0] * 100:.0f} % of the {base}")
