"""Copies the ranks' pipes to our stdout/stderr, one prefixed line at a time.

Works on bytes, not text, so that output in any encoding (or none) passes
through unchanged; only whole lines are written, so lines of different ranks
never interleave. A last line without a newline gets one at end of stream.
"""

import os
import selectors
import time

READ_CHUNK = 65536
# A "line" longer than this is written out in pieces rather than buffered.
MAX_LINE = 65536


class _Stream:
    def __init__(self, fd, prefix, sink, owner):
        self.fd = fd
        self.prefix = prefix
        self.sink = sink
        self.owner = owner
        self.pending = bytearray()


class OutputPump:
    """Multiplexes many pipes onto a few sinks (binary files) in one thread."""

    def __init__(self, line_observer=None):
        """`line_observer(owner, line)`, if given, sees every whole line
        (bytes, without the newline) before it is written."""
        self._selector = selectors.DefaultSelector()
        self._streams = {}
        self._broken_sinks = set()
        self.line_observer = line_observer

    def add(self, fd, prefix, sink, owner, initial=b""):
        """Takes ownership of pipe `fd`; `owner` groups streams for drain()."""
        os.set_blocking(fd, False)
        stream = _Stream(fd, prefix, sink, owner)
        self._streams[fd] = stream
        self._selector.register(fd, selectors.EVENT_READ, stream)
        if initial:
            self._take(stream, initial)

    def watch(self, fd):
        """Also wakes poll() when `fd` turns readable: a pidfd does when its
        process exits, so exits are seen in the order they happen."""
        self._selector.register(fd, selectors.EVENT_READ, None)

    def unwatch(self, fd):
        """Stops watching `fd` and closes it."""
        self._selector.unregister(fd)
        os.close(fd)

    def active(self):
        return bool(self._streams)

    def poll(self, timeout):
        """Waits up to `timeout` seconds for output or a watched fd and
        copies the output that came."""
        if not self._selector.get_map():
            time.sleep(timeout)
            return
        for key, _ in self._selector.select(timeout):
            if key.data is not None and key.fd in self._streams:  # an earlier one may have closed it
                self._read(key.data)

    def drain(self, owner):
        """Copies what `owner`'s pipes hold now, without waiting for more."""
        for stream in [s for s in self._streams.values() if s.owner == owner]:
            while stream.fd in self._streams and self._read(stream):
                pass

    def finish(self, deadline_s):
        """Copies until every pipe ends or `deadline_s` passes, then closes all."""
        end = time.monotonic() + deadline_s
        while self._streams and time.monotonic() < end:
            self.poll(max(0.0, end - time.monotonic()))
        for stream in list(self._streams.values()):
            self._close(stream)

    def _read(self, stream):
        """Returns True when data came (more may follow), False otherwise."""
        try:
            data = os.read(stream.fd, READ_CHUNK)
        except BlockingIOError:
            return False
        except OSError:
            data = b""
        if not data:
            self._close(stream)
            return False
        self._take(stream, data)
        return True

    def _take(self, stream, data):
        stream.pending += data
        cut = stream.pending.rfind(b"\n") + 1
        if cut == 0 and len(stream.pending) >= MAX_LINE:
            stream.pending += b"\n"
            cut = len(stream.pending)
        if cut:
            lines = bytes(stream.pending[:cut - 1]).split(b"\n")
            del stream.pending[:cut]
            if self.line_observer is not None:
                for line in lines:
                    self.line_observer(stream.owner, line)
            self._write(stream.sink, b"".join(stream.prefix + line + b"\n" for line in lines))

    def _close(self, stream):
        if stream.fd not in self._streams:
            return
        if stream.pending:
            self._write(stream.sink, stream.prefix + bytes(stream.pending) + b"\n")
            stream.pending.clear()
        self._selector.unregister(stream.fd)
        del self._streams[stream.fd]
        os.close(stream.fd)

    def _write(self, sink, data):
        if sink in self._broken_sinks:
            return
        try:
            sink.write(data)
            sink.flush()
        except (BrokenPipeError, ValueError):
            self._sink_broke(sink)

    def _sink_broke(self, sink):
        # Our reader went away (`rcoll-run ... | head`): close the pipes that
        # fed it, so that ranks writing there get SIGPIPE as in a pipeline.
        self._broken_sinks.add(sink)
        for stream in [s for s in self._streams.values() if s.sink is sink]:
            stream.pending.clear()
            self._close(stream)
