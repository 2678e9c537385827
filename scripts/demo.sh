#!/usr/bin/env bash
# The main job: builds franz and runs the demo, a complete scripted loop on a sandboxed desktop.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cargo build --release
./target/release/franz demo --runs-dir runs
