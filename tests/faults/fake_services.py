"""Stand-ins for the bootstrap service on a free loopback port, for the
tests of what a rank does when something else answers: a relay that closes
a rank's first connections before the service could prove the token, and an
impostor that records what the rank sends and answers it.
"""
import os
import socket
import threading
import time

import faultlib as F


class LoopbackListener:
    """Accepts on 127.0.0.1:<free port> on a thread, calling handle(conn)
    for each connection, until close()."""

    def __init__(self):
        self.accepted = 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.listener.settimeout(0.2)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self):
        while not self._stop.is_set():
            try:
                conn, _ = self.listener.accept()
            except OSError:
                continue
            self.accepted += 1
            self.handle(conn)

    def handle(self, conn):
        raise NotImplementedError

    def close(self):
        self._stop.set()
        self._thread.join(5)
        self.listener.close()


class ClosingRelay(LoopbackListener):
    """Closes the first `close_first` connections right after a CHALLENGE of
    its own, then relays every further connection to the real service."""

    def __init__(self, service_port, close_first):
        self.service_port, self.close_first = service_port, close_first
        self._sockets, self._pipes = [], []
        super().__init__()

    def handle(self, conn):
        if self.accepted <= self.close_first:
            conn.sendall(F.frame(F.CHALLENGE, os.urandom(16)))
            conn.close()
            return
        upstream = socket.create_connection(("127.0.0.1", self.service_port), timeout=5)
        self._sockets += [conn, upstream]
        for source, sink in ((conn, upstream), (upstream, conn)):
            self._pipes.append(threading.Thread(target=self._pipe, args=(source, sink), daemon=True))
            self._pipes[-1].start()

    @staticmethod
    def _pipe(source, sink):
        source.settimeout(None)
        try:
            while chunk := source.recv(65536):
                sink.sendall(chunk)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self):
        super().close()
        for pipe in self._pipes:
            pipe.join(5)
        for sock in self._sockets:
            sock.close()


class FakeService(LoopbackListener):
    """An impostor: sends a CHALLENGE (unless told not to), records in
    `received` what the rank sends within `listen_s`, then `answer(conn)`."""

    def __init__(self, answer, send_challenge=True, listen_s=0.5):
        self.answer, self.send_challenge, self.listen_s = answer, send_challenge, listen_s
        self.received = b""
        super().__init__()

    def handle(self, conn):
        with conn:
            if self.send_challenge:
                conn.sendall(F.frame(F.CHALLENGE, os.urandom(16)))
            conn.settimeout(self.listen_s)
            try:
                while chunk := conn.recv(65536):
                    self.received += chunk
                    if len(self.received) >= F.HEADER.size + 48:
                        break  # the JOIN's nonce and proof are in
            except OSError:
                pass
            try:
                self.answer(conn)
                time.sleep(0.5)
            except OSError:
                pass
