#!/usr/bin/env bash
# The test command: installs what is missing, then format, lints and every test.
# Each step's time goes to stderr ("test.sh: ... took N s"), so a slow CI run says where.
set -euo pipefail
cd "$(dirname "$0")/.."

step() {
  local started=$SECONDS
  "$@"
  echo "test.sh: '$*' took $((SECONDS - started)) s" >&2
}

step scripts/deps.sh
step cargo fmt --all --check
step cargo clippy --all-targets -- -D warnings
# the core library as an embedder gets it: without the test doubles (the `scripted` feature)
step cargo clippy -p franz-core --lib -- -D warnings
# examples are test helpers (sandbox and capture holders): build them as plain binaries first
step cargo build --examples
# Four test threads unless RUST_TEST_THREADS says otherwise: most end-to-end tests wait on
# other processes (X servers, browsers, the model servers), so two threads left the 2 cores
# idle; measured on 2 cores, the franz integration tests took 493 s with 2 threads, 407 s with 4.
export RUST_TEST_THREADS="${RUST_TEST_THREADS:-4}"
step cargo test
