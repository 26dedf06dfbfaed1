"""rcoll: collective communication over RDMA and TCP, from Python.

    import numpy as np, rcoll
    comm = rcoll.Comm.from_env()          # under rcoll-run, torchrun, Slurm, mpirun
    x = np.full(4, comm.rank, dtype=np.float32)
    comm.allreduce(x)                     # in place: x = sum over ranks
    req = comm.iallgather(x, out)         # non-blocking; req.wait()

Buffers are any C-contiguous objects with the buffer protocol (NumPy
arrays, bytearray, memoryview) of int8, uint8, int32, uint32, int64,
uint64, float16, float32 or float64 elements; counts and types come from
them. Every call releases the GIL while it runs. Errors are rcoll.Error
and its subclasses (InvalidArgument is also a ValueError, TimeoutError
also the builtin TimeoutError). Launch with `rcoll-run -n N -- python3
prog.py` or `python3 -m rcoll.run -n N -- python3 prog.py`.
"""

from ._rcoll import (  # noqa: F401 (the package's interface)
    IN_PLACE,
    MAX,
    MIN,
    PROD,
    SUM,
    Comm,
    Error,
    InvalidArgument,
    IoError,
    MessageError,
    MismatchError,
    ReduceOp,
    Request,
    ResourceError,
    TimeoutError,
    wait_all,
    wait_any,
)

__all__ = [
    "Comm", "Request", "ReduceOp", "SUM", "PROD", "MIN", "MAX", "IN_PLACE", "wait_all", "wait_any",
    "Error", "InvalidArgument", "MismatchError", "MessageError", "TimeoutError", "IoError", "ResourceError",
]
