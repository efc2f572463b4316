"""The README's PySpark example against a live local Spark (run in .cache/venv-spark by
scripts/test-python.sh): a filter Spark built, checked locally; one of ours read by Spark,
agreeing key for key, and used inside a Spark job."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import examples  # noqa: E402


def test_readme_pyspark_example(tmp_path):
    ns = examples.run(tmp_path, engines={"pyspark"})
    assert ns["_ran"] == ["pyspark"]
    # The example asserts its own agreements; here: the Spark job kept what the filter passes.
    import pyarrow.parquet as pq

    comments = pq.read_table(examples.ROOT / "data" / "sample" / "comments")
    assert ns["kept"] == comments.filter(ns["ours"].contains(comments["UserId"])).num_rows > 0
