"""A moto S3 server on loopback for the scripts (the fuzzer's --s3, the s3 benchmark suite):
start it on a free port, and put objects in it with plain HTTP (moto checks no signature), so
that no script needs boto3."""
import os
import socket
import subprocess
import time
import urllib.parse
import urllib.request


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_port(port, proc, what):
    """Wait until `port` accepts connections; exit naming `what` if `proc` dies first."""
    for _ in range(300):
        if proc.poll() is not None:
            raise SystemExit(f"{what} exited ({proc.returncode})")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"{what} did not start on port {port}")


def start(moto_server, log=subprocess.DEVNULL):
    """moto_server on a free loopback port, answering; (process, port)."""
    port = free_port()
    proc = subprocess.Popen([moto_server, "-H", "127.0.0.1", "-p", str(port)], stdout=log, stderr=subprocess.STDOUT)
    wait_port(port, proc, moto_server)
    return proc, port


def stop(proc):
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()


def env(port):
    """The environment bloomjoin reads for the server on `port`: its endpoint and dummy keys
    (nothing probes cloud metadata)."""
    return {"AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}", "AWS_ALLOW_HTTP": "true",
            "AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local", "AWS_REGION": "us-east-1"}


def put(port, key, data=b""):
    """PUT an object `bucket/key` (or, with a key of no slash, make a bucket)."""
    url = f"http://127.0.0.1:{port}/{urllib.parse.quote(key, safe='/')}"
    req = urllib.request.Request(url, data=data, method="PUT", headers={"Content-Type": "application/octet-stream"})
    urllib.request.urlopen(req, timeout=60).close()


def upload(port, path, key, keep=lambda name: True):
    """Upload a file to `key`, or the files below a directory (those whose name `keep`
    accepts, subdirectories and all) under `key/`."""
    if os.path.isfile(path):
        with open(path, "rb") as f:
            put(port, key, f.read())
        return
    for root, _, files in os.walk(path):
        for name in sorted(files):
            if keep(name):
                p = os.path.join(root, name)
                with open(p, "rb") as f:
                    put(port, f"{key}/{os.path.relpath(p, path)}", f.read())
