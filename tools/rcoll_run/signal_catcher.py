"""The signals the launcher catches: SIGINT, SIGTERM and SIGHUP (forwarded
to every rank) and SIGUSR1 (a status request), recorded for the keeper's
main loop instead of killing it. The front of rcoll-run forwards the same
ones to the keeper (keeper.py)."""

import os
import signal

from . import procs

FORWARDED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
STATUS_SIGNAL = signal.SIGUSR1
CAUGHT = FORWARDED_SIGNALS + (STATUS_SIGNAL,)


class Interrupted(Exception):
    """A forwarded signal arrived before any rank ran."""

    def __init__(self, signum):
        super().__init__(procs.signal_name(signum))
        self.signum = signum


class SignalCatcher:
    """Records SIGINT/SIGTERM/SIGHUP (and SIGUSR1, a status request) for
    the main loop instead of dying."""

    def __init__(self):
        self.pending = []
        self.status_requests = 0
        for signum in FORWARDED_SIGNALS:
            signal.signal(signum, lambda number, _frame: self.pending.append(number))
        signal.signal(STATUS_SIGNAL, self._status_requested)
        # Readable once a signal came, so that a sleeping select() wakes.
        self.wakeup_fd, write_end = os.pipe()
        for fd in (self.wakeup_fd, write_end):
            os.set_blocking(fd, False)
        signal.set_wakeup_fd(write_end)

    def clear_wakeups(self):
        try:
            while os.read(self.wakeup_fd, 512):
                pass
        except BlockingIOError:
            pass

    def _status_requested(self, _number, _frame):
        self.status_requests += 1

    def take_status_requests(self):
        taken, self.status_requests = self.status_requests, 0
        return taken

    def take(self):
        taken = []
        while self.pending:  # pop one by one: a handler may append meanwhile
            taken.append(self.pending.pop(0))
        return taken

    def check(self):
        """Raises Interrupted if a signal came (for the phase before ranks)."""
        if self.pending:
            raise Interrupted(self.pending[0])
