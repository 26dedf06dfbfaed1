#!/usr/bin/env bash
# Installs what rcoll needs on Debian 12 (only what is missing) and builds it
# into build/. Idempotent; every other script starts with it.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(cmake ninja-build g++ pkg-config python3 libspdlog-dev libhwloc-dev libgtest-dev
          libibverbs-dev librdmacm-dev ibverbs-providers libssl-dev
          python3-dev pybind11-dev python3-numpy python3-torch libtorch-dev)

missing=()
for package in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

BUILD_DIR=${RCOLL_BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=${RCOLL_BUILD_TYPE:-RelWithDebInfo} > /dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)"
