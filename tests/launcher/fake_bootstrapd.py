#!/usr/bin/env python3
"""Stands in for rcoll-bootstrapd in the launcher tests.

Same command line (--size N --listen HOST:PORT [--join-timeout S]) and the
token in RCOLL_JOB_TOKEN. Appends JSON events to $FAKE_BOOTSTRAPD_LOG:
"start" (argv, token, own cmdline, port) and one "join" per connection.
Like the real service it never receives the token: it sends a line with a
random hex nonce, and the rank's first line must be the hex HMAC-SHA-256 of
that nonce keyed by the token (launcher_testlib.join_bootstrap); token_ok
records whether it was. $FAKE_BOOTSTRAPD_MODE:
  serve    (default) announce, accept, answer each join line with "joined";
           exit 0 once N connections closed
  fail     announce, then after 0.3 s report that ranks never joined, exit 1
  lost     serve, but exit 1 (reporting a lost rank) as soon as one
           connection closes, as the real service fails a forming job
  die      report an error and exit 3 without announcing
  garbage  print an unexpected first line, then wait
  silent   never announce, just wait
"""

import argparse
import hashlib
import hmac
import json
import os
import socket
import sys
import threading
import time


def log(event, **fields):
    path = os.environ.get("FAKE_BOOTSTRAPD_LOG")
    if path:
        with open(path, "a") as f:
            f.write(json.dumps(dict(event=event, **fields)) + "\n")


def serve(listener, size, token, exit_on_close=False):
    closed = threading.Semaphore(0)

    def handle(conn):
        with conn, conn.makefile("rb") as stream:
            nonce = os.urandom(16).hex()
            conn.sendall(nonce.encode() + b"\n")
            proof = stream.readline().strip().decode(errors="replace")
            expected = hmac.new(token.encode(), nonce.encode(), hashlib.sha256).hexdigest()
            log("join", token_ok=hmac.compare_digest(proof, expected))
            try:
                conn.sendall(b"joined\n")  # the rank may go on (join_bootstrap)
            except OSError:
                pass  # it did not wait for the answer
            stream.read()  # until the rank disconnects
        if exit_on_close:
            print("fake_bootstrapd: rank lost: a connection closed before the job formed",
                  file=sys.stderr, flush=True)
            os._exit(1)
        closed.release()

    for _ in range(size):
        conn, _ = listener.accept()
        threading.Thread(target=handle, args=(conn,), daemon=True).start()
    for _ in range(size):
        closed.acquire()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, required=True)
    parser.add_argument("--listen", default="127.0.0.1:0")
    parser.add_argument("--join-timeout")
    args = parser.parse_args()
    token = os.environ.get("RCOLL_JOB_TOKEN")
    if not token:
        sys.exit("fake_bootstrapd: RCOLL_JOB_TOKEN is not set")
    mode = os.environ.get("FAKE_BOOTSTRAPD_MODE", "serve")
    host, _, port = args.listen.rpartition(":")
    listener = socket.create_server((host, int(port)))
    with open("/proc/self/cmdline", "rb") as f:
        cmdline = f.read().decode(errors="replace")
    log("start", argv=sys.argv[1:], token=token, cmdline=cmdline,
        port=listener.getsockname()[1], pid=os.getpid())
    if mode == "die":
        print("fake_bootstrapd: cannot listen: broken on purpose", file=sys.stderr)
        sys.exit(3)
    if mode in ("garbage", "silent"):
        if mode == "garbage":
            print("hello", flush=True)
        time.sleep(60)
        return
    print(f"RCOLL_BOOTSTRAP={host}:{listener.getsockname()[1]}", flush=True)
    if mode == "fail":
        time.sleep(0.3)
        print(f"fake_bootstrapd: ranks never joined: 0 of {args.size} joined", file=sys.stderr)
        sys.exit(1)
    serve(listener, args.size, token, exit_on_close=(mode == "lost"))


if __name__ == "__main__":
    main()
