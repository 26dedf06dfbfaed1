"""rcoll-run as two processes, so that a job ends even when rcoll-run is
SIGKILLed (by the OOM killer, a batch system, `timeout -s KILL`), which no
process can catch or clean up after.

The process the user started, the front, forks the keeper at once and from
then on only forwards SIGINT, SIGTERM, SIGHUP and SIGUSR1 to it and exits
with its status. The keeper runs the job: it starts the bootstrap service
and every rank, so it is their parent, and it is a child subreaper, so a
rank's descendants that are orphaned (also those that left with setsid)
come to it and it can kill them at the end (tree.py). It runs in a session
of its own, out of reach of whatever kills the front's process group.

The keeper learns that the front is gone from a lifeline: a pipe whose
write end only the front holds (it is close-on-exec, so no other process
inherits it). EOF on it comes when the front dies, however it dies, also
before the keeper first looks; the keeper then kills every process of the
job and exits. A pipe rather than a parent-death signal: the keeper must
live on to clean up, and a readable fd fits the poll loop it already has.

The children of the keeper (ranks, the service, ssh for remote ranks) get
SIGKILL by the kernel when the keeper dies (PR_SET_PDEATHSIG), and the
front, a subreaper too, adopts and kills what the keeper left. Only when
front and keeper are SIGKILLed at once can the ranks' children survive (the
ranks themselves and the service still end); both processes carry
rcoll-run's command line, so kill just the first one.
"""

import os
import signal
import sys

from . import procs, tree
from .signal_catcher import CAUGHT as FORWARDED


class FrontGone(Exception):
    """The process the user started (the front of rcoll-run) has died."""

    def __str__(self):
        return "the rcoll-run process the job was started from died (killed?)"


class Lifeline:
    """The keeper's end of the pipe from the front: readable (at EOF) once
    the front is gone."""

    def __init__(self, fd):
        self.fd = fd
        os.set_blocking(fd, False)

    def front_gone(self):
        try:
            return os.read(self.fd, 1) == b""
        except BlockingIOError:
            return False

    def check(self):
        if self.front_gone():
            raise FrontGone()


def start_keeper():
    """Forks the keeper and returns its Lifeline, in the keeper only; the
    front forwards signals, waits and exits with the keeper's status.

    Call before any other process or thread is started. The forwarded
    signals stay blocked in the keeper until release_signals(), so that one
    that arrives before its handlers exist is not lost."""
    for stream in (sys.stdout, sys.stderr):
        stream.flush()  # or both processes would write what is buffered
    signal.pthread_sigmask(signal.SIG_BLOCK, FORWARDED)
    tree.become_subreaper()
    read_end, write_end = os.pipe()
    keeper = os.fork()
    if keeper == 0:
        os.close(write_end)
        os.setsid()
        tree.become_subreaper()
        return Lifeline(read_end)
    os.close(read_end)
    os._exit(_front(keeper))


def release_signals():
    """In the keeper, once its signal handlers are installed."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, FORWARDED)


def _front(keeper):
    """Forwards signals to the keeper until it ends; returns the exit code."""
    for signum in FORWARDED:
        signal.signal(signum, lambda number, _frame: procs.signal_process(keeper, number))
    release_signals()
    _, status = os.waitpid(keeper, 0)  # retried after each handler (PEP 475)
    signal.pthread_sigmask(signal.SIG_BLOCK, FORWARDED)  # its PID may be reused now
    code = os.waitstatus_to_exitcode(status)
    if code < 0:
        procs.say(f"the launcher's keeper process was killed by {procs.signal_name(-code)}; "
                  "killing what is left of the job")
    left = tree.kill_descendants()
    if left:
        procs.say(f"could not end process(es) {', '.join(map(str, left))} of the job")
    return procs.exit_code_for(code)
