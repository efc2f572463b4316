#!/usr/bin/env bash
# Create (or reuse) the Python environment the end-to-end scripts need: .cache/venv with
# DuckDB and pyarrow from PyPI. Prints the path of its python on stdout; everything else goes
# to stderr. Idempotent: a second run only checks the imports.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=.cache/venv
PY="$VENV/bin/python"
# Loose pins: any release of these major lines reads our Parquet and has the SQL we use.
REQS=("duckdb>=1.1,<3" "pyarrow>=15,<30" "tomli>=2; python_version < '3.11'")

if [ ! -x "$PY" ]; then
    mkdir -p .cache
    if ! python3 -m venv "$VENV" >&2; then
        rm -rf "$VENV"
        echo "scripts/venv.sh: 'python3 -m venv' failed: install Python 3 with venv (Debian: apt-get install python3-venv)" >&2
        exit 1
    fi
fi
if ! "$PY" -c 'import duckdb, pyarrow' 2>/dev/null; then
    "$PY" -m pip install --quiet --disable-pip-version-check "${REQS[@]}" >&2
fi
if ! "$PY" -c 'import duckdb, pyarrow' >&2; then
    echo "scripts/venv.sh: duckdb and pyarrow did not install into $VENV (pip needs PyPI)" >&2
    exit 1
fi
echo "$PWD/$PY"
