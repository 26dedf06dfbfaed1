#!/usr/bin/env bash
# Usage: scripts/tcp-only.sh [-B BUILD_DIR] [-j JOBS]
#
# The build without the RDMA transport (-DRCOLL_WITH_RDMA=OFF), as on a host
# without rdma-core: configures it in BUILD_DIR (default build-tcp-only),
# builds librcoll and the unit suites that reach what the option changes
# (TESTS below: the transport factory, the transport contract whose rdma
# cases must skip saying the build has no RDMA, a communicator over tcp and
# its environment), checks that librcoll.so does not need libibverbs or
# librdmacm (its own NEEDED entries: readelf -d, not ldd, which would also
# list what other libraries pull in), and runs those suites. Exits non-zero
# on any failure.
# -O0 without debug information or LTO, and only those targets: the step
# checks what the build leaves out and that the rest works without it, not
# speed, and every other suite runs the same sources in the main build.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }

BUILD_DIR=build-tcp-only
JOBS=$(nproc)
while [ $# -gt 0 ]; do
  case "$1" in
    -B) BUILD_DIR=$2; shift 2 ;;
    -j) JOBS=$2; shift 2 ;;
    -h|--help) usage 0 ;;
    *) echo "tcp-only: unknown argument '$1'" >&2; usage ;;
  esac
done

cmake -S . -B "$BUILD_DIR" -G Ninja -DRCOLL_WITH_RDMA=OFF -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O0 \
  -DRCOLL_LTO=OFF -DRCOLL_BUILD_BENCH=OFF -DRCOLL_BUILD_EXAMPLES=OFF > /dev/null
TESTS=(transport_factory_test transport_contract_test comm_test comm_env_test tcp_transport_test)
cmake --build "$BUILD_DIR" -j "$JOBS" --target rcoll "${TESTS[@]}"
# A suite built by an earlier, wider run of this script must not run stale.
for list in "$BUILD_DIR"/tests/*_test\[1\]_tests.cmake; do
  [ -e "$list" ] || continue
  name=${list##*/}
  name=${name%%\[*}
  printf '%s\n' "${TESTS[@]}" | grep -qx "$name" || rm -f "$list" "$BUILD_DIR/tests/$name"
done

library=$BUILD_DIR/src/librcoll.so
if readelf -d "$library" | grep -E 'NEEDED.*\[lib(ibverbs|rdmacm)\.'; then
  echo "tcp-only: $library needs the RDMA libraries above although RCOLL_WITH_RDMA=OFF" >&2
  exit 1
fi
echo "tcp-only: $library needs no libibverbs or librdmacm"

ctest --test-dir "$BUILD_DIR" --output-on-failure --no-tests=error -j "$JOBS" -L unit
