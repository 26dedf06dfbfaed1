"""torchrun for the tests: a single-node job on a rendezvous port of its
own, so that jobs run side by side (ctest -j) never meet. torchrun's
--standalone always takes port 29400: two such jobs at once fail, or join
each other. Passes --redirects 1 --tee 1 (torch 1.13's torchrun fails at
start on Python 3.11 with its defaults).

    python3 torchrun.py --nproc_per_node N script.py [args...]
"""

import os
import socket
import sys
import uuid


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    command = [sys.executable, "-m", "torch.distributed.run", "--rdzv_backend", "c10d",
               "--rdzv_endpoint", f"127.0.0.1:{free_port()}", "--rdzv_id", str(uuid.uuid4()),
               "--nnodes", "1", "--redirects", "1", "--tee", "1"] + sys.argv[1:]
    os.execv(sys.executable, command)


if __name__ == "__main__":
    main()
