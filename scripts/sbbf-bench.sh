#!/usr/bin/env bash
# SBBF pruning of right row groups (docs/BENCHMARKS.md, "SBBF pruning"): a right side written
# by DuckDB with its default Parquet Bloom filters (500 row groups of 10240 rows, an INT64 key
# unsorted within the file, about 1000 distinct keys per group), left sides of N random keys;
# `join --no-prefilter` with SBBF pruning (--sbbf-max-keys raised so it always runs) and with
# --no-sbbf, median wall time of 3 runs, row groups skipped and right bytes read.
#   scripts/sbbf-bench.sh [N...]        (default: 10 100 300 1000 3000 10000)
#   SBBF_BENCH_S3=1 scripts/sbbf-bench.sh [N...]
#       the right side on S3 (a local moto server from .cache/venv-moto, which scripts/test.sh
#       installs): also the ranged GETs of the right file per run, counted in moto's log.
#   SBBF_BENCH_MODES=on (or off) runs one mode only.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$(bash scripts/bin.sh)
PY=$(bash scripts/venv.sh)
W=out/sbbf-bench
mkdir -p "$W"
S3=${SBBF_BENCH_S3:-}
if [ ! -f "$W/right.parquet" ]; then
    "$PY" - "$W" <<'PYEOF'
import sys, duckdb
w = sys.argv[1]
G, R = 500, 10240
duckdb.sql(f"""
copy (select ((i // {R}) + {G} * (hash(i) % 1000))::bigint as k, i as id,
             'payload-' || (hash(i * 7) % 100000)::varchar as txt, (hash(i * 3) % 1000)::double as amount
      from range({G * R}) t(i))
to '{w}/right.parquet' (format parquet, row_group_size {R}, dictionary_size_limit 100000)
""")
PYEOF
fi
RIGHT="$W/right.parquet"
gets() { echo 0; }
if [ -n "$S3" ]; then
    MOTO=.cache/venv-moto/bin/moto_server
    PORT=$(.cache/venv-moto/bin/python -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])")
    "$MOTO" -H 127.0.0.1 -p "$PORT" >"$W/moto.log" 2>&1 &
    MOTO_PID=$!
    trap 'kill "$MOTO_PID"' EXIT
    export AWS_ENDPOINT_URL=http://127.0.0.1:$PORT AWS_ALLOW_HTTP=true AWS_ACCESS_KEY_ID=test \
        AWS_SECRET_ACCESS_KEY=test AWS_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true
    .cache/venv-moto/bin/python - "$PORT" "$RIGHT" <<'PYEOF'
import sys, time, boto3
port, path = sys.argv[1], sys.argv[2]
s3 = boto3.client("s3", endpoint_url=f"http://127.0.0.1:{port}", region_name="us-east-1",
                  aws_access_key_id="test", aws_secret_access_key="test")
for _ in range(100):
    try:
        s3.create_bucket(Bucket="bench")
        break
    except Exception:
        time.sleep(0.1)
s3.upload_file(path, "bench", "right/right.parquet")
PYEOF
    RIGHT=s3://bench/right/right.parquet
    # GET requests of the right file so far, from moto's request log.
    gets() { grep -c 'GET /bench/right/right.parquet' "$W/moto.log" || true; }
fi
ms() { local s e; s=$(date +%s%N); "$@"; e=$(date +%s%N); echo $(((e - s) / 1000000)); }
for n in "${@:-10 100 300 1000 3000 10000}"; do
  for n in $n; do
    "$PY" -c "import duckdb; duckdb.sql(\"copy (select (hash(i * 13) % 500000)::bigint as k from range($n) t(i)) to '$W/left-$n.parquet' (format parquet)\")"
    for mode in ${SBBF_BENCH_MODES:-on off}; do
        extra=(--sbbf-max-keys 1000000)
        [ "$mode" = off ] && extra=(--no-sbbf)
        ts=()
        for _ in 1 2 3; do
            rm -rf "$W/out-$n-$mode"
            g0=$(gets)
            ts+=("$(ms "$BIN" -q join --no-prefilter "${extra[@]}" --left "$W/left-$n.parquet" --left-key k \
                --right "$RIGHT" --right-key k -o "$W/out-$n-$mode" --report "$W/rep-$n-$mode.json" -w 2)")
            g=$(($(gets) - g0))
        done
        med=$(printf '%s\n' "${ts[@]}" | sort -n | sed -n 2p)
        "$PY" -c "
import json; r = json.load(open('$W/rep-$n-$mode.json'))['right']
print(f\"N={$n} sbbf={'$mode':3} median_ms=$med skipped={r['row_groups_skipped_by_sbbf']} bytes_read={r['bytes_read']} right_gets={$g if '$S3' else 'n/a'}\")"
    done
  done
done
