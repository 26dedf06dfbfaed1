"""Runs benchmark jobs: one process tree per job, a wall-clock limit, and
the job's JSON read back. Gloo's ranks are started here (it has no
launcher), each with PEER_RANK/PEER_SIZE and a fresh file-store directory."""

import json
import os
import signal
import subprocess
import tempfile
import time

from . import libs as libraries
from . import results

# Seconds a job may linger after writing its complete results.
STUCK_GRACE_S = 5.0
# How the note of a job starts whose program exited with status 2 and no
# results: it refused its command line (rcoll-bench, the peers and
# rcoll-run's ranks exit 2 for a bad command line), e.g. an op it does not
# know yet; no other job of that (library, op) is run.
REFUSED = "refused its command line"


def _stop(procs):
    """SIGTERM, then SIGKILL after 3 s, to each process group we started."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        alive = [p for p in procs if p.poll() is None]
        for p in alive:
            try:
                os.killpg(p.pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 3
        while any(p.poll() is None for p in alive) and time.monotonic() < deadline:
            time.sleep(0.05)


def _complete(path):
    """True when `path` holds a whole JSON document (the job's results)."""
    try:
        with open(path, encoding="utf-8") as f:
            json.load(f)
        return True
    except (OSError, ValueError):
        return False


def run_processes(argv, env, per_rank, timeout_s, done_file=None, grace_s=None):
    """Starts one process (or one per rank with per_rank envs); returns
    (exit status, combined output, stuck). Status 124 when timeout_s ran
    out. When `done_file` holds a whole JSON document and the processes have
    not exited grace_s later (a hang in the library's finalize), they are
    stopped, the status is 0 and `stuck` is True."""
    grace_s = STUCK_GRACE_S if grace_s is None else grace_s
    envs = [dict(os.environ, **env, **extra) for extra in (per_rank or [{}])]
    with tempfile.TemporaryFile() as output:
        procs = [subprocess.Popen(argv, env=e, stdout=output, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, start_new_session=True) for e in envs]
        deadline = time.monotonic() + timeout_s
        status, stuck, done_at = None, False, None
        try:
            while status is None:
                codes = [p.poll() for p in procs]
                failed = [c for c in codes if c not in (None, 0)]
                if failed or all(c == 0 for c in codes):
                    status = failed[0] if failed else 0  # a failed rank: the others cannot finish
                elif time.monotonic() > deadline:
                    status = 124
                elif done_file and done_at is None and _complete(done_file):
                    done_at = time.monotonic()
                elif done_at is not None and time.monotonic() - done_at > grace_s:
                    status, stuck = 0, True
                else:
                    time.sleep(0.02)
        finally:
            _stop(procs)
        output.seek(0)
        return status, output.read().decode(errors="replace"), stuck


def run_job(lib, op, ranks, sizes, iters, warmup, paths, timeout_s):
    """One job of `lib`: every size in `sizes`, --check on. Returns
    (parsed JSON document or None, note on failure or None, seconds)."""
    with tempfile.TemporaryDirectory(prefix="rcoll-compare-") as tmp:
        out = os.path.join(tmp, "result.json")
        bench_args = ["--op", op, "--sizes", ",".join(map(str, sizes)), "--iters", str(iters),
                      "--warmup", str(warmup), "--check", "--json", out]
        argv, env, per_rank = libraries.job(lib, ranks, bench_args, paths, os.geteuid() == 0)
        if per_rank is not None:
            store = os.path.join(tmp, "store")
            os.mkdir(store)
            for extra in per_rank:
                extra["PEER_STORE"] = store
        start = time.monotonic()
        status, text, stuck = run_processes(argv, env, per_rank, timeout_s, done_file=out)
        seconds = time.monotonic() - start
        doc = None
        if os.path.exists(out):
            try:
                with open(out, encoding="utf-8") as f:
                    doc = results.parse_bench_json(f.read())
            except ValueError as e:
                return None, f"unreadable JSON: {e}", seconds
        # Exit status 1 with a complete document means wrong elements: the
        # errors are in the document and reported, not dropped.
        if doc is None or status not in (0, 1):
            # Without the benchmark's own '#' header lines, the first line
            # of the note (what the report lists) is the complaint.
            tail = "\n".join([line for line in text.strip().splitlines() if not line.startswith("#")][-6:])
            if doc is None and status == 2:
                # The program's own complaint comes first, before its usage text.
                first = next((line for line in text.splitlines() if line.strip() and not line.startswith("#")), "")
                return None, f"{REFUSED} (exit status 2; no other job of this library and op is run): {first}", \
                    seconds
            return None, f"exit status {status} after {seconds:.0f} s: {tail}", seconds
        if stuck:
            doc["stuck_at_exit"] = True
        return doc, None, seconds


def run_limit(program, paths, sizes, reps, timeout_s):
    """Runs a physical-limit probe (build.LIMIT_PROBES); returns (document or None, note)."""
    with tempfile.TemporaryDirectory(prefix="rcoll-compare-") as tmp:
        out = os.path.join(tmp, "limit.json")
        argv = [paths.peer(program), "--sizes", ",".join(map(str, sizes)), "--reps", str(reps), "--json", out]
        status, text, _ = run_processes(argv, {}, None, timeout_s)
        if status != 0 or not os.path.exists(out):
            return None, f"{program}: exit status {status}: {text.strip()[-500:]}"
        with open(out, encoding="utf-8") as f:
            return json.load(f), None
