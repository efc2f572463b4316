#!/usr/bin/env bash
# The one test command (README, CI): formatting, lints, every test, doc tests, and the
# end-to-end scripts. One cargo profile (dev, dependencies at opt-level 2) serves every step.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy --all-targets -D warnings"
cargo clippy --locked --all-targets -- -D warnings

step "cargo test (unit, property and black-box CLI tests)"
cargo test --locked --lib --bins --tests

step "cargo test --doc"
cargo test --locked --doc

step "scripts/ci-sample.sh (every jobs/*.toml on data/sample against jobs/expected)"
bash scripts/ci-sample.sh

step "scripts/crosscheck.sh (bloomjoin's joins against DuckDB's)"
bash scripts/crosscheck.sh

echo
echo "test.sh: all steps passed"
