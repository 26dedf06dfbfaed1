"""rcoll-run and faults: SIGUSR1 status requests reach only the ranks that
handle them, and an rcoll abort is reported with its reason."""

import signal
import time
import unittest

from launcher_testlib import LauncherTestCase, process_alive

# Ranks 0 and 1 handle SIGUSR1 (as the library does once it has a
# communicator, when RCOLL_STATUS_SIGNAL=1); rank 2 does not, so SIGUSR1
# would kill it.
STATUS_RANK = '''
if RANK < 2:
    def answer(_signum, _frame):
        record(f"usr1-{RANK}.json", {"status_signal": os.environ.get("RCOLL_STATUS_SIGNAL")})
    signal.signal(signal.SIGUSR1, answer)
record(f"pid-{RANK}.json", {"pid": os.getpid()})
time.sleep(60)
'''

ABORTING_RANK = '''
record(f"pid-{RANK}.json", {"pid": os.getpid()})
if RANK == 1:
    wait_for_files(["pid-0.json"])
    sys.stderr.write("rcoll: rank 1 aborted: out of memory in layer 7\\n")
    sys.stderr.flush()
    os._exit(70)
time.sleep(60)
'''


class StatusRequestTest(LauncherTestCase):
    def test_sigusr1_is_forwarded_only_to_ranks_that_handle_it(self):
        proc = self.start("-n", 3, "--kill-grace", "1", *self.rank_program(STATUS_RANK))
        try:
            self.wait_for_records("pid-*.json", 3)
            time.sleep(0.2)  # the handlers are installed before the records
            proc.send_signal(signal.SIGUSR1)
            self.wait_for_records("usr1-*.json", 2)
            self.assertEqual({r["status_signal"] for r in self.records("usr1-*.json").values()}, {"1"})
            pids = self.recorded_pids()
            self.assertTrue(all(map(process_alive, pids)), "a rank died of SIGUSR1")
            self.assertIsNone(proc.poll())
        finally:
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=20)
        self.assertEqual(sorted(self.records("usr1-*.json")), ["usr1-0.json", "usr1-1.json"])
        self.assertIn(b"rcoll-run: SIGUSR1: asked ranks 0, 1 for their state; rank 2 cannot answer", err)
        self.assert_all_gone(self.recorded_pids())


class AbortReportTest(LauncherTestCase):
    def test_an_aborted_rank_is_reported_with_its_reason(self):
        result = self.launch("-n", 2, "--kill-grace", "1", *self.rank_program(ABORTING_RANK))
        self.assertEqual(result.returncode, 70, result.stderr.decode())
        self.assertIn(b"rcoll-run: rank 1 aborted: out of memory in layer 7 (exit status 70); "
                      b"terminating the other ranks", result.stderr)
        self.assertIn(b"[1] rcoll: rank 1 aborted: out of memory in layer 7", result.stderr)
        self.assert_all_gone(self.recorded_pids())


if __name__ == "__main__":
    unittest.main()
