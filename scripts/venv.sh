#!/usr/bin/env bash
# Create (or reuse) a Python environment under .cache from PyPI and print the path of its
# python on stdout; everything else goes to stderr. Idempotent: a second run only checks the
# imports.
#   scripts/venv.sh         .cache/venv: DuckDB, pyarrow, xxhash and Polars (the end-to-end
#                           scripts; xxhash lets scripts/fuzz.py recompute filter checksums,
#                           Polars writes some of its files)
#   scripts/venv.sh spark   .cache/venv-spark: pyspark, pyarrow, pandas (for mapInArrow) and
#                           pytest (needs Java 17)
#   scripts/venv.sh python  .cache/venv-python: what the Python package's tests use (pytest,
#                           pyarrow, Polars, DuckDB, NumPy); the package itself is installed
#                           by scripts/test.sh (pip install ./python)
#   scripts/venv.sh bench   .cache/venv-bench: tpchgen-cli, DuckDB, Polars, pyarrow, matplotlib
#   scripts/venv.sh moto    .cache/venv-moto: a real S3-compatible server (moto_server) and
#                           boto3 (the tests and the s3 benchmark suite)
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
"")
    VENV=.cache/venv
    IMPORTS="duckdb, pyarrow, xxhash, polars"
    # Loose pins: any release of these major lines reads our Parquet and has the SQL we use.
    # Polars writes some of the fuzzer's files (footers without page encoding statistics).
    REQS=("duckdb>=1.1,<3" "pyarrow>=15,<30" "xxhash>=3" "polars>=1,<3" "tomli>=2; python_version < '3.11'")
    ;;
spark)
    VENV=.cache/venv-spark
    IMPORTS="pyspark, pyarrow, pandas, pytest"
    # pandas < 3: PySpark 4 warns that it does not yet fully support pandas 3.
    REQS=(pyspark pyarrow "pandas<3" pytest)
    ;;
python)
    VENV=.cache/venv-python
    IMPORTS="pytest, pyarrow, polars, duckdb, numpy"
    REQS=("pytest>=8" "pyarrow>=15,<30" "polars>=1.20" "duckdb>=1.1,<3" "numpy>=1.24")
    ;;
bench)
    VENV=.cache/venv-bench
    IMPORTS="duckdb, polars, pyarrow, matplotlib"
    REQS=(tpchgen-cli duckdb polars pyarrow matplotlib)
    ;;
moto)
    VENV=.cache/venv-moto
    IMPORTS="moto, flask, flask_cors, boto3"
    REQS=("moto[s3,server]" flask flask-cors)
    ;;
*)
    echo "usage: scripts/venv.sh [spark|bench|python|moto]" >&2
    exit 2
    ;;
esac
PY="$VENV/bin/python"

if [ ! -x "$PY" ]; then
    mkdir -p .cache
    if ! python3 -m venv "$VENV" >&2; then
        rm -rf "$VENV"
        echo "scripts/venv.sh: 'python3 -m venv' failed: install Python 3 with venv (Debian: apt-get install python3-venv)" >&2
        exit 1
    fi
fi
if ! "$PY" -c "import $IMPORTS" 2>/dev/null; then
    "$PY" -m pip install --quiet --disable-pip-version-check "${REQS[@]}" >&2
fi
if ! "$PY" -c "import $IMPORTS" >&2; then
    echo "scripts/venv.sh: $IMPORTS did not install into $VENV (pip needs PyPI)" >&2
    exit 1
fi
echo "$PWD/$PY"
