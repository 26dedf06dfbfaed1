#!/usr/bin/env bash
# run-perf.sh - boot the Soft-RoCE guest with an existing build tree and run
# tests/rdma/perf.sh there (rcoll vs perftest, one guest run). Builds nothing.
#
# usage: run-perf.sh [-B BUILD] [-o OUTDIR] [-t SECONDS] [-- PERF_ARGS...]
#   -B BUILD    build tree with bench/rcoll-p2p, bench/rcoll-bench,
#               tools/rcoll-bootstrapd and src/librcoll.so (default: build)
#   -o OUTDIR   results: OUTDIR/perf/summary.md, summary.json, raw/, meta.txt,
#               and OUTDIR/host.txt (default: BUILD/tests/rdma/perf-out)
#   -t SECONDS  limit for the guest run (default 600)
#   -w LOAD     first wait (at most 15 min) until the host's 1-minute load
#               average is below LOAD: TCG timings follow the host's load
#   PERF_ARGS   passed to perf.sh (--reps N, --only lat,bw,coll, --quick)
# Environment: RCOLL_PERF_ENV (see perf.sh) is passed into the guest.
# Exit status: perf.sh's, or rxe-vm.sh's (124 timeout, 125 guest failure, ...).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=$ROOT/build OUTDIR="" LIMIT=600 QUIET_LOAD=""

while [ $# -gt 0 ]; do
	case $1 in
	-B) BUILD=$2; shift 2 ;;
	-o) OUTDIR=$2; shift 2 ;;
	-t) LIMIT=$2; shift 2 ;;
	-w) QUIET_LOAD=$2; shift 2 ;;
	--) shift; break ;;
	*) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
BUILD=$(cd "$BUILD" && pwd)
OUTDIR=${OUTDIR:-$BUILD/tests/rdma/perf-out}
for f in bench/rcoll-p2p bench/rcoll-bench tools/rcoll-bootstrapd; do
	[ -x "$BUILD/$f" ] || { echo "run-perf: no $BUILD/$f (build it: ninja -C $BUILD rcoll-p2p rcoll-bench rcoll-bootstrapd)" >&2; exit 2; }
done
mkdir -p "$OUTDIR"
load1() { cut -d' ' -f1 /proc/loadavg; }
if [ -n "$QUIET_LOAD" ]; then
	for _ in $(seq 180); do
		awk -v l="$(load1)" -v max="$QUIET_LOAD" 'BEGIN { exit !(l < max) }' && break
		sleep 5
	done
	echo "run-perf: host load $(load1) (asked for < $QUIET_LOAD)" >&2
fi
{
	echo "host_date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "host=$(uname -n) $(uname -r), $(nproc) cpus"
	echo "host_load_before=$(cut -d' ' -f1-3 /proc/loadavg)"
	echo "commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
} >"$OUTDIR/host.txt"

# The environment of the guest command is the guest's own: hand the
# variable over on the command line.
rc=0
"$HERE/rxe-vm.sh" -t "$LIMIT" -B "$BUILD" \
	-d "$ROOT/tools:/work/tools" -d "$HERE:/work/tests/rdma" -o "$OUTDIR" \
	-- env "RCOLL_PERF_ENV=${RCOLL_PERF_ENV:-}" bash tests/rdma/perf.sh "$@" || rc=$?
echo "host_load_after=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUTDIR/host.txt"
# TCG timings follow the host's load: say what it was next to the numbers.
if [ -f "$OUTDIR/perf/summary.md" ]; then
	printf '\nHost: %s; load average (1/5/15 min) before %s, after %s.\n' \
		"$(sed -n 's/^host=//p' "$OUTDIR/host.txt")" \
		"$(sed -n 's/^host_load_before=//p' "$OUTDIR/host.txt")" \
		"$(sed -n 's/^host_load_after=//p' "$OUTDIR/host.txt")" >>"$OUTDIR/perf/summary.md"
fi
echo "run-perf: results in $OUTDIR/perf (exit status $rc)" >&2
exit $rc
