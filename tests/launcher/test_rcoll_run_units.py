"""Unit tests of the rcoll_run package (tools/rcoll_run): the pieces that
need no job, and the bootstrap daemon's start-up failures."""

import contextlib
import io
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest

from launcher_testlib import HERE, TOOLS, process_alive, wait_until

sys.path.insert(0, str(TOOLS))
sys.dont_write_bytecode = True
from rcoll_run import cli, daemon, output, placement, procs, spawn, tree  # noqa: E402


class PlacementTest(unittest.TestCase):
    def test_parse_hosts(self):
        self.assertEqual(placement.parse_hosts("a:2, b,c:1"),
                         [placement.Slot("a", 2), placement.Slot("b", 1), placement.Slot("c", 1)])

    def test_parse_hosts_rejects_bad_entries(self):
        for text, message in (("a:0", "at least one slot"), ("a:x", "not a number"),
                              (":3", "empty host"), ("a,,b", "empty host")):
            with self.subTest(text=text), self.assertRaisesRegex(placement.PlacementError, message):
                placement.parse_hosts(text)

    def test_too_many_ranks_for_the_slots(self):
        with self.assertRaisesRegex(placement.PlacementError, "-n 4 exceeds the 3 slot"):
            placement.place_ranks(4, placement.parse_hosts("a:2,b"))

    def test_every_name_of_this_host_is_one_machine(self):
        places = placement.place_ranks(3, placement.parse_hosts("localhost,me,b"), {"localhost", "me"})
        self.assertEqual([(p.local_rank, p.local_size, p.remote) for p in places],
                         [(0, 2, False), (1, 2, False), (0, 1, True)])

    def test_repeated_remote_host_shares_local_ranks(self):
        places = placement.place_ranks(3, placement.parse_hosts("a,b,a"), set())
        self.assertEqual([(p.host, p.local_rank, p.local_size) for p in places],
                         [("a", 0, 2), ("b", 0, 1), ("a", 1, 2)])

    def test_without_hosts_all_ranks_are_local(self):
        places = placement.place_ranks(2)
        self.assertEqual([(p.rank, p.local_rank, p.local_size, p.remote) for p in places],
                         [(0, 0, 2, False), (1, 1, 2, False)])


class CliTest(unittest.TestCase):
    def parse_error(self, *argv):
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr), self.assertRaises(SystemExit) as exited:
            cli.parse_args(list(argv))
        self.assertEqual(exited.exception.code, 2)
        return stderr.getvalue()

    def test_program_and_its_options_after_double_dash(self):
        args = cli.parse_args(["-n", "2", "--", "prog", "-n", "5", "--"])
        self.assertEqual((args.size, args.command), (2, ["prog", "-n", "5", "--"]))

    def test_size_defaults_to_all_slots(self):
        self.assertEqual(cli.parse_args(["--hosts", "a:2,b:3", "prog"]).size, 5)

    def test_bad_arguments(self):
        self.assertIn("-n must be at least 1", self.parse_error("-n", "0", "prog"))
        self.assertIn("no program given", self.parse_error("-n", "2"))
        self.assertIn("-n N is required", self.parse_error("prog"))
        self.assertIn("is not a binding policy", self.parse_error("-n", "1", "--bind", "socket", "prog"))
        self.assertIn("positive number", self.parse_error("-n", "1", "--timeout", "-1", "prog"))
        self.assertIn("invalid choice", self.parse_error("-n", "1", "--transport", "ib", "prog"))
        self.assertIn("slot count", self.parse_error("--hosts", "a:b", "prog"))

    def test_timeouts_out_of_the_librarys_range_say_what_is_accepted(self):
        # 1e8 used to pass here and fail in the service as "--join-timeout
        # expects a non-negative number, got '100000000'".
        self.assertIn("'1e8' is above 10000000 s (about 115 days), the longest timeout the library",
                      self.parse_error("-n", "1", "--timeout", "1e8", "prog"))
        self.assertIn("'0.0001' is below 0.001 s", self.parse_error("-n", "1", "--timeout", "0.0001", "prog"))
        self.assertIn("'nan' is not a positive number of seconds such as 30 or 2.5",
                      self.parse_error("-n", "1", "--timeout", "nan", "prog"))
        self.assertEqual(cli.parse_args(["-n", "1", "--timeout", "1e7", "prog"]).timeout, 1e7)

    def test_empty_hosts_is_refused_not_ignored(self):
        # It used to run every rank here (with -n) or ask for -n (without).
        for argv in (["--hosts", "", "prog"], ["-n", "2", "--hosts", " ", "prog"]):
            with self.subTest(argv=argv):
                self.assertIn("--hosts is empty; expected HOST[:SLOTS][,HOST[:SLOTS]...]",
                              self.parse_error(*argv))

    def test_join_window_is_the_ranks_timeout(self):
        self.assertEqual(cli.join_window(7.0, {"RCOLL_TIMEOUT": "45"}), 7.0)
        self.assertEqual(cli.join_window(None, {"RCOLL_TIMEOUT": "45"}), 45.0)
        self.assertEqual(cli.join_window(None, {"RCOLL_TIMEOUT": ""}), 300.0)
        self.assertEqual(cli.join_window(None, {}), 300.0)
        with self.assertRaisesRegex(ValueError, r"RCOLL_TIMEOUT \(exported\): '5s' is not a positive number"):
            cli.join_window(None, {"RCOLL_TIMEOUT": "5s"})


class SpawnTest(unittest.TestCase):
    JOB = spawn.JobSettings(size=2, bootstrap="10.0.0.1:99", token="f00d" * 8,
                            transport="tcp", timeout="7")
    PLACE = placement.RankPlace(rank=1, host="nodeB", local_rank=0, local_size=1, remote=True)

    def test_format_seconds(self):
        self.assertEqual([spawn.format_seconds(v) for v in (7.0, 0.5, 1000.0)], ["7", "0.5", "1000"])

    def test_remote_launch_keeps_the_token_off_argv(self):
        launch = spawn.remote_launch(self.PLACE, self.JOB, ["prog", "a b"],
                                     {"RCOLL_JOB_TOKEN": "old", "RCOLL_SSH": "x", "RCOLL_LOG": "info"},
                                     ["ssh", "-x"], "/work dir")
        self.assertEqual(launch.argv[:3], ["ssh", "-x", "nodeB"])
        self.assertEqual(len(launch.argv), 4)
        self.assertNotIn(self.JOB.token, " ".join(launch.argv))
        self.assertEqual(launch.stdin_data, self.JOB.token.encode() + b"\n")
        self.assertNotIn("RCOLL_JOB_TOKEN", launch.env)
        for piece in ("RCOLL_RANK=1", "RCOLL_LOG=info", "'a b'", "'/work dir'", "RCOLL_TIMEOUT=7"):
            self.assertIn(piece, launch.argv[3])
        self.assertNotIn("RCOLL_SSH", launch.argv[3])

    def test_check_program(self):
        spawn.check_program("sh", os.environ)
        with self.assertRaisesRegex(spawn.ProgramError, "not found on PATH"):
            spawn.check_program("no-such-program-xyz", os.environ)
        with self.assertRaisesRegex(spawn.ProgramError, "program not found: /nonexistent/p"):
            spawn.check_program("/nonexistent/p", os.environ)
        with self.assertRaisesRegex(spawn.ProgramError, "not executable"):
            spawn.check_program(str(HERE / "launcher_testlib.py"), os.environ)


class ProcsTest(unittest.TestCase):
    def test_statuses(self):
        self.assertEqual(procs.describe_status(3), "exited with status 3")
        self.assertEqual(procs.describe_status(-9), "killed by signal SIGKILL")
        self.assertEqual((procs.exit_code_for(3), procs.exit_code_for(-15)), (3, 143))


class TreeTest(unittest.TestCase):
    def test_a_child_whose_parent_is_already_gone_ends_at_once(self):
        # die_with_parent(P) in a child of another process: as if P had died
        # before the parent-death signal was set, which then never comes.
        child = subprocess.Popen(["sleep", "30"], preexec_fn=tree.die_with_parent(os.getpid() + 1))
        self.addCleanup(child.kill)
        self.assertEqual(child.wait(5), -signal.SIGKILL)

    def test_a_child_ends_with_the_process_that_started_it(self):
        parent = subprocess.Popen([sys.executable, "-c", f"""
import subprocess, sys
sys.path.insert(0, {str(TOOLS)!r})
from rcoll_run import tree
import os
child = subprocess.Popen(["sleep", "30"], preexec_fn=tree.die_with_parent(os.getpid()))
print(child.pid, flush=True)
"""], stdout=subprocess.PIPE)
        child_pid = int(parent.communicate(timeout=5)[0])
        self.assertTrue(wait_until(lambda: not process_alive(child_pid), 3.0),
                        f"sleep (PID {child_pid}) outlived its parent")

    def test_kill_descendants_finds_grandchildren_that_left_with_setsid(self):
        subreaper = subprocess.Popen([sys.executable, "-c", f"""
import os, subprocess, sys, time
sys.path.insert(0, {str(TOOLS)!r})
from rcoll_run import tree
tree.become_subreaper()
middle = subprocess.Popen(["sh", "-c", "setsid sleep 30 & echo $!"], stdout=subprocess.PIPE)
print(int(middle.stdout.readline()), flush=True)
middle.wait()  # the sleep is an orphan now, re-parented to this process
print(tree.kill_descendants(), flush=True)
"""], stdout=subprocess.PIPE, text=True)
        orphan, left = subreaper.communicate(timeout=10)[0].splitlines()
        orphan = int(orphan)
        self.assertEqual(left, "[]")
        self.assertFalse(process_alive(orphan), f"setsid sleep (PID {orphan}) survived")


class OutputPumpTest(unittest.TestCase):
    def pump_through(self, *chunks):
        read_end, write_end = os.pipe()
        sink = io.BytesIO()
        pump = output.OutputPump()
        pump.add(read_end, b"[7] ", sink, 7)
        for chunk in chunks:
            os.write(write_end, chunk)
            pump.drain(7)
        os.close(write_end)
        pump.finish(1.0)
        self.assertFalse(pump.active())
        return sink.getvalue()

    def test_lines_split_across_writes_stay_whole(self):
        self.assertEqual(self.pump_through(b"a", b"b\nc\n\nd", b"e"), b"[7] ab\n[7] c\n[7] \n[7] de\n")

    def test_overlong_line_is_written_in_pieces(self):
        data = self.pump_through(*[b"x" * 4096] * (output.MAX_LINE // 4096), b"x" * 10)
        self.assertEqual(data.count(b"[7] "), 2)
        self.assertEqual(data.count(b"x"), output.MAX_LINE + 10)


class DaemonTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.fake = os.path.join(self.tmp, "fake_bootstrapd.py")
        shutil.copy(HERE / "fake_bootstrapd.py", self.fake)
        os.chmod(self.fake, 0o755)

    def start_error(self, mode, **kwargs):
        os.environ["FAKE_BOOTSTRAPD_MODE"] = mode
        self.addCleanup(os.environ.pop, "FAKE_BOOTSTRAPD_MODE")
        with self.assertRaises(daemon.DaemonError) as raised:
            daemon.BootstrapDaemon(self.fake, 2, "127.0.0.1:0", "tok", **kwargs)
        return str(raised.exception)

    def test_daemon_dying_before_announcing(self):
        message = self.start_error("die")
        self.assertIn("exited with status 3 before announcing", message)
        self.assertIn("broken on purpose", message)

    def test_daemon_printing_something_else(self):
        self.assertIn("printed 'hello' instead of RCOLL_BOOTSTRAP", self.start_error("garbage"))

    def test_daemon_never_announcing(self):
        self.assertIn("did not announce its address within 0.3 s",
                      self.start_error("silent", start_timeout_s=0.3))

    def test_find_order(self):
        script_dir = os.path.join(self.tmp, "tools")
        build_dir = os.path.join(self.tmp, "build", "tools")
        os.makedirs(build_dir)
        os.makedirs(script_dir)
        env = {"PATH": self.tmp}
        with self.assertRaisesRegex(daemon.DaemonError, "build the project .* RCOLL_BOOTSTRAPD"):
            daemon.find_bootstrapd(script_dir, env)
        for directory in (self.tmp, build_dir, script_dir):
            shutil.copy(self.fake, os.path.join(directory, "rcoll-bootstrapd"))
            found = daemon.find_bootstrapd(script_dir, env)
            self.assertEqual(found, os.path.join(directory, "rcoll-bootstrapd"))
        self.assertEqual(daemon.find_bootstrapd(script_dir, dict(env, RCOLL_BOOTSTRAPD=self.fake)),
                         self.fake)
        with self.assertRaisesRegex(daemon.DaemonError, "RCOLL_BOOTSTRAPD=/nope is not"):
            daemon.find_bootstrapd(script_dir, dict(env, RCOLL_BOOTSTRAPD="/nope"))

    def test_published_address(self):
        self.assertEqual(daemon.published_address("0.0.0.0", 5, None, False), "127.0.0.1:5")
        self.assertEqual(daemon.published_address("10.1.1.1", 5, None, True), "10.1.1.1:5")
        self.assertEqual(daemon.published_address("0.0.0.0", 5, "h", True), "h:5")


if __name__ == "__main__":
    unittest.main()
