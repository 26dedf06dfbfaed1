#!/bin/bash
# kill-check.sh - a rank SIGKILLed in the middle of an allreduce over RDMA.
# Runs `rcoll_test_job kill VICTIM` through tools/rcoll-run --transport rdma
# and asserts:
#   - rcoll-run exits non-zero and says "rank VICTIM killed by signal SIGKILL";
#   - every survivor raised an IoError ("rank R, peer P: ..."), not a
#     timeout, within LIMIT seconds of the victim's death (the library's
#     per-operation timeout is TIMEOUT, much longer);
#   - the first survivor to report names the victim, and every later one
#     names the victim or a survivor that reported before it. (A rank whose
#     current step waits only on another survivor cannot know of the victim;
#     it learns of the failure when that survivor gives up and exits. With
#     2 ranks the one survivor must name the victim.)
# Run from the source root (build/, tools/); inside the rxe guest that is
# /work. RCOLL_* settings pass through to the ranks (RCOLL_IB_CM=rdmacm ...).
#
# usage: kill-check.sh [-n RANKS] [-k VICTIM] [-l LIMIT_S] [-t TIMEOUT_S]
#                      [-T TRANSPORT]
#   defaults: 3 ranks, victim 1, limit 10 s, timeout 120 s, transport rdma
#   (-T tcp tries the script itself on a machine without RDMA)
set -u

RANKS=3 VICTIM=1 LIMIT=10 TIMEOUT=120 TRANSPORT=rdma
while getopts n:k:l:t:T: opt; do
	case $opt in
	T) TRANSPORT=$OPTARG ;;
	n) RANKS=$OPTARG ;;
	k) VICTIM=$OPTARG ;;
	l) LIMIT=$OPTARG ;;
	t) TIMEOUT=$OPTARG ;;
	*) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done

JOB=build/tests/multiproc/rcoll_test_job
[ -x "$JOB" ] || { echo "kill-check: no $JOB (build the tests)"; exit 1; }
OUT=$(mktemp) ERR=$(mktemp)
trap 'rm -f "$OUT" "$ERR"' EXIT

# --kill-grace: the survivors ignore the launcher's SIGTERM so that they can
# report; SIGKILL would cut them off after this long.
echo "+ tools/rcoll-run -n $RANKS --transport $TRANSPORT --timeout $TIMEOUT --kill-grace $((TIMEOUT + 30)) -- $JOB kill $VICTIM"
tools/rcoll-run -n "$RANKS" --transport "$TRANSPORT" --timeout "$TIMEOUT" --kill-grace $((TIMEOUT + 30)) \
	--job-timeout $((2 * TIMEOUT + 60)) -- "$JOB" kill "$VICTIM" >"$OUT" 2>"$ERR"
RC=$?
cat "$OUT"
sed 's/^/stderr: /' "$ERR"
echo "rcoll-run exit status $RC"

FAILS=0
bad() { echo "FAILED: $*"; FAILS=$((FAILS + 1)); }

[ "$RC" != 0 ] || bad "rcoll-run exited 0"
grep -q "^rcoll-run: rank $VICTIM killed by signal SIGKILL" "$ERR" ||
	bad "rcoll-run did not say 'rank $VICTIM killed by signal SIGKILL'"
T0=$(sed -n "s/^\[$VICTIM\] rank $VICTIM raising SIGKILL at \([0-9.]*\)$/\1/p" "$OUT")
if [ -z "$T0" ]; then
	bad "rank $VICTIM never raised SIGKILL (did the job get that far?)"
	T0=0
fi
# "T1 R P" per survivor R that reported at T1 naming peer P, in report order
REPORTS=$(for ((r = 0; r < RANKS; r++)); do
	[ "$r" = "$VICTIM" ] && continue
	line=$(grep "^\[$r\] rank $r caught at " "$OUT" | head -1)
	if [ -z "$line" ]; then
		echo "none $r -"
		continue
	fi
	t1=$(echo "$line" | sed -n 's/^\[[0-9]*\] rank [0-9]* caught at \([0-9.]*\):.*/\1/p')
	peer=$(echo "$line" | sed -n "s/^\[[0-9]*\] rank [0-9]* caught at [0-9.]*: rank $r, peer \([0-9]*\): .*/\1/p")
	echo "$t1 $r ${peer:--}"
done | sort -n)
EARLIER=" $VICTIM "
while read -r t1 r peer; do
	if [ "$t1" = none ]; then
		bad "rank $r reported no error"
		continue
	fi
	elapsed=$(awk -v a="$T0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	echo "rank $r: IoError naming peer $peer, ${elapsed} s after rank $VICTIM died"
	if [ "$peer" = - ]; then
		bad "rank $r's error is not an IoError naming a peer"
	elif [[ $EARLIER != *" $peer "* ]]; then
		bad "rank $r names rank $peer, neither the victim nor a rank that failed before it"
	fi
	awk -v e="$elapsed" -v l="$LIMIT" 'BEGIN { exit !(e >= 0 && e < l) }' ||
		bad "rank $r took ${elapsed} s to notice (limit ${LIMIT} s)"
	EARLIER="$EARLIER$r "
done <<<"$REPORTS"
if [ $FAILS = 0 ]; then
	echo "kill-check: OK ($RANKS ranks, rank $VICTIM killed)"
else
	echo "kill-check: $FAILS problems"
fi
[ $FAILS = 0 ]
