"""Every call of the rcoll torch.distributed backend against a serial
reference computed from every rank's (seeded) inputs, and against gloo's
result for the same call where gloo supports it. Run under torchrun."""

import os
import sys

import torch
import torch.distributed as dist

import rcoll.torch  # noqa: F401 (registers the backend)

DTYPES = [torch.int8, torch.uint8, torch.int32, torch.int64, torch.float16, torch.bfloat16, torch.float32,
          torch.float64, torch.bool]
OPS = {dist.ReduceOp.SUM: "sum", dist.ReduceOp.PRODUCT: "prod", dist.ReduceOp.MIN: "min", dist.ReduceOp.MAX: "max"}
SIZES = [0, 1, 7, 3000]  # 3000 x 8 B spans several segments of the TCP eager limit


def data(rank, n, dtype, salt):
    """Rank `rank`'s input: small integers, so that every sum and product is exact in every dtype."""
    g = torch.Generator().manual_seed(1000 * rank + salt)
    values = torch.randint(0, 4, (n,), generator=g)
    return values.bool() if dtype == torch.bool else values.to(dtype)


def reference(inputs, op, dtype):
    stack = torch.stack([t.to(torch.int64) for t in inputs])
    if op == "sum":
        out = stack.sum(0)
    elif op == "prod":
        out = stack.prod(0)
    elif op == "min":
        out = stack.min(0).values
    else:
        out = stack.max(0).values
    return out.bool() if dtype == torch.bool else out.to(dtype)


def same(a, b, what):
    if not torch.equal(a, b):
        raise AssertionError(f"rank {dist.get_rank()}: {what}: {a.tolist()[:8]} != {b.tolist()[:8]}")


def gloo_agrees(gloo, call, out_rcoll, what):
    """The same call on gloo gives the same tensor (where gloo takes it)."""
    try:
        out = call(gloo)
    except RuntimeError:
        return  # gloo lacks this dtype or op
    same(out_rcoll, out, what + " (vs gloo)")


def check_allreduce(world, gloo, rank, size):
    for dtype in DTYPES:
        for op, name in OPS.items():
            for n in SIZES:
                salt = n + 17 * list(OPS).index(op)
                expected = reference([data(r, n, dtype, salt) for r in range(size)], name, dtype)
                t = data(rank, n, dtype, salt)
                world.allreduce([t], _opts(op)).wait()
                same(t, expected, f"allreduce {dtype} {name} n={n}")

                def on(group, dtype=dtype, n=n, salt=salt, op=op):
                    u = data(rank, n, dtype, salt)
                    dist.all_reduce(u, op=op, group=group)
                    return u
                gloo_agrees(gloo, on, t, f"allreduce {dtype} {name} n={n}")


def _opts(op):
    o = dist.AllreduceOptions()
    o.reduceOp = op
    return o


def check_data_movement(world, rank, size):
    for dtype in DTYPES + [torch.int16, torch.complex64]:
        for n in SIZES:
            mine = data(rank, n, torch.int64, n).to(dtype) if dtype != torch.bool else data(rank, n, dtype, n)
            every = [data(r, n, torch.int64, n).to(dtype) if dtype != torch.bool else data(r, n, dtype, n)
                     for r in range(size)]
            # broadcast from the last rank
            t = mine.clone()
            dist.broadcast(t, src=size - 1, group=world)
            same(t, every[size - 1], f"broadcast {dtype} n={n}")
            # all_gather and _all_gather_base
            outs = [torch.empty_like(mine) for _ in range(size)]
            dist.all_gather(outs, mine, group=world)
            for r in range(size):
                same(outs[r], every[r], f"all_gather {dtype} n={n} block {r}")
            flat = torch.empty(size * n, dtype=dtype)
            dist.all_gather_into_tensor(flat, mine, group=world) if hasattr(dist, "all_gather_into_tensor") \
                else dist._all_gather_base(flat, mine, group=world)
            same(flat, torch.cat(every), f"_allgather_base {dtype} n={n}")
            # gather and scatter at root 0
            gathered = [torch.empty_like(mine) for _ in range(size)] if rank == 0 else None
            dist.gather(mine, gathered, dst=0, group=world)
            if rank == 0:
                for r in range(size):
                    same(gathered[r], every[r], f"gather {dtype} n={n} block {r}")
            got = torch.empty_like(mine)
            dist.scatter(got, [e.clone() for e in every] if rank == 0 else None, src=0, group=world)
            same(got, every[rank], f"scatter {dtype} n={n}")
            # all_to_all: block j of rank i is every[i] + j
            if dtype not in (torch.bool, torch.complex64):
                ins = [(mine.to(torch.int64) + j).to(dtype) for j in range(size)]
                outs = [torch.empty_like(mine) for _ in range(size)]
                dist.all_to_all(outs, ins, group=world)
                for j in range(size):
                    same(outs[j], (every[j].to(torch.int64) + rank).to(dtype), f"all_to_all {dtype} n={n} from {j}")


def check_reductions_rooted(world, rank, size):
    for dtype in [torch.int32, torch.float32, torch.bfloat16, torch.bool]:
        for op, name in OPS.items():
            n = 7
            every = [data(r, n * size, dtype, 5) for r in range(size)]
            expected = reference(every, name, dtype)
            t = every[rank].clone()
            dist.reduce(t, dst=1 % size, op=op, group=world)
            if rank == 1 % size:
                same(t, expected, f"reduce {dtype} {name}")
            out = torch.empty(n, dtype=dtype)
            dist.reduce_scatter(out, list(every[rank].clone().chunk(size)), op=op, group=world)
            same(out, expected.chunk(size)[rank], f"reduce_scatter {dtype} {name}")
            out2 = torch.empty(n, dtype=dtype)
            base = getattr(dist, "reduce_scatter_tensor", None) or dist._reduce_scatter_base
            base(out2, every[rank].clone(), op=op, group=world)
            same(out2, expected.chunk(size)[rank], f"_reduce_scatter_base {dtype} {name}")


def check_alltoall_base_splits(world, rank, size):
    # rank r sends (j + 1) rows of 3 to rank j, each row filled with 100 r + j
    send_splits = [j + 1 for j in range(size)]
    rows = torch.cat([torch.full((j + 1, 3), 100 * rank + j, dtype=torch.float64) for j in range(size)])
    recv_splits = [rank + 1] * size
    out = torch.empty(sum(recv_splits), 3, dtype=torch.float64)
    dist.all_to_all_single(out, rows, recv_splits, send_splits, group=world)
    expected = torch.cat([torch.full((rank + 1, 3), 100 * i + rank, dtype=torch.float64) for i in range(size)])
    same(out, expected, "alltoall_base with split sizes")


def check_coalesced_and_noncontiguous(world, rank, size):
    a = torch.full((4,), float(rank + 1))
    b = torch.full((2, 3), float(rank + 2), dtype=torch.float32)
    world.allreduce_coalesced([a, b]).wait()
    same(a, torch.full((4,), float(sum(r + 1 for r in range(size)))), "allreduce_coalesced a")
    same(b, torch.full((2, 3), float(sum(r + 2 for r in range(size)))), "allreduce_coalesced b")
    m = torch.arange(12, dtype=torch.float32).reshape(3, 4) * (rank + 1)
    col = m[:, 1]  # not contiguous
    dist.all_reduce(col, group=world)
    same(m[:, 1], torch.tensor([1.0, 5.0, 9.0]) * sum(r + 1 for r in range(size)), "allreduce of a column")
    same(m[:, 0], torch.tensor([0.0, 4.0, 8.0]) * (rank + 1), "the other columns untouched")


def check_point_to_point_and_async(world, rank, size):
    if size > 1:
        peer = rank ^ 1
        if peer < size:
            t = torch.full((5,), float(rank))
            got = torch.empty(5)
            if rank % 2 == 0:
                dist.send(t, peer, group=world)
                dist.recv(got, peer, group=world)
            else:
                dist.recv(got, peer, group=world)
                dist.send(t, peer, group=world)
            same(got, torch.full((5,), float(peer)), "send/recv")
    works = [dist.all_reduce(torch.ones(1000) * (i + rank), group=world, async_op=True) for i in range(8)]
    futures = [w.get_future() for w in works]
    for i, fut in enumerate(futures):
        value = fut.wait()[0]
        same(value, torch.ones(1000) * (i * size + sum(range(size))), f"async allreduce {i} through its future")
    assert all(w.is_completed() for w in works)
    dist.barrier(group=world)


def check_new_group(world, rank, size):
    evens = list(range(0, size, 2))
    odds = list(range(1, size, 2))
    even_group = dist.new_group(evens, backend="rcoll")
    odd_group = dist.new_group(odds, backend="rcoll") if odds else None
    mine = even_group if rank % 2 == 0 else odd_group
    members = evens if rank % 2 == 0 else odds
    # the group's call and the world's in flight together
    t_group = torch.full((100,), float(rank))
    t_world = torch.full((100,), float(rank))
    w1 = dist.all_reduce(t_group, group=mine, async_op=True)
    w2 = dist.all_reduce(t_world, group=world, async_op=True)
    w1.wait()
    w2.wait()
    same(t_group, torch.full((100,), float(sum(members))), "new_group allreduce")
    same(t_world, torch.full((100,), float(sum(range(size)))), "world allreduce beside it")
    assert mine.size() == len(members) and mine.rank() == members.index(rank)


def check_errors(world, rank, size):
    try:
        dist.all_reduce(torch.ones(3, dtype=torch.int16), group=world)
    except RuntimeError as e:
        assert "cannot reduce" in str(e) and "Short" in str(e), str(e)
    else:
        raise AssertionError("int16 allreduce was accepted")
    try:
        dist.all_reduce(torch.ones(3), op=dist.ReduceOp.BAND, group=world)
    except RuntimeError as e:
        assert "not supported" in str(e), str(e)
    else:
        raise AssertionError("BAND was accepted")
    try:
        dist.all_reduce(torch.ones(3).to_sparse(), group=world)
    except RuntimeError as e:
        assert "sparse" in str(e), str(e)
    else:
        raise AssertionError("a sparse tensor was accepted")


def main():
    dist.init_process_group("rcoll")
    rank, size = dist.get_rank(), dist.get_world_size()
    world = dist.group.WORLD
    assert isinstance(world, rcoll.torch.ProcessGroupRcoll), type(world)
    gloo = dist.new_group(backend="gloo")
    check_allreduce(world, gloo, rank, size)
    check_data_movement(world, rank, size)
    check_reductions_rooted(world, rank, size)
    check_alltoall_base_splits(world, rank, size)
    check_coalesced_and_noncontiguous(world, rank, size)
    check_point_to_point_and_async(world, rank, size)
    check_new_group(world, rank, size)
    check_errors(world, rank, size)
    dist.barrier()
    print(f"rank {rank}: backend checks passed ({size} ranks, transport {world.transport})", flush=True)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
