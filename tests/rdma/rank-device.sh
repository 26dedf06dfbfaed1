#!/bin/bash
# rank-device.sh PROGRAM [ARG...] - runs PROGRAM (a rank started by
# tools/rcoll-run) on the rxe device of its rank's parity: RCOLL_IB_DEV=$RXE_DEV
# (rxe0) for an even RCOLL_RANK, $RXE_DEV2 (rxe1) for an odd one. With
# rxe-vm.sh -n veth the two devices sit on the two ends of a veth pair, so
# every message between neighbouring ranks crosses it.
set -eu
: "${RCOLL_RANK:?rank-device.sh: RCOLL_RANK not set (run it through tools/rcoll-run)}"
: "${RXE_DEV2:?rank-device.sh: needs two rxe devices (rxe-vm.sh -n veth)}"
if [ $((RCOLL_RANK % 2)) = 0 ]; then
	export RCOLL_IB_DEV=$RXE_DEV
else
	export RCOLL_IB_DEV=$RXE_DEV2
fi
exec "$@"
