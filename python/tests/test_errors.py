"""Bad input raises the documented exceptions, with the command line's one-line messages and
exit codes, and never crashes the interpreter."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pyarrow as pa
import pytest

import bloomjoin
from bloomjoin import errors
from conftest import ROOT, SAMPLE, cli

USERS = str(SAMPLE / "users")


@pytest.fixture
def filt(tmp_path):
    out = tmp_path / "u.bjf"
    bloomjoin.train(input=USERS, column="Id", output=out)
    return out


def cli_error(*args) -> tuple[str, int]:
    r = cli(*args, check=False)
    assert r.returncode != 0
    line = r.stderr.strip()
    assert line.startswith("bloomjoin: error: "), line
    return line[len("bloomjoin: error: "):], r.returncode


def test_the_hierarchy_is_the_documented_one():
    E = errors
    assert issubclass(E.UsageError, E.BloomjoinError) and issubclass(E.UsageError, ValueError)
    assert issubclass(E.KeyTypeError, E.UsageError) and issubclass(E.KeyTypeError, TypeError)
    for c in [E.FilterFormatError, E.IncompatibleFiltersError, E.OutputExistsError]:
        assert issubclass(c, E.InputError)
    assert issubclass(E.InputError, E.BloomjoinError)
    assert issubclass(E.OperationalError, E.BloomjoinError)
    assert bloomjoin.BloomjoinError is E.BloomjoinError


# (python call, the same command line, expected exception)
def train_cases(tmp):
    out = str(tmp / "x.bjf")
    return [
        (dict(input=USERS, column="Id", fpp=1.5, output=out),
         ["train", "-i", USERS, "-c", "Id", "--fpp", "1.5", "-o", out], errors.UsageError),
        (dict(input=USERS, column="Id", where="Reputation >", output=out),
         ["train", "-i", USERS, "-c", "Id", "--where", "Reputation >", "-o", out], errors.UsageError),
        (dict(input=USERS, column="Nope", output=out),
         ["train", "-i", USERS, "-c", "Nope", "-o", out], errors.InputError),
        (dict(input=USERS, column="Reputation2", output=out),
         ["train", "-i", USERS, "-c", "Reputation2", "-o", out], errors.InputError),
        (dict(input=str(tmp / "missing"), column="Id", output=out),
         ["train", "-i", tmp / "missing", "-c", "Id", "-o", out], errors.InputError),
        (dict(input=USERS, column="Id", layout="split", format="spark", output=out),
         ["train", "-i", USERS, "-c", "Id", "--format", "spark", "-o", out], errors.UsageError),
        (dict(input=USERS, column="Id", shard="3/3", output=out),
         ["train", "-i", USERS, "-c", "Id", "--shard", "3/3", "-o", out], errors.UsageError),
        (dict(input=USERS, column="Id", output="nope://x"),
         ["train", "-i", USERS, "-c", "Id", "-o", "nope://x"], errors.InputError),
    ]


def test_train_errors_carry_the_cli_message_and_exit_code(tmp_path):
    for kwargs, args, exc in train_cases(tmp_path):
        message, code = cli_error(*args)
        with pytest.raises(exc) as info:
            bloomjoin.train(**kwargs)
        assert str(info.value) == message, kwargs
        assert info.value.exit_code == code == 2, kwargs
    assert not (tmp_path / "x.bjf").exists()


def test_bad_settings_in_the_environment_are_refused_as_the_cli_refuses_them(tmp_path, monkeypatch):
    out = tmp_path / "o.bjf"
    # The job file's paths are relative: in tmp_path, nothing of the repository is touched.
    monkeypatch.chdir(tmp_path)
    for name, value in [("BLOOMJOIN_MAX_RETRIES", "five"), ("BLOOMJOIN_READ_AHEAD", "64MB"),
                        ("BLOOMJOIN_IO_TIMEOUT_SECS", "0")]:
        monkeypatch.setenv(name, value)
        message, code = cli_error("train", "-i", USERS, "-c", "Id", "-o", out)
        assert name in message and code == 2, message
        for call in (
            lambda: bloomjoin.train(input=USERS, column="Id", output=out),
            lambda: bloomjoin.join(left=USERS, left_key="Id", right=str(SAMPLE / "comments"),
                                   right_key="UserId", output=tmp_path / "j"),
            lambda: bloomjoin.run_job(ROOT / "jobs" / "users_comments.toml"),
        ):
            with pytest.raises(errors.UsageError) as info:
                call()
            assert str(info.value) == message
            assert info.value.exit_code == 2
        monkeypatch.delenv(name)
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_filters_read_and_written_check_the_environment_too(filt, tmp_path, monkeypatch):
    f = bloomjoin.Filter.open(filt)
    monkeypatch.setenv("BLOOMJOIN_RETRY_TIMEOUT_SECS", "a minute")
    for call in (lambda: bloomjoin.Filter.open(filt), lambda: f.write(tmp_path / "w.bjf"),
                 lambda: bloomjoin.Filter.merge([filt, filt])):
        with pytest.raises(errors.UsageError, match="BLOOMJOIN_RETRY_TIMEOUT_SECS"):
            call()
    assert not (tmp_path / "w.bjf").exists()
    monkeypatch.delenv("BLOOMJOIN_RETRY_TIMEOUT_SECS")
    assert bloomjoin.Filter.open(filt).num_bits == f.num_bits


def test_a_float_column_is_refused_with_the_cli_message(tmp_path):
    import pyarrow.parquet as pq

    path = tmp_path / "f.parquet"
    pq.write_table(pa.table({"x": pa.array([1.5, 2.5])}), path)
    message, code = cli_error("train", "-i", path, "-c", "x", "-o", tmp_path / "o.bjf")
    with pytest.raises(errors.InputError) as info:
        bloomjoin.train(input=path, column="x", output=tmp_path / "o.bjf")
    assert (str(info.value), info.value.exit_code) == (message, code)


def test_not_parquet_is_an_input_error(tmp_path):
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"not parquet at all")
    with pytest.raises(errors.InputError) as info:
        bloomjoin.train(input=bad, column="Id", output=tmp_path / "o.bjf")
    assert str(bad) in str(info.value)


def test_existing_output_is_refused(filt):
    message, _ = cli_error("train", "-i", USERS, "-c", "Id", "-o", filt)
    with pytest.raises(errors.OutputExistsError) as info:
        bloomjoin.train(input=USERS, column="Id", output=filt)
    assert str(info.value) == message
    bloomjoin.train(input=USERS, column="Id", output=filt, overwrite=True)


def test_keyword_mistakes_are_usage_errors(tmp_path):
    out = tmp_path / "o.bjf"
    with pytest.raises(errors.UsageError, match=r"train\(\): unknown field `fpp2`.*`expected_items`"):
        bloomjoin.train(input=USERS, column="Id", output=out, fpp2=0.1)
    with pytest.raises(errors.UsageError, match=r"train\(\): fpp: invalid type: string"):
        bloomjoin.train(input=USERS, column="Id", output=out, fpp="high")
    with pytest.raises(errors.UsageError, match=r"layout: unknown variant `diagonal`"):
        bloomjoin.train(input=USERS, column="Id", output=out, layout="diagonal")
    with pytest.raises(errors.UsageError, match=r"workers: unsupported value of type dict"):
        bloomjoin.train(input=USERS, column="Id", output=out, workers={})
    with pytest.raises(errors.UsageError, match=r"seed: .* does not fit in 64 bits"):
        bloomjoin.train(input=USERS, column="Id", output=out, seed=2**70)
    with pytest.raises(errors.UsageError, match=r"invalid --workers: must be at least 1"):
        bloomjoin.train(input=USERS, column="Id", output=out, workers=0)
    with pytest.raises(errors.UsageError, match=r"missing required option `output`"):
        bloomjoin.train(input=USERS, column="Id")
    with pytest.raises(errors.UsageError, match=r"join\(\): missing required option `left_key`"):
        bloomjoin.join(left=USERS, right=USERS, right_key="Id", output=out)
    with pytest.raises(errors.UsageError, match=r"invalid --filter-fpp: 1.5 must be between 0 and 1"):
        bloomjoin.join(left=USERS, left_key="Id", right=USERS, right_key="Id", output=out,
                       filter_fpp=1.5)
    assert not out.exists()


def test_join_errors_carry_the_cli_message(filt, tmp_path):
    out = tmp_path / "j"
    base = dict(filter=str(filt), left=USERS, left_key="Id", right=str(SAMPLE / "comments"),
                right_key="UserId", output=str(out))
    cases = [
        (dict(base, type="sideways"), errors.UsageError),
        (dict(base, right_key="Text"), errors.UsageError),  # key families differ
        (dict(base, left=str(SAMPLE / "missing")), errors.InputError),
        (dict(base, memory_limit="lots"), errors.UsageError),
        (dict(base, select="left.Nope"), errors.UsageError),
        (dict(base, compression="lzo"), errors.UsageError),
        (dict(base, compression="snappy", compression_level=1), errors.UsageError),
    ]
    for kwargs, exc in cases:
        with pytest.raises(exc):
            bloomjoin.join(**kwargs)
    assert not (out / "_SUCCESS").exists()
    with pytest.raises(bloomjoin.BloomjoinError) as info:
        bloomjoin.join(**dict(base, right_key="Text"))
    args = ["join", "--filter", filt, "--left", USERS, "--left-key", "Id", "--right",
            SAMPLE / "comments", "--right-key", "Text", "--output", out]
    assert (str(info.value), info.value.exit_code) == cli_error(*args)


def test_run_job_errors_name_the_file(tmp_path):
    job = tmp_path / "j.toml"
    job.write_text('[train]\ninput = ["x"]\ncolumn = "Id"\noutput = "o.bjf"\nfpp2 = 1\n')
    message, _ = cli_error("run", job)
    with pytest.raises(errors.UsageError) as info:
        bloomjoin.run_job(job)
    assert str(info.value) == message and "fpp2" in message
    with pytest.raises(errors.InputError):
        bloomjoin.run_job(tmp_path / "missing.toml")
    good = ROOT / "jobs" / "users_comments.toml"
    with pytest.raises(errors.UsageError, match="unknown table"):
        bloomjoin.run_job(good, set={"spark.x": 1})
    with pytest.raises(errors.UsageError, match="reducers"):
        bloomjoin.run_job(good, set={"join.reducers": "many"})


def test_bad_filter_bytes_are_filter_format_errors(filt, tmp_path):
    good = filt.read_bytes()
    cases = {
        "empty": b"",
        "magic": b"NOTAFILTER" + good[10:],
        "truncated": good[:-100],
        "checksum": good[:-9] + bytes([good[-9] ^ 1]) + good[-8:],
        "trailing": good + b"\0",
        "version": good[:8] + b"\x09\x00" + good[10:],
    }
    for name, data in cases.items():
        with pytest.raises(errors.FilterFormatError) as info:
            bloomjoin.Filter.from_bytes(data)
        assert info.value.exit_code == 2, name
        (tmp_path / name).write_bytes(data)
        message, _ = cli_error("inspect", tmp_path / name)
        with pytest.raises(errors.FilterFormatError) as info:
            bloomjoin.Filter.open(tmp_path / name)
        assert str(info.value) == message, name
    with pytest.raises(errors.InputError):
        bloomjoin.Filter.open(tmp_path / "missing.bjf")
    with pytest.raises(errors.UsageError):
        bloomjoin.Filter.open(42)
    with pytest.raises(TypeError):
        bloomjoin.Filter.from_bytes("a str")


def test_contains_refuses_values_that_are_not_keys(filt, tmp_path):
    f = bloomjoin.Filter.open(filt)
    bad = [
        pa.array([1.5, 2.5]),
        np.array([1.5, 2.5]),
        pa.array(["a", "b"]),
        pa.array([{"a": 1}]),
        pa.array([[1, 2]]),
        [1, "a"],
        "12345",
        b"12345",
        object(),
        3,
        [2**65],
    ]
    for values in bad:
        with pytest.raises(errors.KeyTypeError) as info:
            f.contains(values)
        assert isinstance(info.value, TypeError) and info.value.exit_code == 2
    with pytest.raises(errors.KeyTypeError, match="not bytes keys|holds integer keys"):
        f.contains(pa.array(["a"]))
    for key in [1.5, "a", b"a", [1], 2**70]:
        with pytest.raises(errors.KeyTypeError):
            key in f  # noqa: B015


def test_merge_refuses_incompatible_filters(filt, tmp_path):
    other = tmp_path / "o.bjf"
    bloomjoin.train(input=USERS, column="Id", seed=7, output=other)
    message, _ = cli_error("merge", "-o", tmp_path / "m.bjf", filt, other)
    with pytest.raises(errors.IncompatibleFiltersError) as info:
        bloomjoin.Filter.merge([filt, other])
    assert str(info.value) == message
    with pytest.raises(errors.UsageError, match="at least one"):
        bloomjoin.Filter.merge([])
    with pytest.raises(errors.UsageError):
        bloomjoin.Filter.merge(5)
    with pytest.raises(errors.UsageError):
        bloomjoin.Filter.open(filt).to_bytes(format="spark")
    with pytest.raises(errors.UsageError, match="unknown variant"):
        bloomjoin.Filter.open(filt).to_bytes(format="parquet")


def test_bad_input_never_kills_the_interpreter():
    """The same abuse in a fresh interpreter: it must finish normally, printing its tally."""
    code = r"""
import bloomjoin, pyarrow as pa
caught = tried = 0
f = bloomjoin.Filter.from_bytes(bloomjoin.Filter.open(SPARK).to_bytes())
for values in [pa.array([1.5]), pa.array([None, None], pa.null()), pa.array([[1]]),
               pa.array([{"a": 1}]), pa.array([b"x"] * 3, pa.binary(1)), object(), None]:
    tried += 1
    try:
        f.contains(values)
    except bloomjoin.BloomjoinError:
        caught += 1
for data in [b"", b"\x00\x00\x00\x01", b"\x00\x00\x00\x02" + b"\xff" * 20, b"BJFILTER" + b"\xff" * 60]:
    tried += 1
    try:
        bloomjoin.Filter.from_bytes(data)
    except bloomjoin.FilterFormatError:
        caught += 1
print("done", tried, caught)
""".replace("SPARK", repr(str(ROOT / "tests" / "data" / "spark" / "v1_long_n100_p0_1.bin")))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    done, tried, caught = r.stdout.split()
    # Every bad filter and most bad arrays raise; none may take the interpreter down.
    assert done == "done" and tried == "11" and int(caught) >= 9, r.stdout
