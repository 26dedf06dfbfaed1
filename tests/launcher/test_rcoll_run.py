"""End-to-end tests of tools/rcoll-run on this host, with the fake bootstrap
daemon (fake_bootstrapd.py) and small Python rank programs."""

import re
import signal
import time
import unittest

from launcher_testlib import LauncherTestCase, keeper_of, wait_until

# Records the job variables, what argv the rank and its parent (the launcher)
# have, then joins the (fake) bootstrap service with the token.
ENV_RANK = '''
names = ["RCOLL_RANK", "RCOLL_SIZE", "RCOLL_LOCAL_RANK", "RCOLL_LOCAL_SIZE",
         "RCOLL_BOOTSTRAP", "RCOLL_JOB_TOKEN", "RCOLL_TRANSPORT", "RCOLL_TIMEOUT"]
def cmdline(pid):
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        return f.read().decode(errors="replace")
join_bootstrap()
record(f"env-{RANK}.json", {"env": {n: os.environ.get(n) for n in names},
                            "cmdline": cmdline(os.getpid()),
                            "parent_cmdline": cmdline(os.getppid()),
                            "pid": os.getpid()})
'''

# Ranks 0..N-2 (and a child of rank 0 that ignores SIGTERM) sleep; the last
# rank fails with FAILURE once all of them recorded their PIDs.
FAILING_RANK = '''
size = int(os.environ["RCOLL_SIZE"])
data = {"pid": os.getpid()}
if RANK == 0:
    data["child_pid"] = subprocess.Popen(
        ["sleep", "60"], preexec_fn=lambda: signal.signal(signal.SIGTERM, signal.SIG_IGN)).pid
record(f"pid-{RANK}.json", data)
if RANK == size - 1:
    wait_for_files([f"pid-{r}.json" for r in range(size)])
    FAILURE
time.sleep(60)
'''

SLEEPING_RANK = '''
TERM_HANDLING
record(f"pid-{RANK}.json", {"pid": os.getpid()})
time.sleep(60)
'''


class EnvironmentTest(LauncherTestCase):
    def run_env_job(self, size, *options):
        result = self.launch("-n", size, *options, *self.rank_program(ENV_RANK))
        self.assertEqual(result.returncode, 0, result.stderr.decode())
        ranks = self.records("env-*.json")
        self.assertEqual(len(ranks), size)
        return [ranks[f"env-{r}.json"] for r in range(size)]

    def test_each_rank_sees_its_job_variables(self):
        ranks = self.run_env_job(3, "--transport", "rdma", "--timeout", "7")
        envs = [r["env"] for r in ranks]
        self.assertEqual([e["RCOLL_RANK"] for e in envs], ["0", "1", "2"])
        self.assertEqual({e["RCOLL_SIZE"] for e in envs}, {"3"})
        self.assertEqual(sorted(e["RCOLL_LOCAL_RANK"] for e in envs), ["0", "1", "2"])
        self.assertEqual({e["RCOLL_LOCAL_SIZE"] for e in envs}, {"3"})
        self.assertEqual({e["RCOLL_TRANSPORT"] for e in envs}, {"rdma"})
        self.assertEqual({e["RCOLL_TIMEOUT"] for e in envs}, {"7"})
        tokens = {e["RCOLL_JOB_TOKEN"] for e in envs}
        self.assertEqual(len(tokens), 1)
        self.assertRegex(tokens.pop(), r"^[0-9a-f]{32}$")

    def test_ranks_reach_the_daemon_with_its_token(self):
        ranks = self.run_env_job(2)
        [start] = self.daemon_events("start")
        self.assertEqual(start["argv"], ["--size", "2", "--listen", "127.0.0.1:0",
                                         "--join-timeout", "300"])  # the library's default
        self.assertEqual({r["env"]["RCOLL_BOOTSTRAP"] for r in ranks},
                         {f"127.0.0.1:{start['port']}"})
        self.assertEqual({r["env"]["RCOLL_JOB_TOKEN"] for r in ranks}, {start["token"]})
        self.assertEqual([j["token_ok"] for j in self.daemon_events("join")], [True, True])
        self.assertEqual({r["env"]["RCOLL_TRANSPORT"] for r in ranks}, {"auto"})
        self.assertEqual({r["env"]["RCOLL_TIMEOUT"] for r in ranks}, {None})

    def test_timeout_is_the_daemons_join_timeout(self):
        self.run_env_job(1, "--timeout", "2.5")
        [start] = self.daemon_events("start")
        self.assertEqual(start["argv"][-2:], ["--join-timeout", "2.5"])

    def test_exported_rcoll_timeout_is_the_daemons_join_timeout(self):
        # The service waited 60 s whatever the ranks' timeout was.
        self.env["RCOLL_TIMEOUT"] = "95"
        ranks = self.run_env_job(1)
        [start] = self.daemon_events("start")
        self.assertEqual(start["argv"][-2:], ["--join-timeout", "95"])
        self.assertEqual(ranks[0]["env"]["RCOLL_TIMEOUT"], "95")  # inherited

    def test_bad_exported_rcoll_timeout_is_refused_before_anything_starts(self):
        self.env["RCOLL_TIMEOUT"] = "1e8"
        result = self.launch("-n", 1, "true")
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn(b"RCOLL_TIMEOUT (exported): '1e8' is above 10000000 s", result.stderr)
        self.assertEqual(self.daemon_events("start"), [])

    def test_token_is_on_no_command_line(self):
        ranks = self.run_env_job(2)
        token = ranks[0]["env"]["RCOLL_JOB_TOKEN"]
        for rank in ranks:
            self.assertIn("rank_", rank["cmdline"])  # really the rank's cmdline
            self.assertNotIn(token, rank["cmdline"])
            self.assertIn("rcoll-run", rank["parent_cmdline"])
            self.assertNotIn(token, rank["parent_cmdline"])
        [start] = self.daemon_events("start")
        self.assertNotIn(token, start["cmdline"])

    def test_each_job_gets_a_new_token(self):
        first = self.run_env_job(1)[0]["env"]["RCOLL_JOB_TOKEN"]
        second = self.run_env_job(1)[0]["env"]["RCOLL_JOB_TOKEN"]
        self.assertNotEqual(first, second)


class OutputTest(LauncherTestCase):
    PROGRAM = '''
out = sys.stdout.buffer
out.write(f"hello from {RANK}\\n".encode()); out.flush()
out.write(b"split "); out.flush(); time.sleep(0.2)
out.write(b"line\\n"); out.flush()
sys.stderr.buffer.write(f"err {RANK}\\n".encode()); sys.stderr.flush()
out.write(b"bin \\xff\\xfe end\\n" + f"partial {RANK}".encode())
'''

    def test_lines_are_prefixed_with_the_rank(self):
        result = self.launch("-n", 2, *self.rank_program(self.PROGRAM))
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.split(b"\n")
        self.assertEqual(lines[-1], b"")  # the partial line got its newline
        for rank in (0, 1):
            p = f"[{rank}] ".encode()
            self.assertIn(p + f"hello from {rank}".encode(), lines)
            self.assertIn(p + b"split line", lines)
            self.assertIn(p + b"bin \xff\xfe end", lines)
            self.assertIn(p + f"partial {rank}".encode(), lines)
            self.assertIn(p + f"err {rank}".encode(), result.stderr.split(b"\n"))
        self.assertEqual(len(lines), 9)
        self.assertNotIn(b"err", result.stdout)

    def test_closed_stdout_ends_ranks_with_sigpipe_as_in_a_pipeline(self):
        launcher = self.start("-n", 2, "yes")
        self.addCleanup(launcher.kill)
        self.assertEqual(launcher.stdout.readline()[4:], b"y\n")
        launcher.stdout.close()
        _, stderr = launcher.communicate(timeout=10)
        self.assertEqual(launcher.returncode, 128 + signal.SIGPIPE, stderr)
        self.assertRegex(stderr, rb"rank \d killed by signal SIGPIPE")

    def test_no_tag_output_passes_lines_through(self):
        result = self.launch("-n", 2, "--no-tag-output", *self.rank_program(self.PROGRAM))
        self.assertEqual(result.returncode, 0, result.stderr)
        # Without tags nothing keeps lines whole, so only look at the first ones.
        self.assertIn(b"hello from 0\n", result.stdout)
        self.assertIn(b"hello from 1\n", result.stdout)
        self.assertNotIn(b"[0]", result.stdout)
        self.assertIn(b"err 1\n", result.stderr)


class StartupTest(LauncherTestCase):
    def assert_nothing_started(self, result, code, message):
        self.assertEqual(result.returncode, code, result.stderr)
        self.assertIn(message, result.stderr.decode())
        self.assertFalse(self.daemon_log.exists(), "the daemon was started")

    def test_missing_program_is_reported_before_anything_starts(self):
        self.assert_nothing_started(self.launch("-n", 2, "no-such-program-xyz"), 127,
                                    "rcoll-run: program not found on PATH: no-such-program-xyz")
        self.assert_nothing_started(self.launch("-n", 2, self.tmp / "nope"), 127,
                                    f"rcoll-run: program not found: {self.tmp / 'nope'}")

    def test_bad_arguments_are_reported_before_anything_starts(self):
        self.assert_nothing_started(self.launch("-n", 0, "true"), 2, "-n must be at least 1")
        self.assert_nothing_started(self.launch("-n", 1), 2, "no program given")
        self.assert_nothing_started(self.launch("-n", 3, "--hosts", "a:2", "true"), 2,
                                    "-n 3 exceeds the 2 slot(s)")

    def test_daemon_that_cannot_start_is_reported(self):
        self.env["FAKE_BOOTSTRAPD_MODE"] = "die"
        result = self.launch("-n", 1, "true")
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn(b"exited with status 3 before announcing its address: "
                      b"fake_bootstrapd: cannot listen: broken on purpose", result.stderr)

    def test_signal_during_startup_stops_the_daemon(self):
        self.env["FAKE_BOOTSTRAPD_MODE"] = "silent"
        launcher = self.start("-n", 1, "true")
        self.addCleanup(launcher.kill)
        self.assertTrue(wait_until(lambda: self.daemon_events("start")))
        launcher.send_signal(signal.SIGTERM)
        _, stderr = launcher.communicate(timeout=10)
        self.assertEqual(launcher.returncode, 128 + signal.SIGTERM, stderr)
        self.assertIn(b"received SIGTERM; stopping before any rank started", stderr)
        self.assert_all_gone([self.daemon_events("start")[0]["pid"]])


class FailureTest(LauncherTestCase):
    def run_failing_job(self, failure):
        start = time.monotonic()
        result = self.launch("-n", 3, *self.rank_program(FAILING_RANK.replace("FAILURE", failure)))
        self.assertLess(time.monotonic() - start, 10)
        pids = self.recorded_pids()
        self.assertEqual(len(pids), 4)  # three ranks and rank 0's child
        self.assert_all_gone(pids)
        return result.returncode, result.stderr.decode()

    def test_failing_rank_sets_exit_status_and_others_are_killed(self):
        code, stderr = self.run_failing_job("sys.exit(3)")
        self.assertEqual(code, 3, stderr)
        self.assertIn("rcoll-run: rank 2 exited with status 3; terminating the other ranks",
                      stderr)

    def test_rank_killed_by_signal_is_named(self):
        code, stderr = self.run_failing_job("os.kill(os.getpid(), signal.SIGKILL)")
        self.assertEqual(code, 128 + signal.SIGKILL, stderr)
        self.assertIn("rank 2 killed by signal SIGKILL", stderr)
        self.assertEqual(len(re.findall(r"rank \d+ (exited|killed)", stderr)), 1, stderr)

    def test_children_of_finished_ranks_do_not_outlive_the_job(self):
        program = self.rank_program('''
child = subprocess.Popen(["sleep", "60"], preexec_fn=lambda: signal.signal(signal.SIGTERM, signal.SIG_IGN),
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
record(f"pid-{RANK}.json", {"child_pid": child.pid})
''')
        result = self.launch("-n", 2, *program)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(len(self.recorded_pids()), 2)
        self.assert_all_gone(self.recorded_pids())

    def test_job_timeout_kills_the_job(self):
        start = time.monotonic()
        result = self.launch("-n", 2, "--job-timeout", "0.5",
                             *self.rank_program(SLEEPING_RANK.replace("TERM_HANDLING", "")))
        self.assertEqual(result.returncode, 124, result.stderr)
        self.assertIn(b"job timed out after 0.5 s", result.stderr)
        self.assertLess(time.monotonic() - start, 8)
        self.assert_all_gone(self.recorded_pids())

    def test_daemon_failure_while_ranks_run_is_reported(self):
        self.env["FAKE_BOOTSTRAPD_MODE"] = "fail"
        result = self.launch("-n", 2, *self.rank_program(SLEEPING_RANK.replace("TERM_HANDLING", "")))
        stderr = result.stderr.decode()
        self.assertEqual(result.returncode, 1, stderr)
        self.assertIn("ranks never joined: 0 of 2 joined", stderr)
        self.assertIn("bootstrap service exited with status 1 while ranks were running", stderr)
        self.assert_all_gone(self.recorded_pids())

    def test_a_rank_whose_death_failed_the_service_is_named(self):
        # The service exits as soon as a rank's connection closes; rank 1
        # dies 0.3 s after closing its own, as a SIGKILLed rank is reaped a
        # little after the kernel closed its sockets. The launcher names
        # that rank and its signal, not only "the bootstrap service exited".
        self.env["FAKE_BOOTSTRAPD_MODE"] = "lost"
        body = """
if RANK == 1:
    join_bootstrap()
    time.sleep(0.3)
    os.kill(os.getpid(), signal.SIGKILL)
time.sleep(60)
"""
        result = self.launch("-n", 2, *self.rank_program(body))
        stderr = result.stderr.decode()
        self.assertEqual(result.returncode, 128 + signal.SIGKILL, stderr)
        self.assertRegex(stderr, r"(?m)^rcoll-run: rank 1 killed by signal SIGKILL; then the bootstrap "
                                 r"service exited with status 1 \(its output is above\); terminating")
        self.assertIn("rank lost", stderr)


class SignalTest(LauncherTestCase):
    def start_sleeping_job(self, term_handling, *options):
        program = self.rank_program(SLEEPING_RANK.replace("TERM_HANDLING", term_handling))
        launcher = self.start("-n", 3, *options, *program)
        self.addCleanup(launcher.kill)
        self.wait_for_records("pid-*.json", 3)
        return launcher

    def test_sigterm_reaches_every_rank(self):
        launcher = self.start_sleeping_job(
            'signal.signal(signal.SIGTERM, lambda *_: (record(f"term-{RANK}.json", 1), sys.exit(0)))')
        launcher.send_signal(signal.SIGTERM)
        _, stderr = launcher.communicate(timeout=10)
        self.assertEqual(launcher.returncode, 128 + signal.SIGTERM, stderr)
        self.assertIn(b"received SIGTERM; forwarding it to all ranks", stderr)
        self.assertEqual(len(self.records("term-*.json")), 3)
        self.assert_all_gone(self.recorded_pids())

    def test_sigint_reaches_every_rank(self):
        launcher = self.start_sleeping_job("")  # Python ranks: KeyboardInterrupt
        launcher.send_signal(signal.SIGINT)
        _, stderr = launcher.communicate(timeout=10)
        self.assertEqual(launcher.returncode, 128 + signal.SIGINT, stderr)
        self.assertEqual(stderr.count(b"KeyboardInterrupt"), 3, stderr)
        self.assert_all_gone(self.recorded_pids())

    def test_ranks_ignoring_sigterm_get_sigkill(self):
        launcher = self.start_sleeping_job("signal.signal(signal.SIGTERM, signal.SIG_IGN)",
                                           "--kill-grace", "0.5")
        start = time.monotonic()
        launcher.send_signal(signal.SIGTERM)
        _, stderr = launcher.communicate(timeout=10)
        self.assertEqual(launcher.returncode, 128 + signal.SIGTERM, stderr)
        self.assertIn(b"sending SIGKILL to rank(s) 0, 1, 2", stderr)
        self.assertLess(time.monotonic() - start, 5)
        self.assert_all_gone(self.recorded_pids())

    def test_idle_launcher_sleeps_yet_forwards_a_signal_at_once(self):
        # Every wakeup of the watch loop is a voluntary context switch. A
        # fixed 50 ms tick made 20 a second and took CPU from the ranks.
        # The keeper watches; the front only waits for it and forwards.
        launcher = self.start_sleeping_job(
            'signal.signal(signal.SIGTERM, lambda *_: (record(f"term-{RANK}.json", 1), sys.exit(0)))')
        watched = (launcher.pid, keeper_of(launcher.pid))
        before = [_voluntary_switches(pid) for pid in watched]
        time.sleep(2.0)
        woken = sum(map(_voluntary_switches, watched)) - sum(before)
        self.assertLess(woken, 10, f"the idle launcher woke {woken} times in 2 s")
        start = time.monotonic()
        launcher.send_signal(signal.SIGTERM)
        self.wait_for_records("term-*.json", 3, timeout=0.8)  # not at the next 1 s look
        self.assertLess(time.monotonic() - start, 0.8)
        _, stderr = launcher.communicate(timeout=10)
        self.assertEqual(launcher.returncode, 128 + signal.SIGTERM, stderr)


def _voluntary_switches(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("voluntary_ctxt_switches:"):
                return int(line.split()[1])
    raise AssertionError(f"/proc/{pid}/status has no voluntary_ctxt_switches")


if __name__ == "__main__":
    unittest.main()
