#!/usr/bin/env bash
# The one test command (README, CI): formatting, lints, every test, doc tests, and the
# end-to-end scripts. One cargo profile (dev, dependencies at opt-level 2) serves every step.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step's wall time is printed when it ends, and all of them again at the end (or on a
# failure), so a slow CI run says which step grew.
timings=""
step_name=""
step_start=$SECONDS
step_done() {
    if [[ -n $step_name ]]; then
        printf '    (%d s)\n' $((SECONDS - step_start))
        timings+="$(printf '%6ds  %s' $((SECONDS - step_start)) "${step_name:0:72}")"$'\n'
    fi
}
on_exit() {
    local rc=$?
    if ((rc != 0)); then
        step_done
        printf '\ntest.sh: failed (exit %d) after %d s; the steps run:\n%s' "$rc" "$SECONDS" "$timings"
    fi
}
trap on_exit EXIT
step() {
    step_done
    step_name="$1"
    step_start=$SECONDS
    printf '\n==> %s\n' "$*"
}

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy --workspace --all-targets -D warnings (the library, the binary, python/)"
cargo clippy --locked --workspace --all-targets -- -D warnings

step "test tools: a real S3-compatible server (moto) in .cache/venv-moto"
bash scripts/venv.sh moto >/dev/null
.cache/venv-moto/bin/moto_server --help >/dev/null

step "cargo test (unit, property and black-box CLI tests)"
cargo test --locked --lib --bins --tests

step "cargo test --doc"
cargo test --locked --doc

step "scripts/ci-sample.sh (every jobs/*.toml on data/sample against jobs/expected)"
bash scripts/ci-sample.sh

step "scripts/crosscheck.sh (bloomjoin's joins and filter job against DuckDB's)"
bash scripts/crosscheck.sh

step "scripts/fuzz.sh --cases 400 --seed 12 --s3 (differential fuzzer: joins, --where and filter decoding against DuckDB; half the joins read from moto)"
bash scripts/fuzz.sh --cases 400 --seed 12 --s3 .cache/venv-moto/bin/moto_server

step "Python package (pip install ./python into .cache/venv-python; pytest python/tests)"
bash scripts/test-python.sh

step "Spark interop (live local Spark through pyspark)"
bash scripts/spark-interop.sh

step_done
echo
echo "test.sh: all steps passed in $SECONDS s:"
printf '%s' "$timings"
