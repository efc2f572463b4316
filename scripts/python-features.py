#!/usr/bin/env python3
"""Check that the Python module (python/) builds every shared crate with the features that
`cargo test` builds it with, so that `pip install ./python` after `cargo test` compiles pyo3
and the module, not serde, chrono, arrow and parquet again (scripts/test-python.sh runs it).

Compares `cargo tree` of the root package with its dev-dependencies (what `cargo test`
resolves) and of bloomjoin-python; prints each crate whose features differ and the
dependency line python/Cargo.toml needs, and exits 1.
"""

import subprocess
import sys
from collections import defaultdict


def features(*args: str) -> dict:
    out = subprocess.run(
        ["cargo", "tree", "--locked", "--prefix", "none", "--no-dedupe", "-f", "{p}|{f}", *args],
        check=True, capture_output=True, text=True,
    ).stdout
    seen = defaultdict(set)
    for line in out.splitlines():
        if "|" not in line:
            continue
        pkg, feats = line.replace(" (*)", "").split("|", 1)
        name, version = pkg.split()[:2]
        seen[(name, version)] |= {f for f in feats.split(",") if f}
    return seen


def main() -> int:
    test = features("-p", "bloomjoin", "-e", "normal,build,dev")
    module = features("-p", "bloomjoin-python", "-e", "normal,build")
    bad = [(k, test[k], module[k]) for k in sorted(test.keys() & module.keys())
           if test[k] != module[k]]
    for (name, version), t, m in bad:
        print(f"{name} {version}: cargo test builds it with [{', '.join(sorted(t))}], "
              f"the Python module with [{', '.join(sorted(m))}]", file=sys.stderr)
        missing = sorted(t - m)
        if missing:
            print(f'  add to python/Cargo.toml: {name} = {{ version = "{version.lstrip("v")}", '
                  f'features = {missing} }}'.replace("'", '"'), file=sys.stderr)
    if bad:
        print("python-features: the module would rebuild these crates (and what depends on "
              "them) after cargo test", file=sys.stderr)
        return 1
    print(f"python-features: {len(module)} crates, the same features as cargo test")
    return 0


if __name__ == "__main__":
    sys.exit(main())
