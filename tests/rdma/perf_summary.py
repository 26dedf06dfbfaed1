#!/usr/bin/env python3
"""Summary of a tests/rdma/perf.sh run: medians over repetitions and the
rcoll/perftest ratios, as markdown (summary.md) and JSON (summary.json).

usage: perf_summary.py PERF_DIR    (the folder with meta.txt and raw/)

Reads raw/r<rep>-<name>.txt (perftest client output) and .json (rcoll-p2p,
rcoll-bench). Missing or unreadable runs are left out and named. Runs on the
host too, on a copied result folder.
"""

import json
import os
import re
import statistics
import sys

LAT_TARGET = 1.2  # rcoll eager latency / ib_send_lat, at most
BW_TARGET = 0.9   # rcoll rendezvous bandwidth / ib_write_bw, at least

PERFTEST_COLUMNS = {
    "ib_send_lat": ["bytes", "iters", "t_min_us", "t_max_us", "t_typical_us", "t_avg_us",
                    "t_stdev_us", "p99_us", "p999_us"],
    "ib_write_bw": ["bytes", "iters", "bw_peak_gbps", "bw_avg_gbps", "msg_rate_mpps"],
}


def perftest_row(path, tool):
    """The result row of a perftest client output as {column: float}."""
    with open(path) as f:
        header = False
        for line in f:
            if "#bytes" in line:
                header = True
                continue
            fields = line.split()
            if header and len(fields) >= 5 and fields[0].isdigit():
                return dict(zip(PERFTEST_COLUMNS[tool], map(float, fields)))
    raise ValueError(f"{path}: no result row")


def rcoll_results(path):
    with open(path) as f:
        return json.load(f)["results"]


def load_runs(raw):
    """{name: {rep: parsed output}} and the runs without numbers. A run is
    expected wherever perf.sh left its r<rep>-<name>.cmd."""
    runs, problems = {}, []
    for entry in sorted(os.listdir(raw)):
        m = re.fullmatch(r"r(\d+)-(\w+)\.cmd", entry)
        if not m:
            continue
        rep, name = int(m.group(1)), m.group(2)
        perftest = name in PERFTEST_COLUMNS
        path = os.path.join(raw, f"r{rep}-{name}." + ("txt" if perftest else "json"))
        try:
            runs.setdefault(name, {})[rep] = perftest_row(path, name) if perftest else rcoll_results(path)
        except (OSError, ValueError, LookupError) as error:
            problems.append(f"r{rep}-{name}: {error}")
    return runs, problems


def series(runs, name, pick):
    """{rep: the value `pick` takes from that repetition's run}, where it has one."""
    out = {}
    for rep, run in runs.get(name, {}).items():
        try:
            out[rep] = float(pick(run))
        except (LookupError, TypeError, ValueError):
            pass
    return out


def first(key):
    return lambda results: results[0][key]


def at_bytes(nbytes, key):
    return lambda results: next(r[key] for r in results if r["bytes"] == nbytes)


def med(values):
    """Median of a {rep: value} series; None when empty."""
    return statistics.median(values.values()) if values else None


def ratio_series(num, den):
    """Per repetition that has both: num / den."""
    return {rep: num[rep] / den[rep] for rep in sorted(num) if rep in den and den[rep]}


def fmt(value, digits=2):
    return "-" if value is None else f"{value:.{digits}f}"


def cell(values, reps, digits=2):
    """'median [rep 1, rep 2, ...]', '-' for a repetition without a value."""
    if not values:
        return "-"
    return f"{fmt(med(values), digits)} [{', '.join(fmt(values.get(r), digits) for r in reps)}]"


def point_to_point(runs):
    lat = {
        "perftest": series(runs, "ib_send_lat", lambda r: r["t_typical_us"]),
        "rdma": series(runs, "p2p_lat_rdma", first("t_median_us")),
        "tcp": series(runs, "p2p_lat_tcp", first("t_median_us")),
    }
    lat_min = {
        "perftest": series(runs, "ib_send_lat", lambda r: r["t_min_us"]),
        "rdma": series(runs, "p2p_lat_rdma", first("t_min_us")),
        "tcp": series(runs, "p2p_lat_tcp", first("t_min_us")),
    }
    bw = {
        "perftest": series(runs, "ib_write_bw", lambda r: r["bw_avg_gbps"]),
        "rdma": series(runs, "p2p_bw_rdma", first("bw_median_Gbps")),
        "tcp": series(runs, "p2p_bw_tcp", first("bw_median_Gbps")),
    }
    return lat, lat_min, bw


def ratio_entry(label, num, den, target, better):
    paired = ratio_series(num, den)
    value = med(num) / med(den) if num and den and med(den) else None
    met = None if value is None else (value <= target if better == "le" else value >= target)
    return {"ratio": label, "value": value, "per_rep": paired, "target": target, "op": better, "met": met}


def collectives(runs):
    rows = []
    for op in ("allreduce", "bcast"):
        sizes = sorted({r["bytes"] for rep in runs.get(f"{op}_rdma", {}).values() for r in rep})
        for nbytes in sizes:
            rdma = series(runs, f"{op}_rdma", at_bytes(nbytes, "time_us"))
            tcp = series(runs, f"{op}_tcp", at_bytes(nbytes, "time_us"))
            rows.append({"op": op, "bytes": nbytes, "rdma_us": rdma, "tcp_us": tcp,
                         "tcp_over_rdma": med(tcp) / med(rdma) if rdma and tcp and med(rdma) else None})
    return rows


def markdown(meta, reps, tables, problems):
    """`reps`: every repetition number; `tables`: (lat, lat_min, bw, ratios, coll)."""
    lat, lat_min, bw, ratios, coll = tables

    def c(values, digits=2):
        return cell(values, reps, digits)

    lines = [f"### rcoll vs perftest in one Soft-RoCE guest run ({len(reps)} repetitions, alternated)", ""]
    lines.append(f"Guest: kernel {meta.get('kernel', '?')}, {meta.get('cpus', '?')} vCPUs (TCG), "
                 f"{meta.get('device', '?')} (GID index {meta.get('gid_index', '?')}); {meta.get('guest_date', '?')}"
                 + (f"; rcoll env: `{meta['rcoll_env']}`" if meta.get("rcoll_env") else "") + ".")
    lines += ["Cells: median over repetitions [each repetition]. TCG timings are emulated: "
              "compare ratios, not absolute values.", ""]
    lines += ["| test | size | perftest (verbs) | rcoll rdma | rcoll tcp |", "| --- | --- | --- | --- | --- |"]
    lines.append(f"| latency, half round trip, median µs | 8 B | {c(lat['perftest'])} | "
                 f"{c(lat['rdma'])} | {c(lat['tcp'])} |")
    lines.append(f"| latency, half round trip, minimum µs | 8 B | {c(lat_min['perftest'])} | "
                 f"{c(lat_min['rdma'])} | {c(lat_min['tcp'])} |")
    lines.append(f"| bandwidth, Gb/s | 1 MiB | {c(bw['perftest'], 3)} | {c(bw['rdma'], 3)} | "
                 f"{c(bw['tcp'], 3)} |")
    lines += ["", "| ratio | value | per repetition | target | met |", "| --- | --- | --- | --- | --- |"]
    for r in ratios:
        sign = "≤" if r["op"] == "le" else "≥"
        met = "-" if r["met"] is None else ("yes" if r["met"] else "no")
        per_rep = ", ".join(fmt(r["per_rep"].get(rep)) for rep in reps) if r["per_rep"] else "-"
        lines.append(f"| {r['ratio']} | {fmt(r['value'])} | {per_rep} | {sign} {r['target']} | {met} |")
    if coll:
        lines += ["", "rcoll-bench, 2 ranks, median time per operation in µs:", "",
                  "| op | bytes | rdma | tcp | tcp / rdma |", "| --- | --- | --- | --- | --- |"]
        for row in coll:
            lines.append(f"| {row['op']} | {row['bytes']} | {c(row['rdma_us'], 1)} | "
                         f"{c(row['tcp_us'], 1)} | {fmt(row['tcp_over_rdma'])} |")
    if problems:
        lines += ["", "Runs without numbers: " + "; ".join(problems)]
    return "\n".join(lines) + "\n"


def read_meta(perf_dir):
    meta = {}
    try:
        with open(os.path.join(perf_dir, "meta.txt")) as f:
            for line in f:
                key, _, value = line.strip().partition("=")
                if key:
                    meta[key] = value
    except OSError:
        pass
    return meta


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    perf_dir = argv[1]
    runs, problems = load_runs(os.path.join(perf_dir, "raw"))
    lat, lat_min, bw = point_to_point(runs)
    ratios = [
        ratio_entry("rcoll rdma eager latency / ib_send_lat (8 B, median)", lat["rdma"], lat["perftest"],
                    LAT_TARGET, "le"),
        ratio_entry("rcoll rdma eager latency / ib_send_lat (8 B, minimum)", lat_min["rdma"],
                    lat_min["perftest"], LAT_TARGET, "le"),
        ratio_entry("rcoll rdma rendezvous bw / ib_write_bw (1 MiB)", bw["rdma"], bw["perftest"],
                    BW_TARGET, "ge"),
    ]
    coll = collectives(runs)
    meta = read_meta(perf_dir)
    reps = sorted({rep for by_rep in runs.values() for rep in by_rep})
    with open(os.path.join(perf_dir, "summary.md"), "w") as f:
        f.write(markdown(meta, reps, (lat, lat_min, bw, ratios, coll), problems))
    with open(os.path.join(perf_dir, "summary.json"), "w") as f:
        json.dump({"meta": meta, "latency_us": lat, "latency_min_us": lat_min, "bandwidth_gbps": bw,
                   "ratios": ratios, "collectives": coll, "problems": problems}, f, indent=1)
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
