"""Helpers of the failure-injection suite: paths, environments, the real
bootstrap daemon as a context manager, bootstrap frames, and orphan checks.

CTest sets RCOLL_SOURCE_DIR, RCOLL_FAULT_JOB and RCOLL_BOOTSTRAPD.
"""
import hashlib
import hmac
import os
import random
import re
import socket
import struct
import subprocess
import threading
import time
import uuid

SOURCE = os.environ.get("RCOLL_SOURCE_DIR",
                        os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
BUILD = os.environ.get("RCOLL_BUILD_DIR", os.path.join(SOURCE, "build"))
RUN = os.path.join(SOURCE, "tools", "rcoll-run")
JOB = os.environ.get("RCOLL_FAULT_JOB", os.path.join(BUILD, "tests", "faults", "rcoll_fault_job"))
BOOTSTRAPD = os.environ.get("RCOLL_BOOTSTRAPD", os.path.join(BUILD, "tools", "rcoll-bootstrapd"))

# Launcher variables of an enclosing job must not leak into the jobs we start.
_LAUNCHER_VARS = re.compile(r"^(RCOLL_(RANK|SIZE|LOCAL_RANK|LOCAL_SIZE|BOOTSTRAP|BOOTSTRAP_SERVE|JOB_TOKEN)|"
                            r"SLURM_PROCID|SLURM_NTASKS|OMPI_COMM_WORLD_\w+|RANK|WORLD_SIZE|LOCAL_RANK|"
                            r"MASTER_ADDR|MASTER_PORT)$")


def suite_seed():
    """RCOLL_FAULT_SEED, else a fresh one; printed so that a failure can be replayed."""
    seed = int(os.environ.get("RCOLL_FAULT_SEED") or random.SystemRandom().randrange(1 << 31))
    print(f"faults: seed {seed} (set RCOLL_FAULT_SEED={seed} to replay)", flush=True)
    return seed


def clean_env(marker=None, **extra):
    """This environment without launcher variables, plus `extra`; `marker`
    (a unique string) is set as RCOLL_FAULT_MARK so that orphans can be found."""
    env = {k: v for k, v in os.environ.items() if not _LAUNCHER_VARS.match(k)}
    env["RCOLL_BOOTSTRAPD"] = BOOTSTRAPD
    if marker:
        env["RCOLL_FAULT_MARK"] = marker
    env.update({k: str(v) for k, v in extra.items()})
    return env


def new_marker():
    return "fault-" + uuid.uuid4().hex


def processes_with_marker(marker):
    """PIDs of live processes (of this user) whose environment holds `marker`."""
    found = []
    needle = ("RCOLL_FAULT_MARK=" + marker).encode()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                if needle in f.read().split(b"\0"):
                    found.append(int(name))
        except OSError:
            continue
    return found


def wait_no_orphans(marker, within_s=3.0):
    """[] once no process holds `marker` (polling up to within_s), else the PIDs left."""
    end = time.monotonic() + within_s
    while True:
        left = processes_with_marker(marker)
        if not left or time.monotonic() > end:
            return left
        time.sleep(0.1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ------------------------------------------------------------ bootstrap frames
# docs/PROTOCOLS.md, "Bootstrap rank service": header = magic u32, version
# u16, type u16, payload length u32 (little-endian). The server's first
# frame is CHALLENGE (its 16-byte nonce); JOIN payload = client nonce (16),
# proof (32), size u32, rank u32, timeout_ms u32, blob (u32 + bytes); the
# proof is HMAC-SHA-256 keyed by the token (computed here independently of
# the library, so the suite also checks the two agree).
MAGIC = 0x53424352
VERSION = 2
JOIN, MEMBERS, ERROR, CHALLENGE, ACCEPTED = 1, 2, 3, 10, 11
HEADER = struct.Struct("<IHHI")
CLIENT_ROLE = b"rcoll/1 bootstrap client"
SERVER_ROLE = b"rcoll/1 bootstrap server"


def frame(msg_type, payload, version=VERSION, magic=MAGIC, length=None):
    return HEADER.pack(magic, version, msg_type, len(payload) if length is None else length) + payload


def lp(data):
    return struct.pack("<I", len(data)) + data


def join_fields(size, rank, timeout_ms=10000, blob=b"blob"):
    return struct.pack("<III", size, rank, timeout_ms) + lp(blob)


def prove(token, role, challenge, own, fields):
    """common/auth.hpp auth::prove: HMAC(token, each part length-prefixed)."""
    return hmac.new(token, b"".join(lp(part) for part in (role, challenge, own, fields)), hashlib.sha256).digest()


def join_payload(token, server_nonce, size, rank, timeout_ms=10000, blob=b"blob", nonce=b"n" * 16):
    """A JOIN payload whose proof of `token` answers `server_nonce`."""
    fields = join_fields(size, rank, timeout_ms, blob)
    return nonce + prove(token, CLIENT_ROLE, server_nonce, nonce, fields) + fields


def read_frame(sock, deadline_s=5):
    """(type, payload) of the next frame, or None if the peer closed first."""
    sock.settimeout(deadline_s)
    data = b""
    try:
        while len(data) < HEADER.size:
            chunk = sock.recv(HEADER.size - len(data))
            if not chunk:
                return None
            data += chunk
        _, _, msg_type, length = HEADER.unpack(data)
        payload = b""
        while len(payload) < length:
            chunk = sock.recv(length - len(payload))
            if not chunk:
                return None
            payload += chunk
        return msg_type, payload
    except OSError:
        return None


def connect_challenged(host, port):
    """A connection to the service and the nonce of its CHALLENGE."""
    sock = socket.create_connection((host, port), timeout=5)
    first = read_frame(sock)
    assert first is not None and first[0] == CHALLENGE, f"first frame {first!r}"
    return sock, first[1]


def read_answer(sock, deadline_s):
    """(first frame header tuple or None, bytes read, closed?) within deadline_s."""
    sock.settimeout(0.2)
    data, closed = b"", False
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            continue
        except OSError:
            closed = True
            break
        if not chunk:
            closed = True
            break
        data += chunk
    header = HEADER.unpack(data[:HEADER.size]) if len(data) >= HEADER.size else None
    return header, data, closed


class Daemon:
    """rcoll-bootstrapd for a job of `size` on 127.0.0.1 (or `listen`), its
    stderr collected; use as a context manager."""

    def __init__(self, size, token, listen="127.0.0.1:0", join_timeout=60, marker=None, log="warn"):
        env = clean_env(marker, RCOLL_JOB_TOKEN=token, RCOLL_LOG=log)
        self.proc = subprocess.Popen([BOOTSTRAPD, "--size", str(size), "--listen", listen,
                                      "--join-timeout", str(join_timeout)],
                                     env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self._err = []
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()
        line = self.proc.stdout.readline().decode().strip()
        match = re.match(r"^RCOLL_BOOTSTRAP=(.*):(\d+)$", line)
        if not match:
            self.stop()
            raise AssertionError(f"rcoll-bootstrapd announced {line!r}; stderr: {self.stderr()}")
        self.address = f"{match[1]}:{match[2]}"
        self.host, self.port = match[1], int(match[2])

    def _drain(self):
        for line in self.proc.stderr:
            self._err.append(line.decode(errors="replace"))

    def stderr(self):
        return "".join(self._err)

    def wait(self, timeout):
        status = self.proc.wait(timeout)
        self._reader.join(2)
        return status

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._reader.join(2)
        for pipe in (self.proc.stdout, self.proc.stderr):
            pipe.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def start_rank(address, token, rank, size, marker=None, **extra):
    """rcoll_fault_job join as `rank` of `size`, joining at `address`."""
    env = clean_env(marker, RCOLL_RANK=rank, RCOLL_SIZE=size, RCOLL_BOOTSTRAP=address,
                    RCOLL_JOB_TOKEN=token, RCOLL_TRANSPORT="tcp", **extra)
    return subprocess.Popen([JOB, "join"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def run_join(env_extra, timeout=60):
    """Runs rcoll_fault_job join with exactly `env_extra` as its job variables;
    returns (CompletedProcess, seconds)."""
    start = time.monotonic()
    result = subprocess.run([JOB, "join"], env=clean_env(None, **env_extra), capture_output=True, text=True,
                            timeout=timeout)
    return result, time.monotonic() - start
