"""The libraries compared, what each needs installed, and the command that
runs one benchmark job of N ranks on this machine over loopback TCP."""

import glob
import os
import shutil
import subprocess
from dataclasses import dataclass

PEERS = ("openmpi", "mpich", "gloo")
ALL_LIBS = ("rcoll",) + PEERS
# rcoll's own jobs: over TCP; over RDMA (added when a device is active); and
# over TCP with another build of rcoll (added by --baseline-build).
RCOLL_LIBS = ("rcoll", "rcoll-rdma", "rcoll-base")
INSTALL_HINT = "scripts/install-peers.sh (or bench/compare --install)"


@dataclass(frozen=True)
class Library:
    name: str
    label: str          # how tables and plots name it
    packages: tuple     # Debian packages it needs
    tools: tuple        # executables or files that must exist
    # Ops (results.OPS) it has no call for: compare skips those jobs with a
    # note instead of failing them. None today: both MPIs have all eight
    # (MPI_Reduce_scatter_block for reduce_scatter), and Debian 12's
    # libgloo-dev has a call for each, reduce_scatter being its in-place
    # ReduceScatterHalvingDoubling (see the top of bench/peers/gloo_bench.cpp).
    lacks: tuple = ()


LIBRARIES = {
    "rcoll": Library("rcoll", "rcoll tcp", (), ()),
    "rcoll-rdma": Library("rcoll-rdma", "rcoll rdma", (), ()),
    "rcoll-base": Library("rcoll-base", "rcoll tcp (baseline)", (), ()),
    "openmpi": Library("openmpi", "Open MPI (ob1, tcp)", ("openmpi-bin", "libopenmpi-dev"),
                       ("mpicxx.openmpi", "mpirun.openmpi")),
    "mpich": Library("mpich", "MPICH (ucx tcp)", ("mpich", "libmpich-dev"),
                     ("mpicxx.mpich", "mpiexec.mpich")),
    "gloo": Library("gloo", "Gloo (tcp)", ("libgloo-dev",), ("/usr/include/gloo/allreduce.h",)),
}

# Open MPI: the ob1 point-to-point layer with only the self and TCP
# transports (no shared memory), on the loopback interface. Every library
# places its ranks as it does by default, as its users meet it: Open MPI
# binds one core per rank up to two ranks and leaves oversubscribed ranks
# unbound; rcoll-run binds one core per rank when the ranks fill the cores
# (--bind auto); MPICH's launcher and Gloo (no launcher) do not bind.
OPENMPI_FLAGS = ["--mca", "pml", "ob1", "--mca", "btl", "self,tcp",
                 "--mca", "btl_tcp_if_include", "lo", "--mca", "oob_tcp_if_include", "lo",
                 "--oversubscribe"]
# MPICH (Debian: ch4 over UCX): every rank treated as remote (no shared
# memory) and UCX restricted to TCP on the loopback device.
MPICH_ENV = {"MPIR_CVAR_NOLOCAL": "1", "UCX_TLS": "tcp", "UCX_NET_DEVICES": "lo"}


def supports(name, op):
    """Whether library `name` has a call for `op` (see Library.lacks)."""
    return op not in LIBRARIES[name].lacks


def _present(tool):
    return os.path.exists(tool) if tool.startswith("/") else shutil.which(tool) is not None


def missing_packages(name):
    """Debian packages of `name` that are not installed (by dpkg-query),
    plus a note when a needed tool is still absent."""
    lib = LIBRARIES[name]
    missing = []
    for package in lib.packages:
        probe = subprocess.run(["dpkg-query", "-W", "-f=${Status}", package],
                               capture_output=True, text=True, check=False)
        if "install ok installed" not in probe.stdout:
            missing.append(package)
    if not missing and not all(_present(t) for t in lib.tools):
        missing.append("(" + ", ".join(t for t in lib.tools if not _present(t)) + " not found)")
    return missing


def rdma_device():
    """(name or None, note): an InfiniBand/RoCE device with an ACTIVE port."""
    for state_file in sorted(glob.glob("/sys/class/infiniband/*/ports/*/state")):
        try:
            with open(state_file, encoding="ascii") as f:
                if "ACTIVE" in f.read():
                    device = state_file.split("/")[4]
                    return device, f"RDMA device {device} is active: rcoll is also measured over rdma"
        except OSError:
            continue
    return None, "no RDMA device with an active port (/sys/class/infiniband): rcoll over rdma not measured"


@dataclass
class Paths:
    root: str        # the repository
    build: str       # rcoll's build tree
    peers: str       # where the peer programs are built
    base_root: str = None   # --baseline-source: the baseline's tree (its tools/rcoll-run)
    base_build: str = None  # --baseline-build: the baseline's build tree

    def rcoll_bench(self, baseline=False):
        return os.path.join(self.base_build if baseline else self.build, "bench", "rcoll-bench")

    def rcoll_run(self, baseline=False):
        return os.path.join(self.base_root if baseline else self.root, "tools", "rcoll-run")

    def bootstrapd(self, baseline=False):
        return os.path.join(self.base_build if baseline else self.build, "tools", "rcoll-bootstrapd")

    def peer(self, program):
        return os.path.join(self.peers, program)


def job(name, ranks, bench_args, paths, is_root):
    """(argv, extra environment, per-rank env or None) of one job.
    Gloo has no launcher: per-rank env lists one environment per process."""
    if name in RCOLL_LIBS:
        # The baseline runs exactly as rcoll does, every program from its own trees.
        transport = "rdma" if name == "rcoll-rdma" else "tcp"
        base = name == "rcoll-base"
        argv = [paths.rcoll_run(base), "-n", str(ranks), "--transport", transport,
                "--no-tag-output", "--", paths.rcoll_bench(base)] + bench_args
        return argv, {"RCOLL_BOOTSTRAPD": paths.bootstrapd(base)}, None
    if name == "openmpi":
        root = ["--allow-run-as-root"] if is_root else []
        argv = ["mpirun.openmpi", "-n", str(ranks)] + root + OPENMPI_FLAGS + [
            paths.peer("mpi_bench_openmpi")] + bench_args
        return argv, {}, None
    if name == "mpich":
        argv = ["mpiexec.mpich", "-n", str(ranks), paths.peer("mpi_bench_mpich")] + bench_args
        return argv, dict(MPICH_ENV), None
    if name == "gloo":
        per_rank = [{"PEER_RANK": str(r), "PEER_SIZE": str(ranks)} for r in range(ranks)]
        return [paths.peer("gloo_bench")] + bench_args, {}, per_rank
    raise ValueError(f"unknown library {name!r}")
