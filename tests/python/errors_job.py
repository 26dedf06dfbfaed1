"""What rcoll's Python package raises, run as a 2-rank job
(rcoll-run -n 2 -- python3 tests/python/errors_job.py): arguments Python
can refuse (TypeError, ValueError) before anything is sent, rcoll's own
errors as the matching classes with rcoll's text and facts, and the GIL
released while a call waits. Exits 1 if anything was not as expected.
"""

import sys
import threading
import time

import numpy as np

import rcoll

FAILURES = []


def expect(what, cls, call, *, text=None):
    """Runs call(); it must raise `cls` (whose message contains `text`)."""
    try:
        call()
    except cls as e:
        if text is not None and text not in str(e):
            FAILURES.append(f"{what}: {cls.__name__} without '{text}': {e}")
        return e
    except Exception as e:  # noqa: BLE001 (any other class is the failure reported)
        FAILURES.append(f"{what}: raised {type(e).__name__} ({e}), expected {cls.__name__}")
        return None
    FAILURES.append(f"{what}: raised nothing, expected {cls.__name__}")
    return None


def main():
    comm = rcoll.Comm.from_env()
    rank = comm.rank
    x = np.ones(8, np.float32)
    # Refused by the binding, on each rank alone: nothing is sent.
    expect("int16 elements", TypeError, lambda: comm.allreduce(np.ones(4, np.int16)),
           text=f"rank {rank}: allreduce: send buffer: element format 'h' (2 bytes) has no rcoll data type")
    expect("a list", TypeError, lambda: comm.allreduce([1.0, 2.0]), text="buffer protocol")
    expect("a strided view", ValueError, lambda: comm.allreduce(np.ones(8, np.float32)[::2]), text="C-contiguous")
    read_only = np.frombuffer(bytes(32), np.float32)
    expect("a read-only recv", ValueError, lambda: comm.allreduce(x, read_only), text="read-only")
    expect("recv of another length", ValueError, lambda: comm.allreduce(x, np.ones(9, np.float32)),
           text=f"rank {rank}: allreduce: recv must have send's element type and length")
    expect("a bad timeout", ValueError, lambda: comm.allreduce(x, timeout=-1), text="timeout")
    # Refused by rcoll (InvalidArgument, also a ValueError), on every rank.
    e = expect("a root out of range", rcoll.InvalidArgument, lambda: comm.bcast(x, root=comm.size), text="root")
    if e is not None and not isinstance(e, ValueError):
        FAILURES.append("rcoll.InvalidArgument is not a ValueError")
    # The communicator is still usable.
    comm.allreduce(x)
    if not np.array_equal(x, np.full(8, comm.size, np.float32)):
        FAILURES.append(f"allreduce after the refusals: {x}")
    # A message longer than its receive: MessageError with its sizes; still usable.
    if rank == 0:
        comm.send(np.arange(10, dtype=np.int32), 1, tag=3)
    else:
        e = expect("a message too long", rcoll.MessageError, lambda: comm.recv(np.empty(4, np.int32), 0, tag=3))
        if e is not None and (e.peer != 0 or e.bytes != 40 or e.capacity != 16):
            FAILURES.append(f"MessageError facts: peer {e.peer}, bytes {e.bytes}, capacity {e.capacity}")
    comm.barrier()
    # The GIL is released while a call waits: a Python thread runs meanwhile.
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.005)

    thread = threading.Thread(target=ticker)
    thread.start()
    if rank == 1:
        time.sleep(0.5)
    before = len(ticks)
    comm.barrier()
    during = len(ticks) - before
    stop.set()
    thread.join()
    if rank == 0 and during < 20:
        FAILURES.append(f"only {during} ticks of another thread during a 0.5 s barrier: the GIL was held")
    # A timeout: rank 1 never enters; rank 0's error names it and is also the builtin TimeoutError.
    if rank == 0:
        e = expect("a collective rank 1 never enters", rcoll.TimeoutError, lambda: comm.allreduce(x, timeout=0.5))
        if e is not None and (not isinstance(e, TimeoutError) or 1 not in list(e.waiting_for) + list(e.not_joined)):
            FAILURES.append(f"TimeoutError facts: waiting_for {e.waiting_for}, not_joined {e.not_joined}")
        expect("a call after the timeout", rcoll.Error, lambda: comm.barrier(), text="unusable")
    else:
        time.sleep(1.5)  # alive past rank 0's timeout: a rank that left would be an IoError there
    for failure in FAILURES:
        print(f"rank {rank}: {failure}", file=sys.stderr)
    print(f"rank {rank}: {len(FAILURES)} unexpected")
    sys.stdout.flush()
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
