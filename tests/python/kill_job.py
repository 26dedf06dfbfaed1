"""A rank killed in the middle of a collective: run as a 3-rank job
(tests/python/CMakeLists.txt: rank 1 SIGKILLs itself while the others
are in an allreduce). Every survivor must raise rcoll.IoError (also an
rcoll.Error) within seconds, not at its 60 s timeout, and prints
"survivor <rank>: IoError after <s> s: <text>"; anything else exits 1.
"""

import os
import signal
import sys
import time

import numpy as np

import rcoll


def main():
    comm = rcoll.Comm.from_env()
    if comm.rank != 1:
        # rcoll-run stops the other ranks once rank 1 dies: the survivors
        # ignore its SIGTERM so that they report first (its SIGKILL follows
        # after --kill-grace).
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    x = np.ones(1 << 20, np.float32)
    comm.allreduce(x)  # every connection made
    if comm.rank == 1:
        time.sleep(0.3)  # the others are inside the next allreduce by now
        os.kill(os.getpid(), signal.SIGKILL)
    start = time.monotonic()
    try:
        comm.allreduce(x, timeout=60)
    except rcoll.IoError as e:
        took = time.monotonic() - start
        print(f"survivor {comm.rank}: IoError after {took:.1f} s: {e}")
        sys.stdout.flush()
        return 0 if took < 30 else 1
    except rcoll.Error as e:
        print(f"survivor {comm.rank}: {type(e).__name__}, expected IoError: {e}")
        return 1
    print(f"survivor {comm.rank}: the allreduce completed without rank 1")
    return 1


if __name__ == "__main__":
    sys.exit(main())
