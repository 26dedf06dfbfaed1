"""A connection flood against one TCP port, as a local process without any
credential could start it against a fresh listener: `hold` connections kept
open (each one the server closes is replaced at once) plus, optionally, a
connect/close churn. Bounded: it stops when told or after `max_s` seconds.
"""
import selectors
import socket
import threading
import time


class Flooder:
    def __init__(self, host, port, hold=400, churn=True, max_s=60):
        self.host, self.port, self.hold, self.churn, self.max_s = host, port, hold, churn, max_s
        self.opened = 0          # connections the hold loop opened
        self.closed_by_peer = 0  # of those, the ones the server closed
        self.churned = 0         # connect/close pairs
        self.failed = 0          # connects that failed (refused, timed out)
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._hold_loop, daemon=True)]
        if churn:
            self._threads.append(threading.Thread(target=self._churn_loop, daemon=True))

    def start(self):
        self._start = time.monotonic()
        for thread in self._threads:
            thread.start()
        return self

    def wait_holding(self, count, within_s=10):
        end = time.monotonic() + within_s
        while self.opened < count and time.monotonic() < end:
            time.sleep(0.01)
        return self.opened >= count

    def stop(self):
        self._stop.set()
        for thread in self._threads:
            thread.join(10)

    def _running(self):
        return not self._stop.is_set() and time.monotonic() - self._start < self.max_s

    def _connect(self):
        try:
            sock = socket.create_connection((self.host, self.port), timeout=1)
        except OSError:
            self.failed += 1
            return None
        sock.setblocking(False)
        return sock

    def _hold_loop(self):
        selector = selectors.DefaultSelector()
        try:
            while self._running():
                while len(selector.get_map()) < self.hold and self._running():
                    sock = self._connect()
                    if sock is not None:
                        selector.register(sock, selectors.EVENT_READ)
                        self.opened += 1
                for key, _ in selector.select(timeout=0.02):
                    try:
                        data = key.fileobj.recv(4096)  # a CHALLENGE (discarded) or the end
                    except OSError:
                        data = b""
                    if not data:
                        selector.unregister(key.fileobj)
                        key.fileobj.close()
                        self.closed_by_peer += 1
        finally:
            for key in list(selector.get_map().values()):
                key.fileobj.close()
            selector.close()

    def _churn_loop(self):
        while self._running():
            sock = self._connect()
            if sock is not None:
                sock.close()
                self.churned += 1

    def summary(self):
        return (f"{self.opened} held connections opened ({self.closed_by_peer} closed by the server), "
                f"{self.churned} connect/close, {self.failed} failed connects")
