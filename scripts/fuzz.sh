#!/usr/bin/env bash
# Differential fuzzer (issue 12): bloomjoin's joins, --where conditions and filter decoder
# against DuckDB on small random tables. See scripts/fuzz.py for what each kind generates.
#   scripts/fuzz.sh [--cases N] [--seed S] [--kind join|where|decoder|all] [--keep DIR]
#                   [--case I] [--jobs J] [--no-u64-meets-signed] [--progress N] [--verbose]
#                   [--s3 MOTO_SERVER]   (half the joins read their sides from that moto server)
# Deterministic for a given seed; a failing case prints its command lines and keeps its files
# (under --keep, default out/fuzz); the last line counts the cases per kind; exit 1 on any
# failure. Uses the binary of scripts/bin.sh and the Python environment of scripts/venv.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$(bash scripts/bin.sh)
PY=$(bash scripts/venv.sh)
exec "$PY" scripts/fuzz.py --bin "$BIN" "$@"
