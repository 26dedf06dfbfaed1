"""A rank SIGKILLed at a random point of a TCP job started by rcoll-run:
while joining (the job still forming), while the first collectives open the
rank-to-rank connections, and in the middle of an 8 MiB allreduce. Victim,
world size and delay are drawn from the suite's seed (printed; replay with
RCOLL_FAULT_SEED).

Asserted every time: rcoll-run exits non-zero naming the victim and its
signal; within LIMIT_S of the death the job is over; no process of the job
(ranks, daemon) is left. After the job formed (connect, transfer) also:
every survivor raised an IoError (not a TimeoutError: the library timeout
is 60 s) within LIMIT_S, naming the victim or another survivor that failed,
and following the named peers from any survivor leads to the victim (a
rank waiting only on another survivor cannot know of the victim: it learns
of the failure from that survivor, whose transport closes its connections
when its operation fails; compare tests/rdma/kill-check.sh). While joining:
whatever a survivor reports names the victim.

Who names the dead rank when it dies while the job is forming: the
bootstrap service fails the job ("rank V (...) closed the connection before
the job formed") and exits, and rcoll-run forwards that line and ends the
job, sometimes before it has reaped the victim (then without its own
"rank V killed by signal SIGKILL" line); either line is accepted.
"""
import random
import re
import subprocess
import time
import unittest

import faultlib as F

LIMIT_S = 10.0       # from the death to the last report / the launcher's exit
TIMEOUT_S = 60       # the library's per-call timeout: far beyond LIMIT_S
TRIALS = 2           # per phase


class RandomKills(unittest.TestCase):
    seed = F.suite_seed()

    def run_kill(self, phase, n, victim, delay_ms, hold_ms):
        marker = F.new_marker()
        grace = 2 if phase == "join" else TIMEOUT_S + 30  # survivors ignore SIGTERM after joining
        cmd = [F.RUN, "-n", str(n), "--transport", "tcp", "--timeout", str(TIMEOUT_S), "--kill-grace", str(grace),
               "--job-timeout", str(2 * TIMEOUT_S + 60), "--", F.JOB, "kill", str(victim), phase, str(delay_ms),
               str(hold_ms)]
        result = subprocess.run(cmd, capture_output=True, text=True, timeout=4 * TIMEOUT_S, env=F.clean_env(marker))
        ended = time.time()
        context = (f"\n{' '.join(cmd[1:])}\nexit {result.returncode}\nstdout:\n{result.stdout}"
                   f"\nstderr:\n{result.stderr[-4000:]}")
        return result, ended, context, marker

    def check_common(self, result, ended, context, marker, n, victim, phase):
        self.assertNotEqual(result.returncode, 0, context)
        launcher = rf"(?m)^rcoll-run: rank {victim} killed by signal SIGKILL"
        if phase == "join":
            daemon = rf"^\[rcoll-bootstrapd\] .*rank {victim} \(127\.0\.0\.1:\d+\) closed the connection before"
            self.assertRegex(result.stderr, f"{launcher}|{daemon}", context)
        else:
            self.assertRegex(result.stderr, launcher, context)
        died = re.search(rf"(?m)^\[{victim}\] rank {victim} raising SIGKILL at ([0-9.]+)$", result.stdout)
        self.assertIsNotNone(died, "the victim never raised SIGKILL" + context)
        t0 = float(died[1])
        self.assertLess(ended - t0, LIMIT_S + 1.5, "the job outlived the victim by too long" + context)
        self.assertEqual(F.wait_no_orphans(marker), [], "processes of the job outlived rcoll-run" + context)
        return t0

    def reports(self, stdout, n, victim):
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

    def check_after_formation(self, result, context, t0, n, victim):
        found = self.reports(result.stdout, n, victim)
        missing = [r for r in range(n) if r != victim and r not in found]
        self.assertEqual(missing, [], "survivors that reported no error" + context)
        if found:
            print(f"faults:   survivors reported {min(f[0] for f in found.values()) - t0:.3f}-"
                  f"{max(f[0] for f in found.values()) - t0:.3f} s after the death", flush=True)
        for r, (t1, cls, peer, text) in found.items():
            self.assertEqual(cls, "IoError", f"rank {r}: {text}" + context)
            self.assertLess(t1 - t0, LIMIT_S, f"rank {r} reported {t1 - t0:.1f} s after the death" + context)
            chain, at = [r], peer
            while at != victim:  # follow the named peers: they must lead to the victim
                self.assertTrue(at in found and at not in chain, f"rank {r}: named peers {chain + [at]} "
                                f"do not lead to rank {victim}" + context)
                chain.append(at)
                at = found[at][2]

    def trial(self, phase, rng):
        n = rng.choice([3, 4, 5])
        victim = rng.randrange(n)
        delay_ms = {"join": rng.randrange(0, 600), "connect": rng.randrange(0, 30),
                    "transfer": rng.randrange(0, 200)}[phase]
        hold_ms = 1500 if phase == "join" else 0
        print(f"faults: kill phase {phase}: {n} ranks, victim {victim}, delay {delay_ms} ms", flush=True)
        result, ended, context, marker = self.run_kill(phase, n, victim, delay_ms, hold_ms)
        t0 = self.check_common(result, ended, context, marker, n, victim, phase)
        print(f"faults:   job over {ended - t0:.2f} s after the death (rcoll-run exit {result.returncode})", flush=True)
        if phase == "join":
            for r, (_, cls, peer, text) in self.reports(result.stdout, n, victim).items():
                self.assertNotEqual(cls, "TimeoutError", f"rank {r}: {text}" + context)
                self.assertTrue(peer == victim or re.search(rf"\brank {victim}\b|\b{victim}\b", text),
                                f"rank {r} did not name rank {victim}: {text}" + context)
        else:
            self.check_after_formation(result, context, t0, n, victim)

    def test_kill_while_joining(self):
        rng = random.Random(self.seed * 3 + 1)
        for _ in range(TRIALS):
            self.trial("join", rng)

    def test_kill_while_connecting(self):
        rng = random.Random(self.seed * 3 + 2)
        for _ in range(TRIALS):
            self.trial("connect", rng)

    def test_kill_mid_transfer(self):
        rng = random.Random(self.seed * 3 + 3)
        for _ in range(TRIALS):
            self.trial("transfer", rng)


if __name__ == "__main__":
    unittest.main()
