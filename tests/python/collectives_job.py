"""Every collective of rcoll's Python package against a NumPy reference.

Run as a job: rcoll-run -n N -- python3 tests/python/collectives_job.py.
Each rank checks what it receives, for several element types and every
reduction operator, lengths 0, 1, odd and several segments long, in place
and out of place, blocking and non-blocking; it prints every mismatch and
exits 1 if there was one.
"""

import sys

import numpy as np

import rcoll

FAILURES = []
CHECKS = [0]

# int8 sums of a few ranks stay in range; float16 keeps these small integers exact.
DTYPES = [np.float32, np.float64, np.int32, np.int64, np.uint8, np.int8, np.uint32, np.uint64, np.float16]
OPS = {rcoll.SUM: np.add, rcoll.PROD: np.multiply, rcoll.MIN: np.minimum, rcoll.MAX: np.maximum}
LENGTHS = [0, 1, 7, 300001]  # 300001 float32: more than one 512 KiB segment


def check(what, got, expected):
    CHECKS[0] += 1
    if got.shape != expected.shape or not np.array_equal(got, expected):
        bad = np.flatnonzero(got.reshape(-1) != expected.reshape(-1))[:3] if got.shape == expected.shape else []
        FAILURES.append(f"{what}: differs at {list(bad)} (got {got.reshape(-1)[:4]}, expected {expected.reshape(-1)[:4]})")


def data(rank, n, dtype, salt=0, op=None):
    """Rank `rank`'s input: small values, distinct per rank and position
    (1 or 2 for products, so that no type overflows or rounds)."""
    if op == rcoll.PROD:
        return ((np.arange(n) + rank + salt) % 2 + 1).astype(dtype)
    return ((np.arange(n) * 3 + rank * 5 + salt) % 7 + 1).astype(dtype)


def reduced(size, n, dtype, op):
    out = data(0, n, dtype, op=op)
    for r in range(1, size):
        out = OPS[op](out, data(r, n, dtype, op=op)).astype(dtype)
    return out


def test_allreduce(comm):
    for dtype in DTYPES:
        for op in OPS:
            n = 300001 if dtype == np.float32 else 1001
            expected = reduced(comm.size, n, dtype, op)
            out = np.empty(n, dtype)
            comm.allreduce(data(comm.rank, n, dtype, op=op), out, op=op)
            check(f"allreduce {np.dtype(dtype)} {op}", out, expected)
            buf = data(comm.rank, n, dtype, op=op)
            comm.iallreduce(buf, op=op).wait()
            check(f"iallreduce in place {np.dtype(dtype)} {op}", buf, expected)
    for n in (0, 1, 7):
        buf = data(comm.rank, n, np.float64)
        comm.allreduce(buf)
        check(f"allreduce n={n}", buf, reduced(comm.size, n, np.float64, rcoll.SUM))


def test_bcast_and_reduce(comm):
    for n in LENGTHS:
        for root in range(comm.size):
            buf = data(comm.rank, n, np.float64)
            comm.bcast(buf, root=root)
            check(f"bcast n={n} root={root}", buf, data(root, n, np.float64))
            expected = reduced(comm.size, n, np.int64, rcoll.SUM)
            out = np.zeros(n, np.int64)
            comm.reduce(data(comm.rank, n, np.int64), out, root=root)
            if comm.rank == root:
                check(f"reduce n={n} root={root}", out, expected)
            buf = data(comm.rank, n, np.int64)
            comm.ireduce(buf, op=rcoll.SUM, root=root).wait()  # in place at the root
            if comm.rank == root:
                check(f"ireduce in place n={n} root={root}", buf, expected)


def test_allgather_family(comm):
    size, rank = comm.size, comm.rank
    for n in LENGTHS:
        expected = np.concatenate([data(r, n, np.int32) for r in range(size)])
        out = np.empty(size * n, np.int32)
        comm.allgather(data(rank, n, np.int32), out)
        check(f"allgather n={n}", out, expected)
        inplace = np.zeros(size * n, np.int32)
        inplace[rank * n:(rank + 1) * n] = data(rank, n, np.int32)
        comm.iallgather(rcoll.IN_PLACE, inplace).wait()
        check(f"iallgather in place n={n}", inplace, expected)
    counts = [(r * 3) % 5 for r in range(size)]  # some ranks send nothing
    displs = [sum(c + 2 for c in counts[r + 1:]) for r in range(size)]  # gapped, in reverse rank order
    out = np.full(sum(c + 2 for c in counts), -1, np.int32)
    comm.allgatherv(data(rank, counts[rank], np.int32), out, counts, displs)
    expected = np.full_like(out, -1)
    for r in range(size):
        expected[displs[r]:displs[r] + counts[r]] = data(r, counts[r], np.int32)
    check("allgatherv gapped", out, expected)


def test_reduce_scatter_and_alltoall(comm):
    size, rank = comm.size, comm.rank
    for n in LENGTHS:
        full = reduced(size, size * n, np.float32, rcoll.MAX)
        out = np.empty(n, np.float32)
        comm.reduce_scatter(data(rank, size * n, np.float32), out, op=rcoll.MAX)
        check(f"reduce_scatter n={n}", out, full[rank * n:(rank + 1) * n])
        inplace = data(rank, size * n, np.float32)
        comm.ireduce_scatter(rcoll.IN_PLACE, inplace, op=rcoll.MAX).wait()
        check(f"ireduce_scatter in place n={n}", inplace[:n], full[rank * n:(rank + 1) * n])
        send = np.concatenate([data(rank * 10 + q, n, np.int64) for q in range(size)])
        got = np.empty_like(send)
        comm.alltoall(send, got)
        check(f"alltoall n={n}", got, np.concatenate([data(q * 10 + rank, n, np.int64) for q in range(size)]))
    counts = [r + 1 for r in range(size)]
    out = np.empty(counts[rank], np.int64)
    comm.reduce_scatter_v(data(rank, sum(counts), np.int64), out, counts)
    full = reduced(size, sum(counts), np.int64, rcoll.SUM)
    start = sum(counts[:rank])
    check("reduce_scatter_v", out, full[start:start + counts[rank]])
    send_counts = [(rank + q) % 3 for q in range(size)]
    recv_counts = [(q + rank) % 3 for q in range(size)]
    send = np.concatenate([data(rank * 10 + q, send_counts[q], np.int32) for q in range(size)])
    got = np.empty(sum(recv_counts), np.int32)
    comm.ialltoallv(send, send_counts, None, got, recv_counts).wait()
    check("ialltoallv", got, np.concatenate([data(q * 10 + rank, recv_counts[q], np.int32) for q in range(size)]))


def test_gather_scatter(comm):
    size, rank = comm.size, comm.rank
    for n in LENGTHS:
        for root in range(size):
            out = np.empty(size * n, np.uint8) if rank == root else None
            comm.gather(data(rank, n, np.uint8), out, root=root)
            if rank == root:
                check(f"gather n={n} root={root}", out, np.concatenate([data(r, n, np.uint8) for r in range(size)]))
            whole = np.concatenate([data(r + 100, n, np.uint8) for r in range(size)]) if rank == root else None
            mine = np.empty(n, np.uint8)
            comm.iscatter(whole, mine, root=root).wait()
            check(f"iscatter n={n} root={root}", mine, data(rank + 100, n, np.uint8))
    counts = [r % 3 for r in range(size)]
    root = size - 1
    out = np.empty(sum(counts), np.float64) if rank == root else None
    comm.gatherv(data(rank, counts[rank], np.float64), out, counts if rank == root else None, root=root)
    if rank == root:
        check("gatherv", out, np.concatenate([data(r, counts[r], np.float64) for r in range(size)]))
    whole = np.concatenate([data(r + 50, counts[r], np.float64) for r in range(size)]) if rank == 0 else None
    mine = np.empty(counts[rank], np.float64)
    comm.scatterv(whole, counts if rank == 0 else None, None, mine, root=0)
    check("scatterv", mine, data(rank + 50, counts[rank], np.float64))


def test_point_to_point_and_buffers(comm):
    size, rank = comm.size, comm.rank
    if size > 1:  # a rank does not send to itself
        nxt, prev = (rank + 1) % size, (rank - 1) % size
        out = data(rank, 70001, np.float32)
        got = np.empty(70001 + 5, np.float32)
        recv = comm.irecv(got, prev, tag=4)
        comm.send(out, nxt, tag=4)
        recv.wait()
        if recv.count != 70001:
            FAILURES.append(f"irecv count {recv.count}, expected 70001")
        check("send/irecv", got[:70001], data(prev, 70001, np.float32))
    # A bytearray and a memoryview are buffers too.
    raw = bytearray([rank + 1] * 16)
    comm.allreduce(memoryview(raw))
    check("allreduce on a bytearray", np.frombuffer(raw, np.uint8), np.full(16, size * (size + 1) // 2, np.uint8))
    # Two-dimensional arrays are taken whole.
    grid = np.full((3, 4), rank, np.int32)
    comm.allreduce(grid)
    check("allreduce on a 3x4 array", grid, np.full((3, 4), size * (size - 1) // 2, np.int32))


def test_split(comm):
    half = comm.split(comm.rank % 2, comm.rank)
    copy = half.dup()
    mine = np.array([comm.rank], np.int64)
    requests = [half.iallreduce(mine.copy()), copy.ibarrier()]
    total = np.array([comm.rank], np.int64)
    comm.allreduce(total)
    rcoll.wait_all(requests)
    check("allreduce beside a split", total, np.array([comm.size * (comm.size - 1) // 2], np.int64))
    none = comm.split(-1)
    if none.valid:
        FAILURES.append("split with a negative color gave a valid communicator")
    if half.size != (comm.size + 1 - comm.rank % 2) // 2 or half.rank != comm.rank // 2:
        FAILURES.append(f"split: rank {half.rank} of {half.size}")


def main():
    comm = rcoll.Comm.from_env()
    for test in (test_allreduce, test_bcast_and_reduce, test_allgather_family, test_reduce_scatter_and_alltoall,
                 test_gather_scatter, test_point_to_point_and_buffers, test_split):
        test(comm)
    comm.barrier()
    for failure in FAILURES:
        print(f"rank {comm.rank}: {failure}", file=sys.stderr)
    print(f"rank {comm.rank} of {comm.size}: {CHECKS[0]} checks, {len(FAILURES)} mismatches")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
