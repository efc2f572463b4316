#!/usr/bin/env bash
# The Python package's tests (scripts/test.sh runs this): install the package the README's way
# (pip install ./python) into .cache/venv-python, run pytest over python/tests against the
# binary of the test suite, then the README's PySpark example in .cache/venv-spark.
#
# The extension module is built with the test suite's cargo profile (dev, dependencies at
# opt-level 2) in the same target directory, so it reuses the arrow, parquet and object_store
# builds of `cargo test`: the step compiles pyo3 and one crate. pytest's exit code 5 (no tests
# collected) fails the step like any other non-zero code.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 scripts/python-features.py
PY=$(bash scripts/venv.sh python)
BLOOMJOIN_BIN=$(bash scripts/bin.sh)
export BLOOMJOIN_BIN
# maturin's PEP 517 backend builds release by default; CI shares the test profile instead.
export MATURIN_PEP517_ARGS="--profile dev"

install() {
    local t0=$SECONDS
    "$1" -m pip install --quiet --disable-pip-version-check ./python
    "$1" -c 'import bloomjoin; print("bloomjoin", bloomjoin.__version__, "installed in", end=" ")'
    echo "$((SECONDS - t0)) s"
}

install "$PY"
"$PY" -m pytest python/tests -q -p no:cacheprovider

# The PySpark example of python/README.md, against a live local Spark (Java 17).
SPARK_PY=$(bash scripts/venv.sh spark)
install "$SPARK_PY"
PYSPARK_PYTHON="$SPARK_PY" "$SPARK_PY" -m pytest python/tests_spark -q -p no:cacheprovider
