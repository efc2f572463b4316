"""The package README's examples run and compute what they say (Polars, DuckDB, pyarrow
datasets; the PySpark one runs in tests_spark/)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

import examples
from conftest import SAMPLE


def test_readme_examples_run_and_agree(tmp_path):
    assert len(examples.blocks()) >= 7
    ns = examples.run(tmp_path, engines={"polars", "duckdb"})
    assert ns["_ran"] == ["polars", "duckdb"]
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
    assert ns["message"].startswith("invalid --fpp") and ns["code"] == 2
