"""Faults at the bootstrap service, with the real rcoll-bootstrapd process and
the real library (rcoll_fault_job) joining through its environment:
corrupt and truncated frames from many clients (closed with at most a
minimal answer, counted, never logged one by one), a wrong token, a port in
use (daemon, launcher, rank 0 hosting the service: named, with the port's
holder), an unreachable service
(loopback port with nothing listening; a TEST-NET address that never
answers). Each case asserts the documented error and its deadline.

In-process refusal cases (one per refusal code) are in
tests/unit/bootstrap_refusal_test.cpp; this suite does not repeat them.
"""
import os
import random
import re
import socket
import struct
import subprocess
import time
import unittest

import faultlib as F

TOKEN = b"fault-suite-token-0123456789"


def bad_input(rng, i, nonce):
    """(category, bytes, answer) for the i-th bad connection, whose CHALLENGE
    carried `nonce`. `answer` is the ERROR code the service may send before
    it closes (None: it closes without a word); either way nothing in it may
    name a rank or the world size. Truncated inputs are cut off by the client."""
    good = F.frame(F.JOIN, F.join_payload(TOKEN, nonce, 2, 0))
    proof_at = F.HEADER.size + 16
    kind = i % 8
    if kind == 0:  # one bit of magic or version flipped
        data = bytearray(good)
        at = rng.randrange(6)
        data[at] ^= 1 << rng.randrange(8)
        return "header bit flip", bytes(data), (BAD_MAGIC if at < 4 else VERSION_MISMATCH)
    if kind == 1:  # one bit of the proof flipped: a wrong proof
        data = bytearray(good)
        data[proof_at + rng.randrange(32)] ^= 1 << rng.randrange(8)
        return "proof bit flip", bytes(data), WRONG_TOKEN
    if kind == 2:  # a frame cut short, then the client goes away
        return "truncated frame", good[:rng.randrange(1, len(good))], None
    if kind == 3:  # garbage of at least a header's length
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(12, 200)))
        return "random bytes", data, BAD_MAGIC
    if kind == 4:  # a length over the 1 MiB request limit
        return "oversized length", F.frame(F.JOIN, b"", length=rng.randrange(1 << 20 | 1, 1 << 32)), TOO_LARGE
    if kind == 5:  # payload fields that do not fit the payload
        return "malformed payload", F.frame(F.JOIN, good[F.HEADER.size:][:rng.randrange(len(good) - 12)]), None
    if kind == 6:  # the proof of another token for a wrong rank or world size
        size, rank = rng.choice([(3, 0), (2, 2), (2, 1 << 31), (0, 0)])
        return "bad rank/size, no token", F.frame(F.JOIN, F.join_payload(b"guess", nonce, size, rank)), WRONG_TOKEN
    msg_type = rng.choice([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 77])  # not a JOIN first
    return "unexpected type", F.frame(msg_type, bytes(rng.randrange(256) for _ in range(16))), None


BAD_MAGIC, VERSION_MISMATCH, WRONG_TOKEN, TOO_LARGE = 1, 2, 3, 7


class BootstrapFaults(unittest.TestCase):
    seed = F.suite_seed()

    def assert_joins(self, ranks, deadline_s=30):
        for rank, proc in ranks:
            out, err = proc.communicate(timeout=deadline_s)
            self.assertEqual(proc.returncode, 0, f"rank {rank}: {out}{err}")
            self.assertIn(f"joined rank {rank} of 2", out)

    def test_corrupt_and_truncated_frames_are_closed_quietly_while_good_ranks_join(self):
        rng = random.Random(self.seed)
        count = 160
        with F.Daemon(2, TOKEN.decode()) as daemon:
            first = F.start_rank(daemon.address, TOKEN.decode(), 0, 2)  # joins and waits for rank 1
            clients = []
            for i in range(count):
                sock, nonce = F.connect_challenged(daemon.host, daemon.port)
                category, data, answer = bad_input(rng, i, nonce)
                sock.sendall(data)
                if answer is None and category == "truncated frame":
                    sock.close()
                    sock = None
                clients.append((category, data, answer, sock))
            start = time.monotonic()
            answered = 0
            for category, data, answer, sock in clients:
                if sock is None:
                    continue
                header, reply, closed = F.read_answer(sock, max(0.5, 5 - (time.monotonic() - start)))
                sock.close()
                self.assertTrue(closed, f"{category} {data[:40].hex()}: connection left open")
                if header is None:
                    self.assertIsNone(answer, f"{category} {data[:40].hex()}: closed without the expected answer")
                    continue
                self.assertEqual((header[0], header[2]), (F.MAGIC, F.ERROR), f"{category}: answer {header}")
                code, _, rank_count = struct.unpack("<HQI", reply[12:26])
                self.assertEqual((code, rank_count), (answer, 0), f"{category}: {reply!r}")
                self.assertNotRegex(reply[26:].decode(errors="replace"), r"rank|size",
                                    f"{category}: the refusal tells about the job")
                answered += 1
            self.assertLess(time.monotonic() - start, 6, "closing them took longer than 5 s")
            second = F.start_rank(daemon.address, TOKEN.decode(), 1, 2)
            self.assert_joins([(0, first), (1, second)])
            self.assertEqual(daemon.wait(10), 0, daemon.stderr())
            log = daemon.stderr()
        self.assertNotRegex(log, r"127\.0\.0\.1:\d+", "a log line per connection")
        closed = sum(int(n) for n in re.findall(r"dropped (\d+) connections? that did not prove the job token", log))
        self.assertGreaterEqual(closed, count, log[-3000:])
        self.assertLessEqual(len(log.splitlines()), 3, log[-3000:])
        self.assertNotIn(TOKEN.decode(), log, "the log must not show the token")
        print(f"faults: {count} bad inputs ({answered} answered with a minimal ERROR, the rest closed silently), "
              f"{closed} counted in {len(log.splitlines())} summary line(s)", flush=True)

    def test_wrong_token_is_refused_at_once_and_the_job_still_forms(self):
        with F.Daemon(2, TOKEN.decode()) as daemon:
            result, seconds = F.run_join(dict(RCOLL_RANK=0, RCOLL_SIZE=2, RCOLL_BOOTSTRAP=daemon.address,
                                              RCOLL_JOB_TOKEN="not-the-token", RCOLL_TIMEOUT=60))
            self.assertEqual(result.returncode, 5, result.stdout + result.stderr)
            self.assertRegex(result.stdout, r"error InvalidArgument after .*wrong job token \(RCOLL_JOB_TOKEN "
                                            r"differs from the service's\)")
            self.assertLess(seconds, 5, "a refused join must not wait for its timeout (60 s)")
            ranks = [(r, F.start_rank(daemon.address, TOKEN.decode(), r, 2)) for r in (0, 1)]
            self.assert_joins(ranks)
            self.assertEqual(daemon.wait(10), 0)
            self.assertRegex(daemon.stderr(), r"dropped 1 connection that did not prove the job token in the last "
                                              r"[0-9.]+ s \(1 failed the token proof; 1 from 127\.0\.0\.1; ")
            self.assertNotIn("not-the-token", daemon.stderr())

    def test_port_in_use(self):
        with socket.socket() as holder:
            holder.bind(("127.0.0.1", 0))
            holder.listen()
            port = holder.getsockname()[1]
            address = f"127.0.0.1:{port}"
            with open("/proc/self/comm") as f:  # this process holds the port
                holder = f"pid {os.getpid()} ({f.read().strip()})"
            # the daemon
            start = time.monotonic()
            daemon = subprocess.run([F.BOOTSTRAPD, "--size", "2", "--listen", address], capture_output=True,
                                    text=True, timeout=30, env=F.clean_env(None, RCOLL_JOB_TOKEN="t"))
            self.assertEqual(daemon.returncode, 1, daemon.stderr)
            self.assertIn(address, daemon.stderr)
            self.assertIn(f"port {port} is in use by {holder}", daemon.stderr)
            self.assertNotIn("rank -1", daemon.stderr)
            self.assertLess(time.monotonic() - start, 5)
            # the launcher: no rank may start
            marker = F.new_marker()
            start = time.monotonic()
            run = subprocess.run([F.RUN, "-n", "2", "--bootstrap-listen", address, "--", F.JOB, "join"],
                                 capture_output=True, text=True, timeout=60, env=F.clean_env(marker))
            self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
            self.assertIn(str(port), run.stderr)
            self.assertNotIn("joined", run.stdout)
            self.assertLess(time.monotonic() - start, 15)
            self.assertEqual(F.wait_no_orphans(marker), [])
            # rank 0 hosting the service itself (torchrun-style variables)
            result, seconds = F.run_join(dict(RANK=0, WORLD_SIZE=2, MASTER_ADDR="127.0.0.1", MASTER_PORT=port,
                                              RCOLL_JOB_TOKEN="t", RCOLL_TIMEOUT=60))
            self.assertEqual(result.returncode, 5, result.stdout + result.stderr)
            self.assertRegex(result.stdout, rf"error IoError after .*: rank 0: .*{address}.*"
                                            rf"port {port} is in use by {re.escape(holder)}")
            self.assertLess(seconds, 5)

    def test_unreachable_service_times_out_within_the_deadline(self):
        closed = F.free_port()  # nothing listens there
        for address in (f"127.0.0.1:{closed}", "192.0.2.1:9"):  # loopback; TEST-NET-1, never answers
            with self.subTest(address=address):
                result, seconds = F.run_join(dict(RCOLL_RANK=1, RCOLL_SIZE=2, RCOLL_BOOTSTRAP=address,
                                                  RCOLL_JOB_TOKEN="t", RCOLL_TIMEOUT=2), timeout=30)
                self.assertEqual(result.returncode, 5, result.stdout + result.stderr)
                self.assertRegex(result.stdout, r"error TimeoutError after")
                self.assertIn(address, result.stdout)
                self.assertGreater(seconds, 1.9, "gave up before its timeout")
                self.assertLess(seconds, 2 + 3, "overran its 2 s timeout")


if __name__ == "__main__":
    unittest.main()
