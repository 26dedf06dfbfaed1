#!/usr/bin/env python3
"""kill_check.py - one rank SIGKILLed in a job started by rcoll-run, judged.

Runs `rcoll_fault_job kill VICTIM PHASE DELAY_MS HOLD_MS` through
tools/rcoll-run and checks what test_kills.py checks (it uses this module):
  - rcoll-run exits non-zero naming the victim and its signal (while joining,
    the bootstrap service's "rank V (...) closed the connection before the
    job formed" counts too);
  - the victim raised SIGKILL, the job was over within OVER_S of it, and no
    process of the job is left;
  - after the job formed (connect, transfer): every survivor raised an
    IoError (not a TimeoutError: the library timeout is TIMEOUT_S, far
    longer) within LIMIT_S of the death, naming a peer, and following the
    named peers from any survivor leads to the victim (a rank waiting only
    on another survivor learns of the failure from that survivor);
  - while joining: whatever a survivor reports names the victim and is no
    TimeoutError.
Run from anywhere; paths come from faultlib (RCOLL_SOURCE_DIR, the build
tree's tests/faults/rcoll_fault_job and tools/rcoll-bootstrapd). RCOLL_*
settings pass through to the ranks (RCOLL_IB_CM=rdmacm ...). Inside the rxe
guest (tests/rdma/jobs.txt) the source root is /work.

usage: kill_check.py [-n RANKS] [-k VICTIM] [-p join|connect|transfer]
                     [-d DELAY_MS] [--hold-ms MS] [-T TRANSPORT]
                     [-l LIMIT_S] [-t TIMEOUT_S]
  defaults: 3 ranks, victim 2, phase connect, delay 5 ms, hold 1500 ms in
  the join phase (else 0), transport tcp, limit 10 s, timeout 60 s.
Exit status: 0 when every check held, 1 otherwise (each problem printed).
"""
import argparse
import re
import subprocess
import sys
import time
from dataclasses import dataclass

import faultlib as F

OVER_SLACK_S = 1.5   # survivors stay 1 s after reporting, then the launcher reaps them


@dataclass
class Trial:
    phase: str
    n: int
    victim: int
    delay_ms: int
    hold_ms: int = 0
    transport: str = "tcp"
    limit_s: float = 10.0
    timeout_s: int = 60


@dataclass
class Outcome:
    returncode: int
    stdout: str
    stderr: str
    ended: float      # wall clock when rcoll-run returned
    orphans: list     # PIDs of the job still alive after it
    command: list

    def context(self):
        return (f"\n{' '.join(self.command[1:])}\nexit {self.returncode}\nstdout:\n{self.stdout}"
                f"\nstderr:\n{self.stderr[-4000:]}")


def run(trial):
    """Runs the job once; returns its Outcome."""
    marker = F.new_marker()
    # The survivors ignore SIGTERM after joining so that they can report;
    # only then may the launcher's SIGKILL cut them off.
    grace = 2 if trial.phase == "join" else trial.timeout_s + 30
    cmd = [F.RUN, "-n", str(trial.n), "--transport", trial.transport, "--timeout", str(trial.timeout_s),
           "--kill-grace", str(grace), "--job-timeout", str(2 * trial.timeout_s + 60), "--", F.JOB, "kill",
           str(trial.victim), trial.phase, str(trial.delay_ms), str(trial.hold_ms)]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=4 * trial.timeout_s,
                            env=F.clean_env(marker))
    ended = time.time()
    return Outcome(result.returncode, result.stdout, result.stderr, ended, F.wait_no_orphans(marker), cmd)


def reports(stdout, n, victim):
    """{rank: (t, class, peer or None, text)} of the survivors that reported."""
    found = {}
    for r in range(n):
        if r == victim:
            continue
        m = re.search(rf"(?m)^\[{r}\] rank {r} caught (\w+) at ([0-9.]+): (.*)$", stdout)
        if m:
            peer = re.match(rf"rank {r}, peer (\d+):", m[3])
            found[r] = (float(m[2]), m[1], int(peer[1]) if peer else None, m[3])
    return found


def death_time(out, victim):
    """Wall-clock time the victim raised SIGKILL, or None."""
    died = re.search(rf"(?m)^\[{victim}\] rank {victim} raising SIGKILL at ([0-9.]+)$", out.stdout)
    return float(died[1]) if died else None


def _common_problems(trial, out, t0):
    problems = []
    if out.returncode == 0:
        problems.append("rcoll-run exited 0")
    launcher = rf"^rcoll-run: rank {trial.victim} killed by signal SIGKILL"
    daemon = rf"^\[rcoll-bootstrapd\] .*rank {trial.victim} \([0-9.]+:\d+\) closed the connection before"
    if not re.search(f"{launcher}|{daemon}" if trial.phase == "join" else launcher, out.stderr, re.M):
        problems.append(f"neither rcoll-run nor the bootstrap service named rank {trial.victim} and its death")
    if t0 is None:
        problems.append(f"rank {trial.victim} never raised SIGKILL (did the job get that far?)")
    elif out.ended - t0 >= trial.limit_s + OVER_SLACK_S:
        problems.append(f"the job outlived the victim by {out.ended - t0:.1f} s "
                        f"(limit {trial.limit_s + OVER_SLACK_S:.1f} s)")
    if out.orphans:
        problems.append(f"processes of the job outlived rcoll-run: {out.orphans}")
    return problems


def _survivor_problems(trial, found, t0):
    problems = []
    missing = [r for r in range(trial.n) if r != trial.victim and r not in found]
    if missing:
        problems.append(f"survivors that reported no error: {missing}")
    for r, (t1, cls, peer, text) in sorted(found.items()):
        if cls != "IoError":
            problems.append(f"rank {r} raised {cls}, not IoError: {text}")
        if t0 is not None and not 0 <= t1 - t0 < trial.limit_s:
            problems.append(f"rank {r} reported {t1 - t0:.2f} s after the death (limit {trial.limit_s} s)")
        chain, at = [r], peer
        while at != trial.victim:  # follow the named peers: they must lead to the victim
            if at not in found or at in chain:
                problems.append(f"rank {r}: named peers {chain + [at]} do not lead to rank {trial.victim}")
                break
            chain.append(at)
            at = found[at][2]
    return problems


def _join_problems(trial, found):
    problems = []
    for r, (_, cls, peer, text) in sorted(found.items()):
        if cls == "TimeoutError":
            problems.append(f"rank {r} timed out: {text}")
        if not (peer == trial.victim or re.search(rf"\brank {trial.victim}\b|\b{trial.victim}\b", text)):
            problems.append(f"rank {r} did not name rank {trial.victim}: {text}")
    return problems


def judge(trial, out):
    """(problems, summary lines) of one Outcome; no problems: as expected."""
    t0 = death_time(out, trial.victim)
    problems = _common_problems(trial, out, t0)
    found = reports(out.stdout, trial.n, trial.victim)
    summary = []
    if t0 is not None:
        summary.append(f"job over {out.ended - t0:.2f} s after the death (rcoll-run exit {out.returncode})")
        for r, (t1, cls, peer, _) in sorted(found.items(), key=lambda item: item[1][0]):
            summary.append(f"rank {r}: {cls} naming peer {'-' if peer is None else peer}, "
                           f"{t1 - t0:.3f} s after rank {trial.victim} died")
    if trial.phase == "join":
        problems += _join_problems(trial, found)
    else:
        problems += _survivor_problems(trial, found, t0)
    return problems, summary


def main(argv):
    parser = argparse.ArgumentParser(description="One rank SIGKILLed in an rcoll-run job, judged.")
    parser.add_argument("-n", type=int, default=3, dest="ranks")
    parser.add_argument("-k", type=int, default=2, dest="victim")
    parser.add_argument("-p", choices=["join", "connect", "transfer"], default="connect", dest="phase")
    parser.add_argument("-d", type=int, default=5, dest="delay_ms")
    parser.add_argument("--hold-ms", type=int, default=None)
    parser.add_argument("-T", default="tcp", dest="transport")
    parser.add_argument("-l", type=float, default=10.0, dest="limit_s")
    parser.add_argument("-t", type=int, default=60, dest="timeout_s")
    args = parser.parse_args(argv)
    hold = args.hold_ms if args.hold_ms is not None else (1500 if args.phase == "join" else 0)
    trial = Trial(args.phase, args.ranks, args.victim, args.delay_ms, hold, args.transport, args.limit_s,
                  args.timeout_s)
    out = run(trial)
    print(out.context().lstrip("\n"))
    problems, summary = judge(trial, out)
    for line in summary:
        print("kill-check: " + line)
    for problem in problems:
        print("kill-check: FAILED: " + problem)
    verdict = "OK" if not problems else f"{len(problems)} problems"
    print(f"kill-check: {verdict} ({trial.n} ranks over {trial.transport}, rank {trial.victim} killed "
          f"in phase {trial.phase}, delay {trial.delay_ms} ms)")
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
