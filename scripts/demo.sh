#!/usr/bin/env bash
# The main job: builds franz and shows it working on a sandboxed desktop with a real app.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cargo build --release
./target/release/franz --sandbox --launch "xterm -geometry 80x24+100+100" screenshot sandbox.png
echo "wrote sandbox.png"
