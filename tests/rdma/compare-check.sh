#!/bin/bash
# compare-check.sh - bench/compare where an RDMA device is active: a quick
# rcoll-only sweep (2 ranks, 1 repetition) must measure rcoll over rdma next
# to rcoll over tcp, with every element of every size checked. Asserts, from
# the tool's own outputs, that
#   - the tool exits 0, says the device is active, and the rcoll-rdma jobs
#     report the rdma transport (rcoll-bench's own header, not the flag);
#   - compare.json has an rcoll-rdma sample for every size of the quick
#     sweep and both ops, each with a time and 0 wrong elements, and no
#     failed job;
#   - compare.md's tables have the "rcoll rdma" column.
# The guest has no compiler and no matplotlib: the physical-limit probes and
# the plots are left out with a note, which is what the tool must do there.
# Run from the source root (/work in the guest; needs bench/ and tools/).
#
# usage: compare-check.sh [OUT_DIR]          (default: a temporary directory)
set -u

OUT=${1:-$(mktemp -d /tmp/compare-check.XXXXXX)}
bench/compare --libs rcoll --quick --ranks 2 --reps 1 --job-timeout 240 --out "$OUT" || {
	echo "compare-check: bench/compare failed (exit $?)"
	exit 1
}
python3 - "$OUT" <<'PY' || exit 1
import json, os, sys
sys.path.insert(0, "bench")
from compare_lib import sweep

out = sys.argv[1]
with open(os.path.join(out, "compare.json"), encoding="utf-8") as f:
    doc = json.load(f)
problems = []
notes = " / ".join(doc["meta"]["notes"])
if "rcoll-rdma" not in doc["meta"]["libs"] or "is active" not in notes:
    problems.append(f"rcoll over rdma was not chosen; libs {doc['meta']['libs']}, notes: {notes}")
if doc["meta"]["versions"].get("rcoll-rdma") != "rdma":
    problems.append(f"the rcoll-rdma jobs ran over {doc['meta']['versions'].get('rcoll-rdma')!r}, not rdma")
if doc["failures"]:
    problems.append(f"failed jobs: {doc['failures']}")
rdma = {(s["op"], s["bytes"]): s for s in doc["samples"] if s["lib"] == "rcoll-rdma"}
for op in ("allreduce", "bcast"):
    for size in sweep.quick_sizes():
        s = rdma.get((op, size))
        if s is None:
            problems.append(f"no rcoll-rdma sample for {op} {size} B")
        elif s["errors"] != 0 or not s["time_us"] > 0:
            problems.append(f"rcoll-rdma {op} {size} B: {s['errors']} wrong elements, {s['time_us']} us")
with open(os.path.join(out, "compare.md"), encoding="utf-8") as f:
    if "| rcoll rdma µs |" not in f.read():
        problems.append("compare.md has no rcoll rdma column")
for p in problems:
    print("compare-check:", p)
print(f"compare-check: {len(rdma)} rcoll-rdma samples, {len(problems)} problems")
sys.exit(1 if problems else 0)
PY
