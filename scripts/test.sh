#!/usr/bin/env bash
# usage: scripts/test.sh [CTEST_ARGS...]
#
# Set up, build, then run every test suite and exit non-zero when any fails:
#   1. ctest: unit, threaded collectives, launcher, multi-process jobs,
#      failure injection, soak (short), the compare tool's smoke test, and
#      the RDMA suite inside the Soft-RoCE guest (label rdma);
#   2. the libFuzzer targets, RCOLL_FUZZ_SECONDS each (default 30;
#      scripts/fuzz.sh);
#   3. the unit and threaded collective suites under AddressSanitizer +
#      UndefinedBehaviorSanitizer, then ThreadSanitizer (scripts/sanitize.sh).
# With CTEST_ARGS (e.g. `-L unit`) only step 1 runs, filtered.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
ctest --test-dir build --output-on-failure --no-tests=error -j "$(nproc)" "$@"
[ $# -eq 0 ] || exit 0
scripts/fuzz.sh -t "${RCOLL_FUZZ_SECONDS:-30}"
scripts/sanitize.sh asan
scripts/sanitize.sh tsan
