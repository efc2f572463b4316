#!/usr/bin/env bash
# SBBF pruning of right row groups (docs/BENCHMARKS.md, "SBBF pruning"): a right side written
# by DuckDB with its default Parquet Bloom filters (500 row groups of 10240 rows, an INT64 key
# unsorted within the file, about 1000 distinct keys per group), left sides of N random keys;
# `join --no-prefilter` with SBBF pruning (--sbbf-max-keys raised so it always runs) and with
# --no-sbbf, median wall time of 3 runs, row groups skipped and right bytes read.
#   scripts/sbbf-bench.sh [N...]        (default: 10 100 300 1000 3000 10000)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$(bash scripts/bin.sh)
PY=$(bash scripts/venv.sh)
W=out/sbbf-bench
mkdir -p "$W"
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
ms() { local s e; s=$(date +%s%N); "$@"; e=$(date +%s%N); echo $(((e - s) / 1000000)); }
for n in "${@:-10 100 300 1000 3000 10000}"; do
  for n in $n; do
    "$PY" -c "import duckdb; duckdb.sql(\"copy (select (hash(i * 13) % 500000)::bigint as k from range($n) t(i)) to '$W/left-$n.parquet' (format parquet)\")"
    for mode in on off; do
        extra=(--sbbf-max-keys 1000000)
        [ "$mode" = off ] && extra=(--no-sbbf)
        ts=()
        for _ in 1 2 3; do
            rm -rf "$W/out-$n-$mode"
            ts+=("$(ms "$BIN" -q join --no-prefilter "${extra[@]}" --left "$W/left-$n.parquet" --left-key k \
                --right "$W/right.parquet" --right-key k -o "$W/out-$n-$mode" --report "$W/rep-$n-$mode.json" -w 2)")
        done
        med=$(printf '%s\n' "${ts[@]}" | sort -n | sed -n 2p)
        "$PY" -c "
import json; r = json.load(open('$W/rep-$n-$mode.json'))['right']
print(f\"N={$n} sbbf={'$mode':3} median_ms=$med skipped={r['row_groups_skipped_by_sbbf']} bytes_read={r['bytes_read']}\")"
    done
  done
done
