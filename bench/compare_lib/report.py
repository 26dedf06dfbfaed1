"""Markdown tables, the machine description, the limits section and the
rewrite of the marked block in a document."""

import os
import platform
import re
import shlex
import subprocess

from . import results, sweep
from .libs import LIBRARIES, PEERS
from .sweep import format_bytes

BEGIN, END = "<!-- compare:begin -->", "<!-- compare:end -->"
DOC_HEADING = "## Side by side with Open MPI, MPICH and Gloo"


def machine():
    """uname -a, CPU count and model, load average, as a dict of strings."""
    uname = subprocess.run(["uname", "-a"], capture_output=True, text=True, check=False).stdout.strip()
    model = "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            found = re.search(r"^model name\s*:\s*(.+)$", f.read(), re.M)
            model = found.group(1).strip() if found else model
    except OSError:
        pass
    return {"uname": uname or platform.platform(), "nproc": str(len(os.sched_getaffinity(0))),
            "cpu": model, "load": " ".join(f"{x:.2f}" for x in os.getloadavg())}


def commit(tree):
    """The commit checked out in `tree` (short hash), with " + uncommitted
    changes" when tracked files differ from it; "unknown" without git."""
    try:
        head = subprocess.run(["git", "-C", tree, "rev-parse", "--short=7", "HEAD"],
                              capture_output=True, text=True, check=False)
        if head.returncode != 0:
            return "unknown"
        changed = subprocess.run(["git", "-C", tree, "status", "--porcelain", "--untracked-files=no"],
                                 capture_output=True, text=True, check=False)
    except OSError:  # no git (the RDMA guest)
        return "unknown"
    return head.stdout.strip() + (" + uncommitted changes" if changed.stdout.strip() else "")


def public_command(command):
    """The command as a document shows it: without --out DIR, where this
    machine kept the outputs (a document has its own copies)."""
    words, shown, skip = shlex.split(command), [], False
    for word in words:
        if skip:
            skip = False
        elif word == "--out":
            skip = True
        elif not word.startswith("--out="):
            shown.append(word)
    return shlex.join(shown)


def _fmt_time(us):
    return "-" if us is None else f"{us:.1f}" if us < 1000 else f"{us:.0f}"


def _fmt_bw(gbps):
    return "-" if gbps is None else f"{gbps:.3f}" if gbps < 10 else f"{gbps:.2f}"


def table(op, ranks, libs, order, peers):
    """One markdown table: per size each library's median time (µs) and
    busbw (GB/s), the best peer, rcoll's ratio to it and the error counts."""
    present = [lib for lib in order if lib in libs]
    head = ["size"]
    for lib in present:
        head += [f"{LIBRARIES[lib].label} µs", "GB/s"]
    head += ["best peer", "rcoll ÷ best", "errors rcoll", "errors peers"]
    lines = ["| " + " | ".join(head) + " |", "| --- " + "| ---: " * (len(head) - 1) + "|"]
    sizes = sorted({b for lib in present for b in libs[lib]})
    for nbytes in sizes:
        cells = [format_bytes(nbytes)]
        for lib in present:
            cell = libs[lib].get(nbytes)
            cells += [_fmt_time(cell and cell["time_us"]), _fmt_bw(cell and cell["busbw_GBps"])]
        peer, peer_us = results.best_peer(libs, nbytes, peers)
        rcoll = libs.get("rcoll", {}).get(nbytes)
        value = results.ratio(rcoll["time_us"] if rcoll else None, peer_us)
        cells.append(LIBRARIES[peer].label if peer else "-")
        cells.append("-" if value is None else f"{value:.2f}")
        cells.append(str(rcoll["errors"]) if rcoll else "-")
        peer_errors = [libs[p][nbytes]["errors"] for p in peers if p in libs and nbytes in libs[p]]
        cells.append(str(sum(peer_errors)) if peer_errors else "-")
        lines.append("| " + " | ".join(cells) + " |")
    return f"### {op}, {ranks} ranks\n\n" + "\n".join(lines)


def _ratio_at(found, pick):
    nbytes = pick(found, key=found.get)
    return f"{found[nbytes]:.2f} ({format_bytes(nbytes)})"


def baseline_markdown(grouped, per_size=False):
    """rcoll against rcoll-base (--baseline-build) in the same run: per (op,
    ranks) the median, best and worst of rcoll's time ÷ the baseline's up to
    the end of the small band (64 KiB) and of rcoll's busbw ÷ the baseline's
    above it; with per_size, also a table per (op, ranks) with both ratios
    at every size. "" when no baseline ran."""
    pairs = [(key, libs) for key, libs in sorted(grouped.items()) if "rcoll" in libs and "rcoll-base" in libs]
    if not pairs:
        return ""
    small = sweep.BANDS[0][1]
    lines = [f"{LIBRARIES['rcoll'].label} against {LIBRARIES['rcoll-base'].label} at the same sizes (medians "
             f"over repetitions): time rcoll ÷ baseline up to {format_bytes(small)} (< 1: faster than the "
             "baseline), busbw rcoll ÷ baseline above (> 1: faster than the baseline).", "",
             "| op | ranks | sizes | ratio | median | best (at) | worst (at) |",
             "| --- | ---: | --- | --- | ---: | --- | --- |"]
    for (op, ranks), libs in pairs:
        time_ratio = results.versus(libs, "rcoll", "rcoll-base", 0, small)
        busbw_ratio = {b: 1 / v for b, v in results.versus(libs, "rcoll", "rcoll-base", small + 1,
                                                           sweep.MAX_BYTES).items()}
        for name, found, best, worst in (("time rcoll ÷ baseline", time_ratio, min, max),
                                         ("busbw rcoll ÷ baseline", busbw_ratio, max, min)):
            if found:
                sizes = f"{format_bytes(min(found))} .. {format_bytes(max(found))}"
                lines.append(f"| {op} | {ranks} | {sizes} | {name} | {results.median(list(found.values())):.2f} "
                             f"| {_ratio_at(found, best)} | {_ratio_at(found, worst)} |")
    if per_size:
        for (op, ranks), libs in pairs:
            base = libs["rcoll-base"]
            lines += ["", f"{op}, {ranks} ranks:", "",
                      "| size | rcoll µs | baseline µs | time ÷ | rcoll GB/s | baseline GB/s | busbw ÷ |",
                      "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
            for nbytes, cell in sorted(libs["rcoll"].items()):
                other = base.get(nbytes)
                value = results.versus(libs, "rcoll", "rcoll-base", nbytes, nbytes).get(nbytes)
                lines.append(f"| {format_bytes(nbytes)} | {_fmt_time(cell['time_us'])} "
                             f"| {_fmt_time(other and other['time_us'])} | {'-' if value is None else f'{value:.2f}'} "
                             f"| {_fmt_bw(cell['busbw_GBps'])} | {_fmt_bw(other and other['busbw_GBps'])} "
                             f"| {'-' if value is None else f'{1 / value:.2f}'} |")
    return "\n".join(lines)


def limits_markdown(limits, grouped, against=True):
    """The physical limits and, with `against`, rcoll's large-message busbw
    as a fraction of the bandwidth ceilings and small-message times as
    multiples of the one-way latency floor (rcoll's and the best peer's)."""
    if not limits:
        return "Physical limits: not measured."
    parts = [_bandwidth_limits(limits, grouped, against), _latency_floor(limits, grouped, against)]
    return "\n\n".join(part for part in parts if part)


def _bandwidth_limits(limits, grouped, against):
    probes = [(t, label) for t, label in (("tcp_stream", "single-stream TCP over 127.0.0.1"),
                                           ("memcpy_bw", "memcpy, one core")) if t in limits]
    if not probes:
        return ""
    sizes = sorted({r["bytes"] for tool, _ in probes for r in limits[tool]["results"]})
    lines = ["| physical limit (GB/s, median) | " + " | ".join(format_bytes(s) for s in sizes) + " |",
             "| --- " + "| ---: " * len(sizes) + "|"]
    value = {(tool, r["bytes"]): r["GBps"] for tool, _ in probes for r in limits[tool]["results"]}
    for tool, label in probes:
        lines.append(f"| {label} | " + " | ".join(f"{value.get((tool, s), 0):.3f}" for s in sizes) + " |")
    if not against:
        return "\n".join(lines)
    big = [s for s in sizes if s >= 1 << 20]
    lines += ["", "rcoll busbw as a fraction of those limits (same size):", "",
              "| op | ranks | size | rcoll busbw GB/s | ÷ TCP stream | ÷ memcpy |", "| --- | ---: | --- | ---: | ---: | ---: |"]
    for (op, ranks), libs in sorted(grouped.items()):
        for s in big:
            cell = libs.get("rcoll", {}).get(s)
            if not cell:
                continue
            frac = [f"{cell['busbw_GBps'] / value[(t, s)]:.2f}" if value.get((t, s)) else "-"
                    for t in ("tcp_stream", "memcpy_bw")]
            lines.append(f"| {op} | {ranks} | {format_bytes(s)} | {cell['busbw_GBps']:.3f} | {frac[0]} | {frac[1]} |")
    return "\n".join(lines)


def _latency_floor(limits, grouped, against):
    if "tcp_pingpong" not in limits:
        return ""
    floor = {r["bytes"]: r["us"] for r in limits["tcp_pingpong"]["results"]}
    sizes = sorted(floor)
    lines = ["| physical limit (µs, median) | " + " | ".join(format_bytes(s) for s in sizes) + " |",
             "| --- " + "| ---: " * len(sizes) + "|",
             "| one-way TCP latency over 127.0.0.1 (half a round trip, both ends polling) | "
             + " | ".join(f"{floor[s]:.2f}" for s in sizes) + " |"]
    if not against:
        return "\n".join(lines)
    lines += ["", "Small-message times as multiples of that floor (same size):", "",
              "| op | ranks | size | rcoll µs | ÷ floor | best peer | its µs | ÷ floor |",
              "| --- | ---: | --- | ---: | ---: | --- | ---: | ---: |"]
    for (op, ranks), libs in sorted(grouped.items()):
        for s in sizes:
            cell = libs.get("rcoll", {}).get(s)
            peer, peer_us = results.best_peer(libs, s, PEERS)
            if not cell and not peer:
                continue
            ours = cell["time_us"] if cell else None
            lines.append(f"| {op} | {ranks} | {format_bytes(s)} | {_fmt_time(ours)} | {_multiple(ours, floor[s])} | "
                         f"{LIBRARIES[peer].label if peer else '-'} | {_fmt_time(peer_us)} | "
                         f"{_multiple(peer_us, floor[s])} |")
    return "\n".join(lines)


def _multiple(us, floor_us):
    return "-" if us is None or not floor_us else f"{us / floor_us:.1f}"


def _marker_at(text, marker, start=0):
    """Where `marker` stands on a line of its own in `text` from `start`, or
    None (a marker quoted in the document's prose does not count)."""
    found = re.compile(rf"^{re.escape(marker)}$", re.M).search(text, start)
    return found.start() if found else None


def rewrite_block(text, block):
    """`text` with the part between the markers (each on a line of its own)
    replaced by `block`; the heading and markers are appended when the
    markers are missing."""
    begin = _marker_at(text, BEGIN)
    end = None if begin is None else _marker_at(text, END, begin)
    if end is not None:
        return f"{text[:begin]}{BEGIN}\n{block.strip()}\n{text[end:]}"
    return f"{text.rstrip()}\n\n{DOC_HEADING}\n\n{BEGIN}\n{block.strip()}\n{END}\n"
