#!/usr/bin/env bash
# Live interop with Apache Spark: a Python venv in .cache/venv-spark with pyspark and pyarrow,
# a local[2] Spark (Java 17) driven through py4j by scripts/spark_interop.py, against the dev
# binary target/debug/bloomjoin. Exits non-zero on any mismatch.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=$(bash scripts/venv.sh spark)
"$PY" -c 'import pyspark; print("pyspark", pyspark.__version__)'
java -version 2>&1 | head -1

# The binary of the test suite (a no-op build when it is up to date).
BLOOMJOIN_BIN=$(bash scripts/bin.sh)
export BLOOMJOIN_BIN

export PYSPARK_PYTHON="$PY"
exec "$PY" scripts/spark_interop.py
