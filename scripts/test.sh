#!/usr/bin/env bash
# The test command: installs what is missing, then format, lints and every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cargo fmt --all --check
cargo clippy --all-targets -- -D warnings
# the core library as an embedder gets it: without the test doubles (the `scripted` feature)
cargo clippy -p franz-core --lib -- -D warnings
# examples are test helpers (sandbox and capture holders): build them as plain binaries first
cargo build --examples
cargo test
