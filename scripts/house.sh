#!/usr/bin/env bash
# The shape of the house: the core's module graph and its circles, then the largest source
# files and the longest functions of the core and the CLI (docs/architecture.md, "The parts").
# Both come from the tests that hold the rules, run with --nocapture.
set -euo pipefail
cd "$(dirname "$0")/.."
for t in module_cycles function_length; do
    cargo test -q -p franz-core --test integration -- "$t::" --nocapture --test-threads=1 2>&1 |
        grep -v -e '^running ' -e '^test result' -e '^$' -e '^test .* \.\.\. ok$' || true
done
