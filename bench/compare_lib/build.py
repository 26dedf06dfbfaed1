"""Builds the peer programs of bench/peers/ into their own directory with
plain compiler invocations (the main CMake build never needs MPI or Gloo).
A program is rebuilt only when one of its sources or headers is newer."""

import glob
import os
import subprocess

FLAGS = ["-std=c++20", "-O2", "-Wall", "-Wextra"]
BENCH_COMMON = ["args.cpp", "stats.cpp", "json.cpp", "size_result.cpp", "sizes.cpp", "aligned_buffer.cpp",
                "compute_loop.cpp", "overlap_report.cpp"]
PEER_COMMON = ["peer_options.cpp", "peer_layout.cpp", "check_data.cpp", "peer_report.cpp"]
LIMIT_COMMON = ["limit_report.cpp"]
SOCKET_LIMIT_COMMON = LIMIT_COMMON + ["loopback_pair.cpp"]
LIMIT_PROBES = ["tcp_stream", "tcp_pingpong", "memcpy_bw"]

# program -> (compiler, main source, peer common sources, extra flags, library it serves)
PROGRAMS = {
    "mpi_bench_openmpi": ("mpicxx.openmpi", "mpi_bench.cpp", PEER_COMMON,
                          ['-DPEER_LIBRARY_NAME="openmpi"'], "openmpi"),
    "mpi_bench_mpich": ("mpicxx.mpich", "mpi_bench.cpp", PEER_COMMON,
                        ['-DPEER_LIBRARY_NAME="mpich"'], "mpich"),
    "gloo_bench": ("g++", "gloo_bench.cpp", PEER_COMMON, ["-lgloo", "-pthread"], "gloo"),
    "tcp_stream": ("g++", "tcp_stream.cpp", SOCKET_LIMIT_COMMON, [], None),
    "tcp_pingpong": ("g++", "tcp_pingpong.cpp", SOCKET_LIMIT_COMMON, [], None),
    "memcpy_bw": ("g++", "memcpy_bw.cpp", LIMIT_COMMON, [], None),
}


def _sources(root, program):
    _, main, common, _, _ = PROGRAMS[program]
    peers = os.path.join(root, "bench", "peers")
    return ([os.path.join(peers, main)] + [os.path.join(peers, "common", c) for c in common]
            + [os.path.join(root, "bench", "common", c) for c in BENCH_COMMON])


def _inputs(root):
    """Every file a program may depend on (sources and headers)."""
    patterns = ("bench/peers/*.cpp", "bench/peers/common/*", "bench/common/*")
    return [p for pattern in patterns for p in glob.glob(os.path.join(root, pattern))]


def command(root, program, output):
    compiler, _, _, extra, _ = PROGRAMS[program]
    # -iquote, not -I: bench/compare (this script) would shadow <compare>.
    includes = ["-iquote", os.path.join(root, "bench"), "-iquote", os.path.join(root, "bench", "peers")]
    libs = [f for f in extra if f.startswith("-l") or f == "-pthread"]
    defines = [f for f in extra if f not in libs]
    return [compiler] + FLAGS + defines + includes + _sources(root, program) + ["-o", output] + libs


def build(root, out_dir, programs, log):
    """Builds `programs` into out_dir. Returns {program: None or error}."""
    os.makedirs(out_dir, exist_ok=True)
    newest = max(os.path.getmtime(p) for p in _inputs(root))
    status = {}
    for program in programs:
        output = os.path.join(out_dir, program)
        if os.path.exists(output) and os.path.getmtime(output) >= newest:
            status[program] = None
            continue
        argv = command(root, program, output)
        log(f"compare: building {program}")
        status[program] = _compile(argv)
        if status[program] and os.path.exists(output):
            os.remove(output)
    return status


def _compile(argv):
    """None when argv built its program, else why not (one line first)."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, check=False)
    except OSError as e:  # no compiler at all, e.g. on a machine that only runs binaries
        return f"build failed: cannot run {argv[0]}: {e.strerror}"
    if done.returncode != 0:
        return f"build failed: {' '.join(argv)}\n{done.stderr[-2000:]}"
    return None


def programs_for(libs):
    """The programs that `libs` need, plus the physical-limit probes."""
    wanted = [p for p, spec in PROGRAMS.items() if spec[4] in libs]
    return wanted + LIMIT_PROBES
