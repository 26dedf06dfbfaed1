"""Small process helpers: exit statuses, signals to process groups, messages."""

import os
import signal
import subprocess
import sys


def say(message):
    """One line from the launcher itself, on stderr, after pending stdout."""
    try:
        sys.stdout.flush()
        sys.stderr.write(f"rcoll-run: {message}\n")
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):
        pass


def signal_name(number):
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def describe_status(returncode):
    """Popen.returncode -> "exited with status 3" / "killed by signal SIGKILL"."""
    if returncode is None:
        return "is still running"
    if returncode < 0:
        return f"killed by signal {signal_name(-returncode)}"
    return f"exited with status {returncode}"


def exit_code_for(returncode):
    """The shell's convention: the status itself, or 128 + the signal number."""
    return 128 - returncode if returncode < 0 else returncode


def handles_signal(pid, signum):
    """True if process `pid` catches `signum` (its SigCgt mask in
    /proc/PID/status): sending it then cannot kill the process."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) >> (signum - 1) & 1)
    except (OSError, ValueError, IndexError):
        pass
    return False


def signal_process(pid, signum):
    """Sends `signum` to `pid`; a process that is gone is fine."""
    try:
        os.kill(pid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def signal_group(pgid, signum):
    """Sends `signum` to process group `pgid`; a group that is gone is fine."""
    try:
        os.killpg(pgid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def wait_briefly(proc, timeout_s=1.0):
    """The exit status of a process that is ending anyway; None if it is not."""
    try:
        return proc.wait(timeout_s)
    except subprocess.TimeoutExpired:
        return None
