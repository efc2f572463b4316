#!/usr/bin/env bash
# Print the path of the bloomjoin binary the end-to-end scripts use: $BLOOMJOIN if set, else
# target/debug/bloomjoin (under $CARGO_TARGET_DIR when set), built with the same features as `cargo test` so that a fresh
# checkout compiles the dependencies once (a plain `cargo build` would rebuild most of them:
# the dev-dependencies switch on extra features of shared crates).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${BLOOMJOIN:-}" ]; then
    echo "$BLOOMJOIN"
    exit 0
fi
cargo build --locked --quiet --tests >&2
echo "$(realpath "${CARGO_TARGET_DIR:-target}")/debug/bloomjoin"
