"""Multi-process jobs through tools/rcoll-run with the real library.

Run by CTest (label multiproc) with RCOLL_SOURCE_DIR and RCOLL_BUILD_DIR set.
"""
import os
import re
import signal
import socket
import subprocess
import time
import unittest
import uuid

SOURCE = os.environ.get("RCOLL_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
BUILD = os.environ.get("RCOLL_BUILD_DIR", os.path.join(SOURCE, "build"))
RUN = os.path.join(SOURCE, "tools", "rcoll-run")
JOB = os.path.join(BUILD, "tests", "multiproc", "rcoll_test_job")
BENCH = os.path.join(BUILD, "bench", "rcoll-bench")
EXAMPLES = os.path.join(BUILD, "examples")


def job_env(**extra):
    return dict(os.environ, RCOLL_BOOTSTRAPD=os.path.join(BUILD, "tools", "rcoll-bootstrapd"), **extra)


def launch(n, *args, timeout=300, extra=(), env=None):
    cmd = [RUN, "-n", str(n), *extra, "--", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env or job_env())


def processes_with(marker):
    """PIDs of this user's processes whose environment holds `marker`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if marker.encode() in f.read():
                    found.append(int(entry))
        except OSError:
            pass
    return found


class Faults(unittest.TestCase):
    """A rank killed, aborting or hanging: what the others and rcoll-run say."""

    def run_marked(self, n, *args, timeout_s="60"):
        marker = f"RCOLL_TEST_MARKER_{uuid.uuid4().hex}"
        env = job_env(**{marker: "1"})
        result = launch(n, JOB, *args, timeout=120, env=env,
                        extra=("--transport", "tcp", "--timeout", timeout_s, "--kill-grace", "2"))
        deadline = time.monotonic() + 3
        while processes_with(marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertEqual(processes_with(marker), [], "orphans left behind")
        return result

    def assert_survivors_name(self, result, n, victim, pattern, within_s):
        output = result.stdout + result.stderr
        caught = {int(m.group(1)): (float(m.group(2)), m.group(3))
                  for m in re.finditer(r"rank (\d+) caught at ([0-9.]+): (.*)", result.stdout)}
        self.assertEqual(sorted(caught), [r for r in range(n) if r != victim], output)
        start = re.search(rf"rank {victim} raising SIGKILL at ([0-9.]+)", result.stdout)
        for rank, (at, error) in caught.items():
            self.assertRegex(error, pattern, output)
            if start:
                self.assertLess(at - float(start.group(1)), within_s, f"rank {rank}: {error}")

    def test_a_rank_killed_in_allreduce_or_bcast_is_named_by_every_survivor_within_seconds(self):
        for op in ("allreduce", "bcast"):
            with self.subTest(op=op):
                result = self.run_marked(4, "kill", "2", "50", op)
                self.assertNotEqual(result.returncode, 0)
                self.assertRegex(result.stderr, r"rcoll-run: rank 2 killed by signal SIGKILL")
                # Directly connected survivors name peer 2; the others name
                # the first failure, which names it.
                self.assert_survivors_name(result, 4, 2, r"peer 2\b", within_s=5.0)

    def test_abort_reaches_every_rank_and_the_launcher(self):
        result = self.run_marked(3, "abort", "1")
        self.assertEqual(result.returncode, 70, result.stdout + result.stderr)
        self.assertIn("rcoll-run: rank 1 aborted: rank 1 gives up (exit status 70)", result.stderr)
        self.assertIn("[1] rcoll: rank 1 aborted: rank 1 gives up", result.stderr)
        self.assert_survivors_name(result, 3, 1, r"rank 1 aborted: rank 1 gives up", within_s=5.0)

    def test_a_timeout_names_the_rank_that_did_not_join(self):
        result = self.run_marked(4, "hang", "3", "6", timeout_s="1.5")
        self.assertNotEqual(result.returncode, 0)
        for rank in range(3):
            self.assertRegex(result.stdout, rf"\[{rank}\] rank {rank} caught: .*rank 3 has not joined",
                             result.stdout + result.stderr)

    def test_a_circular_wait_of_large_sends_is_named_by_every_rank(self):
        # 3 ranks each send 1 MiB (above the TCP eager limit) to the next
        # before receiving: every send waits for a receive never posted.
        result = self.run_marked(3, "ring", str(1 << 20), timeout_s="2")
        self.assertNotEqual(result.returncode, 0)
        for rank in range(3):
            nxt = (rank + 1) % 3
            circle = " -> ".join(str((rank + i) % 3) for i in range(4))
            self.assertRegex(result.stdout, rf"\[{rank}\] rank {rank} caught: rank {rank}: send to rank {nxt} tag 3: "
                                            rf"timed out .*rank {nxt} has not posted a matching receive \(tag 3\)",
                             result.stdout + result.stderr)
            self.assertIn(f"ranks {circle} are each blocked in a send to the next: a circular wait", result.stdout)

    def test_sigusr1_makes_every_rank_report_its_state(self):
        marker = f"RCOLL_TEST_MARKER_{uuid.uuid4().hex}"
        cmd = [RUN, "-n", "3", "--transport", "tcp", "--timeout", "60", "--kill-grace", "1", "--",
               JOB, "hang", "2", "30"]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=job_env(**{marker: "1"}))
        try:
            time.sleep(2.5)  # joined, ranks 0 and 1 blocked in the allreduce, rank 2 asleep
            proc.send_signal(signal.SIGUSR1)
            time.sleep(1.5)
        finally:
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=30)
        self.assertIn("rcoll-run: SIGUSR1: asked ranks 0, 1, 2 for their state", err)
        for rank in (0, 1):
            self.assertRegex(err, rf"\[{rank}\] rcoll status: rank {rank}: in allreduce #1 \(4096 x float32, "
                                  r"sum\): .*, waiting for rank", out + err)
        self.assertIn("[2] rcoll status: rank 2: not in an rcoll call; last call barrier #0 completed", err)
        self.assertEqual(processes_with(marker), [])


class Jobs(unittest.TestCase):
    def assert_ok(self, result):
        self.assertEqual(result.returncode, 0, f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}")

    def test_every_collective_at_4_and_5_ranks(self):
        for n in (4, 5):
            result = launch(n, JOB, "ok", extra=("--transport", "tcp"))
            self.assert_ok(result)
            for rank in range(n):
                self.assertIn(f"[{rank}] ok rank {rank} of {n}", result.stdout)

    def test_data_ports_of_an_all_local_job_listen_on_loopback_only(self):
        # The TCP transport binds the route to the bootstrap service, which
        # rcoll-run puts on 127.0.0.1 when every rank is local: the data
        # ports are unreachable from other hosts (SECURITY.md, "Who can connect").
        result = launch(3, JOB, "ok", extra=("--transport", "tcp"), env=job_env(RCOLL_LOG="debug"))
        self.assert_ok(result)
        listening = re.findall(r"tcp transport listening on (\S+):\d+", result.stdout + result.stderr)
        self.assertEqual(len(listening), 3, result.stdout + result.stderr)
        self.assertEqual(set(listening), {"127.0.0.1"})

    def test_rcoll_log_takes_any_case_and_warns_once_about_an_unknown_level(self):
        result = launch(2, JOB, "ok", extra=("--transport", "tcp"), env=job_env(RCOLL_LOG="INFO"))
        self.assert_ok(result)
        for rank in range(2):
            self.assertIn(f"[{rank}] [rcoll r{rank}] [info] joined: rank {rank} of 2", result.stderr)
        result = launch(2, JOB, "ok", extra=("--transport", "tcp"), env=job_env(RCOLL_LOG="loud"))
        self.assert_ok(result)
        warning = ("[warning] RCOLL_LOG='loud' is not a log level (expected off, error, warn, info, debug or "
                   "trace, in any case); logging at warn")
        for rank in range(2):
            lines = [line for line in result.stderr.splitlines() if line.startswith(f"[{rank}] ") and warning in line]
            self.assertEqual(len(lines), 1, result.stderr)

    def test_rank_exiting_with_error_stops_the_job(self):
        result = launch(4, JOB, "exit", "2", extra=("--timeout", "60"))
        # Usually 3 (rank 2's status); a survivor's exit can race it to the launcher.
        self.assertIn(result.returncode, (3, 4), result.stdout + result.stderr)
        self.assertRegex(result.stderr, r"rank 2 exited with status 3")

    def test_survivors_name_the_dead_rank(self):
        # Survivors see rank 1 go away as an IoError naming it, well before the timeout.
        result = launch(2, JOB, "exit", "1", extra=("--timeout", "60"))
        self.assertNotEqual(result.returncode, 0)
        if "caught" in result.stdout:
            self.assertRegex(result.stdout, r"\[0\] rank 0 caught: rank 0, peer 1")

    def test_bench_allreduce_and_bcast_check_at_5_ranks(self):
        for op in ("allreduce", "bcast"):
            result = launch(5, BENCH, "--op", op, "--check", "--min-bytes", "8", "--max-bytes", "4M",
                            "--iters", "3", "--warmup", "1")
            self.assert_ok(result)
            self.assertRegex(result.stdout, r"# errors: 0")

    def test_bench_mpi_style_set_check_at_5_ranks(self):
        # Every op of the MPI-style set, out of place and (but alltoall) in place, rooted ones at
        # root 3; sizes below one element per rank (skipped), odd and multi-segment.
        for op in ("reduce", "allgather", "reduce_scatter", "alltoall", "gather", "scatter"):
            for inplace in ((), ("--inplace",)) if op != "alltoall" else ((),):
                with self.subTest(op=op, inplace=bool(inplace)):
                    result = launch(5, BENCH, "--op", op, *inplace, "--root", "3", "--check", "--dtype", "int32",
                                    "--sizes", "8,100,1004,65540,1M", "--iters", "2", "--warmup", "1")
                    self.assert_ok(result)
                    self.assertRegex(result.stdout, r"# errors: 0")

    def test_bench_overlap_reports_every_size(self):
        # rcoll-bench --overlap: a row per size with positive times and a hidden share in 0..100 %.
        result = launch(2, BENCH, "--overlap", "--sizes", "4K,256K", "--iters", "3", "--warmup", "1")
        self.assert_ok(result)
        rows = [line.split()[1:] for line in result.stdout.splitlines()
                if line.startswith("[0]") and not line.startswith("[0] #")]
        self.assertEqual([row[0] for row in rows], ["4096", "262144"], result.stdout)
        for row in rows:
            comm_us, compute_us, overlap_us, hidden = map(float, row[1:])
            self.assertGreater(comm_us, 0)
            self.assertGreater(compute_us, 0)
            self.assertGreater(overlap_us, 0)
            self.assertTrue(0 <= hidden <= 100, row)

    def test_examples(self):
        for n in (1, 3, 5):
            for example in ("dot_product", "heat1d"):
                self.assert_ok(launch(n, os.path.join(EXAMPLES, example)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class WithoutALauncher(unittest.TestCase):
    """Ranks started torchrun-style by hand (RANK, WORLD_SIZE, MASTER_ADDR,
    MASTER_PORT), whose per-rank LOCAL_* variables disagree: every decision
    the ranks must share comes from what they published when they joined,
    so the job runs instead of hanging on a rank-local guess."""

    def run_ranks(self, n, local_env):
        port = str(free_port())
        procs = []
        for rank in range(n):
            env = {k: v for k, v in job_env().items() if not k.startswith(("RCOLL_", "LOCAL_", "OMPI_", "SLURM_"))}
            env.update(RANK=str(rank), WORLD_SIZE=str(n), MASTER_ADDR="127.0.0.1", MASTER_PORT=port,
                       RCOLL_TIMEOUT="30", RCOLL_LOG="info", **local_env(rank))
            procs.append(subprocess.Popen([BENCH, "--op", "allreduce", "--check", "--max-bytes", "1M",
                                           "--iters", "3", "--warmup", "1"],
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env))
        outputs = []
        for proc in procs:
            try:
                out, err = proc.communicate(timeout=90)
            except subprocess.TimeoutExpired:
                for p in procs:
                    p.kill()
                self.fail("a rank hung")
            outputs.append((proc.returncode, out, err))
        return outputs

    def test_local_rank_without_local_world_size(self):
        # Each rank would guess a local size of LOCAL_RANK + 1 (1, 2, 3).
        self.check(3, lambda rank: {"LOCAL_RANK": str(rank)})

    def test_local_world_sizes_that_contradict_each_other(self):
        self.check(4, lambda rank: {"LOCAL_RANK": "0", "LOCAL_WORLD_SIZE": str(1 + 3 * (rank % 2))})

    def check(self, n, local_env):
        outputs = self.run_ranks(n, local_env)
        for rank, (code, out, err) in enumerate(outputs):
            self.assertEqual(code, 0, f"rank {rank}:\n{out}\n{err}")
            # Every rank counted the same ranks on this host, from the join cards.
            self.assertRegex(err, rf"joined: rank {rank} of {n} \(local {rank} of {n} on a host", err)
        self.assertRegex(outputs[0][1], r"# errors: 0")


if __name__ == "__main__":
    unittest.main()
