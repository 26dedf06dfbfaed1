"""Running the ranks: spawn, watch, stop.

Every rank is started in a session (and so a process group) of its own, so
that a terminal's Ctrl-C reaches only the launcher, which forwards it, and so
that a rank's children are signalled with it: whatever ends the job, every
rank's process group gets SIGKILL before the launcher exits, so no rank or
child of one outlives the job. Ranks' stdin is /dev/null (remote ones read
the job token from it first).

A remote rank is an ssh process here: signalling it ends the connection, and
the remote program learns of that only when it next writes output or when
its peers and the bootstrap service go away (it then fails by its timeout).
"""

import os
import re
import signal
import subprocess
import sys
import time

from . import keeper, procs, tree
from .signal_catcher import STATUS_SIGNAL

# The watch loop sleeps until something happens: output, a rank's or the
# service's exit (pidfds), a signal (the wakeup pipe) or a deadline. It still
# looks every IDLE_POLL_S, and every POLL_S while a rank has no pidfd. A
# short fixed tick cost a tenth of a CPU in an emulated guest and slowed the
# ranks being measured.
POLL_S = 0.05
IDLE_POLL_S = 1.0
FINISH_OUTPUT_S = 2.0  # how long output of ended ranks is still copied
DAEMON_GRACE_S = 1.0
# The bootstrap service fails a forming job the moment a joined rank's
# connection closes, which the kernel does before the dying rank can be
# reaped; how long to wait for that rank before blaming the service.
DAEMON_BLAME_WAIT_S = 1.0
DAEMON_OWNER = "daemon"
# Comm::abort() prints this line on stderr and exits with ABORT_EXIT.
ABORT_LINE = re.compile(rb"^rcoll: (rank \d+ aborted: .*)$")
ABORT_EXIT = 70


class _Rank:
    def __init__(self, place, proc):
        self.place = place
        self.proc = proc
        self.running = True
        self.pidfd = None  # readable once the process has exited


class Job:
    """The ranks of one job, watched until all have ended."""

    def __init__(self, pump, signals, daemon=None, kill_grace_s=3.0, job_timeout_s=None,
                 lifeline=None):
        self.pump = pump
        self.signals = signals
        self.daemon = daemon
        self.kill_grace_s = kill_grace_s
        self.job_timeout_s = job_timeout_s
        self.ranks = []
        self.exit_code = 0
        self.stopping = False
        self._kill_at = None
        self.aborts = {}  # rank -> "rank R aborted: <reason>", from its stderr
        self.pump.line_observer = self._see_line
        self._wakeup_watch = os.dup(signals.wakeup_fd)
        self.pump.watch(self._wakeup_watch)
        self._daemon_pidfd = _watch_exit(pump, daemon.proc.pid) if daemon is not None else None
        # keeper.Lifeline: its pipe turns readable when the front of rcoll-run dies.
        self.lifeline = lifeline
        if lifeline is not None:
            self._lifeline_watch = os.dup(lifeline.fd)
            self.pump.watch(self._lifeline_watch)

    def start_rank(self, place, launch, tag_output):
        """Starts one rank; raises OSError if it cannot be executed."""
        out = subprocess.PIPE if tag_output else None
        stdin = subprocess.PIPE if launch.stdin_data else subprocess.DEVNULL
        proc = subprocess.Popen(launch.argv, env=launch.env, stdin=stdin, stdout=out, stderr=out,
                                start_new_session=True,
                                preexec_fn=tree.die_with_parent(os.getpid()))
        rank = _Rank(place, proc)
        self.ranks.append(rank)
        rank.pidfd = _watch_exit(self.pump, proc.pid)
        if launch.stdin_data:
            try:
                proc.stdin.write(launch.stdin_data)
                proc.stdin.close()
            except BrokenPipeError:
                pass  # it ended already; its exit status tells why
        if tag_output:
            prefix = f"[{place.rank}] ".encode()
            for pipe, sink in ((proc.stdout, sys.stdout.buffer), (proc.stderr, sys.stderr.buffer)):
                self.pump.add(os.dup(pipe.fileno()), prefix, sink, place.rank)
                pipe.close()

    def run(self):
        """Waits until every rank ended; returns the launcher's exit code."""
        try:
            self._watch()
        finally:
            self._end()
        return self.exit_code

    def _watch(self):
        deadline = None
        if self.job_timeout_s is not None:
            deadline = time.monotonic() + self.job_timeout_s
        while any(rank.running for rank in self.ranks):
            self.pump.poll(self._poll_timeout(deadline))
            self.signals.clear_wakeups()
            self._reap_ranks()
            tree.reap_adopted(self._own_pids())
            self._handle_signals()
            self._check_front()
            self._handle_status_requests()
            self._check_daemon()
            self._check_deadline(deadline)
            self._escalate_if_due()

    def _poll_timeout(self, deadline):
        if any(rank.running and rank.pidfd is None for rank in self.ranks):
            return POLL_S  # exits of these ranks are seen only by looking
        timeout = IDLE_POLL_S
        for due in (deadline, self._kill_at):
            if due is not None:
                timeout = min(timeout, max(0.0, due - time.monotonic()))
        return timeout

    def _end(self):
        """However the job ended: no rank or child of one survives, and the
        last output of the ranks and the daemon is copied."""
        for rank in self.ranks:
            procs.signal_group(rank.proc.pid, signal.SIGKILL)
            procs.wait_briefly(rank.proc)
            self._unwatch(rank)
        if self.daemon is not None:
            self.daemon.stop(grace_s=DAEMON_GRACE_S)  # so that its pipes end too
        # Children of ranks that left the rank's process group (setsid) and
        # were re-parented to this process, the subreaper, or still hang
        # below a rank's other children; none may hold a pipe open either.
        tree.kill_descendants()
        if self.lifeline is not None:
            self.pump.unwatch(self._lifeline_watch)
            self.lifeline = None
        # Both may stay readable; from here on only the pipes are waited for.
        for fd in (self._daemon_pidfd, self._wakeup_watch):
            if fd is not None:
                self.pump.unwatch(fd)
        self._daemon_pidfd = self._wakeup_watch = None
        self.pump.finish(FINISH_OUTPUT_S)

    def stop(self, exit_code, message, signum=signal.SIGTERM):
        """Begins ending the job (first reason wins): `signum` to every rank,
        SIGKILL after the grace period."""
        if self.stopping:
            return
        self.stopping = True
        self.exit_code = exit_code
        procs.say(message)
        self._signal_running(signum)
        self._kill_at = time.monotonic() + self.kill_grace_s

    def _signal_running(self, signum):
        for rank in self.ranks:
            if rank.running:
                procs.signal_group(rank.proc.pid, signum)

    def _reaped(self, rank):
        rank.running = False
        self._unwatch(rank)
        self.pump.drain(rank.place.rank)

    def _reap_ranks(self):
        for rank in self.ranks:
            if not rank.running or rank.proc.poll() is None:
                continue
            self._reaped(rank)
            status = rank.proc.returncode
            if status != 0 and not self.stopping:
                others = any(other.running for other in self.ranks)
                self.stop(procs.exit_code_for(status), self._describe_end(rank, status)
                          + ("; terminating the other ranks" if others else ""))
            elif status > 0:
                # Failed on its own while the job was ending. Exits that race
                # (a survivor reacting to the first failure) cannot be ordered
                # reliably, so every failure is named, not only the first seen.
                procs.say(self._describe_end(rank, status))

    def _describe_end(self, rank, status):
        """"rank 2 killed by signal SIGKILL", "rank 3 aborted: <reason> (exit
        status 70)", "rank 1 exited with status 3"."""
        aborted = self.aborts.get(rank.place.rank)
        if status == ABORT_EXIT and aborted:
            return f"{aborted} (exit status {status})"
        return f"rank {rank.place.rank} {procs.describe_status(status)}"

    def _see_line(self, owner, line):
        if isinstance(owner, int) and line.startswith(b"rcoll: rank "):
            match = ABORT_LINE.match(line)
            if match:
                self.aborts.setdefault(owner, match.group(1).decode(errors="replace"))

    def _handle_status_requests(self):
        """SIGUSR1: forwarded to every local rank that handles it (the
        library does when RCOLL_STATUS_SIGNAL=1, once it has a communicator);
        each then prints "rcoll status: rank R: ..." on stderr. Never sent to
        a process that would die of it."""
        if not self.signals.take_status_requests():
            return
        asked, unable, remote = [], [], []
        for rank in self.ranks:
            if not rank.running:
                continue
            if rank.place.remote:
                remote.append(rank.place.rank)
            elif procs.handles_signal(rank.proc.pid, STATUS_SIGNAL):
                procs.signal_process(rank.proc.pid, STATUS_SIGNAL)
                asked.append(rank.place.rank)
            else:
                unable.append(rank.place.rank)
        message = f"SIGUSR1: asked {_ranks(asked)} for their state"
        if unable:
            message += (f"; {_ranks(unable)} cannot answer (no rcoll communicator yet, "
                        "or not an rcoll program)")
        if remote:
            message += f"; {_ranks(remote)} on other hosts not asked"
        procs.say(message)

    def _unwatch(self, rank):
        if rank.pidfd is not None:
            self.pump.unwatch(rank.pidfd)
            rank.pidfd = None

    def _handle_signals(self):
        for signum in self.signals.take():
            name = procs.signal_name(signum)
            if self.stopping:
                procs.say(f"received {name} again; killing all ranks")
                self._kill_at = time.monotonic()
            else:
                self.stop(128 + signum, f"received {name}; forwarding it to all ranks", signum)

    def _own_pids(self):
        """Children whose exit statuses the job collects (Popen's)."""
        own = {rank.proc.pid for rank in self.ranks if rank.proc.returncode is None}
        if self.daemon is not None and self.daemon.proc.returncode is None:
            own.add(self.daemon.proc.pid)
        return own

    def _check_front(self):
        """The front of rcoll-run died: end the job at once (SIGKILL)."""
        if self.lifeline is None or not self.lifeline.front_gone():
            return
        self.pump.unwatch(self._lifeline_watch)  # it stays readable
        self.lifeline = None
        self.stop(128 + signal.SIGKILL, f"{keeper.FrontGone()}; killing every process of the job",
                  signal.SIGKILL)
        self._kill_at = time.monotonic()  # also when it was stopping already

    def _check_daemon(self):
        if self.daemon is None:
            return
        status = self.daemon.proc.poll()
        if status is not None and self._daemon_pidfd is not None:
            self.pump.unwatch(self._daemon_pidfd)  # it stays readable
            self._daemon_pidfd = None
        if status is not None and status != 0 and not self.stopping:
            self.pump.drain(DAEMON_OWNER)
            service = f"the bootstrap service {procs.describe_status(status)}"
            rank = self._first_rank_to_end(DAEMON_BLAME_WAIT_S)
            if rank is None:
                self.stop(1, f"{service} while ranks were running (its output is above); terminating the ranks")
                return
            # Most likely that rank's death failed the job: name it first.
            self._reaped(rank)
            ended = rank.proc.returncode
            self.stop(procs.exit_code_for(ended), f"{self._describe_end(rank, ended)}; then {service} "
                      "(its output is above); terminating the other ranks")

    def _first_rank_to_end(self, within_s):
        """The running rank that fails first within `within_s` (one killed by
        a signal before one that exited non-zero, when several are seen at
        once), or None. Output keeps flowing meanwhile."""
        end = time.monotonic() + within_s
        while True:
            ended = [rank for rank in self.ranks
                     if rank.running and rank.proc.poll() is not None and rank.proc.returncode != 0]
            if ended:
                return min(ended, key=lambda rank: rank.proc.returncode >= 0)
            if time.monotonic() >= end:
                return None
            self.pump.poll(0.01)

    def _check_deadline(self, deadline):
        if deadline is not None and not self.stopping and time.monotonic() >= deadline:
            self.stop(124, f"job timed out after {self.job_timeout_s:g} s "
                           "(--job-timeout); terminating all ranks")

    def _escalate_if_due(self):
        if self._kill_at is None or time.monotonic() < self._kill_at:
            return
        self._kill_at = None
        left = [str(rank.place.rank) for rank in self.ranks if rank.running]
        if left:
            procs.say(f"sending SIGKILL to rank(s) {', '.join(left)}, still running")
            self._signal_running(signal.SIGKILL)


def _watch_exit(pump, pid):
    """A pidfd for `pid` that wakes `pump` when the process exits, or None
    where pidfds are missing (exits are then seen at the next POLL_S)."""
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None
    pump.watch(pidfd)
    return pidfd


def _ranks(numbers):
    if not numbers:
        return "no rank"
    return ("rank " if len(numbers) == 1 else "ranks ") + ", ".join(map(str, numbers))
