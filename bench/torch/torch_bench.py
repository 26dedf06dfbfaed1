"""torch.distributed collectives and a DDP step on rcoll and on gloo, side
by side in one job (the same tensors, the backends taking turns round by
round, so that both see the same machine). Run under torchrun:

    PYTHONPATH=build/python /usr/bin/python3 -m torch.distributed.run --standalone \\
        --redirects 1 --tee 1 --nproc_per_node 2 bench/torch/torch_bench.py [--quick] [--csv FILE]

Rank 0 prints one row per (call, size): the median time of each backend,
its bus bandwidth (nccl-tests' convention: allreduce 2(n-1)/n x size / time,
allgather and reduce_scatter (n-1)/n x the total size / time) and
rcoll's speed-up (gloo's time / rcoll's). Sizes are the allreduce
tensor, the gathered tensor, the reduce_scatter input; a backend without
the call (gloo of torch 1.13 has no reduce_scatter) shows nan.
"""

import argparse
import statistics
import sys
import time

import torch
import torch.distributed as dist

import rcoll.torch  # noqa: F401 (registers the backend "rcoll")

MIB = 1 << 20
SIZES = [4 << 10, 64 << 10, 1 * MIB, 4 * MIB, 16 * MIB, 25 * MIB]
QUICK_SIZES = [4 << 10, 1 * MIB]


def run_call(name, group, tensors):
    # The list forms: gloo of torch 1.13 has no _allgather_base.
    if name == "allreduce":
        dist.all_reduce(tensors["x"], group=group)
    elif name == "allgather":
        dist.all_gather(tensors["parts"], tensors["part"], group=group)
    else:
        dist.reduce_scatter(tensors["part"], tensors["parts"], group=group)


def tensors_for(size, n):
    elements = size // 4
    return {"x": torch.ones(elements), "part": torch.ones(elements // n),
            "parts": [torch.ones(elements // n) for _ in range(n)]}


def supported(name, group, n):
    """False where the backend lacks the call (gloo of torch 1.13: reduce_scatter)."""
    try:
        run_call(name, group, tensors_for(4 * n, n))
        return True
    except RuntimeError:
        return False


def bus_factor(name, n):
    return 2 * (n - 1) / n if name == "allreduce" else (n - 1) / n


def time_calls(groups, name, size, n, rounds, per_round):
    """Median seconds per call for each backend, the backends alternating by round."""
    tensors = tensors_for(size, n)
    samples = {backend: [] for backend in groups}
    for backend, group in groups.items():  # warm-up: connections, registration, first-touch
        run_call(name, group, tensors)
    for _ in range(rounds):
        for backend, group in groups.items():
            dist.barrier(group=group)
            start = time.perf_counter()
            for _ in range(per_round):
                run_call(name, group, tensors)
            samples[backend].append((time.perf_counter() - start) / per_round)
    return {backend: statistics.median(s) for backend, s in samples.items()}


def ddp_step_times(groups, rounds, steps):
    """Median seconds per DDP training step (forward, backward with the
    bucket allreduces, optimizer) of a 4-layer MLP of about 8.4 M parameters
    (34 MB of gradients: DDP's 25 MiB bucket and one more) on a batch of 8."""
    results = {}
    models = {}
    for backend, group in groups.items():
        torch.manual_seed(0)
        net = torch.nn.Sequential(torch.nn.Linear(1024, 2048), torch.nn.ReLU(), torch.nn.Linear(2048, 2048),
                                  torch.nn.ReLU(), torch.nn.Linear(2048, 1024), torch.nn.ReLU(),
                                  torch.nn.Linear(1024, 10))
        models[backend] = torch.nn.parallel.DistributedDataParallel(net, process_group=group)
    x = torch.randn(8, 1024)
    y = torch.randint(0, 10, (8,))
    samples = {backend: [] for backend in groups}
    for r in range(rounds + 1):
        for backend, model in models.items():
            opt = torch.optim.SGD(model.parameters(), lr=0.01)
            dist.barrier(group=groups[backend])
            start = time.perf_counter()
            for _ in range(steps):
                opt.zero_grad()
                torch.nn.functional.cross_entropy(model(x), y).backward()
                opt.step()
            if r > 0:  # the first round warms up
                samples[backend].append((time.perf_counter() - start) / steps)
    for backend in groups:
        results[backend] = statistics.median(samples[backend])
    return results


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="two sizes, few rounds (a smoke test)")
    parser.add_argument("--csv", help="rank 0 writes the rows here too")
    args = parser.parse_args()
    dist.init_process_group("rcoll")
    rank, n = dist.get_rank(), dist.get_world_size()
    groups = {"rcoll": dist.group.WORLD, "gloo": dist.new_group(backend="gloo")}
    sizes = QUICK_SIZES if args.quick else SIZES
    rounds = 3 if args.quick else 7
    rows = []
    if rank == 0:
        print(f"# torch {torch.__version__}, {n} ranks, rcoll transport {dist.group.WORLD.transport}, "
              f"median of {rounds} rounds", flush=True)
        print(f"{'call':<15}{'bytes':>10}{'rcoll us':>12}{'gloo us':>12}{'rcoll GB/s':>12}{'gloo GB/s':>11}"
              f"{'speed-up':>10}", flush=True)
    for name in ("allreduce", "allgather", "reduce_scatter"):
        both = {b: g for b, g in groups.items() if supported(name, g, n)}
        for size in sizes:
            per_round = max(2, min(50, (64 * MIB) // (size * 4)))
            t = time_calls(both, name, size, n, rounds, per_round)
            t.setdefault("gloo", float("nan"))
            bw = {b: bus_factor(name, n) * size / t[b] / 1e9 for b in t}
            row = (name, size, t["rcoll"] * 1e6, t["gloo"] * 1e6, bw["rcoll"], bw["gloo"], t["gloo"] / t["rcoll"])
            rows.append(row)
            if rank == 0:
                print(f"{row[0]:<15}{row[1]:>10}{row[2]:>12.1f}{row[3]:>12.1f}{row[4]:>12.3f}{row[5]:>11.3f}"
                      f"{row[6]:>10.2f}", flush=True)
    steps = ddp_step_times(groups, 2 if args.quick else 5, 2 if args.quick else 5)
    row = ("ddp_step", 0, steps["rcoll"] * 1e6, steps["gloo"] * 1e6, 0.0, 0.0, steps["gloo"] / steps["rcoll"])
    rows.append(row)
    if rank == 0:
        print(f"{'ddp_step':<15}{'8.4M par':>10}{row[2]:>12.1f}{row[3]:>12.1f}{'':>12}{'':>11}{row[6]:>10.2f}",
              flush=True)
        if args.csv:
            with open(args.csv, "w") as f:
                f.write("call,bytes,rcoll_us,gloo_us,rcoll_busbw_gbs,gloo_busbw_gbs,speedup\n")
                for r in rows:
                    f.write(",".join(str(v) for v in r) + "\n")
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
