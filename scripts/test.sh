#!/usr/bin/env bash
# Set up, build, then run every test suite (unit, threaded collectives,
# launcher, multi-process jobs). Exits non-zero when any test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
ctest --test-dir build --output-on-failure --no-tests=error -j "$(nproc)" "$@"
