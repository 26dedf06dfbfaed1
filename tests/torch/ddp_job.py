"""DDP trains the same model on rcoll and on gloo, side by side in one job:
the losses of every step and the final parameters and buffers must match.
With 2 ranks they are bitwise equal (a sum of two is the same in any
order); with more, rcoll's and gloo's allreduces add in different orders,
so float32 results may differ in the last bits: they must agree to 1e-5
relative there, and rcoll run twice must be bitwise reproducible. Run
under torchrun."""

import sys

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

import rcoll.torch  # noqa: F401 (registers the backend)

STEPS = 12


class Model(nn.Module):
    def __init__(self, with_unused):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(32, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.head = nn.Linear(64, 4)
        if with_unused:
            self.unused = nn.Linear(64, 4)  # never in the graph: find_unused_parameters must cope

    def forward(self, x):
        return self.head(self.body(x))


def train(group, rank, find_unused):
    torch.manual_seed(0)
    model = DDP(Model(find_unused), process_group=group, find_unused_parameters=find_unused, bucket_cap_mb=0.01)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    losses = []
    g = torch.Generator().manual_seed(100 + rank)
    for _ in range(STEPS):
        x = torch.randn(16, 32, generator=g)
        y = torch.randint(0, 4, (16,), generator=g)
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.detach().clone())
    state = [t.detach().clone() for t in model.module.state_dict().values()]
    return torch.stack(losses), state


def compare(a, b, exact, what):
    if exact:
        ok = torch.equal(a, b)
    else:
        ok = a.dtype in (torch.int64,) and torch.equal(a, b) or torch.allclose(a, b, rtol=1e-5, atol=1e-6)
    if not ok:
        raise AssertionError(f"rank {dist.get_rank()}: {what} differ: {a.flatten()[:4]} vs {b.flatten()[:4]}")


def main():
    dist.init_process_group("rcoll")
    rank, size = dist.get_rank(), dist.get_world_size()
    gloo = dist.new_group(backend="gloo")
    exact = size <= 2
    for find_unused in (False, True):
        losses_r, state_r = train(dist.group.WORLD, rank, find_unused)
        losses_g, state_g = train(gloo, rank, find_unused)
        compare(losses_r, losses_g, exact, f"losses (find_unused={find_unused})")
        for i, (a, b) in enumerate(zip(state_r, state_g)):
            compare(a, b, exact, f"state {i} (find_unused={find_unused})")
        losses_again, state_again = train(dist.group.WORLD, rank, find_unused)
        compare(losses_r, losses_again, True, "rcoll run twice: losses")
        for i, (a, b) in enumerate(zip(state_r, state_again)):
            compare(a, b, True, f"rcoll run twice: state {i}")
    print(f"rank {rank}: DDP on rcoll matches gloo over {STEPS} steps ({size} ranks, "
          f"{'bitwise' if exact else 'to 1e-5'}; final loss {losses_r[-1].item():.6f})", flush=True)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
