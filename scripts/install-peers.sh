#!/usr/bin/env bash
# Installs what bench/compare needs besides rcoll itself (only what is
# missing): Open MPI, MPICH and Gloo with their headers, built against by
# bench/peers/, and matplotlib for the plots. Debian 12; idempotent; needs
# root or sudo the first time.
#   usage: scripts/install-peers.sh
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(openmpi-bin libopenmpi-dev mpich libmpich-dev libgloo-dev python3-matplotlib)

missing=()
for package in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-peers: all installed (${PACKAGES[*]})"
  exit 0
fi
echo "install-peers: installing ${missing[*]}"
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
