"""bench/compare: the command line and the whole run."""

import argparse
import datetime
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time

from . import build, plots, report, results, schedule, sweep, targets
from . import execute
from . import libs as libraries

LIMIT_SIZES, QUICK_LIMIT_SIZES = [1 << 20, 16 << 20, 64 << 20], [1 << 20]
# The latency floor at the ends of the small-message targets (8 B .. 4 KiB).
LATENCY_SIZES, QUICK_LATENCY_SIZES = [8, 4096], [8]


def log(text):
    print(text, file=sys.stderr, flush=True)


def parse_args(argv):
    p = argparse.ArgumentParser(prog="bench/compare", description=(
        "Runs the same collective sweep (float32 sum, 8 B .. 64 MiB with odd sizes) for rcoll over TCP "
        "(and RDMA when a device is active), Open MPI (ob1, tcp only), MPICH (tcp only) and Gloo (tcp) "
        "on this machine over loopback, alternating libraries, and reports medians over repetitions: "
        "markdown tables, JSON, PNG plots."))
    p.add_argument("--ranks", default="2,3,4", help="rank counts (default 2,3,4)")
    p.add_argument("--ops", default="allreduce,bcast", help=(
        "comma-separated, of " + ",".join(results.OPS) + " (default allreduce,bcast). Sizes as nccl-tests: "
        "the vector (allreduce, bcast, reduce), a rank's receive buffer (allgather; gather: the root's), a rank's "
        "send buffer (reduce_scatter, alltoall; scatter: the root's), rounded down to whole float32 elements per "
        "rank. Open MPI, MPICH and Gloo have every op; a library without one (compare_lib/libs.py, lacks) "
        "is skipped for it with a note"))
    p.add_argument("--libs", default=",".join(libraries.ALL_LIBS), help="rcoll,openmpi,mpich,gloo (default all)")
    p.add_argument("--reps", type=int, default=3, help="repetitions of every job (default 3)")
    p.add_argument("--quick", action="store_true", help="a short sweep (8 B .. 1 MiB, 6 sizes) for smoke tests")
    p.add_argument("--out", default="compare-out", help="output directory (default compare-out)")
    p.add_argument("--doc", help="rewrite the block between <!-- compare:begin --> and <!-- compare:end --> "
                   "in this file with the run's summary; the plots go to perf/ and the whole report, dated, "
                   "to results/ next to it")
    p.add_argument("--build-dir", default="build", help="rcoll's build tree (default build)")
    p.add_argument("--baseline-build", metavar="DIR", help="before/after in one run: also run rcoll from this "
                   "other build tree (\"rcoll tcp (baseline)\"), exactly as rcoll, and report rcoll ÷ baseline")
    p.add_argument("--baseline-source", metavar="DIR", help="the tree whose tools/rcoll-run runs the baseline "
                   "(default: the parent of --baseline-build)")
    p.add_argument("--peers-dir", help="where the peer programs are built (default <build-dir>/peers)")
    p.add_argument("--install", action="store_true", help="run scripts/install-peers.sh first")
    p.add_argument("--job-timeout", type=float, default=600, help="seconds one job may take (default 600)")
    p.add_argument("--from-json", metavar="FILE", help="measure nothing: redo the tables, plots and --doc "
                   "block from an earlier run's compare.json (its command and machine are kept)")
    p.add_argument("--max-load", type=float, help="first wait (at most 10 min) for a 1-minute load below this")
    args = p.parse_args(argv)
    args.ranks = [int(r) for r in args.ranks.split(",")]
    args.ops = args.ops.split(",")
    args.libs = args.libs.split(",")
    for op in args.ops:
        if op not in results.OPS:
            p.error(f"unknown op {op!r} (known: {', '.join(results.OPS)})")
    for lib in args.libs:
        if lib not in libraries.ALL_LIBS:
            p.error(f"unknown library {lib!r} (known: {', '.join(libraries.ALL_LIBS)})")
    if args.reps < 1 or any(r < 2 for r in args.ranks):
        p.error("--reps must be >= 1 and every rank count >= 2")
    if args.baseline_source and not args.baseline_build:
        p.error("--baseline-source needs --baseline-build")
    if args.baseline_build and "rcoll" not in args.libs:
        p.error("--baseline-build compares against rcoll: keep rcoll in --libs")
    return args


def choose_libraries(args, root, notes):
    """The libraries to run, in order; a note for each one skipped."""
    if args.install:
        subprocess.run([os.path.join(root, "scripts", "install-peers.sh")], check=True)
    chosen = []
    for lib in args.libs:
        missing = libraries.missing_packages(lib) if lib in libraries.PEERS else []
        if missing:
            notes.append(f"{lib} skipped: missing {' '.join(missing)}; run {libraries.INSTALL_HINT}")
            continue
        chosen.append(lib)
    device, note = libraries.rdma_device()
    notes.append(note)
    if device and "rcoll" in chosen:
        chosen.insert(chosen.index("rcoll") + 1, "rcoll-rdma")
    if args.baseline_build and "rcoll" in chosen:
        chosen.insert(chosen.index("rcoll") + 1, "rcoll-base")
    return chosen


def build_peers(chosen, paths, root, notes):
    status = build.build(root, paths.peers, build.programs_for(chosen), log)
    for program, error in status.items():
        if error:
            notes.append(f"{program}: {error.splitlines()[0]}")
            log(error)
    needs = {"openmpi": "mpi_bench_openmpi", "mpich": "mpi_bench_mpich", "gloo": "gloo_bench"}
    kept = [lib for lib in chosen if lib not in needs or not status.get(needs[lib])]
    limits_ok = not any(status.get(probe) for probe in build.LIMIT_PROBES)
    return kept, limits_ok


def measure_limits(paths, quick, notes):
    found = {}
    for program in build.LIMIT_PROBES:
        if program == "tcp_pingpong":
            sizes = QUICK_LATENCY_SIZES if quick else LATENCY_SIZES
        else:
            sizes = QUICK_LIMIT_SIZES if quick else LIMIT_SIZES
        doc, note = execute.run_limit(program, paths, sizes, 3 if quick else 5, 300)
        if doc:
            found[program] = doc
        else:
            notes.append(note)
    return found


def wait_for_load(limit):
    deadline = time.monotonic() + 600
    while os.getloadavg()[0] >= limit and time.monotonic() < deadline:
        log(f"compare: load {os.getloadavg()[0]:.2f} >= {limit}: waiting")
        time.sleep(15)


def _baseline_line(baseline, in_docs):
    where = "" if in_docs else f", built in `{baseline['build']}` from `{baseline['source']}`"
    return (f"Baseline ({libraries.LIBRARIES['rcoll-base'].label}, `--baseline-build`): rcoll at commit "
            f"`{baseline['commit']}`{where}, run exactly as rcoll (same launcher options, sizes, loop and "
            "alternation).")


def render(meta, grouped, order, evaluation, limits, plot_links, level=4, in_docs=False, whole_report=None):
    """The run's report in markdown, its sections at heading `level`. in_docs:
    for a document (the command without --out, no local paths). With
    whole_report (a link), the summary for a document: no per-size tables,
    no list of rcoll's cliffs and no comparison with the physical limits,
    but a link to the whole report."""
    peers = [lib for lib in order if lib in libraries.PEERS]
    head = "#" * level
    command = report.public_command(meta["command"]) if in_docs else meta["command"]
    at = f" at commit `{meta['commit']}`" if meta.get("commit") else ""
    parts = [f"Run of {meta['date']} (UTC){at}: `{command}`", "",
             f"Machine: `{meta['machine']['uname']}`; {meta['machine']['nproc']} CPUs, "
             f"{meta['machine']['cpu']}; load average before {meta['load_before']}, after {meta['load_after']}.",
             "", "Libraries: " + "; ".join(f"{lib}: {meta['versions'].get(lib, '?')}" for lib in order), ""]
    if meta.get("baseline"):
        parts += [_baseline_line(meta["baseline"], in_docs), ""]
    parts += [f"- {note}" for note in meta["notes"]] + [""]
    parts += ["To rerun on a fresh clone: `scripts/setup.sh && scripts/install-peers.sh && bench/compare --doc "
              "docs/PERFORMANCE.md` (raw repetitions in `compare-out/compare.json`).", ""]
    parts += [meta["method"], "", f"{head} Targets", "", targets.markdown(evaluation, whole_report is None), ""]
    against = report.baseline_markdown(grouped, per_size=whole_report is None)
    if against:
        parts += [f"{head} Against the baseline", "", against, ""]
    parts += [f"{head} Physical limits", "", report.limits_markdown(limits, grouped, whole_report is None), ""]
    if plot_links:
        parts += [f"{head} Plots", ""] + [f"![{name}]({link})" for name, link in plot_links] + [""]
    if whole_report:
        parts += [f"Per-size tables, rcoll's cliffs and rcoll against the physical limits: "
                  f"[{whole_report}]({whole_report})."]
        return "\n".join(parts) + "\n"
    tables = [report.table(op, ranks, libs, order, peers) for (op, ranks), libs in sorted(grouped.items())]
    parts += [f"{head} Tables", "", "<details><summary>Median time (µs) and busbw (GB/s) per size</summary>", "",
              "\n\n".join(tables).replace("### ", "#" * (level + 1) + " "), "", "</details>"]
    return "\n".join(parts) + "\n"


def results_name(meta):
    """The file name of a run's whole report under results/: 2026-12-02-0704-compare.md."""
    return meta["date"].replace(" ", "-").replace(":", "") + "-compare.md"


METHOD = ("Method: every library runs the same sizes (float32 elements: 2^k, 3·2^k and 2^k+1; {sizes}{meaning}) "
          "with the same loop: warm-up, barrier, each iteration timed on its own, per iteration the slowest "
          "rank, median over iterations; iterations per size band: {bands}; `--check` (exact integer data, every "
          "element compared). Per (op, ranks, band) the jobs alternate between libraries, rotating the order each "
          "repetition; cells are medians over {reps} repetitions. busbw: {busbw}. "
          "Open MPI: `mpirun --mca pml ob1 --mca btl self,tcp --mca btl_tcp_if_include lo "
          "--oversubscribe`; MPICH: `MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp UCX_NET_DEVICES=lo mpiexec`; Gloo: TCP "
          "device on 127.0.0.1, file-store rendezvous; rcoll: `tools/rcoll-run --transport tcp`. Each library "
          "places its ranks as it does by default: Open MPI binds a core per rank up to 2 ranks and leaves "
          "oversubscribed ranks unbound, rcoll-run (`--bind auto`) binds a core per rank when the ranks fill the "
          "cores (round-robin beyond), MPICH and Gloo do not bind. A job slower than "
          f"{schedule.SLOW_FACTOR}× the fastest library's same job (at least {schedule.MIN_TIMEOUT_S} s) is stopped, "
          "not run again, and its cells stay empty (see the notes).")


# What a size means and the busbw factor, per op (nccl-tests' conventions).
SIZE_MEANING = {"reduce": "the vector", "allgather": "a rank's receive buffer", "gather": "the root's receive buffer",
                "reduce_scatter": "a rank's send buffer", "alltoall": "a rank's send buffer",
                "scatter": "the root's send buffer"}
BUSBW = {"allreduce": "algbw·2(n−1)/n", "bcast": "algbw", "reduce": "algbw", "allgather": "algbw·(n−1)/n",
         "reduce_scatter": "algbw·(n−1)/n", "alltoall": "algbw·(n−1)/n", "gather": "algbw", "scatter": "algbw"}


def method(ops, sizes_text, bands_text, reps):
    """The Method paragraph for a run of `ops`."""
    meaning = [f"{op}: {SIZE_MEANING[op]}" for op in ops if op in SIZE_MEANING]
    meaning_text = ""
    if meaning:
        meaning_text = ("; a size is, as in nccl-tests, " + ", ".join(meaning) + ", rounded down to whole elements "
                        "per rank where it is split into blocks; float32, sum where the op reduces, root 0")
    busbw = "; ".join(f"{op} {BUSBW[op]}" for op in ops)
    text = METHOD.format(sizes=sizes_text, meaning=meaning_text, bands=bands_text, reps=reps, busbw=busbw)
    if "reduce_scatter" in ops:
        text += (" Gloo's reduce_scatter is its in-place ReduceScatterHalvingDoubling (the options API has none), "
                 "the input copied into its work vector outside the timed loop.")
    return text


def _exit_on_signal(signum, _frame):
    # SystemExit unwinds through execute.run_processes, which stops the
    # job's process groups (they run in sessions of their own).
    raise SystemExit(128 + signum)


def measure(args, argv):
    """Runs everything; returns the record that publish() turns into output,
    or an exit status when nothing could run."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    build_dir = os.path.abspath(args.build_dir)
    paths = libraries.Paths(root, build_dir, os.path.abspath(args.peers_dir or os.path.join(build_dir, "peers")))
    if "rcoll" in args.libs and not os.access(paths.rcoll_bench(), os.X_OK):
        log(f"compare: {paths.rcoll_bench()} is missing: run scripts/setup.sh (or build rcoll-bench "
            "and rcoll-bootstrapd in --build-dir)")
        return 2
    baseline = None
    if args.baseline_build:
        paths.base_build = os.path.abspath(args.baseline_build)
        paths.base_root = os.path.abspath(args.baseline_source or os.path.dirname(paths.base_build))
        for program in (paths.rcoll_bench(True), paths.bootstrapd(True), paths.rcoll_run(True)):
            if not os.access(program, os.X_OK):
                log(f"compare: the baseline's {program} is missing (--baseline-build, --baseline-source)")
                return 2
        baseline = {"build": paths.base_build, "source": paths.base_root, "commit": report.commit(paths.base_root)}
    notes = []
    chosen = choose_libraries(args, root, notes)
    chosen, limits_ok = build_peers(chosen, paths, root, notes)
    if args.max_load:
        wait_for_load(args.max_load)
    load_before = report.machine()["load"]
    limits = measure_limits(paths, args.quick, notes) if limits_ok else {}
    sizes = sweep.quick_sizes() if args.quick else sweep.full_sizes()
    notes += [f"{lib} has no {op}: not run" for op in args.ops for lib in chosen if not libraries.supports(lib, op)]
    jobs = schedule.plan(args.ops, args.ranks,
                         lambda op, ranks: sweep.bands(sweep.op_sizes(op, ranks, sizes), quick=args.quick),
                         args.reps, chosen)
    log(f"compare: {len(jobs)} jobs: {', '.join(chosen)}; " + "; ".join(notes))
    samples, failures, versions, stuck = schedule.run(jobs, paths, args.job_timeout)
    if stuck:
        notes.append(f"{len(stuck)} jobs wrote complete results but did not exit (stopped "
                     f"{execute.STUCK_GRACE_S:.0f} s later; results kept): " + ", ".join(stuck))
    notes += [f"FAILED {f['job']['lib']} {f['job']['op']} n={f['job']['ranks']} {f['job']['band']} "
              f"rep {f['job']['rep']}: {f['note'].splitlines()[0]}" for f in failures]
    size_text = f"{len(sizes)} sizes, {sweep.format_bytes(sizes[0])} .. {sweep.format_bytes(sizes[-1])}"
    meta = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"),
            "command": "bench/compare " + shlex.join(argv), "commit": report.commit(root),
            "baseline": baseline, "machine": report.machine(),
            "load_before": load_before, "load_after": report.machine()["load"], "notes": notes,
            "versions": versions, "libs": chosen,
            "method": method(args.ops, size_text, sweep.describe_bands(sizes, args.quick), args.reps)}
    return {"meta": meta, "limits": limits, "samples": samples, "failures": failures}


def publish_doc(doc, meta, grouped, chosen, evaluation, limits, out, plot_names):
    """Rewrites the marked block of `doc` with the run's summary, copies the
    plots to perf/ beside it, and writes the whole report, dated, to
    results/ beside it (where the document links it)."""
    doc_dir = os.path.dirname(os.path.abspath(doc))
    os.makedirs(os.path.join(doc_dir, "perf"), exist_ok=True)
    for name in plot_names:
        shutil.copy(os.path.join(out, "plots", name), os.path.join(doc_dir, "perf", name))
    whole = "results/" + results_name(meta)
    os.makedirs(os.path.join(doc_dir, "results"), exist_ok=True)
    with open(os.path.join(doc_dir, whole), "w", encoding="utf-8") as f:
        f.write(f"# Side-by-side run of {meta['date']} (UTC)\n\nThe whole report of the run that "
                f"`bench/compare --doc` summarised in {os.path.basename(doc)} (its plots went to perf/ beside "
                "that document).\n\n" + render(meta, grouped, chosen, evaluation, limits, [], 2, True))
    summary = render(meta, grouped, chosen, evaluation, limits, [(n, "perf/" + n) for n in plot_names],
                     in_docs=True, whole_report=whole)
    with open(doc, encoding="utf-8") as f:
        old = f.read()
    with open(doc, "w", encoding="utf-8") as f:
        f.write(report.rewrite_block(old, summary))


def publish(args, record):
    """Writes compare.md, compare.json and the plots into --out, rewrites the
    --doc block, prints the markdown. Returns the exit status."""
    meta, samples, limits = record["meta"], record["samples"], record["limits"]
    chosen = meta["libs"]
    grouped = results.aggregate(samples)
    evaluation = targets.evaluate(grouped, [lib for lib in chosen if lib in libraries.PEERS])
    os.makedirs(args.out, exist_ok=True)
    plot_names = []
    reason = plots.available()
    if reason:
        meta["notes"].append(f"no plots: {reason}")
    elif grouped:
        plot_names = plots.draw(grouped, chosen, os.path.join(args.out, "plots"))
    text = render(meta, grouped, chosen, evaluation, limits, [(n, "plots/" + n) for n in plot_names])
    with open(os.path.join(args.out, "compare.md"), "w", encoding="utf-8") as f:
        f.write(text)
    summary = {f"{op} {ranks}": {lib: {str(b): c for b, c in cells.items()} for lib, cells in libs.items()}
               for (op, ranks), libs in grouped.items()}
    with open(os.path.join(args.out, "compare.json"), "w", encoding="utf-8") as f:
        json.dump(dict(record, summary=summary, targets=evaluation), f, indent=1)
    if args.doc:
        publish_doc(args.doc, meta, grouped, chosen, evaluation, limits, args.out, plot_names)
    print(text)
    wrong = sum(s["errors"] for s in samples)
    if wrong:
        log(f"compare: {wrong} wrong elements in --check")
    return 1 if wrong or record["failures"] else 0


def main(argv):
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, _exit_on_signal)
    if args.from_json:
        with open(args.from_json, encoding="utf-8") as f:
            record = {key: value for key, value in json.load(f).items()
                      if key in ("meta", "limits", "samples", "failures")}
    else:
        record = measure(args, argv)
        if isinstance(record, int):
            return record
    return publish(args, record)
