#!/bin/bash
# perf.sh - rcoll against perftest, measured in ONE run of the Soft-RoCE
# guest. Runs INSIDE the guest started by rxe-vm.sh (tests/rdma/run-perf.sh
# does that), with /work/build (the build tree) and /work/tools.
#
# Each repetition runs, in this order (so that drift between repetitions hits
# all of them alike: A B C A B C ...):
#   ib_send_lat   perftest, 8 B, server and client in the guest, RoCE v2 GID
#   p2p_lat_rdma  rcoll-p2p --test lat at 8 B over rdma (eager)
#   p2p_lat_tcp   the same over tcp
#   ib_write_bw   perftest, 1 MiB
#   p2p_bw_rdma   rcoll-p2p --test bw at 1 MiB over rdma (rendezvous)
#   p2p_bw_tcp    the same over tcp
#   allreduce_{rdma,tcp}, bcast_{rdma,tcp}   rcoll-bench, 2 ranks
# Raw outputs go to OUT/perf/raw/r<rep>-<name>.{txt,json}; then
# perf_summary.py writes OUT/perf/summary.md (medians, ratios, targets) and
# OUT/perf/summary.json. Timings under TCG are emulated: compare ratios only.
#
# usage: perf.sh [--reps N] [--only LIST] [--out DIR] [--build DIR] [--quick]
#   --reps N      repetitions (default 3)
#   --only LIST   comma-separated groups: lat,bw,coll (default all)
#   --out DIR     default /out (the host directory shared by rxe-vm.sh -o)
#   --build DIR   default /work/build
#   --quick       fewer iterations (for trying the script itself)
# Environment: RCOLL_PERF_ENV: extra VAR=value words for every rcoll run
#   (e.g. "RCOLL_IB_POLL=busy"), recorded in the summary.
# Exit status: 0 when every run produced its numbers, else 1.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=/work/build OUT=/out REPS=3 ONLY=lat,bw,coll QUICK=0
PORT=18515
while [ $# -gt 0 ]; do
	case $1 in
	--reps) REPS=$2; shift 2 ;;
	--only) ONLY=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	--build) BUILD=$2; shift 2 ;;
	--quick) QUICK=1; shift ;;
	*) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done

# Sizes of the work: 20-40 s per repetition on a 2-vCPU TCG guest.
LAT_BYTES=8 LAT_ITERS=1000 LAT_WARMUP=100
BW_BYTES=1048576 BW_WINDOW=8 BW_REPS=5 BW_WARMUP=1 PERFTEST_BW_ITERS=50
COLL_SIZES=8,1K,64K,1M,4M COLL_ITERS=5 COLL_WARMUP=1
if [ $QUICK = 1 ]; then
	LAT_ITERS=200 LAT_WARMUP=20 BW_REPS=2 PERFTEST_BW_ITERS=10 COLL_SIZES=8,64K,1M COLL_ITERS=2
fi
RUN_TIMEOUT=150
RCOLL_RUN=/work/tools/rcoll-run
P2P=$BUILD/bench/rcoll-p2p BENCH=$BUILD/bench/rcoll-bench
PERF=$OUT/perf RAW=$OUT/perf/raw
FAILED=0
read -r -a EXTRA_ENV <<<"${RCOLL_PERF_ENV:-}"

rm -rf "$PERF"
mkdir -p "$RAW" || exit 1
note() { echo "# $*"; }
elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
wants() { case ",$ONLY," in *",$1,"*) return 0 ;; esac; return 1; }

# ---------------------------------------------------------------- perftest
wait_port() { # PORT: until a TCP listener is on PORT (30 s)
	for _ in $(seq 300); do
		ss -Hltn "sport = :$1" | grep -q . && return 0
		sleep 0.1
	done
	return 1
}
# perftest NAME TOOL ARGS...: server and client of TOOL in this guest (the
# out-of-band exchange over TCP on 127.0.0.1, the traffic over rxe); the
# client's output is the result.
perftest() {
	local name=$1 tool=$2 spid crc src
	shift 2
	local args=(-d "$RXE_DEV" -x "$RXE_GID_IDX" -F -p "$PORT" "$@")
	echo "$tool ${args[*]}" >"$RAW/$name.cmd"
	timeout -k 5 "$RUN_TIMEOUT" "$tool" "${args[@]}" >"$RAW/$name.server.txt" 2>&1 &
	spid=$!
	if ! wait_port "$PORT"; then
		kill $spid 2>/dev/null
		wait $spid 2>/dev/null
		return 1
	fi
	timeout -k 5 "$RUN_TIMEOUT" "$tool" "${args[@]}" 127.0.0.1 >"$RAW/$name.txt" 2>&1
	crc=$?
	wait $spid
	src=$?
	[ $crc = 0 ] && [ $src = 0 ]
}

# ---------------------------------------------------------------- rcoll
# rcoll NAME TRANSPORT PROGRAM ARGS...: a 2-rank job; PROGRAM writes NAME.json.
rcoll() {
	local name=$1 transport=$2 program=$3
	shift 3
	local cmd=(env "${EXTRA_ENV[@]}" "$RCOLL_RUN" -n 2 --transport "$transport" --job-timeout "$RUN_TIMEOUT"
		-- "$program" "$@" --json "$RAW/$name.json")
	echo "${cmd[*]}" >"$RAW/$name.cmd"
	timeout -k 5 $((RUN_TIMEOUT + 10)) "${cmd[@]}" >"$RAW/$name.txt" 2>&1
}

# measure REP NAME FUNCTION ARGS...: one run, timed, its status noted.
measure() {
	local rep=$1 name=$2 t0=$EPOCHREALTIME rc
	shift 2
	"$1" "r$rep-$name" "${@:2}"
	rc=$?
	if [ $rc = 0 ]; then
		note "rep $rep $name: $(elapsed "$t0") s"
	else
		note "rep $rep $name: FAILED (exit status $rc; see $RAW/r$rep-$name.txt)"
		FAILED=$((FAILED + 1))
	fi
}

one_repetition() { # REP
	local r=$1
	if wants lat; then
		measure "$r" ib_send_lat perftest ib_send_lat -s "$LAT_BYTES" -n "$LAT_ITERS"
		measure "$r" p2p_lat_rdma rcoll rdma "$P2P" --test lat --sizes "$LAT_BYTES" \
			--iters "$LAT_ITERS" --warmup "$LAT_WARMUP" --check
		measure "$r" p2p_lat_tcp rcoll tcp "$P2P" --test lat --sizes "$LAT_BYTES" \
			--iters "$LAT_ITERS" --warmup "$LAT_WARMUP" --check
	fi
	if wants bw; then
		measure "$r" ib_write_bw perftest ib_write_bw -s "$BW_BYTES" -n "$PERFTEST_BW_ITERS" --report_gbits
		measure "$r" p2p_bw_rdma rcoll rdma "$P2P" --test bw --sizes "$BW_BYTES" --window "$BW_WINDOW" \
			--iters "$BW_REPS" --warmup "$BW_WARMUP" --check
		measure "$r" p2p_bw_tcp rcoll tcp "$P2P" --test bw --sizes "$BW_BYTES" --window "$BW_WINDOW" \
			--iters "$BW_REPS" --warmup "$BW_WARMUP" --check
	fi
	if wants coll; then
		local op t
		for op in allreduce bcast; do
			for t in rdma tcp; do
				measure "$r" "${op}_$t" rcoll "$t" "$BENCH" --op "$op" --sizes "$COLL_SIZES" \
					--iters "$COLL_ITERS" --warmup "$COLL_WARMUP" --check
			done
		done
	fi
}

# ---------------------------------------------------------------- main
if [ "${RCOLL_IN_RXE_VM:-}" != 1 ] || [ -z "${RXE_DEV:-}" ] || [ -z "${RXE_GID_IDX:-}" ]; then
	echo "perf.sh: not inside an rxe-vm guest with an rxe device (RCOLL_IN_RXE_VM, RXE_DEV, RXE_GID_IDX)" >&2
	exit 1
fi
for exe in "$P2P" "$BENCH"; do
	[ -x "$exe" ] || { echo "perf.sh: no $exe: build rcoll-p2p and rcoll-bench first" >&2; exit 1; }
done
T0=$EPOCHREALTIME
{
	echo "kernel=$(uname -r)"
	echo "cpus=$(nproc)"
	echo "guest_date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "device=$RXE_DEV"
	echo "gid_index=$RXE_GID_IDX"
	echo "reps=$REPS"
	echo "only=$ONLY"
	echo "quick=$QUICK"
	echo "rcoll_env=${RCOLL_PERF_ENV:-}"
} >"$PERF/meta.txt"
note "perf: $REPS repetitions of {$ONLY} on $RXE_DEV (gid $RXE_GID_IDX), $(nproc) cpus${RCOLL_PERF_ENV:+, env $RCOLL_PERF_ENV}"
for ((rep = 1; rep <= REPS; rep++)); do one_repetition "$rep"; done
note "all runs: $(elapsed "$T0") s, $FAILED failed"
python3 "$HERE/perf_summary.py" "$PERF" || FAILED=$((FAILED + 1))
[ -f "$PERF/summary.md" ] && cat "$PERF/summary.md"
[ $FAILED = 0 ]
