#!/usr/bin/env bash
# Run every job file in jobs/ on data/sample with the dev binary and check each output
# against its checked-in expected result (jobs/expected/<job>.json: columns, row count and an
# order-independent checksum, defined in scripts/bjcheck.py). Exits non-zero on any mismatch.
#
#   scripts/ci-sample.sh                # every jobs/*.toml
#   scripts/ci-sample.sh jobs/users_comments.toml
#
# BLOOMJOIN=path/to/bloomjoin to test another binary (default: target/debug/bloomjoin, built
# by scripts/bin.sh when missing).
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=$(bash scripts/bin.sh)
PY=$(bash scripts/venv.sh)

jobs=("$@")
[ ${#jobs[@]} -gt 0 ] || jobs=(jobs/*.toml)

passed=0
failed=0
for job in "${jobs[@]}"; do
    start=$(date +%s%N)
    if ! "$BIN" --quiet run "$job"; then
        echo "FAILED $job: bloomjoin run exited non-zero"
        failed=$((failed + 1))
        continue
    fi
    ms=$((($(date +%s%N) - start) / 1000000))
    if "$PY" scripts/bjcheck.py expect "$job"; then
        echo "   ($job ran in $ms ms)"
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
    fi
done

echo
echo "ci-sample: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
