#!/usr/bin/env bash
# Usage: scripts/fuzz.sh [-t SECONDS_PER_TARGET] [-B BUILD_DIR] [-j JOBS] [--regenerate-corpus] [TARGET...]
#
# Builds the libFuzzer targets of tests/fuzz/ with clang (ASan + UBSan,
# coverage-instrumented library sources) and runs each for a bounded time
# (default 60 s) against a fresh copy of its seed corpus
# (tests/fuzz/corpus/<target>/). Default build dir: build-fuzz. TARGET
# names (e.g. bootstrap_server_fuzz) restrict the run; default: all.
# -j JOBS (default: the CPU count) is both the build's parallelism and how
# many targets fuzz at once.
# Prints one summary line per target (executions, coverage, result) and
# exits non-zero on any crash, leak, timeout, out-of-memory or sanitizer
# report; the input that caused it is kept under BUILD_DIR/artifacts/.
# Reproduce one: BUILD_DIR/<target> BUILD_DIR/artifacts/<target>/crash-...
#
# --regenerate-corpus rewrites tests/fuzz/corpus/ with make_corpus (after a
# wire format change) and exits.
# Installs clang and libclang-rt-14-dev (libFuzzer's runtime) when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }

SECONDS_PER_TARGET=60
BUILD_DIR=build-fuzz
JOBS=$(nproc)
REGENERATE=0
TARGETS=()
while [ $# -gt 0 ]; do
  case "$1" in
    -t) SECONDS_PER_TARGET=$2; shift 2 ;;
    -B) BUILD_DIR=$2; shift 2 ;;
    -j) JOBS=$2; shift 2 ;;
    --regenerate-corpus) REGENERATE=1; shift ;;
    -h|--help) usage 0 ;;
    -*) echo "fuzz: unknown option '$1'" >&2; usage ;;
    *) TARGETS+=("$1"); shift ;;
  esac
done

PACKAGES=(cmake ninja-build pkg-config clang libclang-rt-14-dev libspdlog-dev libhwloc-dev libibverbs-dev librdmacm-dev libssl-dev)
missing=()
for package in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "fuzz: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cmake -S tests/fuzz -B "$BUILD_DIR" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
cmake --build "$BUILD_DIR" -j "$JOBS" --target rcoll_fuzzers make_corpus

if [ "$REGENERATE" -eq 1 ]; then
  rm -rf tests/fuzz/corpus
  "$BUILD_DIR/make_corpus" tests/fuzz/corpus
  echo "fuzz: wrote $(find tests/fuzz/corpus -type f | wc -l) seeds under tests/fuzz/corpus/"
  exit 0
fi

[ ${#TARGETS[@]} -gt 0 ] || mapfile -t TARGETS < "$BUILD_DIR/fuzz_targets.txt"

# A leak is a finding (detect_leaks); UBSan already aborts on the first report.
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=0:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"

# fuzz_one TARGET: runs one target for SECONDS_PER_TARGET, writes its summary
# line to BUILD_DIR/logs/TARGET.summary, and returns non-zero on a finding.
fuzz_one() {
  local target=$1
  local binary=$BUILD_DIR/$target work=$BUILD_DIR/corpus/$target
  local artifacts=$BUILD_DIR/artifacts/$target log=$BUILD_DIR/logs/$target.log
  rm -rf "$work" "$artifacts"
  mkdir -p "$work" "$artifacts" "$(dirname "$log")"
  local seeds=0
  if [ -d "tests/fuzz/corpus/$target" ]; then
    cp tests/fuzz/corpus/"$target"/* "$work"/
    seeds=$(find "$work" -type f | wc -l)
  fi
  echo "fuzz: $target for ${SECONDS_PER_TARGET} s ($seeds seeds; log $log)"
  local status=0
  "$binary" -max_total_time="$SECONDS_PER_TARGET" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "$work" > "$log" 2>&1 || status=$?
  local execs rate rss last cov ft corp findings result=ok
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | grep ' cov: ' | tail -1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<< "$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<< "$last")
  corp=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<< "$last")
  findings=$(find "$artifacts" -type f | wc -l)
  if [ "$status" -ne 0 ] || [ "$findings" -ne 0 ] || grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' "$log"; then
    result="FAILED (exit $status, $findings artifacts)"
    grep -E -A30 'ERROR: |runtime error:|invariant violated' "$log" | head -60 >&2 || true
  fi
  printf '%-26s execs %-10s exec/s %-7s cov %-6s ft %-6s corpus %-5s peak_rss_mb %-5s %s\n' \
    "$target" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "${rss:-?}" "$result" \
    > "$BUILD_DIR/logs/$target.summary"
  [ "$result" = ok ]
}

# JOBS targets at a time: each fuzzer is one single-threaded process, so on a
# 2-core host two of them halve the wall time at the same fuzzing per target.
for target in "${TARGETS[@]}"; do
  [ -x "$BUILD_DIR/$target" ] || { echo "fuzz: no target '$target' in $BUILD_DIR" >&2; exit 2; }
done
failed=0
running=0
for target in "${TARGETS[@]}"; do
  if [ "$running" -ge "$JOBS" ]; then
    wait -n || failed=1
    running=$((running - 1))
  fi
  fuzz_one "$target" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || failed=1
  running=$((running - 1))
done

echo "fuzz: summary (${SECONDS_PER_TARGET} s per target, $JOBS at a time)"
for target in "${TARGETS[@]}"; do cat "$BUILD_DIR/logs/$target.summary"; done
exit "$failed"
