"""What a local process without the job token can do to a job's start, with
the real rcoll-bootstrapd and real ranks (rcoll_fault_job joining through
its environment):

- flood a fresh service with connections, held open and churned, while the
  ranks join: every job must form, every time, and the service's output
  must not grow by a line per connection (only its rate-limited summary);
- close a rank's connection before the service proved the token (as the
  service does to the oldest waiting connections under a flood): the rank
  must reconnect and join;
- squat the port the ranks join (torchrun style, MASTER_ADDR/MASTER_PORT)
  and answer them: the rank must refuse the impostor at once with a clear
  error, and the token must never appear in what it sent.

RCOLL_FLOOD_ROUNDS (default 2) sets how many jobs each flood test starts.
"""
import os
import re
import struct
import time
import unittest

import faultlib as F
from fake_services import ClosingRelay, FakeService
from flooder import Flooder

TOKEN = b"auth-suite-token-0123456789abcdef"
ROUNDS = int(os.environ.get("RCOLL_FLOOD_ROUNDS", "2"))
PER_CONNECTION = re.compile(r"127\.0\.0\.1:\d+")  # a peer's address with its port
SUMMARY_INTERVAL_S = 5


class FloodBeforeJoin(unittest.TestCase):
    size = 4

    def start_job_under_flood(self, hold, churn):
        """One job of `size` ranks joining a fresh daemon under a flood;
        returns (seconds to join, flood, daemon log lines, flood seconds)."""
        with F.Daemon(self.size, TOKEN.decode()) as daemon:
            flood = Flooder(daemon.host, daemon.port, hold=hold, churn=churn).start()
            flood_start = time.monotonic()
            ranks = []
            try:
                self.assertTrue(flood.wait_holding(hold), flood.summary())
                time.sleep(0.5)  # the ranks start into a flood in full swing
                start = time.monotonic()
                ranks = [(r, F.start_rank(daemon.address, TOKEN.decode(), r, self.size)) for r in range(self.size)]
                for rank, proc in ranks:
                    out, err = proc.communicate(timeout=60)
                    self.assertEqual(proc.returncode, 0, f"rank {rank} under a flood ({flood.summary()}): {out}{err}")
                    self.assertIn(f"joined rank {rank} of {self.size}", out)
                seconds = time.monotonic() - start
            finally:
                flood.stop()
                for _, proc in ranks:
                    if proc.poll() is None:
                        proc.kill()
                    proc.communicate()
            flood_seconds = time.monotonic() - flood_start
            self.assertEqual(daemon.wait(15), 0, daemon.stderr()[-3000:])
            lines = daemon.stderr().splitlines()
        return seconds, flood, lines, flood_seconds

    def check_output(self, lines, flood, flood_seconds):
        per_connection = [line for line in lines if PER_CONNECTION.search(line)]
        self.assertEqual(per_connection[:5], [], f"{len(per_connection)} lines name a connection")
        # At most one summary per interval while flooded, and the final one.
        self.assertLessEqual(len(lines), int(flood_seconds / SUMMARY_INTERVAL_S) + 2, "\n".join(lines))
        summaries = [line for line in lines if "did not prove the job token" in line]
        self.assertTrue(summaries, "no summary of the closed connections")
        self.assertNotIn(TOKEN.decode(), "\n".join(lines))

    def flood_rounds(self, hold, churn):
        for round_ in range(ROUNDS):
            seconds, flood, lines, flood_seconds = self.start_job_under_flood(hold, churn)
            self.check_output(lines, flood, flood_seconds)
            print(f"flood round {round_ + 1}/{ROUNDS}: {self.size} ranks joined in {seconds:.2f} s under "
                  f"{flood.summary()}; {len(lines)} daemon lines in {flood_seconds:.1f} s", flush=True)

    def test_held_connections_never_keep_a_rank_out(self):
        self.flood_rounds(hold=400, churn=False)

    def test_held_and_churned_connections_never_keep_a_rank_out(self):
        self.flood_rounds(hold=400, churn=True)


class Retry(unittest.TestCase):
    def test_a_rank_reconnects_when_closed_before_the_proof(self):
        with F.Daemon(1, TOKEN.decode()) as daemon:
            relay = ClosingRelay(daemon.port, close_first=3)
            try:
                result, seconds = F.run_join(dict(RCOLL_RANK=0, RCOLL_SIZE=1, RCOLL_BOOTSTRAP=f"127.0.0.1:{relay.port}",
                                                  RCOLL_JOB_TOKEN=TOKEN.decode(), RCOLL_TIMEOUT=20,
                                                  RCOLL_LOG="debug"), timeout=60)
            finally:
                relay.close()
            self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
            self.assertIn("joined rank 0 of 1", result.stdout)
            output = result.stdout + result.stderr
            self.assertEqual(output.count("reconnecting in"), 3, output)
            for backoff in ("20 ms (attempt 2)", "40 ms (attempt 3)", "80 ms (attempt 4)"):
                self.assertIn(backoff, output)
            self.assertEqual(relay.accepted, 4)
            self.assertLess(seconds, 5)
            self.assertEqual(daemon.wait(10), 0, daemon.stderr())


def members_frame(size):
    return F.frame(F.MEMBERS, struct.pack("<I", size) + b"".join(F.lp(b"127.0.0.1") + F.lp(b"x") for _ in range(size)))


class Squatter(unittest.TestCase):
    def join_at(self, port):
        """Rank 1 of 2 joining 127.0.0.1:port torchrun style; (result, seconds)."""
        return F.run_join(dict(RANK=1, WORLD_SIZE=2, MASTER_ADDR="127.0.0.1", MASTER_PORT=port,
                               RCOLL_JOB_TOKEN=TOKEN.decode(), RCOLL_TIMEOUT=30), timeout=60)

    def expect_refused(self, service, why):
        try:
            result, seconds = self.join_at(service.port)
        finally:
            service.close()
        self.assertEqual(result.returncode, 5, result.stdout + result.stderr)
        self.assertRegex(result.stdout, r"error IoError after .*127\.0\.0\.1:%d could not prove it knows the job "
                                        r"token \(%s\): another process may be listening" % (service.port, why))
        self.assertNotIn("joined", result.stdout)
        self.assertLess(seconds, 10, "refusing an impostor must not wait for the 30 s timeout")
        self.assertNotIn(TOKEN, service.received, "the token went over the wire")
        return service.received

    def test_an_impostor_with_a_wrong_proof_is_refused_and_never_sees_the_token(self):
        answer = lambda conn: conn.sendall(F.frame(F.ACCEPTED, os.urandom(32)) + members_frame(2))
        received = self.expect_refused(FakeService(answer), "its proof was wrong")
        # What it got was a JOIN whose proof answers its challenge and nothing else.
        header = F.HEADER.unpack(received[:F.HEADER.size])
        self.assertEqual((header[0], header[1], header[2]), (F.MAGIC, F.VERSION, F.JOIN))

    def test_an_impostor_that_skips_the_challenge_hears_nothing(self):
        answer = lambda conn: conn.sendall(members_frame(2))
        received = self.expect_refused(FakeService(answer, send_challenge=False),
                                       "its first frame was MEMBERS, not CHALLENGE")
        self.assertEqual(received, b"", "the rank spoke before the service challenged it")


class Interoperates(unittest.TestCase):
    def test_the_service_proves_the_token_to_an_independent_client(self):
        """The proofs computed here with Python's hmac match the library's."""
        with F.Daemon(1, TOKEN.decode()) as daemon:
            sock, server_nonce = F.connect_challenged(daemon.host, daemon.port)
            with sock:
                nonce = os.urandom(16)
                sock.sendall(F.frame(F.JOIN, F.join_payload(TOKEN, server_nonce, 1, 0, nonce=nonce)))
                accepted = F.read_frame(sock)
                self.assertIsNotNone(accepted)
                self.assertEqual(accepted[0], F.ACCEPTED)
                fields = F.join_fields(1, 0)
                self.assertEqual(accepted[1], F.prove(TOKEN, F.SERVER_ROLE, nonce, server_nonce, fields))
                self.assertEqual(F.read_frame(sock)[0], F.MEMBERS)
            self.assertEqual(daemon.wait(10), 0, daemon.stderr())


if __name__ == "__main__":
    unittest.main()
