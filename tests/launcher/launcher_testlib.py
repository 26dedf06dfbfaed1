"""Shared pieces of the launcher tests: running rcoll-run against the fake
bootstrap daemon, writing small Python rank programs, watching processes."""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
LAUNCHER = REPO / "tools" / "rcoll-run"
TOOLS = REPO / "tools"

# Every rank program starts with this: OUT is argv[1], record() writes JSON.
RANK_PRELUDE = '''\
import hashlib, hmac, json, os, signal, socket, subprocess, sys, time
OUT = sys.argv[1]
RANK = int(os.environ["RCOLL_RANK"])

def record(name, data):
    tmp = os.path.join(OUT, name + ".tmp")
    with open(tmp, "w") as f:
        json.dump(data, f)
    os.rename(tmp, os.path.join(OUT, name))

def join_bootstrap():
    """Joins the (fake) bootstrap service: answers its nonce with a proof of
    the job token (never the token) and waits for its answer, so the service
    has recorded the join before this rank goes on (and maybe ends the job by
    exiting)."""
    host, _, port = os.environ["RCOLL_BOOTSTRAP"].rpartition(":")
    with socket.create_connection((host, int(port)), timeout=5) as s, s.makefile("rb") as stream:
        nonce = stream.readline().strip()
        proof = hmac.new(os.environ["RCOLL_JOB_TOKEN"].encode(), nonce, hashlib.sha256).hexdigest()
        s.sendall(proof.encode() + b"\\n")
        stream.readline()

def wait_for_files(names, timeout=10):
    end = time.time() + timeout
    while not all(os.path.exists(os.path.join(OUT, n)) for n in names):
        if time.time() > end:
            sys.exit("timed out waiting for " + repr(names))
        time.sleep(0.02)
'''


def process_alive(pid):
    """False once `pid` is gone or a zombie (no reaper may be running)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rpartition(")")[2].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def keeper_of(launcher_pid):
    """The PID of rcoll-run's keeper: the one child of the process started
    as rcoll-run (its front; tools/rcoll_run/keeper.py)."""
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{name}/stat") as f:
                if int(f.read().rpartition(")")[2].split()[1]) == launcher_pid:
                    return int(name)
        except (OSError, ValueError, IndexError):
            continue
    raise AssertionError(f"rcoll-run (PID {launcher_pid}) has no keeper process")


def wait_until(condition, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


class LauncherTestCase(unittest.TestCase):
    """Each test gets a temp dir `out` and an environment `env` in which
    rcoll-run uses the fake bootstrap daemon."""

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="rcoll-run-test-"))
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        self.addCleanup(self._kill_recorded)
        self.out = self.tmp / "out"
        self.out.mkdir()
        self.daemon_log = self.tmp / "daemon.log"
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("RCOLL_")}
        self.env["RCOLL_BOOTSTRAPD"] = str(self._executable_copy("fake_bootstrapd.py"))
        self.env["FAKE_BOOTSTRAPD_LOG"] = str(self.daemon_log)

    def _executable_copy(self, name):
        """A copy with the x bit set, whatever the checkout's file modes are."""
        target = self.tmp / name
        shutil.copy(HERE / name, target)
        target.chmod(0o755)
        return target

    def stub_ssh(self):
        self.env["STUB_SSH_HOSTS"] = str(self.tmp / "ssh-hosts.log")
        self.env["STUB_SSH_ARGV"] = str(self.tmp / "ssh-argv.log")
        return str(self._executable_copy("stub_ssh"))

    def rank_program(self, body):
        """Returns the command running `body` (after RANK_PRELUDE) per rank."""
        path = self.tmp / f"rank_{len(list(self.tmp.glob('rank_*.py')))}.py"
        path.write_text(RANK_PRELUDE + body)
        return [sys.executable, str(path), str(self.out)]

    def launch(self, *args, timeout=30):
        """Runs rcoll-run to the end in the temp dir; stdout, stderr as bytes."""
        return subprocess.run([str(LAUNCHER), *map(str, args)], env=self.env, cwd=self.tmp,
                              capture_output=True, timeout=timeout)

    def start(self, *args):
        return subprocess.Popen([str(LAUNCHER), *map(str, args)], env=self.env, cwd=self.tmp,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def records(self, pattern):
        return {p.name: json.loads(p.read_text()) for p in sorted(self.out.glob(pattern))}

    def daemon_events(self, event):
        if not self.daemon_log.exists():
            return []
        lines = self.daemon_log.read_text().splitlines()
        return [e for e in map(json.loads, lines) if e["event"] == event]

    def wait_for_records(self, pattern, count, timeout=10):
        self.assertTrue(wait_until(lambda: len(list(self.out.glob(pattern))) >= count, timeout),
                        f"expected {count} files {pattern} in {os.listdir(self.out)}")

    def assert_all_gone(self, pids):
        self.assertTrue(pids, "no PIDs were recorded")
        self.assertTrue(wait_until(lambda: not any(map(process_alive, pids)), 3.0),
                        f"orphans left: {[p for p in pids if process_alive(p)]}")

    def recorded_pids(self):
        """Every "pid"/"child_pid"/"escaped_pid" the rank programs recorded."""
        return [r[key] for r in self.records("*.json").values()
                for key in ("pid", "child_pid", "escaped_pid") if isinstance(r, dict) and key in r]

    def _kill_recorded(self):
        # Only after a failed test: never leave its processes (or the fake
        # service) behind.
        for pid in self.recorded_pids() + [e["pid"] for e in self.daemon_events("start")]:
            if process_alive(pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
