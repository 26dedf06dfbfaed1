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
#
# While step 1 runs, the sanitizer trees of step 3 are built at nice 19:
# the RDMA guest suite runs alone (RUN_SERIAL) and leaves about 30 % of a
# 2-core host idle, which that build takes without slowing the tests.
# Its log is build/sanitizer-builds.log. Each step's wall time is printed.
set -euo pipefail
cd "$(dirname "$0")/.."

step_start=$SECONDS
step_done() { echo "test.sh: $1 took $((SECONDS - step_start)) s"; step_start=$SECONDS; }

scripts/setup.sh
step_done "set-up and build"

builder=
if [ $# -eq 0 ]; then
  # Own process group, so that an early exit stops the whole build.
  setsid nice -n 19 bash -c 'scripts/sanitize.sh asan --build-only && scripts/sanitize.sh tsan --build-only' \
    > build/sanitizer-builds.log 2>&1 &
  builder=$!
  trap '[ -z "$builder" ] || kill -- -"$builder" 2>/dev/null || true' EXIT
fi

ctest --test-dir build --output-on-failure --no-tests=error -j "$(nproc)" "$@"
step_done "ctest"
[ $# -eq 0 ] || exit 0

scripts/fuzz.sh -t "${RCOLL_FUZZ_SECONDS:-30}"
step_done "fuzzing"

status=0
wait "$builder" || status=$?
builder=
tail -n 3 build/sanitizer-builds.log
[ "$status" -eq 0 ] || { echo "test.sh: the sanitizer builds failed (build/sanitizer-builds.log):" >&2;
                         tail -n 40 build/sanitizer-builds.log >&2; exit "$status"; }
step_done "rest of the sanitizer builds"

scripts/sanitize.sh asan
step_done "AddressSanitizer suite"
scripts/sanitize.sh tsan
step_done "ThreadSanitizer suite"
