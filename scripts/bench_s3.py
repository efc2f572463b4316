"""The s3 suite of scripts/bench.sh: TPC-H joins and train with their inputs on an S3 API.

The store is a local moto server behind a proxy that holds every request back 20 ms (LAG_MS,
a stand-in for an object store's time to first byte; moto on loopback answers in about a
millisecond). The right sides are cut into many objects as Spark writes them: lineitem in files
of about 8 MB, orders in files of one row group (10,000 rows). Engines:

- bloomjoin on S3, reading remote splits ahead of its workers (the default);
- the same with BLOOMJOIN_READ_AHEAD=0: every request waits for the one before it on its worker;
- bloomjoin on local copies of the same files (what the store costs);
- Polars 2 on S3 (its object-store reader, the same endpoint and delay);
- DuckDB on the local copies: its S3 reader (httpfs) is an extension downloaded at run time,
  which this machine cannot fetch. Its output is the reference every other output is checked
  against.
"""
import os
import subprocess
import sys

import moto_local

LAG_MS = 20
BUCKET = "tpch"
JOIN_S3 = "bloomjoin join (S3)"
JOIN_S3_OFF = "bloomjoin join (S3), BLOOMJOIN_READ_AHEAD=0"
JOIN_LOCAL = "bloomjoin join, local copies"
POLARS_S3 = "polars (S3)"
DUCKDB_LOCAL = "duckdb, local copies"
TRAIN_S3 = "bloomjoin train (S3)"
TRAIN_S3_OFF = "bloomjoin train (S3), BLOOMJOIN_READ_AHEAD=0"
TRAIN_LOCAL = "bloomjoin train, local copies"

# A TCP proxy: every chunk a client sends (a request) waits LAG seconds before it goes on.
PROXY = r"""
import asyncio, sys
UP, PORT, LAG = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
async def pipe(r, w, lag):
    try:
        while True:
            d = await r.read(65536)
            if not d:
                break
            if lag:
                await asyncio.sleep(lag)
            w.write(d)
            await w.drain()
    except Exception:
        pass
    finally:
        try:
            w.close()
        except Exception:
            pass
async def handle(cr, cw):
    ur, uw = await asyncio.open_connection("127.0.0.1", UP)
    await asyncio.gather(pipe(cr, uw, LAG), pipe(ur, cw, 0))
async def main():
    s = await asyncio.start_server(handle, "127.0.0.1", PORT)
    async with s:
        await s.serve_forever()
asyncio.run(main())
"""

class Store:
    """moto on loopback, and the delaying proxy in front of it; stop() ends both."""

    def __init__(self, moto_python, work):
        self.log = open(os.path.join(work, "moto.log"), "w")
        self.moto, self.port = moto_local.start(os.path.join(os.path.dirname(moto_python), "moto_server"), self.log)
        moto_local.put(self.port, BUCKET)
        self.lag_port = moto_local.free_port()
        self.proxy = subprocess.Popen([sys.executable, "-c", PROXY, str(self.port), str(self.lag_port),
                                       str(LAG_MS / 1000)])
        moto_local.wait_port(self.lag_port, self.proxy, "the delaying proxy")

    def env(self):
        """What bloomjoin reads: the delayed endpoint and dummy keys, as `env` arguments."""
        return [f"{k}={v}" for k, v in moto_local.env(self.lag_port).items()]

    def polars_options(self):
        """The same for Polars' storage_options, as Python source."""
        return repr({k.lower(): v for k, v in moto_local.env(self.lag_port).items()})

    def upload(self, path, prefix):
        """Upload a file, or a directory's Parquet files, without the delay (untimed)."""
        moto_local.upload(self.port, path, f"{BUCKET}/{prefix}", keep=lambda name: name.endswith(".parquet"))

    def stop(self):
        moto_local.stop(self.proxy)
        moto_local.stop(self.moto)
        self.log.close()


def split_copies(run, duckdb_setup, d, w):
    """lineitem in files of about 8 MB and orders in files of one row group (10,000 rows),
    written by DuckDB once (untimed); their directories."""
    out = {}
    for table, opts in (("lineitem", "FILE_SIZE_BYTES '8MB'"), ("orders", "FILE_SIZE_BYTES 1, ROW_GROUP_SIZE 10000")):
        target = w(f"s3-{table}")
        if not os.path.exists(os.path.join(target, ".done")):
            run([sys.executable, "-c", duckdb_setup + "c.execute(sys.argv[1])",
                 f"COPY (SELECT * FROM '{d(table)}') TO '{target}' (FORMAT parquet, {opts}, OVERWRITE_OR_IGNORE)"])
            open(os.path.join(target, ".done"), "w").close()
        out[table] = target
    return out


def workloads(a, d, w, store, run, duckdb_setup, duckdb_timed, narrow):
    """The s3 suite's workloads over `store` (uploaded here, untimed)."""
    B, W = a.bin, str(a.workers)
    local = split_copies(run, duckdb_setup, d, w)
    for table in ("lineitem", "orders"):
        store.upload(local[table], table)
    for table in ("part", "customer"):
        local[table] = d(table)
        store.upload(d(table), f"{table}.parquet")
    s3 = {t: f"s3://{BUCKET}/{t}" + ("" if t in ("lineitem", "orders") else ".parquet") for t in local}
    objects = {t: sum(n.endswith(".parquet") for n in os.listdir(local[t])) for t in ("lineitem", "orders")}
    env = ["env"] + store.env()
    out = []
    for name, lt, lk, where, rt, rk in [
        (f"lineitem ({objects['lineitem']} objects) x part (p_name LIKE '%green%') [narrow]", "part", "p_partkey",
         "p_name LIKE '%green%'", "lineitem", "l_partkey"),
        (f"orders ({objects['orders']} objects) x customer (c_mktsegment = 'BUILDING') [narrow]", "customer", "c_custkey",
         "c_mktsegment = 'BUILDING'", "orders", "o_custkey"),
    ]:
        cols = narrow[lt]
        tag = f"s3-{rt}"
        outs = {e: w(f"{tag}-{i}") for i, e in enumerate((JOIN_S3, JOIN_S3_OFF, JOIN_LOCAL, POLARS_S3, DUCKDB_LOCAL))}

        def join(src, out):
            return [B, "join", "-q", "--left", src[lt], "--left-key", lk, "--left-where", where, "--right", src[rt],
                    "--right-key", rk, "--select", cols, "--workers", W, "--output", out, "--overwrite"]

        q = f"SELECT {cols} FROM '{local[lt]}' l JOIN '{local[rt]}/*.parquet' r ON l.{lk} = r.{rk} WHERE {where}"
        polars = [sys.executable, "-c",
                  "import os,sys; os.environ['POLARS_MAX_THREADS']=sys.argv[6]\n"
                  "import polars as pl\n"
                  f"so={store.polars_options()}\n"
                  "l=pl.scan_parquet(sys.argv[1],storage_options=so).sql('select * from self where '+sys.argv[2])\n"
                  "r=pl.scan_parquet(sys.argv[3]+'/*.parquet',storage_options=so)\n"
                  "j=l.join(r,left_on=sys.argv[4],right_on=sys.argv[5],coalesce=False)\n"
                  "j.select([c.strip() for c in sys.argv[8].split(',')]).sink_parquet(sys.argv[7],compression='zstd')",
                  s3[lt], where, s3[rt], lk, rk, W, outs[POLARS_S3] + ".parquet", cols]
        out.append({
            "suite": "s3",
            "name": name,
            "baseline": POLARS_S3,
            "engines": [
                (JOIN_S3, env + join(s3, outs[JOIN_S3])),
                (JOIN_S3_OFF, env + ["BLOOMJOIN_READ_AHEAD=0"] + join(s3, outs[JOIN_S3_OFF])),
                (JOIN_LOCAL, join(local, outs[JOIN_LOCAL])),
                (POLARS_S3, polars),
                (DUCKDB_LOCAL, duckdb_timed(
                    f"COPY ({q}) TO '{outs[DUCKDB_LOCAL]}.parquet' (FORMAT parquet, COMPRESSION zstd)", a.workers)),
            ],
            "reference": DUCKDB_LOCAL,
            "outputs": {
                JOIN_S3: outs[JOIN_S3] + "/part-*.parquet",
                JOIN_S3_OFF: outs[JOIN_S3_OFF] + "/part-*.parquet",
                JOIN_LOCAL: outs[JOIN_LOCAL] + "/part-*.parquet",
                POLARS_S3: outs[POLARS_S3] + ".parquet",
                DUCKDB_LOCAL: outs[DUCKDB_LOCAL] + ".parquet",
            },
        })
    train = lambda src, f: [B, "train", "-q", "--input", src, "--column", "l_partkey", "--workers", W,
                            "--output", f, "--overwrite"]
    out.append({
        "suite": "s3",
        "name": f"train lineitem.l_partkey ({objects['lineitem']} objects)",
        "baseline": TRAIN_S3_OFF,
        "engines": [
            (TRAIN_S3, env + train(s3["lineitem"], w("s3-train.bjf"))),
            (TRAIN_S3_OFF, env + ["BLOOMJOIN_READ_AHEAD=0"] + train(s3["lineitem"], w("s3-train-off.bjf"))),
            (TRAIN_LOCAL, train(local["lineitem"], w("s3-train-local.bjf"))),
        ],
    })
    return out
