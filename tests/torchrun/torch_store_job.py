#!/usr/bin/env python3
"""rcoll with real PyTorch pieces (tests/torchrun/CMakeLists.txt). Usage:

  torch_store_job.py client TEST_BINARY
      Serves a torch.distributed.TCPStore on 127.0.0.1, sets the keys the
      C++ test reads, runs TEST_BINARY (store::TorchStoreClient's cases)
      against it, then reads the key the C++ side wrote.
  torch_store_job.py torchrun RANKS RCOLL_BENCH
      RANKS ranks of `rcoll-bench --op allreduce --check` under torchrun's
      default (static) rendezvous: Comm::from_env joins through the store
      torchrun's agent serves at MASTER_ADDR:MASTER_PORT.
  torch_store_job.py restart RANKS RCOLL_BENCH
      The same, but rank 1 of the first worker group exits before joining;
      torchrun restarts the group, which joins under a key prefix of its own
      (rcoll/<run id>/1/) beside what rank 0 of the first group wrote.
  torch_store_job.py c10d RANKS RCOLL_BENCH
      torchrun's c10d rendezvous, where nothing serves MASTER_PORT
      (TORCHELASTIC_USE_AGENT_STORE=False): rank 0 hosts rcoll's service.

Exits 0 when every check passed, 1 naming the first that failed. A missing
piece (torch, a binary) is a failure, never a skip.

torch 1.13's torchrun on Python 3.11 fails at start unless --redirects and
--tee are 1 or 2: its Std.from_str finds no member for 0 or 3 (the default
0 included) since Python 3.11 iterates a Flag without its 0 and multi-bit
members. `--redirects 1 --tee 1` shows each rank's stdout prefixed with
"[default<local rank>]:" and leaves stderr alone.
"""

import os
import shutil
import socket
import subprocess
import sys
import tempfile
from datetime import timedelta

TORCHRUN_SECONDS = 240
BENCH_ARGS = ["--op", "allreduce", "--check", "--min-bytes", "8", "--max-bytes", "1M", "--iters", "3", "--warmup", "1"]
# Rank 1 of the first worker group fails before it joins, after rank 0 joined (wrote its card) and waits
# for it; every other rank runs the benchmark.
FAIL_FIRST_GROUP = ('if [ "$TORCHELASTIC_RESTART_COUNT" = 0 ] && [ "$RANK" = 1 ]; then sleep 3; '
                    'echo "rank 1 of the first worker group exits on purpose" >&2; exit 3; fi; exec "$0" "$@"')
JOINED_THROUGH_STORE = "joining through torchrun's store at 127.0.0.1:"
HOSTING_SERVICE = "hosting the bootstrap service at "


class CheckFailed(Exception):
    pass


def require(condition, what, output=""):
    if not condition:
        raise CheckFailed(what + ("\n--- output ---\n" + output if output else ""))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def check_client(test_binary):
    import torch.distributed as dist

    store = dist.TCPStore("127.0.0.1", 0, is_master=True, wait_for_workers=False, timeout=timedelta(seconds=60))
    store.set("from-python", "+hello")  # the client stores every value with '+' in front
    store.set("foreign", "plain")
    env = dict(os.environ, RCOLL_TEST_TORCH_STORE=f"127.0.0.1:{store.port}")
    run = subprocess.run([test_binary], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         timeout=TORCHRUN_SECONDS)
    print(run.stdout)
    require(run.returncode == 0, f"{test_binary} exited {run.returncode}")
    require("[  PASSED  ]" in run.stdout and "SKIPPED" not in run.stdout, "a case did not run or pass")
    require(store.get("from-cpp") == b"+world", f"Python read {store.get('from-cpp')!r} for 'from-cpp'")


def clean_environment():
    """The inherited environment without rcoll's or a launcher's variables."""
    launcher = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("RCOLL_", "TORCHELASTIC_", "SLURM_", "OMPI_")) and k not in launcher}
    env.update(RCOLL_TIMEOUT="60", RCOLL_TRANSPORT="tcp", RCOLL_LOG="info")
    return env


def torchrun(mode, ranks, bench, log_dir):
    port = free_port()
    command = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", str(ranks),
               "--redirects", "1", "--tee", "1", "--log_dir", log_dir, "--monitor_interval", "1"]
    if mode == "c10d":
        command += ["--rdzv_backend", "c10d", "--rdzv_endpoint", f"127.0.0.1:{port}"]
    else:
        command += ["--master_addr", "127.0.0.1", "--master_port", str(port)]
    if mode == "restart":
        command += ["--max_restarts", "1", "--no_python", "/bin/sh", "-c", FAIL_FIRST_GROUP, bench]
    else:
        command += ["--no_python", bench]
    command += BENCH_ARGS
    print("$", " ".join(command), flush=True)
    run = subprocess.run(command, env=clean_environment(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, timeout=TORCHRUN_SECONDS)
    print(run.stdout)
    return run


def check_torchrun(mode, ranks, bench):
    log_dir = tempfile.mkdtemp(prefix="rcoll-torchrun-")
    try:
        run = torchrun(mode, ranks, bench, log_dir)
    finally:
        shutil.rmtree(log_dir, ignore_errors=True)
    out = run.stdout
    require(run.returncode == 0, f"torchrun exited {run.returncode}", out)
    require(f"# rcoll-bench: op allreduce, ranks {ranks}," in out, f"rank 0 reported no allreduce of {ranks} ranks")
    require("# errors: 0" in out, "rank 0 reported no '# errors: 0' (wrong sums, or no report)")
    joined = out.count(JOINED_THROUGH_STORE)
    if mode == "c10d":
        require(joined == 0, "a rank joined through a store under the c10d rendezvous")
        require(out.count(HOSTING_SERVICE) == 1, "rank 0 did not host rcoll's service under the c10d rendezvous")
        return
    require(HOSTING_SERVICE not in out, "a rank hosted rcoll's service under torchrun's static rendezvous")
    require(out.count("(keys under rcoll/none/0/)") == (1 if mode == "restart" else ranks),
            "the first worker group's ranks did not all join under rcoll/none/0/")
    if mode == "restart":
        require(out.count("(keys under rcoll/none/1/)") == ranks,
                "the restarted group did not join under rcoll/none/1/")
        require(joined == ranks + 1, f"{joined} joins through the store, expected {ranks + 1}")


def main(argv):
    try:
        if len(argv) == 3 and argv[1] == "client":
            check_client(argv[2])
        elif len(argv) == 4 and argv[1] in ("torchrun", "restart", "c10d"):
            check_torchrun(argv[1], int(argv[2]), argv[3])
        else:
            print(__doc__, file=sys.stderr)
            return 2
    except CheckFailed as failure:
        print(f"torch_store_job.py {' '.join(argv[1:2])}: FAILED: {failure}", file=sys.stderr)
        return 1
    print(f"torch_store_job.py {' '.join(argv[1:])}: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
