"""Pure functions over benchmark results: parsing rcoll-bench-shaped JSON,
medians over repetitions, the busbw convention, ratios and cliffs.

A sample is one size of one job: {"lib", "op", "ranks", "bytes", "rep",
"time_us", "errors", ...}. Every library's time is the median over its
iterations of the slowest rank's time, measured by the same loop
(bench/rcoll-bench/runner.cpp, bench/peers/common/peer_runner.hpp).
"""

import json

RESULT_KEYS = ("bytes", "count", "time_us", "algbw_GBps", "busbw_GBps", "errors")
# Every op the comparison knows, in report order; --ops takes these names
# (rcoll-bench's and the peers' --op names).
OPS = ("allreduce", "bcast", "reduce", "allgather", "reduce_scatter", "alltoall", "gather", "scatter")
# The ops that split the size into one block per rank (sweep.op_sizes).
BLOCKED_OPS = ("allgather", "reduce_scatter", "alltoall", "gather", "scatter")
META_KEYS = ("op", "ranks", "iters", "warmup")


def median(values):
    """The median of a non-empty sequence (mean of the middle two if even)."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("median of nothing")
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def bus_factor(op, ranks):
    """nccl-tests: busbw = algbw * 2(n-1)/n for allreduce, (n-1)/n for
    allgather, reduce_scatter and alltoall, 1 for bcast, reduce, gather and
    scatter (the same factors as bench/peers/common/peer_layout.hpp)."""
    if op == "allreduce":
        return 2.0 * (ranks - 1) / ranks
    if op in ("allgather", "reduce_scatter", "alltoall"):
        return (ranks - 1) / ranks
    if op in ("bcast", "reduce", "gather", "scatter"):
        return 1.0
    raise ValueError(f"unknown op {op!r}")


def busbw_gbps(op, ranks, nbytes, time_us):
    """Bus bandwidth in GB/s (1e9 bytes/s) of `nbytes` done in `time_us`."""
    if time_us <= 0:
        return 0.0
    return nbytes / (time_us * 1e-6) / 1e9 * bus_factor(op, ranks)


def parse_bench_json(text):
    """Reads one rcoll-bench / peer JSON document; raises ValueError if a
    required key is missing."""
    doc = json.loads(text)
    meta, rows = doc.get("meta"), doc.get("results")
    if not isinstance(meta, dict) or not isinstance(rows, list):
        raise ValueError("not a benchmark document: needs 'meta' and 'results'")
    for key in META_KEYS:
        if key not in meta:
            raise ValueError(f"meta lacks {key!r}")
    for row in rows:
        for key in RESULT_KEYS:
            if key not in row:
                raise ValueError(f"result lacks {key!r}: {row}")
    return doc


def aggregate(samples):
    """Groups samples as {(op, ranks): {lib: {bytes: cell}}}, where cell is
    {"time_us": median over repetitions, "busbw_GBps": from that median,
    "errors": sum over repetitions, "reps_us": each repetition's time}."""
    grouped = {}
    # In repetition order (stable), so that reps_us[k] is repetition k's
    # time wherever every repetition produced the size.
    for s in sorted(samples, key=lambda s: s.get("rep", 0)):
        cell = grouped.setdefault((s["op"], s["ranks"]), {}).setdefault(s["lib"], {}).setdefault(
            s["bytes"], {"reps_us": [], "errors": 0})
        cell["reps_us"].append(s["time_us"])
        cell["errors"] += s["errors"]
    for (op, ranks), libs in grouped.items():
        for cells in libs.values():
            for nbytes, cell in cells.items():
                cell["time_us"] = median(cell["reps_us"])
                cell["busbw_GBps"] = busbw_gbps(op, ranks, nbytes, cell["time_us"])
    return grouped


def best_peer(libs, nbytes, peers):
    """(name, time_us) of the fastest peer at `nbytes`, or (None, None)."""
    timed = [(libs[p][nbytes]["time_us"], p) for p in peers if p in libs and nbytes in libs[p]]
    if not timed:
        return None, None
    time_us, name = min(timed)
    return name, time_us


def ratio(time_us, best_peer_us):
    """How many times faster than the best peer: best peer time / own time
    (= own busbw / best peer busbw). > 1: faster; None when undefined."""
    if time_us is None or best_peer_us is None or time_us <= 0:
        return None
    return best_peer_us / time_us


def ratios(libs, lib, peers, lo, hi):
    """{bytes: ratio} of `lib` to the best peer for sizes in [lo, hi]."""
    out = {}
    for nbytes, cell in sorted(libs.get(lib, {}).items()):
        if lo <= nbytes <= hi:
            _, peer_us = best_peer(libs, nbytes, peers)
            value = ratio(cell["time_us"], peer_us)
            if value is not None:
                out[nbytes] = value
    return out


def versus(libs, lib, other, lo, hi):
    """{bytes: lib's time / other's time} for the sizes in [lo, hi] that both
    timed (< 1: `lib` is faster; its busbw ratio is the inverse)."""
    out = {}
    for nbytes, cell in sorted(libs.get(lib, {}).items()):
        theirs = libs.get(other, {}).get(nbytes)
        if lo <= nbytes <= hi and theirs and cell["time_us"] > 0 and theirs["time_us"] > 0:
            out[nbytes] = cell["time_us"] / theirs["time_us"]
    return out


def cliff_repetitions(cells, lo, hi, max_drop=0.15):
    """(k, n): in k of the n repetitions that timed both sizes, busbw
    (bytes / time) dropped more than max_drop from `lo` to `hi` bytes.
    cells: {bytes: cell} of one library (aggregate)."""
    pairs = list(zip(cells[lo]["reps_us"], cells[hi]["reps_us"]))
    dropped = sum(1 for t0, t1 in pairs if t0 > 0 and t1 > 0 and 1 - (hi / t1) / (lo / t0) > max_drop)
    return dropped, len(pairs)


def cliffs(series, start=64 << 10, max_drop=0.15):
    """Drops of more than max_drop in busbw from one size to the next larger,
    from `start` up. series: {bytes: busbw}. Returns [(from, to, drop)]."""
    points = sorted((b, v) for b, v in series.items() if b >= start)
    found = []
    for (b0, v0), (b1, v1) in zip(points, points[1:]):
        if v0 > 0 and (v0 - v1) / v0 > max_drop:
            found.append((b0, b1, (v0 - v1) / v0))
    return found
