#!/usr/bin/env bash
# usage: scripts/test.sh [CTEST_ARGS...]
#
# Set up, build, then run every test suite and exit non-zero when any fails:
#   1. ctest: unit, threaded collectives, launcher, multi-process jobs,
#      failure injection, soak (short), the compare tool's smoke test, and
#      the RDMA suite inside the Soft-RoCE guest (label rdma);
#   2. the build without RDMA (RCOLL_WITH_RDMA=OFF) and the unit suites that reach what it leaves out,
#      in build-tcp-only/ (scripts/tcp-only.sh);
#   3. the libFuzzer targets, RCOLL_FUZZ_SECONDS each (default 10;
#      scripts/fuzz.sh);
#   4. the unit and threaded collective suites under AddressSanitizer +
#      UndefinedBehaviorSanitizer, then ThreadSanitizer (scripts/sanitize.sh).
# With CTEST_ARGS (e.g. `-L unit`) only step 1 runs, filtered.
# Each step's wall time is printed. The steps run one after another: the
# RDMA guest (TCG emulation on the host's cores) ran 1.3-2x slower with even
# a nice 19 build beside it, enough to time out an rdma_cm connection.
set -euo pipefail
cd "$(dirname "$0")/.."

step_start=$SECONDS
step_done() { echo "test.sh: $1 took $((SECONDS - step_start)) s"; step_start=$SECONDS; }

scripts/setup.sh
step_done "set-up and build"

ctest --test-dir build --output-on-failure --no-tests=error -j "$(nproc)" "$@"
step_done "ctest"
[ $# -eq 0 ] || exit 0

scripts/tcp-only.sh
step_done "TCP-only build (RCOLL_WITH_RDMA=OFF) and its suites"

scripts/fuzz.sh -t "${RCOLL_FUZZ_SECONDS:-10}"
step_done "fuzzing"

scripts/sanitize.sh asan
step_done "AddressSanitizer suite"
scripts/sanitize.sh tsan
step_done "ThreadSanitizer suite"
