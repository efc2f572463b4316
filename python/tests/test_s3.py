"""Object-store locations with the command line's environment conventions, against a real
S3-compatible server (moto, installed in .cache/venv-moto by scripts/test.sh) on loopback."""

from __future__ import annotations

import os
import socket
import subprocess
import time

import pytest

import bloomjoin
from conftest import ROOT, SAMPLE, cli


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def s3(monkeypatch):
    moto = ROOT / ".cache" / "venv-moto" / "bin" / "moto_server"
    assert moto.exists(), f"{moto} not found: scripts/test.sh installs moto"
    port = free_port()
    server = subprocess.Popen([str(moto), "-H", "127.0.0.1", "-p", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                time.sleep(0.05)
        env = {
            "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}",
            "AWS_ALLOW_HTTP": "true",
            "AWS_ACCESS_KEY_ID": "test",
            "AWS_SECRET_ACCESS_KEY": "test",
            "AWS_REGION": "us-east-1",
            "AWS_EC2_METADATA_DISABLED": "true",
        }
        for k, v in env.items():
            monkeypatch.setenv(k, v)
        py = moto.parent / "python"

        def boto(code: str) -> str:
            prelude = ("import boto3\ns3 = boto3.client('s3', endpoint_url="
                       f"'http://127.0.0.1:{port}', region_name='us-east-1', "
                       "aws_access_key_id='test', aws_secret_access_key='test')\n")
            r = subprocess.run([str(py), "-c", prelude + code], capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
            return r.stdout

        boto("s3.create_bucket(Bucket='bjpy')\n" + "".join(
            f"s3.upload_file({str(p)!r}, 'bjpy', 'users/{p.name}')\n"
            for p in sorted((SAMPLE / "users").glob("*.parquet"))))
        yield boto
    finally:
        server.terminate()
        server.wait()


def test_train_open_and_write_on_s3_like_the_cli(s3, tmp_path):
    report = bloomjoin.train(input="s3://bjpy/users/*.parquet", column="Id",
                             output="s3://bjpy/filters/users.bjf")
    assert report["files"] == 4 and report["keys_inserted"] > 0
    f = bloomjoin.Filter.open("s3://bjpy/filters/users.bjf")
    cli("train", "-i", "s3://bjpy/users/*.parquet", "-c", "Id", "-o", tmp_path / "cli.bjf")
    assert f.to_bytes() == (tmp_path / "cli.bjf").read_bytes()
    assert f.location == "s3://bjpy/filters/users.bjf"
    f.write("s3://bjpy/copies/users.bjf")
    assert bloomjoin.Filter.open("s3://bjpy/copies/users.bjf").to_bytes() == f.to_bytes()
    with pytest.raises(bloomjoin.OutputExistsError):
        f.write("s3://bjpy/copies/users.bjf")
    with pytest.raises(bloomjoin.InputError):
        bloomjoin.Filter.open("s3://bjpy/filters/missing.bjf")
    assert "filters/users.bjf" in s3("print([o['Key'] for o in s3.list_objects_v2(Bucket='bjpy')['Contents']])")
