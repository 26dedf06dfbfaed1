"""rcoll-run --hosts: ranks on other hosts start through ssh. A stub ssh
(stub_ssh) records the host and runs the remote command here, in an emptied
environment, so these tests prove the command line carries all a rank needs."""

import os
import socket
import unittest

from launcher_testlib import LauncherTestCase

# Records its variables and argv, joins the fake daemon, says hello.
REMOTE_RANK = '''
names = ["RCOLL_RANK", "RCOLL_SIZE", "RCOLL_LOCAL_RANK", "RCOLL_LOCAL_SIZE", "RCOLL_BOOTSTRAP",
         "RCOLL_JOB_TOKEN", "RCOLL_TRANSPORT", "RCOLL_TIMEOUT", "RCOLL_LOG", "LAUNCHER_MARKER"]
join_bootstrap()
record(f"env-{RANK}.json", {"env": {n: os.environ.get(n) for n in names},
                            "argv": sys.argv[2:], "cwd": os.getcwd()})
print("hello", flush=True)
'''

TRICKY_ARG = "it's \"quoted\" $HOME; `x` a  b"


class HostsTest(LauncherTestCase):
    def run_hosts_job(self, *options):
        self.env["LAUNCHER_MARKER"] = "launcher"
        self.env["RCOLL_LOG"] = "debug"
        ssh = self.stub_ssh()
        result = self.launch("--ssh", ssh, "--transport", "tcp", "--timeout", "9", *options,
                             *self.rank_program(REMOTE_RANK), TRICKY_ARG)
        self.assertEqual(result.returncode, 0, result.stderr.decode())
        return result

    def rank_envs(self, size):
        records = self.records("env-*.json")
        self.assertEqual(len(records), size)
        return [records[f"env-{r}.json"] for r in range(size)]

    def test_ranks_fill_hosts_in_order_with_per_host_local_ranks(self):
        result = self.run_hosts_job("-n", 5, "--hosts", "nodeA:2,localhost:1,nodeB:3",
                                    "--bootstrap-host", "127.0.0.1")
        hosts = (self.tmp / "ssh-hosts.log").read_text().split()
        self.assertEqual(sorted(hosts), ["nodeA", "nodeA", "nodeB", "nodeB"])
        ranks = self.rank_envs(5)
        local = [(r["env"]["RCOLL_LOCAL_RANK"], r["env"]["RCOLL_LOCAL_SIZE"]) for r in ranks]
        self.assertEqual(local, [("0", "2"), ("1", "2"), ("0", "1"), ("0", "2"), ("1", "2")])
        # Only rank 2 ran here directly; the others got a fresh environment.
        self.assertEqual([r["env"]["LAUNCHER_MARKER"] for r in ranks],
                         [None, None, "launcher", None, None])
        for rank, record in enumerate(ranks):
            env = record["env"]
            self.assertEqual(env["RCOLL_RANK"], str(rank))
            self.assertEqual((env["RCOLL_SIZE"], env["RCOLL_TRANSPORT"], env["RCOLL_TIMEOUT"]),
                             ("5", "tcp", "9"))
            self.assertEqual(env["RCOLL_LOG"], "debug")  # the user's settings travel
            self.assertEqual(record["argv"], [TRICKY_ARG])
        for rank in range(5):
            self.assertIn(f"[{rank}] hello".encode(), result.stdout.split(b"\n"))

    def test_token_reaches_remote_ranks_but_not_their_command_line(self):
        self.run_hosts_job("-n", 2, "--hosts", "nodeA,nodeB", "--bootstrap-host", "127.0.0.1")
        tokens = {r["env"]["RCOLL_JOB_TOKEN"] for r in self.rank_envs(2)}
        [start] = self.daemon_events("start")
        self.assertEqual(tokens, {start["token"]})
        self.assertEqual([j["token_ok"] for j in self.daemon_events("join")], [True, True])
        self.assertNotIn(start["token"], (self.tmp / "ssh-argv.log").read_text())

    def test_daemon_listens_on_all_interfaces_and_ranks_get_a_reachable_address(self):
        self.run_hosts_job("-n", 2, "--hosts", "nodeA:2", "--bootstrap-host", "127.0.0.1")
        [start] = self.daemon_events("start")
        self.assertEqual(start["argv"][:4], ["--size", "2", "--listen", "0.0.0.0:0"])
        self.assertEqual({r["env"]["RCOLL_BOOTSTRAP"] for r in self.rank_envs(2)},
                         {f"127.0.0.1:{start['port']}"})

    def test_default_published_address_is_this_hosts_ip(self):
        try:
            address = socket.gethostbyname(socket.gethostname())
        except OSError:
            self.skipTest("this host's name does not resolve")
        self.run_hosts_job("-n", 1, "--hosts", "nodeA")
        [start] = self.daemon_events("start")
        self.assertEqual(self.rank_envs(1)[0]["env"]["RCOLL_BOOTSTRAP"],
                         f"{address}:{start['port']}")

    def test_missing_ssh_is_reported_before_anything_starts(self):
        result = self.launch("--ssh", "no-such-ssh -x", "--hosts", "nodeA", "true")
        self.assertEqual(result.returncode, 127, result.stderr)
        self.assertIn(b"remote shell (--ssh) not found on PATH: no-such-ssh", result.stderr)
        self.assertFalse(self.daemon_log.exists())

    def test_remote_ranks_start_in_the_launchers_directory(self):
        self.run_hosts_job("-n", 1, "--hosts", "nodeA", "--bootstrap-host", "127.0.0.1")
        self.assertEqual(self.rank_envs(1)[0]["cwd"], os.path.realpath(self.tmp))


if __name__ == "__main__":
    unittest.main()
