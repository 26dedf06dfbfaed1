#!/usr/bin/env bash
# Usage: scripts/sanitize.sh asan|tsan [-B BUILD_DIR] [-j JOBS] [--build-only] [-- CTEST_ARGS...]
#
# Builds rcoll and its GoogleTest suites under a sanitizer and runs them;
# exits non-zero on any failing test or any sanitizer report.
#   asan  AddressSanitizer + LeakSanitizer + UndefinedBehaviorSanitizer
#         (-fno-sanitize-recover=all: the first report ends the process).
#         Default build dir: build-asan.
#   tsan  ThreadSanitizer, with tests/sanitize/tsan.supp. Default build dir:
#         build-tsan.
# The compiler is $CXX (default g++: its libasan/libtsan come with g++ on
# Debian 12; gtest, spdlog/fmt (shared), hwloc, libibverbs and librdmacm are
# used uninstrumented). asan -Og, tsan -O1, both -g1: tolerable speed, and
# stacks with function names and file:line (-g1 has no inline frames or
# variables but compiles faster; rebuild with -g to see inline frames of a
# report). asan at -Og: GCC's ASan + UBSan instrumentation makes -O1
# compiles slow, and -O0's tests run much longer.
#
# What is built and run (the library is always built whole):
#   asan  every tests/unit/*_test executable; CTEST_ARGS default `-L unit
#         -E REGEX`, where REGEX drops the collectives matrices' world sizes
#         6, 7, 12 and 16 (the host run covers them; 1-5 and 8 keep every
#         algorithm's power-of-two, odd and non-power-of-two paths).
#   tsan  only the unit tests that start threads (their source mentions
#         std::thread, std::jthread, std::async, run_comms, run_ranks or
#         run_comm_ranks),
#         minus rdma_* (they skip without an RDMA device, as in CI): the
#         threaded collective suites (collectives_*_test: every
#         collective with ranks as threads over inproc and tcp), the
#         transport contract (transport_contract_test), bootstrap, comm,
#         tcp, topology and calibration suites. CTEST_ARGS default
#         `-L unit -E REGEX --repeat until-pass:2`, where REGEX keeps the
#         collectives matrices' world sizes 1, 2, 3 and 8 over inproc and
#         1, 2 and 3 over tcp (TSan makes a tcp n8 case ~5-20 s; the races
#         TSan looks for are between a rank's threads and its transport,
#         which these sizes all reach; 2, 3 and 8 keep every algorithm's
#         power-of-two, odd and non-power-of-two paths, and the host run
#         covers every size), and a test that fails is run once more:
#         TSan slows rcoll 5-15x, and on a loaded host tests with 0.3-1.5 s
#         timeouts can miss them. A sanitizer report from any attempt still
#         fails the run (reports are collected from every process).
# RDMA tests skip themselves when no RDMA device is present (outside the
# Soft-RoCE guest). The multiproc and launcher suites are not run (they start
# processes through rcoll-run; the unit suites cover the same code paths
# in-process).
#
# Every sanitizer report also goes to BUILD_DIR/sanitizer-reports/ (so a
# report from a process whose exit status a test ignores still fails the
# run); they are printed at the end. Wall time of the build and of the tests
# is printed last.
#
# Measured 2026-12-01 on the 2-core Debian 12 VM (Intel Xeon, GCC 12, clean
# build dir, -j 2; CPU seconds = user + sys):
#   asan  -Og: build 234 s wall (463 s CPU), tests 74 s wall (122 s CPU);
#         -O1 took build 430 s wall (844 s CPU), tests 63 s.
#   tsan  build 165 s wall (325 s CPU), tests 241 s wall (455 s CPU).
#   0 reports. RDMA tests skip outside the guest.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }

[ $# -ge 1 ] || usage
MODE=$1
shift
case "$MODE" in
  asan|tsan) ;;
  -h|--help) usage 0 ;;
  *) echo "sanitize: unknown mode '$MODE'" >&2; usage ;;
esac

BUILD_DIR=build-$MODE
JOBS=$(nproc)
BUILD_ONLY=0
CTEST_ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    -B) BUILD_DIR=$2; shift 2 ;;
    -j) JOBS=$2; shift 2 ;;
    --build-only) BUILD_ONLY=1; shift ;;
    --) shift; CTEST_ARGS=("$@"); break ;;
    -h|--help) usage 0 ;;
    *) echo "sanitize: unknown argument '$1'" >&2; usage ;;
  esac
done

SOURCE_DIR=$PWD
SUPP=$SOURCE_DIR/tests/sanitize/tsan.supp
CXX=${CXX:-g++}
DEFINES=
case "$MODE" in
  asan) FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"; OPTIMIZE=-Og ;;
  # RCOLL_NO_KERNEL_CLONES: GCC's target_clones IFUNC resolvers for the
  # reduction kernels (src/collectives/reduce_ops.hpp) are instrumented too,
  # and the loader runs them while relocating librcoll.so, before libtsan is
  # initialised: every test executable died with SIGSEGV at startup. Without
  # clones the kernels are the baseline loops (same code paths otherwise).
  tsan) FLAGS="-fsanitize=thread -fno-omit-frame-pointer"; DEFINES="-DRCOLL_NO_KERNEL_CLONES"; OPTIMIZE=-O1 ;;
esac

start=$SECONDS
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_CXX_FLAGS="$FLAGS $DEFINES" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$OPTIMIZE -g1" \
  -DCMAKE_EXE_LINKER_FLAGS="$FLAGS" -DCMAKE_SHARED_LINKER_FLAGS="$FLAGS" \
  -DRCOLL_BUILD_BENCH=OFF -DRCOLL_BUILD_EXAMPLES=OFF -DRCOLL_LTO=OFF > /dev/null
# Only what the unit suites need: the library, the selected test executables.
targets=$(cmake --build "$BUILD_DIR" --target help | sed -n 's/^\([A-Za-z0-9_]*_test\): .*/\1/p')
if [ "$MODE" = tsan ]; then
  threaded=$(grep -lE 'std::(j?thread|async)|run_comms|run_ranks|run_comm_ranks' tests/unit/*_test.cpp |
    sed 's|.*/||; s|\.cpp$||' | grep -v '^rdma_')
  targets=$(comm -12 <(echo "$targets" | sort) <(echo "$threaded" | sort))
  [ ${#CTEST_ARGS[@]} -gt 0 ] ||
    CTEST_ARGS=(-L unit -E '^All/[A-Za-z]+Test\.[A-Za-z]+/((inproc|tcp)_n(4|5|6|7|12|16)|tcp_n8)_'
                --repeat until-pass:2)
fi
[ ${#CTEST_ARGS[@]} -gt 0 ] || CTEST_ARGS=(-L unit -E '^All/[A-Za-z]+Test\.[A-Za-z]+/(inproc|tcp)_n(6|7|12|16)_')
# A test executable left in BUILD_DIR by an earlier, wider build must not run
# stale: remove it and its test list (a later selection relinks it, which
# lists its tests again).
for list in "$BUILD_DIR"/tests/*_test\[1\]_tests.cmake; do
  [ -e "$list" ] || continue
  name=${list##*/}
  name=${name%%\[*}
  echo "$targets" | grep -qx "$name" || rm -f "$list" "$BUILD_DIR/tests/$name"
done
# CPU seconds too: on a shared host they say more than the wall time.
TIMEFORMAT="sanitize $MODE: build %0R s wall, %0U s user + %0S s sys"
# shellcheck disable=SC2086
time cmake --build "$BUILD_DIR" -j "$JOBS" --target $targets
build_seconds=$((SECONDS - start))
[ "$BUILD_ONLY" -eq 0 ] || exit 0

REPORTS=$SOURCE_DIR/$BUILD_DIR/sanitizer-reports
[ "${BUILD_DIR:0:1}" != / ] || REPORTS=$BUILD_DIR/sanitizer-reports
rm -rf "$REPORTS"
mkdir -p "$REPORTS"
common="halt_on_error=1:log_path=$REPORTS/report"
case "$MODE" in
  asan)
    export ASAN_OPTIONS="$common:abort_on_error=0:detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1"
    export UBSAN_OPTIONS="$common:print_stacktrace=1"
    # hwloc's "pci" plugin (hwloc_pci.so, libpciaccess) leaks its PCI name
    # table (~600 KiB) on every topology load, and LeakSanitizer's scan of it
    # took ~18 s per process. Without it hwloc's Linux backend still finds
    # the PCI devices and their NICs in sysfs (busid, class, locality: all
    # that src/topology uses); only vendor/device names are lost.
    export HWLOC_COMPONENTS=-pci
    ;;
  tsan)
    export TSAN_OPTIONS="$common:second_deadlock_stack=1:suppressions=$SUPP"
    ;;
esac

start=$SECONDS
status=0
TIMEFORMAT="sanitize $MODE: tests %0R s wall, %0U s user + %0S s sys"
time { ctest --test-dir "$BUILD_DIR" --output-on-failure --no-tests=error -j "$JOBS" "${CTEST_ARGS[@]}" || status=$?; }
test_seconds=$((SECONDS - start))

reports=$(find "$REPORTS" -type f | sort)
if [ -n "$reports" ]; then
  echo "sanitize $MODE: sanitizer reports:" >&2
  for report in $reports; do
    echo "==== $report" >&2
    cat "$report" >&2
  done
  status=1
fi
echo "sanitize $MODE: build ${build_seconds} s, tests ${test_seconds} s, reports $(echo -n "$reports" | grep -c . || true), ctest status $status"
exit "$status"
