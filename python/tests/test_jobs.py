"""train / join / run_job: the command line's jobs, keyword for keyword, with the same
bytes, rows and reports, and the GIL released while they run."""

from __future__ import annotations

import json
import math
import re
import sys
import threading
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

import pytest

import bloomjoin
from conftest import ROOT, SAMPLE, cli

USERS = str(SAMPLE / "users")
COMMENTS = str(SAMPLE / "comments")


def kebab_args(options: dict) -> list[str]:
    """Keyword options as command-line flags."""
    args = []
    for k, v in options.items():
        flag = "--" + k.replace("_", "-")
        if v is True:
            args.append(flag)
        elif isinstance(v, list):
            args += [flag, *map(str, v)]
        else:
            args += [flag, str(v)]
    return args


TRAIN_CASES = {
    "fpp-alone-folded": dict(column="Id"),
    "where-and-fpp": dict(column="Id", where="Reputation > 1500", fpp=0.001),
    "expected-items": dict(column="Id", expected_items=5000, fpp=0.02, seed=42),
    "explicit-bits": dict(column="DisplayName", bits=65536, hashes=5, layout="classic"),
    "spark-format": dict(column="Id", layout="spark-v2", format="spark", expected_items=4000),
    "spark-v1-native": dict(column="Id", layout="spark-v1", fpp=0.03),
    "one-worker-small-splits": dict(column="Id", workers=1, split_rows=100, batch_size=64),
    "shard": dict(column="Id", shard="1/3"),
}


@pytest.mark.parametrize("case", list(TRAIN_CASES))
def test_train_writes_the_same_bytes_as_the_cli(case, tmp_path):
    options = TRAIN_CASES[case]
    ours, theirs = tmp_path / "py.bjf", tmp_path / "cli.bjf"
    report = bloomjoin.train(input=[USERS], output=str(ours), **options)
    cli("train", "--input", USERS, "--output", theirs, *kebab_args(options))
    assert ours.read_bytes() == theirs.read_bytes()
    assert report["column"] == options["column"]
    assert report["params"]["num_bits"] == bloomjoin.Filter.open(ours).num_bits


def test_train_report_has_the_cli_report_keys(tmp_path):
    report = bloomjoin.train(input=USERS, column="Id", output=tmp_path / "a.bjf")
    cli("train", "-i", USERS, "-c", "Id", "-o", tmp_path / "b.bjf",
        "--report", tmp_path / "r.json")
    theirs = json.loads((tmp_path / "r.json").read_text())
    assert set(report) == set(theirs)
    for k in ["rows_read", "rows_passing_where", "null_keys", "keys_inserted", "params",
              "sizing", "key_family", "inputs", "files", "fill_ratio"]:
        assert report[k] == theirs[k], k
    assert report["keys_inserted"] > 0


def test_train_accepts_a_str_or_pathlike_for_a_list_option(tmp_path):
    a = bloomjoin.train(input=USERS, column="Id", output=tmp_path / "a.bjf")
    b = bloomjoin.train(input=[Path(USERS)], column="Id", output=str(tmp_path / "b.bjf"))
    assert a["inputs"] == b["inputs"]
    assert (tmp_path / "a.bjf").read_bytes() == (tmp_path / "b.bjf").read_bytes()


def test_a_list_of_columns_and_a_number_for_a_size_are_what_they_mean(tmp_path):
    # column=["a", "b"] is --column a,b and memory_limit=2**30 is --memory-limit 1073741824
    # (both were refused, found by an audit).
    bloomjoin.train(input=USERS, column=["Id", "DisplayName"], output=tmp_path / "l.bjf")
    bloomjoin.train(input=USERS, column="Id,DisplayName", output=tmp_path / "s.bjf")
    assert (tmp_path / "l.bjf").read_bytes() == (tmp_path / "s.bjf").read_bytes()
    options = dict(left=USERS, left_key=["Id"], right=COMMENTS, right_key="UserId")
    a = bloomjoin.join(output=str(tmp_path / "a"), memory_limit=2**30, **options)
    b = bloomjoin.join(output=str(tmp_path / "b"), memory_limit="1GiB", **options)
    assert a["strategy"]["memory_limit"] == b["strategy"]["memory_limit"] == 2**30
    assert read_rows(tmp_path / "a") == read_rows(tmp_path / "b")


def test_train_writes_the_report_file_it_returns(tmp_path):
    report = bloomjoin.train(input=USERS, column="Id", output=tmp_path / "a.bjf",
                             report=tmp_path / "r.json")
    written = json.loads((tmp_path / "r.json").read_text())
    assert written["keys_inserted"] == report["keys_inserted"]


def read_rows(directory: Path) -> list[tuple]:
    parts = sorted(p for p in directory.glob("part-*.parquet"))
    assert (directory / "_SUCCESS").exists()
    rows = []
    for p in parts:
        t = pq.read_table(p)
        rows += list(zip(*(t.column(i).to_pylist() for i in range(t.num_columns))))
    return sorted(rows, key=repr)


@pytest.mark.parametrize("join_type", ["inner", "left-semi", "left-anti", "right-semi", "right-anti", "full"])
def test_join_gives_the_cli_rows_and_counters(join_type, tmp_path):
    filt = tmp_path / "u.bjf"
    bloomjoin.train(input=USERS, column="Id", where="Reputation > 1500", output=filt)
    options = dict(
        filter=str(filt), left=[USERS], left_key="Id", left_where="Reputation > 1500",
        right=[COMMENTS], right_key="UserId", type=join_type, reducers=3,
    )
    report = bloomjoin.join(output=str(tmp_path / "py"), **options)
    cli("join", "--output", tmp_path / "cli", "--report", tmp_path / "r.json",
        *kebab_args(options))
    theirs = json.loads((tmp_path / "r.json").read_text())
    assert read_rows(tmp_path / "py") == read_rows(tmp_path / "cli")
    assert report["rows_out"] == theirs["rows_out"] > 0
    assert report["right"]["rows_dropped_by_filter"] == theirs["right"]["rows_dropped_by_filter"]
    assert report["prefilter"]["used"] == theirs["prefilter"]["used"] == (join_type not in ("full", "right-anti"))
    assert set(report) == set(theirs)


def test_join_without_a_filter_builds_one_from_the_left_side(tmp_path):
    options = dict(left=[USERS], left_key="Id", left_where="Reputation > 1500",
                   right=[COMMENTS], right_key="UserId", filter_fpp=0.05)
    report = bloomjoin.join(output=str(tmp_path / "py"), **options)
    cli("join", "--output", tmp_path / "cli", *kebab_args(options))
    assert read_rows(tmp_path / "py") == read_rows(tmp_path / "cli")
    p = report["prefilter"]
    assert p["used"] and p["filter"] is None
    assert p["built_from_rows"] == report["left"]["rows_mapped"] > 0
    assert p["tiers"] == ["statistics", "bloom", "keys"]
    assert report["right"]["rows_dropped_by_filter"] > 0


def test_join_reads_the_hive_partitions_pyarrow_writes(tmp_path):
    """pyarrow's write_to_dataset (as Spark) puts a partition column in directories
    (`dt=2024-01-02/<uuid>-0.parquet`): bloomjoin reads them back as that column, typed, and
    a --where on it alone skips the other directories' files."""
    import datetime

    import pyarrow as pa
    import pyarrow.dataset as ds

    orders = pa.table({
        "uid": pa.array([1, 2, 3, 1, 4, 2], pa.int64()),
        "amt": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        "dt": ["2024-01-01", "2024-01-01", "2024-01-02", "2024-01-02", "2024-01-03", "2024-01-03"],
    })
    pq.write_to_dataset(orders, tmp_path / "orders", partition_cols=["dt"])
    pq.write_table(pa.table({"id": pa.array([1, 2, 4], pa.int64()), "name": ["a", "b", "d"]}),
                   tmp_path / "users.parquet")
    report = bloomjoin.join(left=str(tmp_path / "users.parquet"), left_key="id",
                            right=str(tmp_path / "orders"), right_key="uid",
                            right_where="dt >= DATE '2024-01-02'", select="name, amt, dt",
                            output=str(tmp_path / "out"))
    assert report["right"]["files_pruned_by_partition"] == 1
    got = read_rows(tmp_path / "out")
    theirs = ds.dataset(tmp_path / "orders", format="parquet", partitioning="hive").to_table()
    names = {1: "a", 2: "b", 4: "d"}
    want = sorted(
        ((names[u], a, datetime.date.fromisoformat(d))
         for u, a, d in zip(*(theirs.column(c).to_pylist() for c in ("uid", "amt", "dt")))
         if u in names and d >= "2024-01-02"),
        key=repr,
    )
    assert got == want and len(got) == 3
    # Without partitions, the directories hold no column.
    report = bloomjoin.join(left=str(tmp_path / "users.parquet"), left_key="id",
                            right=str(tmp_path / "orders"), right_key="uid",
                            no_hive_partitioning=True, output=str(tmp_path / "plain"))
    assert report["right"]["files_pruned_by_partition"] == 0
    assert pq.read_schema(next((tmp_path / "plain").glob("part-*.parquet"))).names == ["id", "name", "uid", "amt"]


def test_join_on_the_partition_column_alone_skips_whole_directories(tmp_path):
    """Joined on the partition column alone (pyarrow's `dt=` directories against a list of
    days), every file holds one key: the files of the other days are not read (dynamic
    partition pruning), and the rows are those of a join that reads them all."""
    import datetime

    import pyarrow as pa

    days = [datetime.date(2024, 1, d) for d in (1, 2, 3, 4)]
    orders = pa.table({
        "uid": pa.array(range(8), pa.int64()),
        "dt": [str(days[i % 4]) for i in range(8)],
    })
    pq.write_to_dataset(orders, tmp_path / "orders", partition_cols=["dt"])
    pq.write_table(pa.table({"dt": [days[1], days[3]], "tag": ["b", "d"]}), tmp_path / "days.parquet")
    args = dict(left=str(tmp_path / "days.parquet"), left_key="dt", right=str(tmp_path / "orders"),
                right_key="dt", select="tag, uid")
    report = bloomjoin.join(output=str(tmp_path / "out"), **args)
    assert report["right"]["files_skipped_by_partition_key"] == 2
    assert report["right"]["rows_skipped_by_partition_key"] == 4
    assert report["right"]["rows_read"] == 4
    everything = bloomjoin.join(output=str(tmp_path / "all"), no_prefilter=True, **args)
    assert everything["right"]["files_skipped_by_partition_key"] == 0
    got = read_rows(tmp_path / "out")
    assert got == read_rows(tmp_path / "all")
    assert sorted(got) == [("b", 1), ("b", 5), ("d", 3), ("d", 7)]


def test_join_writes_partition_directories_pyarrow_reads(tmp_path):
    """partition_by= writes the output into Hive directories (`region=a%2Fb/part-...`):
    pyarrow's dataset reads them back as the columns, and the rows are the join's."""
    import pyarrow as pa
    import pyarrow.dataset as ds

    pq.write_table(pa.table({"id": pa.array([1, 2, 3, 4], pa.int64()),
                             "region": ["EU", "a/b", None, "EU"]}), tmp_path / "users.parquet")
    pq.write_table(pa.table({"uid": pa.array([1, 2, 2, 3, 4, 9], pa.int64()),
                             "amt": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]}), tmp_path / "orders.parquet")
    report = bloomjoin.join(left=str(tmp_path / "users.parquet"), left_key="id",
                            right=str(tmp_path / "orders.parquet"), right_key="uid",
                            partition_by="region", output=str(tmp_path / "out"))
    assert report["partition_by"] == ["region"] and report["partition_dirs"] == 3
    dirs = sorted(p.name for p in (tmp_path / "out").iterdir() if p.is_dir())
    assert dirs == ["region=EU", "region=__HIVE_DEFAULT_PARTITION__", "region=a%2Fb"]
    part = next((tmp_path / "out" / "region=EU").glob("part-*.parquet"))
    assert pq.read_schema(part).names == ["id", "uid", "amt"]
    # pyarrow skips `_SUCCESS`, decodes `%2F` (segment_encoding="uri") and reads Hive's
    # default partition as null (null_fallback), by default.
    t = ds.dataset(tmp_path / "out", format="parquet", partitioning="hive").to_table()
    got = sorted(zip(*(t.column(c).to_pylist() for c in ("id", "amt", "region"))), key=repr)
    want = [(1, 1.0, "EU"), (2, 2.0, "a/b"), (2, 3.0, "a/b"), (3, 4.0, None), (4, 5.0, "EU")]
    assert got == sorted(want, key=repr)


# pyarrow names Parquet's LZ4_RAW codec "LZ4" (its own `compression="lz4"` writes LZ4_RAW too);
# DuckDB's parquet_metadata says LZ4_RAW.
@pytest.mark.parametrize("codec,level,name", [("snappy", None, "SNAPPY"), ("brotli", 4, "BROTLI"),
                                              ("lz4", None, "LZ4"), ("none", None, "UNCOMPRESSED")])
def test_join_writes_the_codec_it_is_given(codec, level, name, tmp_path):
    options = dict(left=[USERS], left_key="Id", right=[COMMENTS], right_key="UserId",
                   compression=codec)
    if level is not None:
        options["compression_level"] = level
    bloomjoin.join(output=str(tmp_path / "py"), **options)
    cli("join", "--output", tmp_path / "cli", *kebab_args(options))
    assert read_rows(tmp_path / "py") == read_rows(tmp_path / "cli")
    for part in (tmp_path / "py").glob("part-*.parquet"):
        md = pq.ParquetFile(part).metadata
        codecs = {md.row_group(g).column(c).compression
                  for g in range(md.num_row_groups) for c in range(md.num_columns)}
        assert codecs == {name}, part


def test_join_bounds_its_files_and_row_groups_as_the_cli_does(tmp_path):
    options = dict(left=[USERS], left_key="Id", left_where="Reputation > 1500", right=[COMMENTS],
                   right_key="UserId", max_rows_per_file=4000, row_group_rows=1500)
    report = bloomjoin.join(output=str(tmp_path / "py"), **options)
    cli("join", "--output", tmp_path / "cli", *kebab_args(options))
    rows = read_rows(tmp_path / "py")
    assert len(rows) == report["rows_out"] == 18635
    assert rows == read_rows(tmp_path / "cli")
    parts = sorted((tmp_path / "py").glob("part-*.parquet"))
    assert report["parts"] == len(parts) >= 5
    for part in parts:
        md = pq.ParquetFile(part).metadata
        assert md.num_rows <= 4000, part
        assert all(md.row_group(g).num_rows <= 1500 for g in range(md.num_row_groups)), part


def test_join_matches_null_keys_with_nulls_equal(tmp_path):
    # The comments whose user is in the users table: with nulls_equal=True (SQL's IS NOT
    # DISTINCT FROM) those without a user too, for some users have no Id; counted by pyarrow.
    ids = set(pq.read_table(USERS, columns=["Id"]).column("Id").to_pylist())
    assert None in ids
    users_of = pq.read_table(COMMENTS, columns=["UserId"]).column("UserId").to_pylist()
    options = dict(left=[USERS], left_key="Id", right=[COMMENTS], right_key="UserId",
                   type="right-semi", select="Id")
    plain = bloomjoin.join(output=str(tmp_path / "plain"), **options)
    assert plain["nulls_equal"] is False
    assert plain["rows_out"] == sum(1 for u in users_of if u is not None and u in ids)
    report = bloomjoin.join(output=str(tmp_path / "py"), nulls_equal=True, **options)
    assert report["nulls_equal"] is True
    assert report["rows_out"] == sum(1 for u in users_of if u in ids) > plain["rows_out"]
    assert report["right"]["rows_null_key"] == users_of.count(None)
    cli("join", "--output", tmp_path / "cli", "--nulls-equal", *kebab_args(options))
    assert read_rows(tmp_path / "py") == read_rows(tmp_path / "cli")


def test_join_coalesces_the_keys_like_a_using_join(tmp_path):
    # A full join with coalesce_keys=True: one Id column, the user's Id or else the comment's
    # UserId (SQL's COALESCE, DuckDB's USING), counted by pyarrow.
    ids = pq.read_table(USERS, columns=["Id"]).column("Id").to_pylist()
    users_of = pq.read_table(COMMENTS, columns=["UserId"]).column("UserId").to_pylist()
    options = dict(left=[USERS], left_key="Id", right=[COMMENTS], right_key="UserId",
                   type="full", select="Id,Score")
    report = bloomjoin.join(output=str(tmp_path / "py"), coalesce_keys=True, **options)
    assert report["coalesce_keys"] is True and report["columns"] == ["Id", "Score"]
    out = pq.read_table(tmp_path / "py")
    assert out.schema.field("Id").type == pa.int64()
    assert out.column("Id").null_count == ids.count(None) + users_of.count(None)
    known = set(ids) - {None}
    right_only = [u for u in users_of if u is not None and u not in known]
    assert right_only and set(right_only) <= set(out.column("Id").to_pylist())
    cli("join", "--output", tmp_path / "cli", "--coalesce-keys", *kebab_args(options))
    assert read_rows(tmp_path / "py") == read_rows(tmp_path / "cli")


def test_join_where_is_part_of_the_match(tmp_path):
    # join_where=: a left join keeps every user, with the comments that scored above the
    # user's up-votes or with nulls; counted by pyarrow from the inputs.
    users = pq.read_table(USERS, columns=["Id", "UpVotes"]).to_pylist()
    comments = pq.read_table(COMMENTS, columns=["UserId", "Score"]).to_pylist()
    scores: dict = {}
    for c in comments:
        scores.setdefault(c["UserId"], []).append(c["Score"])
    passing = [sum(1 for s in scores.get(u["Id"], []) if s is not None and u["UpVotes"] is not None
                   and s > u["UpVotes"]) if u["Id"] is not None else 0 for u in users]
    want = sum(passing) + passing.count(0)
    options = dict(left=[USERS], left_key="Id", right=[COMMENTS], right_key="UserId",
                   type="left", select="left.Id,UpVotes,Score",
                   join_where="right.Score > left.UpVotes")
    report = bloomjoin.join(output=str(tmp_path / "py"), **options)
    assert report["rows_out"] == want
    assert report["join_where"]["condition"] == "right.Score > left.UpVotes"
    assert report["join_where"]["pairs_passed"] == sum(passing)
    cli("join", "--output", tmp_path / "cli", *kebab_args(options))
    assert read_rows(tmp_path / "py") == read_rows(tmp_path / "cli")
    plan = bloomjoin.join(output=str(tmp_path / "dry"), dry_run=True, **options)
    assert "--join-where" in plan["plan"]


def test_join_where_computes_exactly(tmp_path):
    # Arithmetic in join_where= and left_where=: an inner join of the comments that scored
    # more than a tenth of their author's up-votes plus 5, of users whose up-votes and
    # reputation sum past 2000; counted by pyarrow from the inputs.
    users = pq.read_table(USERS, columns=["Id", "UpVotes", "Reputation"]).to_pylist()
    comments = pq.read_table(COMMENTS, columns=["UserId", "Score"]).to_pylist()
    ups = {}
    for u in users:
        if u["Id"] is not None and u["UpVotes"] + u["Reputation"] > 2000:
            ups.setdefault(u["Id"], []).append(u["UpVotes"])
    want = sum(1 for c in comments for up in ups.get(c["UserId"], []) if c["Score"] * 10 > up + 5)
    assert want > 0
    report = bloomjoin.join(left=[USERS], left_key="Id", right=[COMMENTS], right_key="UserId",
                            left_where="UpVotes + Reputation > 2000",
                            join_where="right.Score * 10 > left.UpVotes + 5",
                            output=str(tmp_path / "out"))
    assert report["rows_out"] == want
    # `/` is a DOUBLE division, as DuckDB's and Python's (the sample's integers are exact
    # doubles).
    all_ups = {}
    for u in users:
        if u["Id"] is not None:
            all_ups.setdefault(u["Id"], []).append(u["UpVotes"])
    halves = sum(1 for c in comments for up in all_ups.get(c["UserId"], []) if c["Score"] / 2 > up)
    assert halves > 0
    report = bloomjoin.join(left=[USERS], left_key="Id", right=[COMMENTS], right_key="UserId",
                            join_where="right.Score / 2 > left.UpVotes", output=str(tmp_path / "halves"))
    assert report["rows_out"] == halves
    # Numeric functions: greatest() of integers, sqrt() a DOUBLE, as Python's math gives it.
    roots = sum(1 for c in comments for up in all_ups.get(c["UserId"], [])
                if max(c["Score"], 1) > math.sqrt(up))
    assert roots > 0
    report = bloomjoin.join(left=[USERS], left_key="Id", right=[COMMENTS], right_key="UserId",
                            join_where="greatest(right.Score, 1) > sqrt(left.UpVotes)",
                            output=str(tmp_path / "roots"))
    assert report["rows_out"] == roots
    # `//` of integers is DuckDB's: the quotient truncated toward zero (Python's `//` floors).
    def trunc_half(s):
        return -(-s // 2) if s < 0 else s // 2
    quotients = sum(1 for c in comments for up in all_ups.get(c["UserId"], [])
                    if c["Score"] is not None and trunc_half(c["Score"]) > up)
    assert quotients > 0
    report = bloomjoin.join(left=[USERS], left_key="Id", right=[COMMENTS], right_key="UserId",
                            join_where="right.Score // 2 > left.UpVotes",
                            output=str(tmp_path / "quotients"))
    assert report["rows_out"] == quotients
    # A function whose DuckDB type cannot be told against an integer: refused, nothing written.
    with pytest.raises(bloomjoin.BloomjoinError, match="depends on the function"):
        bloomjoin.join(left=[USERS], left_key="Id", right=[COMMENTS], right_key="UserId",
                       join_where="epoch_ms(right.CreationDate) // 2 > left.UpVotes",
                       output=str(tmp_path / "bad"))
    assert not (tmp_path / "bad").exists()


def test_join_where_takes_functions(tmp_path):
    # Functions in join_where= and left_where=: the comments written in the same year and
    # ISO week as their author joined, by users whose location, lowercased, holds an "e";
    # counted by pyarrow and Python's datetime from the inputs. Python's str.lower() agrees
    # with DuckDB's lower() on the sample's places.
    users = pq.read_table(USERS, columns=["Id", "Location", "CreationDate"]).to_pylist()
    comments = pq.read_table(COMMENTS, columns=["UserId", "CreationDate"]).to_pylist()
    joined = {}
    for u in users:
        if u["Id"] is not None and "e" in (u["Location"] or "").lower():
            joined.setdefault(u["Id"], []).append(u["CreationDate"])
    week = lambda t: t.isocalendar()[:2]
    want = sum(1 for c in comments for j in joined.get(c["UserId"], [])
               if c["CreationDate"] is not None and week(c["CreationDate"]) == week(j))
    assert want > 0
    sides = dict(left=[USERS], left_key="Id", right=[COMMENTS], right_key="UserId",
                 left_where="lower(coalesce(Location, '')) LIKE '%e%'")
    report = bloomjoin.join(join_where="isoyear(right.CreationDate) = isoyear(left.CreationDate)"
                                       " AND week(right.CreationDate) = week(left.CreationDate)",
                            output=str(tmp_path / "out"), **sides)
    assert report["rows_out"] == want
    # The same pairs: an ISO week is its Monday, date_trunc('week', ...).
    monday = bloomjoin.join(join_where="date_trunc('week', right.CreationDate)"
                                       " = date_trunc('WEEK', left.CreationDate)",
                            output=str(tmp_path / "monday"), **sides)
    assert monday["rows_out"] == want
    with pytest.raises(bloomjoin.BloomjoinError, match="unsupported: CAST to BLOB"):
        bloomjoin.join(left=[USERS], left_key="Id", right=[COMMENTS], right_key="UserId",
                       join_where="CAST(right.Score AS BLOB) > 2", output=str(tmp_path / "bad"))
    assert not (tmp_path / "bad").exists()


def test_join_where_takes_string_functions(tmp_path):
    # The comments that hold their author's first two characters, by users whose location
    # has a part after a comma: counted in Python from the inputs (code points, as
    # left() counts them; no case mapping involved).
    users = pq.read_table(USERS, columns=["Id", "DisplayName", "Location"]).to_pylist()
    comments = pq.read_table(COMMENTS, columns=["UserId", "Text"]).to_pylist()
    heads = {}
    for u in users:
        loc = u["Location"]
        if (u["Id"] is not None and u["DisplayName"] is not None and loc is not None
                and "," in loc and loc.split(",", 1)[1].strip(" ")):
            heads.setdefault(u["Id"], []).append(u["DisplayName"][:2])
    want = sum(1 for c in comments for h in heads.get(c["UserId"], [])
               if c["Text"] is not None and h in c["Text"])
    assert want > 0
    report = bloomjoin.join(left=[USERS], left_key="Id", right=[COMMENTS], right_key="UserId",
                            left_where="strpos(Location, ',') > 0 AND "
                                       "trim(substr(Location, strpos(Location, ',') + 1)) <> ''",
                            join_where="contains(right.Text, left(left.DisplayName, 2))",
                            output=str(tmp_path / "out"))
    assert report["rows_out"] == want
    with pytest.raises(bloomjoin.BloomjoinError, match="does not take INTERVAL"):
        bloomjoin.join(left=[USERS], left_key="Id", right=[COMMENTS], right_key="UserId",
                       join_where="right.Text || INTERVAL '1 day' = 'x'",
                       output=str(tmp_path / "bad"))
    assert not (tmp_path / "bad").exists()


def test_join_where_takes_regular_expressions(tmp_path):
    # The comments in which a word starts with their author's first two letters, by users
    # whose name starts with two ASCII letters: counted with Python's re (RE2's \b is ASCII,
    # as re's is under re.ASCII).
    users = pq.read_table(USERS, columns=["Id", "DisplayName"]).to_pylist()
    comments = pq.read_table(COMMENTS, columns=["UserId", "Text"]).to_pylist()
    heads = {}
    for u in users:
        name = u["DisplayName"]
        if u["Id"] is not None and name is not None and re.fullmatch("[A-Za-z]{2}", name[:2]):
            heads.setdefault(u["Id"], []).append(name[:2])
    want = sum(1 for c in comments for h in heads.get(c["UserId"], [])
               if c["Text"] is not None and re.search(r"\b" + h, c["Text"], re.ASCII))
    assert want > 0
    report = bloomjoin.join(left=[USERS], left_key="Id", right=[COMMENTS], right_key="UserId",
                            left_where="left(DisplayName, 2) ~ '^[A-Za-z]{2}$'",
                            join_where=r"regexp_matches(right.Text, '\b' || left(left.DisplayName, 2))",
                            output=str(tmp_path / "out"))
    assert report["rows_out"] == want
    with pytest.raises(bloomjoin.BloomjoinError, match='regular expression "a\\[" is not valid'):
        bloomjoin.join(left=[USERS], left_key="Id", right=[COMMENTS], right_key="UserId",
                       right_where="Text ~ 'a['", output=str(tmp_path / "bad"))
    assert not (tmp_path / "bad").exists()


def test_join_where_takes_casts_and_remainders(tmp_path):
    # A tenth of the users by Id, and the pairs whose comment's score written out is a prefix
    # of the user's reputation written out: counted in Python from the inputs.
    users = pq.read_table(USERS, columns=["Id", "Reputation"]).to_pylist()
    comments = pq.read_table(COMMENTS, columns=["UserId", "Score"]).to_pylist()
    reps = {}
    for u in users:
        if u["Id"] is not None and u["Id"] % 10 == 0 and u["Reputation"] is not None:
            reps.setdefault(u["Id"], []).append(str(u["Reputation"]))
    want = sum(1 for c in comments for r in reps.get(c["UserId"], [])
               if c["Score"] is not None and r.startswith(str(c["Score"])))
    assert want > 0
    report = bloomjoin.join(left=[USERS], left_key="Id", right=[COMMENTS], right_key="UserId",
                            left_where="mod(Id, 10) = 0 AND Reputation IS NOT NULL",
                            join_where="starts_with(CAST(left.Reputation AS VARCHAR), "
                                       "right.Score || '')",
                            output=str(tmp_path / "out"))
    assert report["rows_out"] == want
    bad = r'CAST\(\.\. AS INTEGER\): column "Text" holds .*which is not a number'
    with pytest.raises(bloomjoin.BloomjoinError, match=bad):
        bloomjoin.join(left=[USERS], left_key="Id", right=[COMMENTS], right_key="UserId",
                       right_where="CAST(Text AS INTEGER) = 1", output=str(tmp_path / "bad"))
    assert not (tmp_path / "bad").exists()


def test_guards_keep_failing_casts_away(tmp_path):
    # The comments whose text starts with a positive number, read by a CAST that a guard
    # keeps from the others: counted in Python from the inputs.
    import collections
    import re

    # A comment meets each user of its Id (some Ids repeat); NULL keys never match.
    users = collections.Counter(u["Id"] for u in pq.read_table(USERS, columns=["Id"]).to_pylist())
    users.pop(None, None)
    want = 0
    for c in pq.read_table(COMMENTS, columns=["UserId", "Text"]).to_pylist():
        m = re.match(r"([+-]?[0-9]+) ", c["Text"] or "")
        if m and int(m.group(1)) > 0:
            want += users[c["UserId"]]
    assert want > 0
    cast = "CAST(regexp_extract(Text, '^[+-]?[0-9]+') AS INTEGER) > 0"
    for where in (f"regexp_matches(Text, '^[+-]?[0-9]+ ') AND {cast}",
                  f"{cast} AND regexp_matches(Text, '^[+-]?[0-9]+ ')",
                  "CASE WHEN regexp_matches(Text, '^[+-]?[0-9]+ ') "
                  "THEN CAST(regexp_extract(Text, '^[+-]?[0-9]+') AS INTEGER) END > 0"):
        report = bloomjoin.join(left=[USERS], left_key="Id", right=[COMMENTS], right_key="UserId",
                                right_where=where, output=str(tmp_path / "out"), overwrite=True)
        assert report["rows_out"] == want, where
    with pytest.raises(bloomjoin.BloomjoinError, match="regexp_extract\\(\\) holds '', which is not a number"):
        bloomjoin.join(left=[USERS], left_key="Id", right=[COMMENTS], right_key="UserId",
                       right_where=cast, output=str(tmp_path / "bad"))
    assert not (tmp_path / "bad").exists()


def test_join_appends_to_a_committed_output(tmp_path):
    options = dict(left=[USERS], left_key="Id", right=[COMMENTS], right_key="UserId",
                   type="right-semi", select="Id,Score", output=str(tmp_path / "out"))
    first = bloomjoin.join(left_where="Reputation > 1500", **options)
    second = bloomjoin.join(left_where="Reputation <= 1500", append=True, **options)
    out = pq.read_table(tmp_path / "out")
    assert out.num_rows == first["rows_out"] + second["rows_out"]
    manifest = json.loads((tmp_path / "out" / "_SUCCESS").read_text())
    assert sorted(manifest["parts"]) == sorted(p.name for p in (tmp_path / "out").glob("*.parquet"))
    with pytest.raises(bloomjoin.errors.UsageError, match="adds to the output, --overwrite replaces it"):
        bloomjoin.join(append=True, overwrite=True, **options)


def test_join_overwrites_the_partitions_it_writes(tmp_path):
    import pyarrow.dataset as ds

    options = dict(left=[USERS], left_key="Id", right=[COMMENTS], right_key="UserId",
                   type="right-semi", select="Id,UserId,Score", partition_by="Score")

    def rows(path):
        t = ds.dataset(path, format="parquet", partitioning="hive").to_table()
        return sorted(zip(*(t.column(c).to_pylist() for c in ["Id", "UserId", "Score"])))

    first = dict(left_where="Reputation > 1500", **options)
    second = dict(left_where="Reputation > 100", right_where="Score >= 100", **options)
    bloomjoin.join(output=str(tmp_path / "out"), overwrite_partitions=True, **first)
    report = bloomjoin.join(output=str(tmp_path / "out"), overwrite_partitions=True, **second)
    bloomjoin.join(output=str(tmp_path / "a"), **first)
    bloomjoin.join(output=str(tmp_path / "b"), **second)
    new = rows(tmp_path / "b")
    scores = {r[2] for r in new}
    old = [r for r in rows(tmp_path / "a") if r[2] not in scores]
    assert rows(tmp_path / "out") == sorted(old + new)
    replaced = len(scores & {r[2] for r in rows(tmp_path / "a")})
    assert report["kept"]["partition_dirs_replaced"] == replaced > 0
    assert report["kept"]["partition_dirs"] == len({r[2] for r in old})
    with pytest.raises(bloomjoin.errors.UsageError, match="without --partition-by it writes none"):
        bloomjoin.join(output=str(tmp_path / "flat"), overwrite_partitions=True,
                       **{k: v for k, v in first.items() if k != "partition_by"})


def test_filter_rows_keeps_what_the_cli_keeps(tmp_path):
    bloomjoin.train(input=[USERS], column="Id", where="Reputation > 1500",
                    output=str(tmp_path / "users.bjf"))
    options = dict(filter=str(tmp_path / "users.bjf"), input=COMMENTS, key="UserId",
                   where="Score > 0", select=["Id", "UserId", "Score"], workers=2)
    report = bloomjoin.filter_rows(output=str(tmp_path / "py"), **options)
    cli("filter", *kebab_args({**options, "select": "Id,UserId,Score", "input": [COMMENTS]}),
        "--output", tmp_path / "cli")
    assert read_rows(tmp_path / "py") == read_rows(tmp_path / "cli")
    assert report["rows_out"] == pq.read_table(tmp_path / "py").num_rows > 0
    f = bloomjoin.Filter.open(tmp_path / "users.bjf")
    kept = pq.read_table(tmp_path / "py")
    assert all(f.contains(kept.column("UserId")).to_pylist())
    with pytest.raises(bloomjoin.errors.InputError, match="no such column"):
        bloomjoin.filter_rows(output=str(tmp_path / "bad"), **{**options, "key": "Nope"})
    with pytest.raises(bloomjoin.errors.UsageError, match="filter_rows"):
        bloomjoin.filter_rows(output=str(tmp_path / "bad"), **options, nope=1)


def test_filter_rows_renames_and_computes_columns(tmp_path):
    bloomjoin.train(input=[USERS], column="Id", where="Reputation > 1500",
                    output=str(tmp_path / "users.bjf"))
    report = bloomjoin.filter_rows(filter=str(tmp_path / "users.bjf"), input=COMMENTS, key="UserId",
                                   select=["Id", "Score", "Score * 10 + 1 AS s", "UserId AS uid"],
                                   output=str(tmp_path / "out"))
    t = pq.read_table(tmp_path / "out")
    assert t.column_names == report["columns"] == ["Id", "Score", "s", "uid"]
    assert t.num_rows == report["rows_out"] > 0
    assert t.column("s").to_pylist() == [None if x is None else x * 10 + 1 for x in t.column("Score").to_pylist()]
    with pytest.raises(bloomjoin.errors.UsageError, match="computes a value: name its column"):
        bloomjoin.filter_rows(filter=str(tmp_path / "users.bjf"), input=COMMENTS, key="UserId",
                              select="Id, Score * 2", output=str(tmp_path / "bad"))
    assert not (tmp_path / "bad").exists()


def test_filter_rows_invert_partitioned_and_dry_run(tmp_path):
    bloomjoin.train(input=[USERS], column="Id", where="Reputation > 1500",
                    output=str(tmp_path / "users.bjf"))
    options = dict(filter=str(tmp_path / "users.bjf"), input=COMMENTS, key="UserId",
                   select="Id,UserId,Score")
    plan = bloomjoin.filter_rows(output=str(tmp_path / "inv"), invert=True,
                                 partition_by="Score", dry_run=True, **options)
    assert "--invert: keeps the rows whose key it rules out" in plan["plan"]
    assert not (tmp_path / "inv").exists()
    report = bloomjoin.filter_rows(output=str(tmp_path / "inv"), invert=True,
                                   partition_by="Score", **options)
    kept = bloomjoin.filter_rows(output=str(tmp_path / "kept"), **options)
    assert report["invert"] is True and report["partition_by"] == ["Score"]
    # Read back with its Hive partitions: with the rows kept, exactly the input's.
    others = pq.read_table(tmp_path / "inv", partitioning="hive")
    assert others.num_rows == report["rows_out"]
    f = bloomjoin.Filter.open(tmp_path / "users.bjf")
    users = others.column("UserId")
    may = f.contains(users.drop_null()).to_pylist()
    assert not any(may)
    assert users.null_count == report["input"]["rows_null_key"] > 0
    everything = pq.read_table(COMMENTS, columns=["Id"]).num_rows
    assert report["rows_out"] + kept["rows_out"] == everything
    with pytest.raises(bloomjoin.errors.UsageError, match="--partition-by"):
        bloomjoin.filter_rows(output=str(tmp_path / "inv"), overwrite_partitions=True,
                              **options)
    # A job file's [filter] step, on the train step's filter: the same rows, its report by
    # step name.
    job = tmp_path / "j.toml"
    job.write_text(f"""
[train]
input = {USERS!r}
column = "Id"
where = "Reputation > 1500"
output = {str(tmp_path / "job" / "users.bjf")!r}
[filter]
input = {COMMENTS!r}
key = "UserId"
select = "Id,UserId,Score"
invert = true
output = {str(tmp_path / "job" / "others")!r}
""")
    steps = bloomjoin.run_job(job, set={"filter.partition-by": "Score"})
    assert list(steps) == ["train", "filter"]
    assert steps["filter"]["rows_out"] == report["rows_out"]
    def hive_rows(directory):
        t = pq.read_table(directory, partitioning="hive")
        return sorted(map(repr, t.select(sorted(t.column_names)).to_pylist()))
    assert len(hive_rows(tmp_path / "inv")) == report["rows_out"]
    assert hive_rows(tmp_path / "job" / "others") == hive_rows(tmp_path / "inv")


def test_run_job_runs_every_step_with_overrides(tmp_path):
    job = ROOT / "jobs" / "users_comments.toml"
    sets = {
        "train.output": str(tmp_path / "py" / "users.bjf"),
        "train.report": str(tmp_path / "py" / "train.json"),
        "join.output": str(tmp_path / "py" / "join"),
        "join": {"report": str(tmp_path / "py" / "join.json"), "workers": 1},
        "train.fpp": 0.001,
    }
    steps = bloomjoin.run_job(job, set=sets)
    assert list(steps) == ["train", "join"]
    cli("run", job,
        "--set", f"train.output={tmp_path / 'cli' / 'users.bjf'}",
        "--set", f"train.report={tmp_path / 'cli' / 'train.json'}",
        "--set", f"join.output={tmp_path / 'cli' / 'join'}",
        "--set", f"join.report={tmp_path / 'cli' / 'join.json'}",
        "--set", "join.workers=1", "--set", "train.fpp=0.001")
    assert (tmp_path / "py" / "users.bjf").read_bytes() == \
        (tmp_path / "cli" / "users.bjf").read_bytes()
    assert read_rows(tmp_path / "py" / "join") == read_rows(tmp_path / "cli" / "join")
    assert steps["join"]["workers"] == 1
    assert steps["train"]["sizing"]["fpp"] == 0.001
    assert steps["join"]["rows_out"] == \
        json.loads((tmp_path / "cli" / "join.json").read_text())["rows_out"]


def test_jobs_release_the_gil(tmp_path):
    """While a job runs, another Python thread runs.

    With a switch interval of 1000 s, a thread waiting for the GIL gets it only when the
    holder gives it up. `other` is released just before the job starts: if the job held the
    GIL until it returned, `other` could not have run when we look right after it returns.
    """
    go, ran = threading.Event(), threading.Event()

    def other():
        go.wait()
        ran.set()

    t = threading.Thread(target=other)
    t.start()
    old = sys.getswitchinterval()
    sys.setswitchinterval(1000)
    try:
        go.set()
        bloomjoin.train(input=COMMENTS, column="UserId", output=tmp_path / "f.bjf", workers=1)
        ran_during_job = ran.is_set()
    finally:
        sys.setswitchinterval(old)
        go.set()
        t.join()
    assert ran_during_job


def test_dry_run_plans_as_the_cli_does_and_writes_nothing(tmp_path):
    import subprocess

    from bloomjoin import errors
    from conftest import bin_path

    options = dict(left=USERS, left_key="Id", right=COMMENTS, right_key="UserId",
                   output=str(tmp_path / "j"), workers=2)
    plan = bloomjoin.join(**options, dry_run=True)
    cli_plan = subprocess.run([str(bin_path()), "join", *kebab_args(options), "--dry-run"],
                              capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert plan == {"plan": cli_plan, "warnings": []}
    assert "dry run (inner join, 2 workers)" in plan["plan"]
    trained = bloomjoin.train(input=USERS, column="Id", output=tmp_path / "f.bjf", dry_run=True)
    assert "sized by folding" in trained["plan"]
    job = ROOT / "jobs" / "users_comments.toml"
    sets = {"train.output": str(tmp_path / "users.bjf"), "train.report": str(tmp_path / "t.json"),
            "join.output": str(tmp_path / "join"), "join.report": str(tmp_path / "j.json")}
    steps = bloomjoin.run_job(job, set=sets, dry_run=True)
    assert list(steps) == ["train", "join"]
    assert "written by the train step" in steps["join"]["plan"]
    assert list(tmp_path.iterdir()) == []
    # The run's errors, raised as the run raises them.
    with pytest.raises(errors.BloomjoinError) as run:
        bloomjoin.join(**{**options, "right_key": "Nope"})
    with pytest.raises(type(run.value)) as dry:
        bloomjoin.join(**{**options, "right_key": "Nope"}, dry_run=True)
    assert str(dry.value) == str(run.value) and "Nope" in str(dry.value)
    with pytest.raises(errors.UsageError, match="dry_run"):
        bloomjoin.join(**options, dry_run="yes")
    assert list(tmp_path.iterdir()) == []
