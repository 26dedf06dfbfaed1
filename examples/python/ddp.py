"""DDP on rcoll: a small model trained on random data, gradients averaged by
rcoll's allreduce. Run under torchrun:

    PYTHONPATH=build/python /usr/bin/python3 -m torch.distributed.run --standalone \\
        --redirects 1 --tee 1 --nproc_per_node 2 examples/python/ddp.py
"""

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

import rcoll.torch  # noqa: F401 (registers the backend "rcoll")


def main():
    dist.init_process_group("rcoll")
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = DDP(torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10)))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    data = torch.Generator().manual_seed(rank)
    for step in range(20):
        x = torch.randn(32, 64, generator=data)
        y = torch.randint(0, 10, (32,), generator=data)
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()  # bucket allreduces on rcoll overlap the rest of the backward pass
        opt.step()
        if rank == 0 and step % 5 == 0:
            print(f"step {step}: loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
