#!/usr/bin/env bash
# Live interop with Apache Spark: a Python venv in .cache/venv-spark with pyspark and pyarrow,
# a local[2] Spark (Java 17) driven through py4j by scripts/spark_interop.py, against the dev
# binary target/debug/bloomjoin. Exits non-zero on any mismatch.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=.cache/venv-spark
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
fi
if ! "$VENV/bin/python" -c 'import pyspark, pyarrow' 2>/dev/null; then
    "$VENV/bin/pip" install --quiet pyspark pyarrow
fi
"$VENV/bin/python" -c 'import pyspark; print("pyspark", pyspark.__version__)'
java -version 2>&1 | head -1

# The binary of the test suite (a no-op build when it is up to date).
BLOOMJOIN_BIN=$(bash scripts/bin.sh)
export BLOOMJOIN_BIN

export PYSPARK_PYTHON="$PWD/$VENV/bin/python"
exec "$VENV/bin/python" scripts/spark_interop.py
