"""The issue's targets, evaluated on one run's aggregated results (pure)."""

from . import results, sweep
from .sweep import format_bytes

KIB, MIB = 1 << 10, 1 << 20
# rcoll busbw >= this x best peer, 256 KiB .. 64 MiB: 1.25 for allreduce and
# bcast (their issue's target), at least the best peer's for the MPI-style set.
BANDWIDTH_RATIO = {"allreduce": 1.25, "bcast": 1.25}
DEFAULT_BANDWIDTH_RATIO = 1.0
LATENCY_RATIO = 1.0     # rcoll time <= best peer's, 8 B .. 4 KiB


def _row(name, op, ranks, libs, peers, lo, hi, goal):
    found = results.ratios(libs, "rcoll", peers, lo, hi)
    if not found:
        return {"target": name, "op": op, "ranks": ranks, "range": [lo, hi], "goal": goal,
                "sizes": 0, "met_sizes": 0, "min": None, "median": None, "worst_bytes": None, "met": None}
    worst = min(found, key=found.get)
    met = sum(1 for v in found.values() if v >= goal)
    return {"target": name, "op": op, "ranks": ranks, "range": [lo, hi], "goal": goal, "sizes": len(found),
            "met_sizes": met, "min": found[worst], "median": results.median(list(found.values())),
            "worst_bytes": worst, "met": met == len(found)}


def _cliffs_of(cells):
    return results.cliffs({b: cell["busbw_GBps"] for b, cell in cells.items()})


def evaluate(grouped, peers):
    """Rows for every (target, op, ranks) present; rcoll's cliffs, each with
    the repetitions it shows in; and how many cliffs each peer has in the
    same run by the same rule (a yardstick for the machine's noise)."""
    rows, cliffs, peer_cliffs = [], [], []
    for (op, ranks), libs in sorted(grouped.items()):
        if "rcoll" not in libs:
            continue
        if any(p in libs for p in peers):
            rows.append(_row("bandwidth", op, ranks, libs, peers, 256 * KIB, 64 * MIB,
                             BANDWIDTH_RATIO.get(op, DEFAULT_BANDWIDTH_RATIO)))
            rows.append(_row("latency", op, ranks, libs, peers, 8, 4 * KIB, LATENCY_RATIO))
        own = _cliffs_of(libs["rcoll"])
        for lo, hi, drop in own:
            shown, reps = results.cliff_repetitions(libs["rcoll"], lo, hi)
            cliffs.append({"op": op, "ranks": ranks, "from": lo, "to": hi, "drop": drop, "in_reps": shown,
                           "reps": reps, "across_jobs": sweep.band_of(lo) != sweep.band_of(hi)})
        counts = {p: len(_cliffs_of(libs[p])) for p in peers if p in libs}
        if counts:
            peer_cliffs.append({"op": op, "ranks": ranks, "rcoll": len(own), "peers": counts})
    return {"rows": rows, "cliffs": cliffs, "peer_cliffs": peer_cliffs}


def markdown(evaluation, list_cliffs=True):
    """The targets as a markdown table plus the list of cliffs (without
    list_cliffs, only how many) and the cliff counts of every library."""
    lines = ["| target | op | ranks | sizes | goal (rcoll vs best peer) | worst ratio (at) | median ratio "
             "| sizes met | met |", "| --- | --- | ---: | --- | --- | --- | ---: | ---: | --- |"]
    for r in evaluation["rows"]:
        lo, hi = (format_bytes(b) for b in r["range"])
        goal = f"busbw ≥ {r['goal']:.2f}×" if r["target"] == "bandwidth" else "time ≤ best peer's"
        if r["min"] is None:
            lines.append(f"| {r['target']} | {r['op']} | {r['ranks']} | {lo} .. {hi} | {goal} | - | - | 0/0 | - |")
            continue
        lines.append(f"| {r['target']} | {r['op']} | {r['ranks']} | {lo} .. {hi} | {goal} "
                     f"| {r['min']:.2f} ({format_bytes(r['worst_bytes'])}) | {r['median']:.2f} "
                     f"| {r['met_sizes']}/{r['sizes']} | {'yes' if r['met'] else 'no'} |")
    lines.append("")
    lines.append("Ratio = best peer's time / rcoll's time at the same size (= rcoll busbw / best peer busbw).")
    lines.append("")
    if evaluation["cliffs"] and not list_cliffs:
        lines.append(f"rcoll cliffs (busbw drops > 15 % to the next larger size, from 64 KiB up): "
                     f"{len(evaluation['cliffs'])}, listed in the whole report.")
    elif evaluation["cliffs"]:
        lines.append("rcoll cliffs (busbw drops > 15 % to the next larger size, from 64 KiB up; in how many "
                     "repetitions the drop shows too):")
        for c in evaluation["cliffs"]:
            apart = "; the two sizes ran in different jobs (bands)" if c.get("across_jobs") else ""
            lines.append(f"- {c['op']} {c['ranks']} ranks: {format_bytes(c['from'])} → "
                         f"{format_bytes(c['to'])}: −{100 * c['drop']:.0f} % ({c['in_reps']} of {c['reps']}{apart})")
    else:
        lines.append("rcoll cliffs (busbw drops > 15 % to the next larger size, from 64 KiB up): none.")
    if evaluation.get("peer_cliffs"):
        lines.append("")
        lines.append("Cliffs by the same rule, every library in this run:")
        lines.append("")
        peers = sorted({p for row in evaluation["peer_cliffs"] for p in row["peers"]})
        lines.append("| op | ranks | rcoll | " + " | ".join(peers) + " |")
        lines.append("| --- | ---: | ---: | " + " | ".join("---:" for _ in peers) + " |")
        for row in evaluation["peer_cliffs"]:
            cells = " | ".join(str(row["peers"].get(p, "-")) for p in peers)
            lines.append(f"| {row['op']} | {row['ranks']} | {row['rcoll']} | {cells} |")
    return "\n".join(lines)
