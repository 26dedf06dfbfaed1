#!/usr/bin/env bash
# Set up, build, then run the main job: a 4-rank allreduce benchmark with
# correctness checks on the best transport available (auto: RDMA when a usable
# device exists, else TCP). Extra arguments go to rcoll-bench.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec tools/rcoll-run -n "${RCOLL_BENCH_RANKS:-4}" --transport auto -- \
  build/bench/rcoll-bench --op allreduce --check --min-bytes 8 --max-bytes 64M "$@"
