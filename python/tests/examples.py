"""The package README's Python examples, as code: every ```python block, in order.

A block that imports an engine (polars, duckdb, pyspark) runs only when the caller names that
engine: the package's tests run the Polars and DuckDB ones (tests/), the PySpark environment
the PySpark one (tests_spark/); the blocks without an engine run every time. They run from a
temporary working directory with `data/` and `jobs/` linked from the repository, so their
`out/` stays there.
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "python" / "README.md"
ENGINES = ["polars", "duckdb", "pyspark"]


def blocks(readme: Path = README) -> list[str]:
    text = readme.read_text(encoding="utf-8")
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


@contextlib.contextmanager
def in_workdir(tmp: Path):
    for name in ["data", "jobs"]:
        (tmp / name).symlink_to(ROOT / name)
    old = os.getcwd()
    os.chdir(tmp)
    try:
        yield
    finally:
        os.chdir(old)


def engine(code: str) -> str | None:
    """The engine a block imports, if any."""
    for name in ENGINES:
        if re.search(rf"^\s*(import|from) {name}\b", code, flags=re.M):
            return name
    return None


def run(tmp: Path, engines: set[str], readme: Path = README) -> dict:
    """Run the blocks of `readme` without an engine and those of `engines`, in order, in one
    namespace; `namespace["_ran"]` lists the engines whose blocks ran."""
    namespace: dict = {"__name__": "readme", "_ran": []}
    with in_workdir(tmp):
        for i, code in enumerate(blocks(readme)):
            e = engine(code)
            if e is not None and e not in engines:
                continue
            exec(compile(code, f"{readme}:block{i + 1}", "exec"), namespace)
            if e:
                namespace["_ran"].append(e)
    return namespace
