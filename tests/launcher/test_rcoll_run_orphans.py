"""No process of a job outlives rcoll-run, even when rcoll-run is SIGKILLed
(the OOM killer, a batch system, `timeout -s KILL`): not the ranks, not the
bootstrap service, not a rank's children, not a child that left the rank's
session with setsid. How: tools/rcoll_run/keeper.py.

Fake ranks and daemon (no build needed), and one real job: rcoll_fault_job
ranks in a loop of 8 MiB allreduces with the real rcoll-bootstrapd, found by
a marker in their environment (CTest passes both paths; by hand they are
taken from build/ and the test skips, saying so, without a build)."""

import os
import signal
import subprocess
import sys
import time
import unittest
import uuid

from launcher_testlib import LAUNCHER, REPO, LauncherTestCase, keeper_of, wait_until

sys.path.insert(0, str(REPO / "tests" / "faults"))
import faultlib  # noqa: E402 (processes_with_marker: the job's processes by environment)

GONE_WITHIN_S = 3.0

# Each rank starts a child in its own process group and one that leaves
# with setsid (both ignore SIGTERM and SIGHUP), records every PID, then
# sleeps as if in a long collective.
FAMILY_RANK = '''
quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
             preexec_fn=lambda: (signal.signal(signal.SIGTERM, signal.SIG_IGN),
                                 signal.signal(signal.SIGHUP, signal.SIG_IGN)))
child = subprocess.Popen(["sleep", "1000"], **quiet)
escaped = subprocess.Popen(["setsid", "sleep", "1000"], **quiet)
deadline = time.time() + 5
while os.getsid(escaped.pid) != escaped.pid and time.time() < deadline:
    time.sleep(0.01)  # until setsid has run (then it execs sleep)
record(f"pid-{RANK}.json", {"pid": os.getpid(), "ppid": os.getppid(), "child_pid": child.pid,
                            "escaped_pid": escaped.pid,
                            "escaped_sid": os.getsid(escaped.pid)})
time.sleep(1000)
'''


# The rank starts a short sleep that its shell leaves behind: an orphan,
# adopted by the keeper, which must reap it while the job runs.
ADOPTING_RANK = '''
shell = subprocess.run(["sh", "-c", "sleep 0.3 & echo $!"], capture_output=True, text=True)
record(f"pid-{RANK}.json", {"pid": os.getpid(), "orphan_pid": int(shell.stdout)})
time.sleep(1000)
'''


class AdoptedOrphansTest(LauncherTestCase):
    def test_orphans_that_end_are_reaped_while_the_job_runs(self):
        launcher = self.start("-n", 1, *self.rank_program(ADOPTING_RANK))
        self.addCleanup(_kill_quietly, launcher)
        self.wait_for_records("pid-*.json", 1)
        [record] = self.records("pid-*.json").values()
        orphan = f"/proc/{record['orphan_pid']}"
        # A zombie keeps its /proc entry until its parent (the keeper) reaps it.
        self.assertTrue(wait_until(lambda: not os.path.exists(orphan), 3.0),
                        f"the ended orphan {record['orphan_pid']} was not reaped")
        self.assertIsNone(launcher.poll())


class LauncherKilledTest(LauncherTestCase):
    def start_family_job(self, ranks=3, **popen):
        launcher = subprocess.Popen([str(LAUNCHER), "-n", str(ranks),
                                     *self.rank_program(FAMILY_RANK)],
                                    env=self.env, cwd=self.tmp, stdout=subprocess.DEVNULL,
                                    **{"stderr": subprocess.DEVNULL, **popen})
        self.addCleanup(_kill_quietly, launcher)
        self.wait_for_records("pid-*.json", ranks)
        records = self.records("pid-*.json").values()
        for record in records:
            self.assertEqual(record["escaped_sid"], record["escaped_pid"], "setsid did not run")
        self.assertEqual({r["ppid"] for r in records}, {keeper_of(launcher.pid)})
        pids = [r[key] for r in records for key in ("pid", "child_pid", "escaped_pid")]
        [start] = self.daemon_events("start")
        return launcher, pids + [start["pid"]]

    def assert_none_left(self, pids):
        start = time.monotonic()
        left = lambda: [pid for pid in pids if _alive(pid)]  # noqa: E731
        self.assertTrue(wait_until(lambda: not left(), GONE_WITHIN_S),
                        f"left {GONE_WITHIN_S:g} s after the launcher's death: {left()} of {pids}")
        print(f"orphans: {self._testMethodName}: {len(pids)} processes gone "
              f"{time.monotonic() - start:.2f} s after", flush=True)

    def test_sigkill_of_the_launcher_ends_every_process_of_the_job(self):
        launcher, pids = self.start_family_job()
        launcher.kill()
        launcher.wait(5)
        self.assert_none_left(pids)

    def test_sigkill_of_the_launchers_process_group_ends_the_job(self):
        # What `timeout -s KILL` and many batch systems do: the whole group.
        launcher, pids = self.start_family_job(start_new_session=True)
        os.killpg(launcher.pid, signal.SIGKILL)
        launcher.wait(5)
        self.assert_none_left(pids)

    def test_sigkill_of_the_keeper_ends_the_job_too(self):
        # The ranks and the service die by their parent-death signal; the
        # front, a subreaper, adopts and kills the rest and says what happened.
        launcher, pids = self.start_family_job(stderr=subprocess.PIPE)
        os.kill(keeper_of(launcher.pid), signal.SIGKILL)
        _, stderr = launcher.communicate(timeout=10)
        self.assertEqual(launcher.returncode, 128 + signal.SIGKILL, stderr)
        self.assertIn(b"rcoll-run: the launcher's keeper process was killed by SIGKILL", stderr)
        self.assert_none_left(pids)

    def test_sigkill_of_the_launcher_while_the_service_starts(self):
        self.env["FAKE_BOOTSTRAPD_MODE"] = "silent"  # never announces its address
        launcher = subprocess.Popen([str(LAUNCHER), "-n", "2", "true"], env=self.env, cwd=self.tmp,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(_kill_quietly, launcher)
        self.assertTrue(wait_until(lambda: self.daemon_events("start")))
        pids = [self.daemon_events("start")[0]["pid"], keeper_of(launcher.pid)]
        launcher.kill()
        launcher.wait(5)
        self.assert_none_left(pids)

    def test_a_setsid_child_does_not_outlive_a_job_that_ends_normally(self):
        launcher, pids = self.start_family_job(ranks=2)
        launcher.send_signal(signal.SIGTERM)
        launcher.wait(15)
        self.assert_none_left(pids)


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def _kill_pids(pids):
    for pid in filter(_alive, pids):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _kill_quietly(proc):
    if proc.poll() is None:
        proc.kill()
    proc.communicate(timeout=10)  # and closes its pipes


def _real_binaries():
    job = os.environ.get("RCOLL_TEST_FAULT_JOB") or str(REPO / "build/tests/faults/rcoll_fault_job")
    daemon = os.environ.get("RCOLL_TEST_BOOTSTRAPD") or str(REPO / "build/tools/rcoll-bootstrapd")
    found = all(os.access(path, os.X_OK) for path in (job, daemon))
    return (job, daemon) if found else None


@unittest.skipUnless(_real_binaries(), "needs the build: rcoll_fault_job and rcoll-bootstrapd "
                                       "(CTest passes RCOLL_TEST_FAULT_JOB, RCOLL_TEST_BOOTSTRAPD)")
class RealJobKilledTest(unittest.TestCase):
    RANKS = 3

    def test_sigkill_of_the_launcher_mid_allreduce_ends_the_job(self):
        job, daemon = _real_binaries()
        marker = "orphans-" + uuid.uuid4().hex
        env = faultlib.clean_env(marker, RCOLL_BOOTSTRAPD=daemon)
        # No victim (rank 99 of 3): 1000 allreduces of 8 MiB, far longer than the test.
        launcher = subprocess.Popen([str(LAUNCHER), "-n", str(self.RANKS),
                                     "--transport", "tcp", job, "kill", "99", "transfer", "0"],
                                    env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(_kill_marked, marker)
        self.addCleanup(_kill_quietly, launcher)
        # Launcher front and keeper, daemon, ranks: all carry the marker.
        self.assertTrue(wait_until(lambda: len(_ranks(marker, job)) == self.RANKS, 20),
                        f"ranks did not start: {faultlib.processes_with_marker(marker)}")
        time.sleep(1.5)  # joined and inside the allreduce loop
        self.assertIsNone(launcher.poll(), "the job ended before the launcher was killed")
        job_pids = faultlib.processes_with_marker(marker)
        self.assertGreaterEqual(len(job_pids), self.RANKS + 2)
        launcher.kill()
        launcher.wait(5)
        start = time.monotonic()
        left = faultlib.wait_no_orphans(marker, within_s=GONE_WITHIN_S)
        self.assertEqual(left, [], f"processes of the job left {GONE_WITHIN_S:g} s after rcoll-run's "
                                   f"SIGKILL: {[_cmdline(pid) for pid in left]}")
        print(f"orphans: {len(job_pids)} processes of the job gone "
              f"{time.monotonic() - start:.2f} s after rcoll-run's SIGKILL", flush=True)


def _ranks(marker, job):
    return [pid for pid in faultlib.processes_with_marker(marker) if _cmdline(pid).startswith(job)]


def _cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return f"{pid} (gone)"


def _kill_marked(marker):
    _kill_pids(faultlib.processes_with_marker(marker))


if __name__ == "__main__":
    unittest.main()
