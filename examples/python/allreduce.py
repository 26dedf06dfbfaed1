"""An rcoll job in Python: every rank contributes a vector, the ranks sum
them (blocking, then non-blocking beside some work), gather one number
each at rank 0, and check what they got.

    PYTHONPATH=build/python tools/rcoll-run -n 4 -- /usr/bin/python3 examples/python/allreduce.py
"""

import numpy as np

import rcoll


def main():
    comm = rcoll.Comm.from_env()
    n = comm.size
    grad = np.full(1 << 20, comm.rank + 1, np.float32)
    comm.allreduce(grad)  # in place: every element is 1 + 2 + ... + n
    assert (grad == n * (n + 1) / 2).all()

    mine = np.arange(8, dtype=np.int64) * comm.rank
    total = np.empty_like(mine)
    request = comm.iallreduce(mine, total, op=rcoll.MAX)
    work = sum(i * i for i in range(10000))  # the call moves on inside wait(), or all along with RCOLL_PROGRESS=thread
    request.wait()
    assert (total == np.arange(8) * (n - 1)).all()

    ranks = np.empty(n, np.int32) if comm.rank == 0 else None
    comm.gather(np.array([comm.rank], np.int32), ranks, root=0)
    if comm.rank == 0:
        print(f"{n} ranks over {comm.transport}: sums and maxima right, gathered {ranks.tolist()} ({work})")


if __name__ == "__main__":
    main()
