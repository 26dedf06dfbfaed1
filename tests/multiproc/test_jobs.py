"""Multi-process jobs through tools/rcoll-run with the real library.

Run by CTest (label multiproc) with RCOLL_SOURCE_DIR and RCOLL_BUILD_DIR set.
"""
import os
import subprocess
import unittest

SOURCE = os.environ.get("RCOLL_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
BUILD = os.environ.get("RCOLL_BUILD_DIR", os.path.join(SOURCE, "build"))
RUN = os.path.join(SOURCE, "tools", "rcoll-run")
JOB = os.path.join(BUILD, "tests", "multiproc", "rcoll_test_job")
BENCH = os.path.join(BUILD, "bench", "rcoll-bench")
EXAMPLES = os.path.join(BUILD, "examples")


def launch(n, *args, timeout=300, extra=()):
    env = dict(os.environ, RCOLL_BOOTSTRAPD=os.path.join(BUILD, "tools", "rcoll-bootstrapd"))
    cmd = [RUN, "-n", str(n), *extra, "--", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)


class Jobs(unittest.TestCase):
    def assert_ok(self, result):
        self.assertEqual(result.returncode, 0, f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}")

    def test_every_collective_at_4_and_5_ranks(self):
        for n in (4, 5):
            result = launch(n, JOB, "ok", extra=("--transport", "tcp"))
            self.assert_ok(result)
            for rank in range(n):
                self.assertIn(f"[{rank}] ok rank {rank} of {n}", result.stdout)

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

    def test_examples(self):
        for n in (1, 3, 5):
            for example in ("dot_product", "heat1d"):
                self.assert_ok(launch(n, os.path.join(EXAMPLES, example)))


if __name__ == "__main__":
    unittest.main()
