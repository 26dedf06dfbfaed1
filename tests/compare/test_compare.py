"""Tests of bench/compare: the pure functions of compare_lib, one quick
rcoll-only run of the real tool (rcoll over loopback TCP, 2 ranks) whose
table, JSON, document block and dated report are checked, and one quick run
against a baseline build (--baseline-build: this build tree again).

RCOLL_SOURCE_DIR / RCOLL_BUILD_DIR (set by CTest) name the source and the
build tree; without RCOLL_BUILD_DIR the run test is skipped."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

SOURCE = os.environ.get("RCOLL_SOURCE_DIR") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))
sys.path.insert(0, os.path.join(SOURCE, "bench"))

from compare_lib import build, execute, libs, main, report, results, schedule, sweep, targets  # noqa: E402

MIB = 1 << 20


def cell(time_us, errors=0):
    return {"time_us": time_us, "busbw_GBps": 0.0, "errors": errors, "reps_us": [time_us]}


class PureFunctions(unittest.TestCase):
    def test_median(self):
        self.assertEqual(results.median([3, 1, 2]), 2)
        self.assertEqual(results.median([4, 1, 3, 2]), 2.5)
        with self.assertRaises(ValueError):
            results.median([])

    def test_busbw_convention(self):
        self.assertAlmostEqual(results.bus_factor("allreduce", 4), 1.5)
        self.assertAlmostEqual(results.bus_factor("allreduce", 2), 1.0)
        self.assertEqual(results.bus_factor("bcast", 4), 1.0)
        # 1e6 bytes in 1000 us = 1 GB/s algbw; 3 ranks: x 4/3.
        self.assertAlmostEqual(results.busbw_gbps("allreduce", 3, 1e6, 1000), 4 / 3)
        self.assertAlmostEqual(results.busbw_gbps("bcast", 3, 1e6, 1000), 1.0)
        with self.assertRaises(ValueError):
            results.bus_factor("barrier", 2)

    def test_busbw_convention_of_the_other_ops(self):
        # nccl-tests: (n-1)/n for allgather, reduce_scatter, alltoall; 1 for the rooted ones.
        for op in ("allgather", "reduce_scatter", "alltoall"):
            self.assertAlmostEqual(results.bus_factor(op, 4), 0.75, msg=op)
            self.assertAlmostEqual(results.busbw_gbps(op, 2, 1e6, 1000), 0.5, msg=op)
        for op in ("reduce", "gather", "scatter"):
            self.assertEqual(results.bus_factor(op, 4), 1.0, op)
        self.assertEqual(set(results.OPS), {"allreduce", "bcast", "reduce", "allgather", "reduce_scatter",
                                            "alltoall", "gather", "scatter"})

    def test_op_sizes_round_down_per_rank(self):
        sizes = [8, 20, 4096, 12288, 65540, MIB]
        # The vector ops keep every size (whole elements already).
        for op in ("allreduce", "bcast", "reduce"):
            self.assertEqual(sweep.op_sizes(op, 3, sizes), sizes)
        # 3 ranks: blocks of 8 // 12 = 0 (dropped), 20 // 12 -> 1 element each (12 B), 4096 -> 341 (4092 B),
        # 65540 -> 5461 (65532 B), 1 MiB -> 21845 (1048572 B).
        self.assertEqual(sweep.op_sizes("allgather", 3, sizes), [12, 4092, 12288, 65532, MIB - 4])
        # 4 ranks: 20 B and 16 B both give blocks of 1 element: one size, not two.
        self.assertEqual(sweep.op_sizes("alltoall", 4, [16, 20, 64]), [16, 64])
        # 64 KiB and 64 KiB+4 round to the same size with 3 ranks (and then sit in the small band only).
        self.assertEqual(sweep.op_sizes("gather", 3, [65536, 65540]), [65532])
        for op in results.BLOCKED_OPS:
            self.assertEqual(sweep.op_sizes(op, 2, [4, 8]), [8], op)

    def test_plan_runs_each_op_at_its_own_sizes_and_skips_ops_a_library_lacks(self):
        def bands(op, ranks):
            return sweep.bands(sweep.op_sizes(op, ranks, [8, 20, 4 * MIB + 4]))
        lacking = libs.Library("gloo", "Gloo (tcp)", (), (), lacks=("alltoall",))
        with mock.patch.dict(libs.LIBRARIES, {"gloo": lacking}):
            jobs = schedule.plan(["allreduce", "alltoall"], [3], bands, 1, ["openmpi", "gloo"])
        self.assertEqual([(j.op, j.band, j.sizes, j.lib) for j in jobs], [
            ("allreduce", "small", (8, 20), "openmpi"), ("allreduce", "small", (8, 20), "gloo"),
            ("allreduce", "large", (4 * MIB + 4,), "openmpi"), ("allreduce", "large", (4 * MIB + 4,), "gloo"),
            # 3 ranks: 8 B has no whole element per rank; 4 MiB+4 rounds down into the medium band.
            ("alltoall", "small", (12,), "openmpi"), ("alltoall", "medium", (4 * MIB - 4,), "openmpi")])
        self.assertTrue(libs.supports("gloo", "reduce_scatter"))

    def test_a_refused_op_is_not_run_again_and_wrong_sizes_are_dropped(self):
        jobs = schedule.plan(["allgather", "gather"], [2, 3], [("small", [8], 5, 1), ("large", [MIB], 2, 1)],
                             1, ["rcoll", "openmpi"])
        calls = []

        def fake_job(lib, op, ranks, sizes, iters, warmup, paths, timeout_s):
            calls.append((lib, op, ranks))
            if lib == "rcoll" and op == "allgather":
                return None, f"{execute.REFUSED} (exit status 2): rcoll-bench: unknown --op 'allgather'", 0.1
            rows = [{"bytes": s // 2 if lib == "rcoll" else s, "count": s // 4, "time_us": 1.0,
                     "algbw_GBps": 0.0, "busbw_GBps": 0.0, "errors": 0} for s in sizes]
            return {"meta": {"op": op, "ranks": ranks, "iters": iters, "warmup": warmup}, "results": rows}, None, 0.1
        with mock.patch.object(execute, "run_job", fake_job):
            samples, failures, _, _ = schedule.run(jobs, None, 60, log=lambda _: None)
        # rcoll's allgather: refused once, then no other band or rank count of it is tried.
        self.assertEqual(calls.count(("rcoll", "allgather", 2)), 1)
        self.assertNotIn(("rcoll", "allgather", 3), calls)
        # rcoll's gather reports other sizes than asked: each job fails (its band is not retried), no samples.
        self.assertEqual([c for c in calls if c[:2] == ("rcoll", "gather")], [("rcoll", "gather", 2)] * 2 +
                         [("rcoll", "gather", 3)] * 2)
        self.assertEqual({s["lib"] for s in samples}, {"openmpi"})
        self.assertEqual(len(samples), 2 * 2 * 2)  # 2 ops x 2 rank counts x 2 bands, one size each
        notes = [f["note"] for f in failures]
        self.assertTrue(notes[0].startswith(execute.REFUSED), notes)
        self.assertEqual(sum("another size convention" in n for n in notes), 4)

    def test_failed_job_notes_lead_with_the_complaint(self):
        def fake(status):
            script = ("import sys; print('# rcoll-bench: op allgather'); print('#  bytes count'); "
                      f"print('rcoll-bench: the complaint', file=sys.stderr); print('usage: ...'); sys.exit({status})")
            return lambda *args: ([sys.executable, "-c", script], {}, None)
        for status, start in ((1, r"exit status 1 after \d+ s: rcoll-bench: the complaint$"),
                              (2, re.escape(f"{execute.REFUSED} (exit status 2; no other job of this library and op "
                                            "is run): rcoll-bench: the complaint") + "$")):
            with mock.patch.object(libs, "job", fake(status)):
                doc, note, _ = execute.run_job("rcoll", "allgather", 2, [8], 1, 0, None, 30)
            self.assertIsNone(doc)
            self.assertRegex(note.splitlines()[0], start)

    def test_ops_on_the_command_line(self):
        self.assertEqual(main.parse_args(["--ops", "reduce_scatter,scatter"]).ops, ["reduce_scatter", "scatter"])
        self.assertEqual(main.parse_args([]).ops, ["allreduce", "bcast"])  # the default keeps CI time
        with mock.patch("sys.stderr"), self.assertRaises(SystemExit):
            main.parse_args(["--ops", "reduce-scatter"])

    def test_method_names_each_op_run(self):
        text = main.method(["allgather", "scatter"], "6 sizes", "small", 1)
        self.assertIn("allgather: a rank's receive buffer, scatter: the root's send buffer", text)
        self.assertIn("busbw: allgather algbw·(n−1)/n; scatter algbw.", text)
        plain = main.method(["allreduce", "bcast"], "6 sizes", "small", 1)
        self.assertIn("busbw: allreduce algbw·2(n−1)/n; bcast algbw.", plain)
        self.assertNotIn("nccl-tests", plain)
        self.assertIn("ReduceScatterHalvingDoubling", main.method(["reduce_scatter"], "6 sizes", "small", 1))

    def test_parse_bench_json(self):
        row = {"bytes": 8, "count": 2, "time_us": 5.0, "algbw_GBps": 0.0, "busbw_GBps": 0.0, "errors": 0}
        doc = {"meta": {"op": "bcast", "ranks": 2, "iters": 5, "warmup": 1}, "results": [row]}
        self.assertEqual(results.parse_bench_json(json.dumps(doc))["results"][0]["time_us"], 5.0)
        del row["errors"]
        with self.assertRaises(ValueError):
            results.parse_bench_json(json.dumps(doc))
        with self.assertRaises(ValueError):
            results.parse_bench_json('{"results": []}')

    def test_aggregate_takes_medians_over_repetitions(self):
        samples = [{"lib": "rcoll", "op": "allreduce", "ranks": 2, "bytes": 1000, "time_us": t, "errors": e}
                   for t, e in ((10.0, 0), (30.0, 1), (20.0, 0))]
        c = results.aggregate(samples)[("allreduce", 2)]["rcoll"][1000]
        self.assertEqual(c["time_us"], 20.0)
        self.assertEqual(c["errors"], 1)
        self.assertEqual(sorted(c["reps_us"]), [10.0, 20.0, 30.0])
        self.assertAlmostEqual(c["busbw_GBps"], 1000 / 20e-6 / 1e9)

    def test_best_peer_and_ratio(self):
        libs = {"rcoll": {8: cell(10.0)}, "openmpi": {8: cell(20.0)}, "gloo": {8: cell(15.0)}}
        self.assertEqual(results.best_peer(libs, 8, ["openmpi", "mpich", "gloo"]), ("gloo", 15.0))
        self.assertEqual(results.best_peer(libs, 16, ["openmpi"]), (None, None))
        self.assertAlmostEqual(results.ratio(10.0, 15.0), 1.5)
        self.assertIsNone(results.ratio(None, 15.0))
        self.assertEqual(results.ratios(libs, "rcoll", ["openmpi", "gloo"], 8, 8), {8: 1.5})

    def test_cliffs(self):
        series = {32 << 10: 9.0, 64 << 10: 1.0, 128 << 10: 0.9, 256 << 10: 0.7, 512 << 10: 0.69}
        found = results.cliffs(series)
        # 32 KiB -> 64 KiB is below the start; 1.0 -> 0.9 is only 10 %.
        self.assertEqual([(a, b) for a, b, _ in found], [(128 << 10, 256 << 10)])
        self.assertAlmostEqual(found[0][2], 0.2 / 0.9)

    def test_cliff_repetitions_and_peer_counts(self):
        def timed(*reps):
            return {"time_us": sorted(reps)[len(reps) // 2], "reps_us": list(reps), "errors": 0}
        k64, k128, k256 = 64 << 10, 128 << 10, 256 << 10
        # rcoll: 128 -> 256 KiB takes 3x the time (a 33 % busbw drop) in
        # repetitions 0 and 2, 2x (level) in repetition 1.
        rcoll = {k64: timed(10, 10, 10), k128: timed(20, 20, 20), k256: timed(60, 40, 60)}
        for b, c in rcoll.items():
            c["busbw_GBps"] = b / c["time_us"]
        self.assertEqual(results.cliff_repetitions(rcoll, k128, k256), (2, 3))
        self.assertEqual(results.cliff_repetitions(rcoll, k64, k128), (0, 3))
        peer = {b: dict(timed(t), busbw_GBps=b / t) for b, t in ((k64, 10), (k128, 40), (k256, 80))}
        evaluation = targets.evaluate({("bcast", 2): {"rcoll": rcoll, "openmpi": peer}}, ["openmpi"])
        self.assertEqual([(c["from"], c["in_reps"], c["reps"]) for c in evaluation["cliffs"]], [(k128, 2, 3)])
        self.assertEqual(evaluation["peer_cliffs"],
                         [{"op": "bcast", "ranks": 2, "rcoll": 1, "peers": {"openmpi": 1}}])
        self.assertFalse(evaluation["cliffs"][0]["across_jobs"])  # both in the medium band
        text = targets.markdown(evaluation)
        self.assertIn("(2 of 3)", text)
        self.assertIn("| bcast | 2 | 1 | 1 |", text)

    def test_cliff_across_a_band_boundary_says_so(self):
        def timed(t):
            return {"time_us": t, "reps_us": [t], "errors": 0}
        lo, hi = 4 * MIB, 4 * MIB + 4  # the last medium size and the first large one
        self.assertNotEqual(sweep.band_of(lo), sweep.band_of(hi))
        self.assertEqual(sweep.band_of(8), "small")
        self.assertEqual(sweep.band_of(64 * MIB), "large")
        rcoll = {lo: timed(100.0), hi: timed(150.0)}
        for b, c in rcoll.items():
            c["busbw_GBps"] = b / c["time_us"]
        evaluation = targets.evaluate({("allreduce", 4): {"rcoll": rcoll}}, ["openmpi"])
        self.assertEqual([c["across_jobs"] for c in evaluation["cliffs"]], [True])
        self.assertIn("(1 of 1; the two sizes ran in different jobs (bands))", targets.markdown(evaluation))

    def test_aggregate_orders_repetitions(self):
        samples = [{"lib": "rcoll", "op": "bcast", "ranks": 2, "bytes": 8, "time_us": t, "errors": 0, "rep": r}
                   for t, r in ((30.0, 2), (10.0, 0), (20.0, 1))]
        self.assertEqual(results.aggregate(samples)[("bcast", 2)]["rcoll"][8]["reps_us"], [10.0, 20.0, 30.0])

    def test_targets(self):
        grouped = {("allreduce", 2): {"rcoll": {8: cell(10.0), MIB: cell(100.0)},
                                      "openmpi": {8: cell(12.0), MIB: cell(110.0)}}}
        rows = {r["target"]: r for r in targets.evaluate(grouped, ["openmpi"])["rows"]}
        self.assertTrue(rows["latency"]["met"])
        self.assertFalse(rows["bandwidth"]["met"])  # 1.1 < 1.25
        self.assertAlmostEqual(rows["bandwidth"]["min"], 1.1)
        # The MPI-style set's bandwidth goal is the best peer's busbw itself.
        grouped = {("allgather", 2): {"rcoll": {MIB: cell(100.0)}, "openmpi": {MIB: cell(110.0)}}}
        rows = {r["target"]: r for r in targets.evaluate(grouped, ["openmpi"])["rows"]}
        self.assertTrue(rows["bandwidth"]["met"])  # 1.1 >= 1.0
        self.assertEqual(rows["bandwidth"]["goal"], 1.0)

    def test_sizes_and_bands(self):
        sizes = sweep.full_sizes()
        self.assertEqual(sizes, sorted(set(sizes)))
        self.assertEqual((sizes[0], sizes[-1]), (8, 64 * MIB))
        self.assertTrue(all(s % 4 == 0 for s in sizes))
        for expected in (12, 20, 3 * MIB, MIB + 4, 48 * MIB, 32 * MIB + 4):
            self.assertIn(expected, sizes)
        banded = sweep.bands(sizes)
        self.assertEqual(sum(len(b[1]) for b in banded), len(sizes))
        self.assertEqual(sweep.format_bytes(MIB + 4), "1 MiB+4")
        self.assertEqual(sweep.format_bytes(3 << 10), "3 KiB")
        self.assertEqual([sweep.format_bytes(b) for b in (12, 4092, 65532, MIB - 4, 3 * MIB - 12, 960)],
                         ["12 B", "4 KiB-4", "64 KiB-4", "1 MiB-4", "3 MiB-12", "960 B"])

    def test_plan_alternates_and_rotates(self):
        jobs = schedule.plan(["allreduce"], [2], [("small", [8], 5, 1)], 2, ["rcoll", "openmpi", "gloo"])
        self.assertEqual([j.lib for j in jobs], ["rcoll", "openmpi", "gloo", "openmpi", "gloo", "rcoll"])
        self.assertEqual([j.rep for j in jobs], [0, 0, 0, 1, 1, 1])

    def test_build_without_a_compiler_is_a_note(self):
        # A machine that only runs binaries (the RDMA guest) has no g++: the
        # program is reported as not built, and the tool goes on without it.
        spec = ("no-such-compiler-rcoll",) + build.PROGRAMS["tcp_stream"][1:]
        with tempfile.TemporaryDirectory() as out, mock.patch.dict(build.PROGRAMS, {"tcp_stream": spec}):
            status = build.build(SOURCE, out, ["tcp_stream"], lambda _: None)
            self.assertFalse(os.path.exists(os.path.join(out, "tcp_stream")))
        self.assertEqual(status["tcp_stream"].splitlines()[0],
                         "build failed: cannot run no-such-compiler-rcoll: No such file or directory")

    def test_latency_floor_multiples(self):
        limits = {"tcp_pingpong": {"results": [{"bytes": 8, "us": 4.0}, {"bytes": 4096, "us": 5.0}]}}
        grouped = {("bcast", 4): {"rcoll": {8: cell(10.0), 4096: cell(12.5)},
                                  "openmpi": {8: cell(6.0), 4096: cell(20.0)}, "gloo": {8: cell(8.0)}}}
        text = report.limits_markdown(limits, grouped)
        self.assertIn("| one-way TCP latency over 127.0.0.1 (half a round trip, both ends polling) | 4.00 | 5.00 |",
                      text)
        self.assertIn("| bcast | 4 | 8 B | 10.0 | 2.5 | Open MPI (ob1, tcp) | 6.0 | 1.5 |", text)
        self.assertIn("| bcast | 4 | 4 KiB | 12.5 | 2.5 | Open MPI (ob1, tcp) | 20.0 | 4.0 |", text)
        self.assertNotIn("GB/s", text)  # no bandwidth probe ran, so no bandwidth table
        self.assertEqual(report.limits_markdown({}, grouped), "Physical limits: not measured.")
        alone = report.limits_markdown(limits, grouped, against=False)  # a document's summary
        self.assertTrue(alone.endswith("| 4.00 | 5.00 |"), alone)
        self.assertNotIn("multiples", alone)

    def test_baseline_job_runs_from_the_baseline_trees(self):
        paths = libs.Paths("/src", "/src/build", "/src/build/peers", base_root="/old", base_build="/old/b")
        ours, env, _ = libs.job("rcoll", 2, ["--op", "bcast"], paths, False)
        theirs, base_env, per_rank = libs.job("rcoll-base", 2, ["--op", "bcast"], paths, False)
        self.assertEqual(ours[:2], ["/src/tools/rcoll-run", "-n"])
        self.assertIn("/src/build/bench/rcoll-bench", ours)
        # The same command, every program taken from the baseline's trees.
        swapped = [w.replace("/src/build", "/old/b").replace("/src/tools", "/old/tools") for w in ours]
        self.assertEqual(theirs, swapped)
        self.assertEqual(env, {"RCOLL_BOOTSTRAPD": "/src/build/tools/rcoll-bootstrapd"})
        self.assertEqual(base_env, {"RCOLL_BOOTSTRAPD": "/old/b/tools/rcoll-bootstrapd"})
        self.assertIsNone(per_rank)
        self.assertNotIn("rcoll-base", libs.PEERS)  # never a "best peer" nor in the targets

    def test_baseline_ratios(self):
        grouped = {("allreduce", 2): {
            "rcoll": {8: cell(9.0), 4096: cell(12.0), 20: cell(10.0), MIB: cell(400.0), 2 * MIB: cell(700.0),
                      4 * MIB: cell(1000.0)},
            "rcoll-base": {8: cell(10.0), 4096: cell(10.0), 20: cell(10.0), MIB: cell(500.0), 2 * MIB: cell(700.0),
                           4 * MIB: cell(900.0)}}}
        self.assertEqual(results.versus(grouped[("allreduce", 2)], "rcoll", "rcoll-base", 0, 4096),
                         {8: 0.9, 20: 1.0, 4096: 1.2})
        text = report.baseline_markdown(grouped)
        # Up to 64 KiB the time ratio (median 1.0, best 0.9, worst 1.2); above, busbw (500/400, 1, 900/1000).
        self.assertIn("| allreduce | 2 | 8 B .. 4 KiB | time rcoll ÷ baseline | 1.00 | 0.90 (8 B) | 1.20 (4 KiB) |",
                      text)
        self.assertIn("| allreduce | 2 | 1 MiB .. 4 MiB | busbw rcoll ÷ baseline | 1.00 | 1.25 (1 MiB) "
                      "| 0.90 (4 MiB) |", text)
        self.assertNotIn("| size |", text)
        per_size = report.baseline_markdown(grouped, per_size=True)
        self.assertIn("| 4 MiB | 1000 | 900.0 | 1.11 | 0.000 | 0.000 | 0.90 |", per_size)
        self.assertEqual(report.baseline_markdown({("bcast", 2): {"rcoll": {8: cell(1.0)}}}), "")

    def test_public_command_drops_the_output_directory(self):
        self.assertEqual(report.public_command("bench/compare --reps 3 --out /tmp/cmp17 --max-load 1.5"),
                         "bench/compare --reps 3 --max-load 1.5")
        self.assertEqual(report.public_command("bench/compare --out=/tmp/x --doc 'my docs/P.md'"),
                         "bench/compare --doc 'my docs/P.md'")

    def test_commit(self):
        with tempfile.TemporaryDirectory() as tree:
            self.assertEqual(report.commit(tree), "unknown")  # not a git tree
            if not shutil.which("git"):
                self.skipTest("no git")
            git = ["git", "-C", tree, "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
            subprocess.run(git[:3] + ["init", "-q"], check=True)
            with open(os.path.join(tree, "f"), "w", encoding="utf-8") as f:
                f.write("1\n")
            subprocess.run(git + ["add", "f"], check=True)
            subprocess.run(git + ["commit", "-q", "-m", "one"], check=True)
            head = subprocess.run(git + ["rev-parse", "--short=7", "HEAD"], capture_output=True, text=True,
                                  check=True).stdout.strip()
            self.assertEqual(report.commit(tree), head)
            with open(os.path.join(tree, "f"), "w", encoding="utf-8") as f:
                f.write("2\n")
            self.assertEqual(report.commit(tree), head + " + uncommitted changes")

    def test_results_name(self):
        self.assertEqual(main.results_name({"date": "2026-12-02 07:04"}), "2026-12-02-0704-compare.md")

    def test_rewrite_block(self):
        text = f"# Doc\nbefore\n{report.BEGIN}\nold\n{report.END}\nafter\n"
        out = report.rewrite_block(text, "new")
        self.assertEqual(out, f"# Doc\nbefore\n{report.BEGIN}\nnew\n{report.END}\nafter\n")
        quoted = f"# Doc\nThe block between `{report.BEGIN}` and `{report.END}` is the tool's.\n"
        self.assertEqual(report.rewrite_block(quoted + text, "new"), quoted + out)
        appended = report.rewrite_block("# Doc\n", "new")
        self.assertIn(report.DOC_HEADING, appended)
        self.assertTrue(appended.rstrip().endswith(report.END))


@unittest.skipUnless(shutil.which("g++"), "no g++")
class PeerCheckConvention(unittest.TestCase):
    """peer_check_test.cpp: the peers' --check data (bench/peers/common/
    check_data.hpp) against a serial model of every op, built with the
    flags of compare_lib.build (no MPI or Gloo needed)."""

    def test_every_op_world_size_and_root(self):
        peers = os.path.join(SOURCE, "bench", "peers")
        sources = [os.path.join(os.path.dirname(os.path.abspath(__file__)), "peer_check_test.cpp")]
        sources += [os.path.join(peers, "common", c) for c in ("check_data.cpp", "peer_layout.cpp", "peer_options.cpp")]
        sources += [os.path.join(SOURCE, "bench", "common", c) for c in ("args.cpp", "sizes.cpp")]
        with tempfile.TemporaryDirectory() as tmp:
            program = os.path.join(tmp, "peer_check_test")
            built = subprocess.run(["g++"] + build.FLAGS + ["-iquote", os.path.join(SOURCE, "bench"), "-iquote", peers]
                                   + sources + ["-o", program], capture_output=True, text=True, check=False)
            self.assertEqual(built.returncode, 0, built.stderr[-3000:])
            done = subprocess.run([program], capture_output=True, text=True, timeout=120, check=False)
        self.assertEqual(done.returncode, 0, done.stderr[-3000:])
        self.assertRegex(done.stdout, r"^\d+ cases, 0 failures")


@unittest.skipUnless(os.path.exists("/usr/include/gloo/reduce_scatter.h") and shutil.which("g++"),
                     "Gloo (libgloo-dev) is not installed")
class GlooRun(unittest.TestCase):
    """bench/compare --quick --libs gloo --ranks 3 with three of the newer
    ops, end to end through the peer program: every op at its own rounded
    sizes, --check clean. Needs no rcoll build; the programs are built into
    RCOLL_BUILD_DIR/peers where it is set (compare's default place, where
    the other runs' limit probes already are), else a temporary folder."""

    OPS = ("reduce_scatter", "alltoall", "gather")

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="compare-test-")
        cls.out = os.path.join(cls.tmp.name, "out")
        build_dir = os.environ.get("RCOLL_BUILD_DIR") or cls.tmp.name
        cls.completed = subprocess.run(
            [os.path.join(SOURCE, "bench", "compare"), "--quick", "--libs", "gloo", "--ranks", "3", "--reps", "1",
             "--ops", ",".join(cls.OPS), "--out", cls.out, "--peers-dir", os.path.join(build_dir, "peers"),
             "--job-timeout", "120"], capture_output=True, text=True, timeout=280, check=False)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_every_op_checked_at_its_sizes(self):
        self.assertEqual(self.completed.returncode, 0, self.completed.stderr[-3000:])
        with open(os.path.join(self.out, "compare.json"), encoding="utf-8") as f:
            doc = json.load(f)
        self.assertEqual(doc["failures"], [])
        self.assertEqual(set(doc["summary"]), {f"{op} 3" for op in self.OPS})
        for op in self.OPS:
            samples = [s for s in doc["samples"] if s["op"] == op]
            self.assertEqual(sorted(s["bytes"] for s in samples), sweep.op_sizes(op, 3, sweep.quick_sizes()), op)
            for s in samples:
                self.assertEqual(s["errors"], 0, s)
                self.assertGreater(s["time_us"], 0, s)
        # busbw from the median time with nccl-tests' factor (alltoall: (n-1)/n).
        cell = doc["summary"]["alltoall 3"]["gloo"]["65532"]
        self.assertAlmostEqual(cell["busbw_GBps"], 65532 / (cell["time_us"] * 1e-6) / 1e9 * 2 / 3)
        with open(os.path.join(self.out, "compare.md"), encoding="utf-8") as f:
            text = f.read()
        self.assertIn("##### reduce_scatter, 3 ranks", text)
        self.assertIn("| 64 KiB-4 |", text)


@unittest.skipUnless(os.environ.get("RCOLL_BUILD_DIR"), "RCOLL_BUILD_DIR (the build tree) is not set")
class QuickRun(unittest.TestCase):
    """bench/compare --quick --libs rcoll --ranks 2 --reps 1, end to end."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="compare-test-")
        cls.out = os.path.join(cls.tmp.name, "out")
        cls.doc = os.path.join(cls.tmp.name, "PERF.md")
        with open(cls.doc, "w", encoding="utf-8") as f:
            f.write(f"# Perf\nkept\n\n## Side\n\n{report.BEGIN}\nold block\n{report.END}\ntail kept\n")
        cls.completed = subprocess.run(
            [os.path.join(SOURCE, "bench", "compare"), "--quick", "--libs", "rcoll", "--ranks", "2", "--reps", "1",
             "--out", cls.out, "--doc", cls.doc, "--build-dir", os.environ["RCOLL_BUILD_DIR"],
             "--job-timeout", "120"], capture_output=True, text=True, timeout=240, check=False)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_exit_status(self):
        self.assertEqual(self.completed.returncode, 0, self.completed.stderr[-3000:])

    def test_json_shape_and_checks(self):
        with open(os.path.join(self.out, "compare.json"), encoding="utf-8") as f:
            doc = json.load(f)
        self.assertEqual(set(doc["summary"]), {"allreduce 2", "bcast 2"})
        rcoll = [s for s in doc["samples"] if s["lib"] == "rcoll"]
        self.assertEqual(len(rcoll), 2 * len(sweep.quick_sizes()))
        self.assertEqual(sorted({s["bytes"] for s in rcoll}), sweep.quick_sizes())
        for s in rcoll:
            self.assertEqual(s["errors"], 0, s)
            self.assertGreater(s["time_us"], 0, s)
        self.assertEqual(doc["failures"], [])
        self.assertEqual(set(doc["limits"]), {"tcp_stream", "tcp_pingpong", "memcpy_bw"})
        self.assertGreater(doc["limits"]["memcpy_bw"]["results"][0]["GBps"], 0)
        floor = doc["limits"]["tcp_pingpong"]["results"]
        self.assertEqual([r["bytes"] for r in floor], [8])
        self.assertGreater(floor[0]["us"], 0)

    def test_tables(self):
        with open(os.path.join(self.out, "compare.md"), encoding="utf-8") as f:
            text = f.read()
        for op in ("allreduce", "bcast"):
            table = text.split(f"##### {op}, 2 ranks")[1].split("\n\n")[1]
            rows = [line for line in table.splitlines() if line.startswith("| ")]
            self.assertEqual(len(rows), 2 + len(sweep.quick_sizes()))  # header, rule, sizes
            header = [c.strip() for c in rows[0].strip("|").split("|")]
            self.assertEqual(header[:3], ["size", "rcoll tcp µs", "GB/s"])
            self.assertEqual(header[-1], "errors peers")
            for row in rows[2:]:
                cells = [c.strip() for c in row.strip("|").split("|")]
                self.assertRegex(cells[1], r"^\d+(\.\d)?$")
                self.assertEqual(cells[header.index("errors rcoll")], "0")

    def test_latency_floor_table(self):
        with open(os.path.join(self.out, "compare.md"), encoding="utf-8") as f:
            text = f.read()
        floor = text.split("Small-message times as multiples of that floor")[1]
        for op in ("allreduce", "bcast"):
            self.assertRegex(floor, rf"\| {op} \| 2 \| 8 B \| \d+(\.\d)? \| \d+(\.\d)? \| - \| - \| - \|")

    def test_doc_block_rewritten(self):
        with open(self.doc, encoding="utf-8") as f:
            text = f.read()
        self.assertTrue(text.startswith("# Perf\nkept\n"))
        self.assertTrue(text.endswith(f"{report.END}\ntail kept\n"))
        self.assertNotIn("old block", text)
        self.assertIn("bench/compare --quick --libs rcoll", text)
        self.assertNotIn(self.out, text)  # the command without --out
        self.assertRegex(text, re.compile(r"Run of \d{4}-\d\d-\d\d \d\d:\d\d \(UTC\) at commit `[^`]+`"))
        self.assertRegex(text, re.compile(r"Machine: `Linux .*`; \d+ CPUs"))

    def test_doc_block_is_a_summary_linking_the_whole_report(self):
        with open(self.doc, encoding="utf-8") as f:
            block = f.read().split(report.BEGIN)[1].split(report.END)[0]
        self.assertIn("#### Targets", block)
        self.assertIn("#### Physical limits", block)
        self.assertIn("| one-way TCP latency over 127.0.0.1", block)
        self.assertNotIn("multiples of that floor", block)  # rcoll against the limits: in the whole report
        self.assertNotIn("allreduce, 2 ranks", block)  # no per-size tables
        link = re.search(r"Per-size tables, rcoll's cliffs and rcoll against the physical limits: "
                         r"\[(results/[^]]+)\]\(\1\)", block)
        self.assertIsNotNone(link, block[-500:])
        self.assertRegex(link.group(1), r"^results/\d{4}-\d\d-\d\d-\d{4}-compare\.md$")
        with open(os.path.join(self.tmp.name, link.group(1)), encoding="utf-8") as f:
            whole = f.read()
        self.assertTrue(whole.startswith("# Side-by-side run of "))
        self.assertNotIn(self.out, whole)
        self.assertIn("multiples of that floor", whole)
        for op in ("allreduce", "bcast"):
            table = whole.split(f"### {op}, 2 ranks")[1].split("\n\n")[1]
            self.assertEqual(len([line for line in table.splitlines() if line.startswith("| ")]),
                             2 + len(sweep.quick_sizes()))


@unittest.skipUnless(os.environ.get("RCOLL_BUILD_DIR"), "RCOLL_BUILD_DIR (the build tree) is not set")
class BaselineRun(unittest.TestCase):
    """bench/compare --quick --libs rcoll --ops allreduce --ranks 2 --reps 1
    --baseline-build (this build tree as its own baseline), end to end."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="compare-test-")
        cls.out = os.path.join(cls.tmp.name, "out")
        build_dir = os.path.abspath(os.environ["RCOLL_BUILD_DIR"])
        # The source tree defaults to the build tree's parent; name it only where that is not it.
        source = [] if os.path.dirname(build_dir) == os.path.abspath(SOURCE) else ["--baseline-source", SOURCE]
        cls.completed = subprocess.run(
            [os.path.join(SOURCE, "bench", "compare"), "--quick", "--libs", "rcoll", "--ops", "allreduce",
             "--ranks", "2", "--reps", "1", "--out", cls.out, "--build-dir", build_dir,
             "--baseline-build", build_dir, "--job-timeout", "120"] + source,
            capture_output=True, text=True, timeout=240, check=False)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_exit_status(self):
        self.assertEqual(self.completed.returncode, 0, self.completed.stderr[-3000:])

    def test_baseline_measured_at_every_size(self):
        with open(os.path.join(self.out, "compare.json"), encoding="utf-8") as f:
            doc = json.load(f)
        self.assertEqual(doc["meta"]["libs"], ["rcoll", "rcoll-base"])
        self.assertEqual(doc["meta"]["baseline"]["source"], os.path.abspath(SOURCE))
        self.assertEqual(doc["meta"]["baseline"]["commit"], doc["meta"]["commit"])
        for lib in ("rcoll", "rcoll-base"):
            samples = [s for s in doc["samples"] if s["lib"] == lib]
            self.assertEqual(sorted(s["bytes"] for s in samples), sweep.quick_sizes(), lib)
            for s in samples:
                self.assertEqual(s["errors"], 0, s)
                self.assertGreater(s["time_us"], 0, s)
        self.assertEqual(doc["failures"], [])

    def test_report_reads_before_and_after(self):
        with open(os.path.join(self.out, "compare.md"), encoding="utf-8") as f:
            text = f.read()
        self.assertIn("Baseline (rcoll tcp (baseline), `--baseline-build`): rcoll at commit", text)
        header = text.split("##### allreduce, 2 ranks")[1].split("\n\n")[1].splitlines()[0]
        self.assertIn("| rcoll tcp µs | GB/s | rcoll tcp (baseline) µs | GB/s |", header)
        against = text.split("#### Against the baseline")[1].split("\n#### ")[0]
        number = r"\d+\.\d\d"
        self.assertRegex(against, rf"\| allreduce \| 2 \| 8 B \.\. 12 KiB \| time rcoll ÷ baseline \| {number} \|")
        self.assertRegex(against,
                         rf"\| allreduce \| 2 \| 64 KiB\+4 \.\. 1 MiB \| busbw rcoll ÷ baseline \| {number} \|")
        # Per size, both ratios from the medians in compare.json.
        with open(os.path.join(self.out, "compare.json"), encoding="utf-8") as f:
            medians = json.load(f)["summary"]["allreduce 2"]
        rows = [line for line in against.split("allreduce, 2 ranks:")[1].splitlines() if line.startswith("| ")]
        self.assertEqual(len(rows), 2 + len(sweep.quick_sizes()))
        for nbytes, row in zip(sweep.quick_sizes(), rows[2:]):
            cells = [c.strip() for c in row.strip("|").split("|")]
            ours, theirs = (medians[lib][str(nbytes)]["time_us"] for lib in ("rcoll", "rcoll-base"))
            self.assertEqual(cells[0], sweep.format_bytes(nbytes))
            self.assertEqual(cells[3], f"{ours / theirs:.2f}", row)  # time rcoll ÷ baseline
            self.assertEqual(cells[6], f"{1 / (ours / theirs):.2f}", row)  # busbw rcoll ÷ baseline

    def test_missing_baseline_is_refused(self):
        done = subprocess.run([os.path.join(SOURCE, "bench", "compare"), "--libs", "rcoll", "--build-dir",
                               os.environ["RCOLL_BUILD_DIR"], "--baseline-build",
                               os.path.join(self.tmp.name, "no-such-build"), "--out", self.out + "-none"],
                              capture_output=True, text=True, timeout=60, check=False)
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn("the baseline's", done.stderr)
        self.assertFalse(os.path.exists(self.out + "-none"))
        usage = subprocess.run([os.path.join(SOURCE, "bench", "compare"), "--libs", "gloo", "--baseline-build",
                                os.environ["RCOLL_BUILD_DIR"]], capture_output=True, text=True, timeout=60,
                               check=False)
        self.assertEqual(usage.returncode, 2)
        self.assertIn("keep rcoll in --libs", usage.stderr)


if __name__ == "__main__":
    unittest.main()
