#!/bin/bash
# guest-suite.sh - the RDMA test suite. Runs INSIDE the rxe guest started by
# rxe-vm.sh, from the payload: /work/build (the build tree), /work/tools,
# /work/bench (bench/compare), /work/tests/rdma, /work/tests/faults
# (kill_check.py). Checks, in order:
#   device_<dev>     ibv_devinfo shows the rxe port PORT_ACTIVE
#   ib_send_lat      perftest, server and client in the guest over RoCE v2
#   ib_write_bw      (raw outputs and summary.txt kept in OUT/perftest/)
#   <gtest name>     every build/tests/**/rdma_*_test (GoogleTest executables),
#                    then every line of the gtests file: an executable under
#                    build/tests with its arguments (a --gtest_filter that
#                    picks its RDMA instances). A GoogleTest check fails when
#                    the executable fails, when no test ran, or when a test
#                    skipped for want of a device ("no RDMA device", "needs
#                    RXE_"): here the device must exist. Other skips (a test
#                    that does not apply to a backend) are counted in the
#                    PASS line.
#   job<L>           every command line L of the jobs file (multi-process jobs
#                    through tools/rcoll-run --transport rdma), run from /work
# Prints "PASS name" or "FAIL name (reason)" per check, "# ..." for notes, and
# ends with "N passed, N failed". Exits 1 if any check failed or none ran.
#
# usage: guest-suite.sh [--allow-empty] [--no-perftest] [--build DIR]
#                       [--gtests FILE] [--jobs FILE] [--out DIR] [-v]
#   --allow-empty  finding no rdma_*_test executable is a note, not a failure
#                  (for developing the suite itself; CI never passes it)
#   --no-perftest  skip the perftest checks
#   --build DIR    build tree (default /work/build)
#   --gtests FILE  GoogleTest list (default: gtests.txt beside this script)
#   --jobs FILE    job list (default: jobs.txt beside this script)
#   --out DIR      where logs, perftest outputs and gtest XML go (default /out,
#                  the host directory shared by rxe-vm.sh -o)
#   -v             stream every check's output instead of its tail on failure
# Environment: RCOLL_RDMA_TEST_TIMEOUT (s per test executable, default 600),
#   RCOLL_RDMA_JOB_TIMEOUT (s per job, default 300),
#   RCOLL_PERFTEST_LAT_ARGS (default "-n 1000"),
#   RCOLL_PERFTEST_BW_ARGS (default "-s 65536 -n 2000").
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=/work/build GTESTS=$HERE/gtests.txt JOBS=$HERE/jobs.txt OUT=/out
ALLOW_EMPTY=0 PERFTEST=1 VERBOSE=0
TEST_TIMEOUT=${RCOLL_RDMA_TEST_TIMEOUT:-600}
JOB_TIMEOUT=${RCOLL_RDMA_JOB_TIMEOUT:-300}
PERFTEST_TIMEOUT=120
PERFTEST_PORT=18515
PASSED=0 FAILED=0 TIMES=""

while [ $# -gt 0 ]; do
	case $1 in
	--allow-empty) ALLOW_EMPTY=1; shift ;;
	--no-perftest) PERFTEST=0; shift ;;
	--build) BUILD=$2; shift 2 ;;
	--gtests) GTESTS=$2; shift 2 ;;
	--jobs) JOBS=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	-v) VERBOSE=1; shift ;;
	*) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
LOGS=$OUT/logs
# this suite owns these three folders of OUT: no results of an earlier run stay
rm -rf "$LOGS" "$OUT/perftest" "$OUT/gtest"
mkdir -p "$LOGS" "$OUT/perftest" "$OUT/gtest" || exit 1

note() { echo "# $*"; }
pass() { echo "PASS $1"; PASSED=$((PASSED + 1)); }
fail() { echo "FAIL $1 ($2)"; FAILED=$((FAILED + 1)); }

# why RC: a reason for a failed command's exit status
why() {
	case $1 in
	124) echo "timed out" ;;
	137) echo "killed (SIGKILL), after a timeout or out of memory" ;;
	12[89] | 1[3-9][0-9] | 2[0-5][0-9]) echo "killed by signal $(($1 - 128)) ($(kill -l $(($1 - 128)) 2>/dev/null))" ;;
	*) echo "exit status $1" ;;
	esac
}

# run_logged NAME TIMEOUT CMD...: runs CMD with its output in $LOGS/NAME.log
# (streamed with -v); returns its exit status, 124 on timeout.
run_logged() {
	local name=$1 limit=$2 t0 rc
	shift 2
	t0=$EPOCHREALTIME
	if [ $VERBOSE = 1 ]; then
		timeout -k 10 "$limit" "$@" 2>&1 | tee "$LOGS/$name.log"
		rc=${PIPESTATUS[0]}
	else
		timeout -k 10 "$limit" "$@" >"$LOGS/$name.log" 2>&1
		rc=$?
	fi
	TIMES="$TIMES $name=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1fs", b - a }')"
	return $rc
}
show_tail() { # NAME: the end of a failed check's log
	[ $VERBOSE = 1 ] && return
	tail -n 30 "$LOGS/$1.log" | sed 's/^/    | /'
}

# ---------------------------------------------------------------- (a) device
check_device() { # DEV
	local name=device_$1
	if run_logged "$name" 30 ibv_devinfo -d "$1" && grep -q 'state:[[:space:]]*PORT_ACTIVE' "$LOGS/$name.log"; then
		pass "$name"
	else
		show_tail "$name"
		fail "$name" "ibv_devinfo -d $1 shows no PORT_ACTIVE port"
	fi
}

# ---------------------------------------------------------------- (b) perftest
wait_port() { # PORT: until a TCP listener is on PORT (30 s)
	for _ in $(seq 300); do
		ss -Hltn "sport = :$1" | grep -q . && return 0
		sleep 0.1
	done
	return 1
}
# perftest_pair TOOL ARGS...: server and client of TOOL in this guest; the
# out-of-band exchange goes over TCP on 127.0.0.1, the RDMA traffic over rxe.
perftest_pair() {
	local tool=$1 dir=$OUT/perftest spid src crc
	shift
	local common=(-d "$RXE_DEV" -x "$RXE_GID_IDX" -F -p "$PERFTEST_PORT" "$@")
	echo "server: $tool ${common[*]}"
	timeout -k 5 "$PERFTEST_TIMEOUT" "$tool" "${common[@]}" >"$dir/$tool.server.txt" 2>&1 &
	spid=$!
	if ! wait_port "$PERFTEST_PORT"; then
		echo "server did not listen on $PERFTEST_PORT"
		kill $spid 2>/dev/null
		cat "$dir/$tool.server.txt"
		return 1
	fi
	echo "client: $tool ${common[*]} 127.0.0.1"
	timeout -k 5 "$PERFTEST_TIMEOUT" "$tool" "${common[@]}" 127.0.0.1 >"$dir/$tool.client.txt" 2>&1
	crc=$?
	wait $spid
	src=$?
	cat "$dir/$tool.client.txt"
	echo "--- server side (rc $src):"
	cat "$dir/$tool.server.txt"
	[ $crc = 0 ] && [ $src = 0 ] || return $((crc != 0 ? crc : src))
}
# results_row FILE: perftest's result row (first line of numbers after the
# "#bytes" header), e.g. "2 1000 10.10 4012.3 11.22 63.01 ..."
results_row() {
	awk '/#bytes/ { hdr = 1; next } hdr && $1 ~ /^[0-9]+$/ && NF >= 5 { print; exit }' "$1"
}
check_perftest() { # TOOL KEYS ARGS...: KEYS name the result row's columns
	local tool=$1 keys=$2 row rc
	shift 2
	# timeout(1) runs programs, not functions: go through an exported function
	run_logged "$tool" $((2 * PERFTEST_TIMEOUT)) bash -c 'perftest_pair "$@"' _ "$tool" "$@"
	rc=$?
	row=$(results_row "$OUT/perftest/$tool.client.txt")
	if [ $rc != 0 ]; then
		show_tail "$tool"
		fail "$tool" "$(why $rc)"
	elif [ -z "$row" ]; then
		show_tail "$tool"
		fail "$tool" "no result row in the client output"
	else
		# key=value lines for later ratio computations (rcoll vs perftest)
		echo "$row" | awk -v tool="$tool" -v keys="$keys" \
			'{ n = split(keys, k, " "); for (i = 1; i <= n && i <= NF; i++) print tool "." k[i] "=" $i }' \
			>>"$OUT/perftest/summary.txt"
		pass "$tool"
	fi
}
run_perftest() {
	export -f perftest_pair wait_port
	export RXE_DEV RXE_GID_IDX OUT PERFTEST_TIMEOUT PERFTEST_PORT
	: >"$OUT/perftest/summary.txt"
	# shellcheck disable=SC2086 # the argument strings are meant to split
	check_perftest ib_send_lat "bytes iterations t_min_us t_max_us t_typical_us t_avg_us t_stdev_us p99_us p999_us" \
		${RCOLL_PERFTEST_LAT_ARGS:--n 1000}
	# shellcheck disable=SC2086
	check_perftest ib_write_bw "bytes iterations bw_peak_gbps bw_avg_gbps msg_rate_mpps" \
		--report_gbits ${RCOLL_PERFTEST_BW_ARGS:--s 65536 -n 2000}
}

# ---------------------------------------------------------------- (c) gtests
# failed_tests NAME: "A.b, C.d" from a GoogleTest log
failed_tests() {
	sed -n 's/^\[  FAILED  \] \([^ ,]*\).*/\1/p' "$LOGS/$1.log" | grep -v '^[0-9]*$' | sort -u |
		head -5 | paste -sd, - | sed 's/,/, /g'
}
# gtest_verdict NAME: reads the XML of check NAME; sets COUNTS ("N tests"
# or "N tests, K skipped") and VERDICT: empty when tests ran and none
# skipped for want of a device, else why the check fails.
gtest_verdict() {
	local xml=$OUT/gtest/$1.xml tests skipped missing
	COUNTS="" VERDICT=""
	if [ ! -f "$xml" ]; then
		VERDICT="no XML output"
		return
	fi
	tests=$(sed -n 's/.*<testsuites tests="\([0-9]*\)".*/\1/p' "$xml" | head -1)
	skipped=$(grep -c '<skipped message=' "$xml")
	missing=$(grep '<skipped message=' "$xml" | grep -c 'no RDMA device\|needs RXE_')
	COUNTS="${tests:-0} tests"
	[ "$skipped" = 0 ] || COUNTS="$COUNTS, $skipped skipped"
	if [ "${tests:-0}" = 0 ]; then
		VERDICT="no test ran (a filter that matches nothing?)"
	elif [ "$missing" != 0 ]; then
		VERDICT="$missing tests skipped for want of a device: $(grep -o 'no RDMA device[^"]*\|needs RXE_[^"]*' "$xml" | head -1)"
	fi
}
# run_gtest NAME EXE ARGS...
run_gtest() {
	local name=$1 exe=$2 rc failed
	shift 2
	run_logged "$name" "$TEST_TIMEOUT" "$exe" --gtest_brief=1 \
		--gtest_output="xml:$OUT/gtest/$name.xml" "$@"
	rc=$?
	gtest_verdict "$name"
	if [ $rc != 0 ]; then
		show_tail "$name"
		failed=$(failed_tests "$name")
		fail "$name" "$(why $rc)${failed:+; failed: $failed}"
	elif [ -n "$VERDICT" ]; then
		show_tail "$name"
		fail "$name" "$VERDICT"
	else
		pass "$name ($COUNTS)"
	fi
}
# The lines of the gtests file: "EXECUTABLE ARGS..." (blank, '#' ignored).
run_listed_gtests() {
	local line words exe name
	if [ ! -e "$GTESTS" ]; then
		fail gtests "no gtests file $GTESTS"
		return
	fi
	while IFS= read -r line || [ -n "$line" ]; do
		line=${line#"${line%%[![:space:]]*}"}
		case $line in '' | '#'*) continue ;; esac
		read -r -a words <<<"$line"
		name=${words[0]}
		exe=$(find -H "$BUILD/tests" -name CMakeFiles -prune -o -type f -name "$name" -perm -u+x -print | head -1)
		if [ -z "$exe" ]; then
			fail "$name" "no executable $name under $BUILD/tests (built? staged by rxe-vm.sh's build globs?)"
			continue
		fi
		run_gtest "$name" "$exe" "${words[@]:1}"
	done <"$GTESTS"
}
run_gtests() {
	local exes=() exe
	if [ -d "$BUILD/tests" ]; then
		mapfile -t exes < <(find -H "$BUILD/tests" -name CMakeFiles -prune -o \
			-type f -name 'rdma_*_test' -perm -u+x -print | sort)
	fi
	if [ ${#exes[@]} -eq 0 ]; then
		if [ $ALLOW_EMPTY = 1 ]; then
			note "no rdma_*_test executable under $BUILD/tests (allowed by --allow-empty)"
		else
			fail rdma_tests "no rdma_*_test executable under $BUILD/tests; build the tests first"
		fi
	fi
	for exe in ${exes[@]+"${exes[@]}"}; do run_gtest "$(basename "$exe")" "$exe"; done
	run_listed_gtests
}

# ---------------------------------------------------------------- (d) jobs
run_jobs() {
	local lineno=0 line name rc
	if [ ! -e "$JOBS" ]; then
		fail jobs "no jobs file $JOBS"
		return
	fi
	while IFS= read -r line || [ -n "$line" ]; do
		lineno=$((lineno + 1))
		line=${line#"${line%%[![:space:]]*}"} # leading blanks
		case $line in '' | '#'*) continue ;; esac
		name=job$lineno
		note "$name: $line"
		run_logged "$name" "$JOB_TIMEOUT" bash -c "cd /work && $line" </dev/null
		rc=$?
		if [ $rc = 0 ]; then
			pass "$name"
		else
			show_tail "$name"
			fail "$name" "$(why $rc): $line"
		fi
	done <"$JOBS"
}

# ---------------------------------------------------------------- main
note "rdma suite: kernel $(uname -r), $(nproc) cpus, build $BUILD, out $OUT"
if [ "${RCOLL_IN_RXE_VM:-}" != 1 ] || [ -z "${RXE_DEV:-}" ] || [ -z "${RXE_GID_IDX:-}" ]; then
	fail environment "not inside an rxe-vm guest with an rxe device (RCOLL_IN_RXE_VM, RXE_DEV, RXE_GID_IDX)"
else
	note "rxe: $RXE_DEV ip ${RXE_IP:-?} gid_idx $RXE_GID_IDX${RXE_DEV2:+; $RXE_DEV2 ip ${RXE_IP2:-?} gid_idx ${RXE_GID_IDX2:-?}}"
	check_device "$RXE_DEV"
	if [ -n "${RXE_DEV2:-}" ]; then check_device "$RXE_DEV2"; fi
	if [ $PERFTEST = 1 ]; then run_perftest; fi
	run_gtests
	run_jobs
fi
note "times:$TIMES"
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ] && [ "$PASSED" -gt 0 ]
