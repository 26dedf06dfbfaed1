"""The process tree under the launcher: parent-death signals, the child
subreaper flag, and killing every descendant (Linux prctl(2), /proc).

Why these and not a process group or session: a rank may start children
that call setsid (daemons, `setsid cmd`, some MPI-style wrappers), which
leaves every group and session the launcher knows. A subreaper still
inherits them once their parent dies, so they stay descendants of it and
can be found by walking parent links in /proc.
"""

import collections
import ctypes
import os
import signal
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
_libc = ctypes.CDLL(None, use_errno=True)  # loaded before any fork: a child only calls it


def _prctl(option, value):
    if _libc.prctl(option, ctypes.c_ulong(value), ctypes.c_ulong(0), ctypes.c_ulong(0),
                   ctypes.c_ulong(0)) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"prctl({option}): {os.strerror(error)}")


def become_subreaper():
    """Orphaned descendants of this process are re-parented to it, not to
    PID 1 (not inherited by children; kept across exec)."""
    _prctl(PR_SET_CHILD_SUBREAPER, 1)


def die_with_parent(parent_pid):
    """A subprocess preexec_fn: the child gets SIGKILL when the thread that
    forked it ends (so fork only from the main thread of a process without
    other threads), and ends at once if that parent is already gone, since
    the signal would then never come. Survives exec, except of set-user-ID
    programs, which the kernel clears it for."""
    def preexec():
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent_pid:
            os.kill(os.getpid(), signal.SIGKILL)
    return preexec


def _processes():
    """{pid: (ppid, state)} of every process in /proc (threads excluded)."""
    table = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                fields = f.read().rpartition(b")")[2].split()
            table[int(name)] = (int(fields[1]), fields[0])
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile
    return table


def live_descendants(root):
    """PIDs of the descendants of `root` that are not zombies."""
    table = _processes()
    children = collections.defaultdict(list)
    for pid, (ppid, _state) in table.items():
        children[ppid].append(pid)
    found, todo = [], [root]
    while todo:
        for child in children[todo.pop()]:
            todo.append(child)
            if table[child][1] != b"Z":
                found.append(child)
    return found


def reap_children():
    """Reaps every child of this process that has ended (orphans adopted as
    subreaper among them); returns how many."""
    reaped = 0
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return reaped
        if pid == 0:
            return reaped
        reaped += 1


def reap_adopted(own):
    """Reaps the ended children of this process that are not in `own` (the
    PIDs whose statuses the launcher collects itself): orphans it adopted as
    subreaper, which would stay zombies until the job ends. Stops at the
    first ended child of `own`, which its owner reaps next."""
    while True:
        try:
            ended = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return
        if ended is None or ended.si_pid in own:
            return
        os.waitpid(ended.si_pid, 0)


def kill_descendants(within_s=2.0):
    """SIGKILLs every descendant of this process and reaps the ones that
    become its children, again and again, until none is left or `within_s`
    passed (a descendant may fork until its signal lands; orphans arrive
    here only once their parent died). Returns the PIDs still alive.
    Call it once the launcher has collected the statuses it needs: it
    reaps any ended child."""
    end = time.monotonic() + within_s
    while True:
        reap_children()
        left = live_descendants(os.getpid())
        if not left or time.monotonic() >= end:
            return left
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.01)
