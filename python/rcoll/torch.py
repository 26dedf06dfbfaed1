"""rcoll as a torch.distributed backend.

    import torch.distributed as dist
    import rcoll.torch                     # registers the backend "rcoll"
    dist.init_process_group("rcoll")       # under torchrun, as with "gloo"

Every call of torch.distributed on CPU tensors runs on rcoll, returning at
once with a Work whose wait(), is_completed() and get_future() follow the
call (DDP overlaps its gradient allreduces with the backward pass).
new_group() makes sub-communicators of the world group: the same
connections, no new service. RCOLL_* settings apply (RCOLL_TRANSPORT,
RCOLL_*_ALGO, ...); rank, size and timeout come from torch. See
docs/PYTHON.md.
"""

import torch.distributed as _dist

from ._torch import ProcessGroupRcoll

__all__ = ["ProcessGroupRcoll"]


def _default_rcoll_group():
    if not _dist.is_initialized():
        return None
    group = _dist.distributed_c10d._get_default_group()
    return group if isinstance(group, ProcessGroupRcoll) else None


def _create(options, pg_options=None):
    """torch.distributed's creator (extended API): the world group, or a
    new_group's group as a sub-communicator of the world group when that
    one is rcoll's too."""
    del pg_options  # rcoll takes its settings from RCOLL_* variables
    world = _default_rcoll_group()
    ranks = list(options.global_ranks_in_group)
    if world is not None and ranks:
        return world._create_group(options.store, ranks, options.timeout)
    return ProcessGroupRcoll(options.store, options.group_rank, options.group_size, options.timeout)


if "RCOLL" not in _dist.Backend._plugins:
    _dist.Backend.register_backend("rcoll", _create, extended_api=True)
