"""The order of the jobs and the loop that runs them. Jobs alternate between
libraries (A B C D, then B C D A, ...) for each (op, ranks, band) and
repetition, so that drift on a shared machine hits every library alike."""

import dataclasses
import sys
import time
from dataclasses import dataclass

from . import execute
from . import libs as libraries

# A job may take at most SLOW_FACTOR times the fastest library's time for
# the same (op, ranks, band) so far, and never less than MIN_TIMEOUT_S (nor
# more than the --job-timeout): a library whose busy-polling ranks starve
# each other on an oversubscribed machine would otherwise eat the whole run.
# A (library, op, ranks, band) that failed is not run again.
SLOW_FACTOR = 20
MIN_TIMEOUT_S = 30


@dataclass(frozen=True)
class Job:
    op: str
    ranks: int
    band: str
    sizes: tuple
    iters: int
    warmup: int
    rep: int
    lib: str


def plan(ops, ranks_list, bands, reps, libs):
    """Every job in run order. bands: [(band, sizes, iters, warmup)], or a
    function of (op, ranks) that returns them (the sizes of the blocked ops
    depend on the rank count: sweep.op_sizes). A library without a call for
    an op (libs.supports) gets no job of it."""
    jobs = []
    for op in ops:
        able = [lib for lib in libs if libraries.supports(lib, op)]
        for ranks in ranks_list:
            for band, sizes, iters, warmup in (bands(op, ranks) if callable(bands) else bands):
                for rep in range(reps):
                    shift = rep % len(able) if able else 0
                    for lib in able[shift:] + able[:shift]:
                        jobs.append(Job(op, ranks, band, tuple(sizes), iters, warmup, rep, lib))
    return jobs


def samples_of(job, doc):
    """One sample per size of a job's JSON document."""
    return [{"lib": job.lib, "op": job.op, "ranks": job.ranks, "band": job.band, "rep": job.rep,
             "iters": job.iters, "warmup": job.warmup, "bytes": row["bytes"], "time_us": row["time_us"],
             "min_us": row.get("min_us"), "p99_us": row.get("p99_us"),
             "reported_busbw_GBps": row["busbw_GBps"], "errors": row["errors"]} for row in doc["results"]]


def job_timeout(fastest_s, limit_s):
    """The wall-clock limit of a job, given the fastest time of the same
    (op, ranks, band) so far (None if none yet) and the overall limit."""
    if fastest_s is None:
        return limit_s
    return min(limit_s, max(MIN_TIMEOUT_S, SLOW_FACTOR * fastest_s))


def size_mismatch(job, doc):
    """None when the job's document reports exactly the sizes asked, else a
    note: the program follows another size convention (or skipped sizes),
    and its cells would sit beside the wrong sizes of the other libraries."""
    got = sorted(row["bytes"] for row in doc["results"])
    if got == sorted(job.sizes):
        return None
    return (f"reported sizes {got[:4]}{'...' if len(got) > 4 else ''} differ from those asked "
            f"{sorted(job.sizes)[:4]}{'...' if len(job.sizes) > 4 else ''} (another size convention?): "
            "results dropped")


def run(jobs, paths, limit_s, log=lambda text: print(text, file=sys.stderr, flush=True)):
    """Runs the jobs; returns (samples, failures, {lib: version line},
    [jobs whose processes did not exit after writing their results]).
    A job that fails is not run again for its (library, op, ranks, band);
    one whose program refused the command line (e.g. an rcoll-bench that
    does not know the op yet) not for its (library, op) at all."""
    samples, failures, versions, stuck = [], [], {}, []
    fastest, failed = {}, set()
    started = time.monotonic()
    for index, job in enumerate(jobs, 1):
        kind = (job.op, job.ranks, job.band)
        if (job.lib,) + kind in failed or (job.lib, job.op) in failed:
            continue
        timeout_s = job_timeout(fastest.get(kind), limit_s)
        doc, note, seconds = execute.run_job(job.lib, job.op, job.ranks, job.sizes, job.iters, job.warmup,
                                             paths, timeout_s)
        if doc is not None and not note:
            note = size_mismatch(job, doc)
        elapsed = time.monotonic() - started
        log(f"[{index}/{len(jobs)} {elapsed:6.0f} s] {job.op} n={job.ranks} {job.band:6} rep {job.rep} "
            f"{job.lib:10} {seconds:6.1f} s" + (f"  FAILED: {note}" if note else ""))
        if note:
            failures.append({"job": dataclasses.asdict(job), "note": note, "timeout_s": timeout_s})
            failed.add((job.lib, job.op) if note.startswith(execute.REFUSED) else (job.lib,) + kind)
            continue
        if doc.get("stuck_at_exit"):
            stuck.append(f"{job.lib} {job.op} n={job.ranks} {job.band} rep {job.rep}")
        fastest[kind] = min(seconds, fastest.get(kind, seconds))
        versions.setdefault(job.lib, doc["meta"].get("version") or doc["meta"].get("transport", ""))
        samples.extend(samples_of(job, doc))
    return samples, failures, versions, stuck
