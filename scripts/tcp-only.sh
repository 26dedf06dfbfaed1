#!/usr/bin/env bash
# Usage: scripts/tcp-only.sh [-B BUILD_DIR] [-j JOBS]
#
# The build without the RDMA transport (-DRCOLL_WITH_RDMA=OFF), as on a host
# without rdma-core: configures it in BUILD_DIR (default build-tcp-only),
# builds librcoll and the unit tests (target rcoll_unit_tests), checks that
# librcoll.so does not need libibverbs or librdmacm (its own NEEDED entries:
# readelf -d, not ldd, which would also list what other libraries pull in),
# and runs the unit tests (ctest -L unit; the RDMA cases skip, saying the
# build has no RDMA). Exits non-zero on any failure.
# -O1 without debug information or LTO, and nothing but the library and the
# unit tests: the step checks what the build leaves out and that the rest
# works without it, not speed, so it compiles what it needs, cheaply.
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

cmake -S . -B "$BUILD_DIR" -G Ninja -DRCOLL_WITH_RDMA=OFF -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O1 \
  -DRCOLL_LTO=OFF -DRCOLL_BUILD_BENCH=OFF -DRCOLL_BUILD_EXAMPLES=OFF > /dev/null
cmake --build "$BUILD_DIR" -j "$JOBS" --target rcoll_unit_tests

library=$BUILD_DIR/src/librcoll.so
if readelf -d "$library" | grep -E 'NEEDED.*\[lib(ibverbs|rdmacm)\.'; then
  echo "tcp-only: $library needs the RDMA libraries above although RCOLL_WITH_RDMA=OFF" >&2
  exit 1
fi
echo "tcp-only: $library needs no libibverbs or librdmacm"

ctest --test-dir "$BUILD_DIR" --output-on-failure --no-tests=error -j "$JOBS" -L unit
