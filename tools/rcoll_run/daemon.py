"""The bootstrap rank service (rcoll-bootstrapd): finding, starting, stopping.

The daemon takes `--size N --listen HOST:PORT [--join-timeout S]` and the job
token in RCOLL_JOB_TOKEN, prints `RCOLL_BOOTSTRAP=<host>:<port>` once it
listens, and exits 0 when every rank has disconnected.
"""

import os
import re
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import time

from . import procs, tree

DAEMON_NAME = "rcoll-bootstrapd"
START_TIMEOUT_S = 10.0
ANNOUNCEMENT = re.compile(r"^RCOLL_BOOTSTRAP=(?P<host>[^\s]*):(?P<port>\d+)$")
WILDCARD_HOSTS = ("", "0.0.0.0", "::", "[::]", "*")


class DaemonError(Exception):
    """The bootstrap service could not be found, started or reached."""


def find_bootstrapd(script_dir, environ):
    """$RCOLL_BOOTSTRAPD, else next to the script (installed layout), else the
    build tree (<script_dir>/../build/tools), else PATH."""
    explicit = environ.get("RCOLL_BOOTSTRAPD")
    if explicit:
        if not (os.path.isfile(explicit) and os.access(explicit, os.X_OK)):
            raise DaemonError(f"RCOLL_BOOTSTRAPD={explicit} is not an executable file")
        return explicit
    for candidate in (os.path.join(script_dir, DAEMON_NAME),
                      os.path.join(script_dir, os.pardir, "build", "tools", DAEMON_NAME)):
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.normpath(candidate)
    found = shutil.which(DAEMON_NAME, path=environ.get("PATH", os.defpath))
    if found:
        return found
    raise DaemonError(f"cannot find {DAEMON_NAME}: build the project "
                      f"(cmake --build <build> --target {DAEMON_NAME}) or set "
                      "RCOLL_BOOTSTRAPD to its path")


def _describe_stderr(data):
    text = data.decode(errors="replace").strip()
    return f": {text}" if text else " (nothing on stderr)"


def _read_announcement(proc, timeout_s, check):
    """Returns (first stdout line, rest of stdout so far, stderr so far);
    calls `check` every few tenths of a second (it may raise to give up)."""
    out, err = bytearray(), bytearray()
    with selectors.DefaultSelector() as selector:
        for pipe, buffer in ((proc.stdout, out), (proc.stderr, err)):
            os.set_blocking(pipe.fileno(), False)
            selector.register(pipe.fileno(), selectors.EVENT_READ, buffer)
        end = time.monotonic() + timeout_s
        while b"\n" not in out and selector.get_map():
            remaining = end - time.monotonic()
            if remaining <= 0:
                raise DaemonError(f"{DAEMON_NAME} did not announce its address within "
                                  f"{timeout_s:g} s{_describe_stderr(err)}")
            check()
            for key, _ in selector.select(min(remaining, 0.1)):
                data = os.read(key.fd, 65536)
                if data:
                    key.data.extend(data)
                else:
                    selector.unregister(key.fd)
    line, newline, rest = bytes(out).partition(b"\n")
    if not newline:
        status = procs.describe_status(procs.wait_briefly(proc))
        raise DaemonError(f"{DAEMON_NAME} {status} before announcing its address"
                          f"{_describe_stderr(err)}")
    return line.decode(errors="replace").strip(), rest, bytes(err)


class BootstrapDaemon:
    """A running rcoll-bootstrapd; `host`/`port` are what it announced."""

    def __init__(self, path, size, listen, token, join_timeout=None,
                 start_timeout_s=START_TIMEOUT_S, check=lambda: None):
        argv = [path, "--size", str(size), "--listen", listen]
        if join_timeout is not None:
            argv += ["--join-timeout", join_timeout]
        env = dict(os.environ, RCOLL_JOB_TOKEN=token)
        self.proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     start_new_session=True,
                                     preexec_fn=tree.die_with_parent(os.getpid()))
        try:
            line, self._stdout_rest, self._stderr_so_far = _read_announcement(
                self.proc, start_timeout_s, check)
            match = ANNOUNCEMENT.match(line)
            if not match:
                raise DaemonError(f"{DAEMON_NAME} printed {line!r} instead of RCOLL_BOOTSTRAP="
                                  f"<host>:<port>{_describe_stderr(self._stderr_so_far)}")
        except BaseException:
            self.stop(grace_s=1.0)
            self.proc.stdout.close()
            self.proc.stderr.close()
            raise
        self.host, self.port = match["host"], int(match["port"])

    def attach(self, pump):
        """Hands the daemon's pipes to `pump`; its output shows as [bootstrapd]."""
        prefix = f"[{DAEMON_NAME}] ".encode()
        pump.add(os.dup(self.proc.stdout.fileno()), prefix, sys.stderr.buffer, "daemon",
                 self._stdout_rest)
        pump.add(os.dup(self.proc.stderr.fileno()), prefix, sys.stderr.buffer, "daemon",
                 self._stderr_so_far)
        self.proc.stdout.close()
        self.proc.stderr.close()

    def stop(self, grace_s):
        """Terminates the daemon if it still runs; returns its exit status."""
        if self.proc.poll() is None:
            procs.signal_group(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(grace_s)
            except subprocess.TimeoutExpired:
                procs.signal_group(self.proc.pid, signal.SIGKILL)
        return self.proc.wait()


def this_host_address():
    """The IP address of this host's name, as remote ranks should see it."""
    name = socket.gethostname()
    try:
        address = socket.gethostbyname(name)
    except OSError as error:
        raise DaemonError(f"cannot resolve this host's name {name!r} ({error}); "
                          "pass --bootstrap-host ADDRESS") from None
    if address.startswith("127."):
        procs.say(f"warning: this host's name {name!r} resolves to {address}, which "
                  "remote hosts cannot reach; pass --bootstrap-host ADDRESS")
    return address


def published_address(announced_host, port, bootstrap_host, any_remote):
    """The "host:port" ranks are told (RCOLL_BOOTSTRAP)."""
    host = bootstrap_host
    if not host:
        if announced_host not in WILDCARD_HOSTS:
            host = announced_host
        else:
            host = this_host_address() if any_remote else "127.0.0.1"
    return f"{host}:{port}"
