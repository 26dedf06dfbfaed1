"""Faults at the bootstrap service, with the real rcoll-bootstrapd process and
the real library (rcoll_fault_job) joining through its environment:
corrupt and truncated frames from many clients, a wrong token, a port in
use (daemon, launcher, rank 0 hosting the service), an unreachable service
(loopback port with nothing listening; a TEST-NET address that never
answers). Each case asserts the documented error and its deadline.

In-process refusal cases (one per refusal code) are in
tests/unit/bootstrap_refusal_test.cpp; this suite does not repeat them.
"""
import random
import re
import selectors
import socket
import subprocess
import time
import unittest

import faultlib as F

TOKEN = b"fault-suite-token-0123456789"


def bad_inputs(rng, count):
    """[(category, bytes, answered)]: `answered` inputs must get an ERROR frame
    and be closed at once; the others are cut off by the client (truncated)."""
    good = F.frame(F.JOIN, F.join_payload(TOKEN, 2, 0))
    token_at = F.HEADER.size + 4
    inputs = []
    for i in range(count):
        kind = i % 8
        if kind == 0:  # one bit of magic, version or type flipped
            data = bytearray(good)
            data[rng.randrange(8)] ^= 1 << rng.randrange(8)
            inputs.append(("header bit flip", bytes(data), True))
        elif kind == 1:  # one bit of the token flipped: a wrong token
            data = bytearray(good)
            data[token_at + rng.randrange(len(TOKEN))] ^= 1 << rng.randrange(8)
            inputs.append(("token bit flip", bytes(data), True))
        elif kind == 2:  # a frame cut short, then the client goes away
            inputs.append(("truncated frame", good[:rng.randrange(1, len(good))], False))
        elif kind == 3:  # garbage of at least a header's length
            data = bytes(rng.randrange(256) for _ in range(rng.randrange(12, 200)))
            inputs.append(("random bytes", data, data[:4] != good[:4]))
        elif kind == 4:  # a length over the 1 MiB request limit
            inputs.append(("oversized length", F.frame(F.JOIN, b"", length=rng.randrange(1 << 20 | 1, 1 << 32)), True))
        elif kind == 5:  # payload fields that do not fit the payload
            payload = bytearray(F.join_payload(TOKEN, 2, 0))
            cut = rng.randrange(len(payload))
            inputs.append(("malformed payload", F.frame(F.JOIN, bytes(payload[:cut])), True))
        elif kind == 6:  # well-formed JOIN with a rank or world size that is wrong
            size, rank = rng.choice([(3, 0), (2, 2), (2, 1 << 31), (0, 0)])
            inputs.append(("bad rank/size", F.frame(F.JOIN, F.join_payload(TOKEN, size, rank)), True))
        else:  # a request other than JOIN first, or a server-to-client type
            msg_type = rng.choice([2, 3, 4, 5, 6, 7, 8, 9, 77])
            inputs.append(("unexpected type", F.frame(msg_type, bytes(rng.randrange(256) for _ in range(16))), True))
    return inputs


class BootstrapFaults(unittest.TestCase):
    seed = F.suite_seed()

    def assert_joins(self, ranks, deadline_s=30):
        for rank, proc in ranks:
            out, err = proc.communicate(timeout=deadline_s)
            self.assertEqual(proc.returncode, 0, f"rank {rank}: {out}{err}")
            self.assertIn(f"joined rank {rank} of 2", out)

    def test_corrupt_and_truncated_frames_are_refused_while_good_ranks_join(self):
        rng = random.Random(self.seed)
        inputs = bad_inputs(rng, 160)
        with F.Daemon(2, TOKEN.decode()) as daemon:
            first = F.start_rank(daemon.address, TOKEN.decode(), 0, 2)  # joins and waits for rank 1
            clients = []
            for category, data, answered in inputs:
                sock = socket.create_connection((daemon.host, daemon.port), timeout=5)
                sock.sendall(data)
                if not answered:
                    sock.close()
                    sock = None
                clients.append((category, data, answered, sock))
            start = time.monotonic()
            refused = 0
            for category, data, answered, sock in clients:
                if sock is None:
                    continue
                header, _, closed = F.read_answer(sock, max(0.5, 5 - (time.monotonic() - start)))
                sock.close()
                self.assertIsNotNone(header, f"{category} {data[:40].hex()}: no answer")
                self.assertEqual((header[0], header[2]), (F.MAGIC, F.ERROR), f"{category}: answer {header}")
                self.assertTrue(closed, f"{category}: connection left open after the refusal")
                refused += 1
            self.assertLess(time.monotonic() - start, 6, "refusals took longer than 5 s")
            second = F.start_rank(daemon.address, TOKEN.decode(), 1, 2)
            self.assert_joins([(0, first), (1, second)])
            self.assertEqual(daemon.wait(10), 0, daemon.stderr())
            log = daemon.stderr()
        refusals = re.findall(r"refusing 127\.0\.0\.1:\d+", log)
        self.assertGreaterEqual(len(refusals), refused, log[-3000:])
        self.assertNotIn(TOKEN.decode(), log, "the log must not show the token")
        print(f"faults: {len(inputs)} bad inputs ({refused} answered with an ERROR frame), "
              f"{len(refusals)} refusals logged with the peer address", flush=True)

    def test_wrong_token_is_refused_at_once_and_the_job_still_forms(self):
        with F.Daemon(2, TOKEN.decode()) as daemon:
            result, seconds = F.run_join(dict(RCOLL_RANK=0, RCOLL_SIZE=2, RCOLL_BOOTSTRAP=daemon.address,
                                              RCOLL_JOB_TOKEN="not-the-token", RCOLL_TIMEOUT=60))
            self.assertEqual(result.returncode, 5, result.stdout + result.stderr)
            self.assertRegex(result.stdout, r"error InvalidArgument after .*wrong job token")
            self.assertLess(seconds, 5, "a refused join must not wait for its timeout (60 s)")
            ranks = [(r, F.start_rank(daemon.address, TOKEN.decode(), r, 2)) for r in (0, 1)]
            self.assert_joins(ranks)
            self.assertEqual(daemon.wait(10), 0)
            self.assertRegex(daemon.stderr(), r"refusing 127\.0\.0\.1:\d+.*wrong")
            self.assertNotIn("not-the-token", daemon.stderr())

    def test_port_in_use(self):
        with socket.socket() as holder:
            holder.bind(("127.0.0.1", 0))
            holder.listen()
            port = holder.getsockname()[1]
            address = f"127.0.0.1:{port}"
            # the daemon
            start = time.monotonic()
            daemon = subprocess.run([F.BOOTSTRAPD, "--size", "2", "--listen", address], capture_output=True,
                                    text=True, timeout=30, env=F.clean_env(None, RCOLL_JOB_TOKEN="t"))
            self.assertEqual(daemon.returncode, 1, daemon.stderr)
            self.assertIn(address, daemon.stderr)
            self.assertIn("in use", daemon.stderr)
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
            self.assertRegex(result.stdout, rf"error IoError after .*{address}.*in use")
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
