"""rcoll-run --bind / --report-bindings: the policy reaches every rank as
RCOLL_BIND (the library applies it), bad policies are refused up front."""

import contextlib
import io
import os
import sys
import unittest

from launcher_testlib import TOOLS, LauncherTestCase

sys.path.insert(0, str(TOOLS))
sys.dont_write_bytecode = True
from rcoll_run import cli, placement, spawn  # noqa: E402

BIND_RANK = '''
names = ["RCOLL_BIND", "RCOLL_REPORT_BINDINGS", "RCOLL_LOCAL_RANK", "RCOLL_LOCAL_SIZE"]
join_bootstrap()
record(f"bind-{RANK}.json", {n: os.environ.get(n) for n in names})
'''


class BindJobTest(LauncherTestCase):
    def run_bind_job(self, size, *options):
        result = self.launch("-n", size, *options, *self.rank_program(BIND_RANK))
        self.assertEqual(result.returncode, 0, result.stderr.decode())
        ranks = self.records("bind-*.json")
        self.assertEqual(len(ranks), size)
        return [ranks[f"bind-{r}.json"] for r in range(size)]

    def test_policy_and_report_flag_reach_every_rank(self):
        ranks = self.run_bind_job(3, "--bind", "nic", "--report-bindings")
        self.assertEqual({r["RCOLL_BIND"] for r in ranks}, {"nic"})
        self.assertEqual({r["RCOLL_REPORT_BINDINGS"] for r in ranks}, {"1"})
        self.assertEqual(sorted(r["RCOLL_LOCAL_RANK"] for r in ranks), ["0", "1", "2"])

    def test_default_is_auto_without_reports(self):
        ranks = self.run_bind_job(2)
        self.assertEqual({r["RCOLL_BIND"] for r in ranks}, {"auto"})
        self.assertEqual({r["RCOLL_REPORT_BINDINGS"] for r in ranks}, {None})

    def test_inherited_policy_and_option_precedence(self):
        self.env["RCOLL_BIND"] = "numa"
        self.assertEqual({r["RCOLL_BIND"] for r in self.run_bind_job(2)}, {"numa"})
        ranks = self.run_bind_job(2, "--bind", "core")
        self.assertEqual({r["RCOLL_BIND"] for r in ranks}, {"core"})

    def test_bad_policy_is_refused_before_any_rank_starts(self):
        result = self.launch("-n", 2, "--bind", "socket", *self.rank_program(BIND_RANK))
        self.assertEqual(result.returncode, 2)
        self.assertIn("--bind 'socket' is not a binding policy; choose one of none, core, numa, nic, auto",
                      result.stderr.decode())
        self.assertEqual(self.records("bind-*.json"), {})
        self.assertEqual(self.daemon_events("start"), [])

    def test_bad_inherited_policy_is_refused_and_named(self):
        self.env["RCOLL_BIND"] = "sockets"
        result = self.launch("-n", 1, *self.rank_program(BIND_RANK))
        self.assertEqual(result.returncode, 2)
        self.assertIn("RCOLL_BIND 'sockets' is not a binding policy", result.stderr.decode())


class BindUnitTest(unittest.TestCase):
    def test_every_policy_is_accepted(self):
        for policy in ("none", "core", "numa", "nic", "auto"):
            self.assertEqual(cli.parse_args(["-n", "1", "--bind", policy, "prog"]).bind, policy)

    def test_empty_policy_is_refused(self):
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr), self.assertRaises(SystemExit) as exited:
            cli.parse_args(["-n", "1", "--bind", "", "prog"])
        self.assertEqual(exited.exception.code, 2)
        self.assertIn("--bind '' is not a binding policy", stderr.getvalue())

    def test_remote_ranks_get_the_policy_on_their_command_line(self):
        job = spawn.JobSettings(size=2, bootstrap="10.0.0.1:99", token="ab" * 16, transport="tcp",
                                bind="nic", report_bindings=True)
        place = placement.RankPlace(rank=1, host="nodeB", local_rank=0, local_size=1, remote=True)
        launch = spawn.remote_launch(place, job, ["prog"], {}, ["ssh"], os.getcwd())
        self.assertIn("RCOLL_BIND=nic", launch.argv[-1])
        self.assertIn("RCOLL_REPORT_BINDINGS=1", launch.argv[-1])


if __name__ == "__main__":
    unittest.main()
