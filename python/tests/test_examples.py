"""The package README's examples run and compute what they say (Polars, DuckDB, pyarrow
datasets; the PySpark one runs in tests_spark/)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

import examples
from conftest import SAMPLE


def test_readme_examples_run_and_agree(tmp_path):
    assert len(examples.blocks()) >= 8
    ns = examples.run(tmp_path, engines={"polars", "duckdb"})
    assert ns["_ran"] == ["polars", "polars", "duckdb"]
    f = ns["f"]
    comments = pq.read_table(SAMPLE / "comments")
    users = pq.read_table(SAMPLE / "users")
    reputable = users.filter(pc.greater(users["Reputation"], 1500)).select(["Id"])
    expected = comments.filter(f.contains(comments["UserId"])).num_rows
    # Every engine kept exactly the rows the filter passes: the reputable users' comments
    # and the false positives.
    assert ns["kept"].height == ns["n"] == ns["table"].num_rows == expected
    keys = comments.select(["UserId"]).cast(pa.schema([("UserId", pa.int64())]))
    exact = keys.join(reputable, "UserId", "Id", join_type="left semi").num_rows
    assert exact < expected < comments.num_rows
    # The join: one row per (user, comment) pair, duplicate user ids included.
    assert ns["report"]["rows_out"] == keys.join(reputable, "UserId", "Id", join_type="inner").num_rows
    assert list(ns["steps"]) == ["train", "join"]
    # Filter.build over the same keys: every reputable user in, the column named, and the
    # join through it gives the exact semi-join.
    built = ns["built"]
    assert built.info()["metadata"]["column"] == "Id"
    assert built.info()["inserted"] == reputable.num_rows - reputable["Id"].null_count
    assert built.contains(reputable["Id"].drop_null()).false_count == 0
    assert ns["built_join"]["rows_out"] == exact
    assert ns["built_join"]["prefilter"]["filter"].endswith("built.bjf")
    assert ns["message"].startswith("invalid --fpp") and ns["code"] == 2


def test_the_main_readme_python_example_runs(tmp_path):
    ns = examples.run(tmp_path, engines=set(), readme=examples.ROOT / "README.md")
    assert ns["f"].contains(pa.array([3, 4], pa.int64())).to_pylist()[0] is True
    assert ns["g"].info()["metadata"]["column"] == "Id" and ns["g"].info()["inserted"] == 3
    assert (tmp_path / "out" / "ids.bjf").stat().st_size > 0
