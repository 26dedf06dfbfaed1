"""A call that fails on the rcoll backend: rank 1 never joins rank 0's
allreduce, so rank 0's Work raises RuntimeError with rcoll's timeout
message (the group's timeout is honoured), through wait() and through its
future; afterwards every call on the group fails at once, on both ranks (on rank
1 once rank 0's closed connections reach it), naming the failure. Run under torchrun with 2 ranks."""

import datetime
import sys
import time

import torch
import torch.distributed as dist

import rcoll.torch  # noqa: F401 (registers the backend)

TIMEOUT = 3.0


def expect_failure(call, what, within):
    start = time.monotonic()
    try:
        call()
    except RuntimeError as e:
        took = time.monotonic() - start
        assert took < within, f"{what}: failed after {took:.1f} s, expected within {within} s"
        return str(e)
    raise AssertionError(f"{what}: did not fail")


def main():
    dist.init_process_group("rcoll", timeout=datetime.timedelta(seconds=TIMEOUT))
    rank = dist.get_rank()
    assert dist.get_world_size() == 2
    if rank == 0:
        work = dist.all_reduce(torch.ones(10), async_op=True)
        future = work.get_future()
        message = expect_failure(work.wait, "the allreduce rank 1 skipped", TIMEOUT + 5)
        assert "rank 0" in message and "allreduce" in message and "timed out" in message.lower(), message
        assert work.is_completed() and not work.is_success()
        future_message = expect_failure(future.wait, "its future", 1)
        assert "allreduce" in future_message, future_message
        later = expect_failure(lambda: dist.all_reduce(torch.ones(10)), "a later call", 1)
        time.sleep(3)  # rank 1's calls fail because rank 0 broke the communicator down, not because it left
    else:
        time.sleep(TIMEOUT + 2)  # rank 0 has failed by now, and closed its connections
        # This rank's first allreduce may still complete: it matches the one
        # rank 0 gave up, whose part rank 0 had sent before. The next cannot.
        try:
            dist.all_reduce(torch.ones(10))
        except RuntimeError:
            pass
        later = expect_failure(lambda: dist.all_reduce(torch.ones(10)), "a later call", 2)
    assert f"rank {rank}" in later, later
    print(f"rank {rank}: failures raised as expected: {later[:160]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
