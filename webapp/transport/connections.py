"""The client connections of a gunicorn worker, seen from the WSGI side (``OpenConnections``): which are open and
in use, so that a stopping worker (``webapp.transport.shutdown``) or a handler that cuts a client off
(``webapp.views.events``) can end them at the socket, where neither gunicorn nor the WebSocket library would."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import socket
import sys
import termios
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from werkzeug.wsgi import ClosingIterator

from webapp.clock import Clock

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

WRITTEN_POLL = 0.01
"""Seconds between two looks at whether what was queued for a connection being ended has been sent and
acknowledged."""


class OpenConnections:
    """WSGI middleware that knows the client socket of every request under gunicorn (its ``gunicorn.socket``):
    which requests are in progress (from the call until the answer is sent; a WebSocket's, until it closes), which
    sockets are still open, and which one the current thread serves. So a stopping worker can cut those that do
    not close by themselves (a WebSocket's reader, a greenlet or a thread, may outlive its request, blocked in a
    receive; a kept-alive connection waits for a next request), and a handler can end the connection of a client it
    has cut off. Elsewhere (tests, a development server) it only passes requests on."""

    def __init__(self, wsgi_app: WSGIApplication, clock: Clock,
                 stop_reader: Callable[[socket.socket], None] = lambda client: None) -> None:
        """``stop_reader(client)`` makes the reader of ``client``'s connection, if the app gave it one of its own
        (``webapp.transport.paced_reads``), read nothing more, as shutting the socket down does for one reading it
        directly."""
        self.wsgi_app = wsgi_app
        self.clock = clock
        self._stop_reader = stop_reader
        self._in_progress: set[socket.socket] = set()
        self._seen: weakref.WeakSet[socket.socket] = weakref.WeakSet()
        self._changed = threading.Condition()
        self._held: dict[socket.socket, Callable[[], None]] = {}
        """How to stop reading each connection held (``hold``)."""
        self._current = threading.local()
        """``client``: the socket of the request the current thread serves."""

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        client = environ.get("gunicorn.socket")
        if not isinstance(client, socket.socket):
            return self.wsgi_app(environ, start_response)
        with self._changed:
            self._in_progress.add(client)
            self._seen.add(client)
        self._current.client = client
        try:
            answer = self.wsgi_app(environ, start_response)
        except BaseException:
            self._done(client)
            raise
        finally:
            self._current.client = None
        return ClosingIterator(answer, lambda: self._done(client))

    def _done(self, client: socket.socket) -> None:
        with self._changed:
            self._in_progress.discard(client)
            self._changed.notify_all()

    def hold(self, client: socket.socket, stop_reading: Callable[[], None]) -> None:
        """Count ``client`` as open and in use, as a request in progress, until ``release``: a connection the node
        serves after its request has returned (``webapp.transport.loop_websockets``), whose reads ``stop_reading()``
        stops (instead of ``stop_reader``)."""
        with self._changed:
            self._in_progress.add(client)
            self._seen.add(client)
            self._held[client] = stop_reading

    def release(self, client: socket.socket) -> None:
        """``client``, held by ``hold``, has ended."""
        with self._changed:
            self._held.pop(client, None)
        self._done(client)

    def _stop_reading(self, client: socket.socket) -> None:
        held = self._held.get(client)
        if held is not None:
            held()
        else:
            self._stop_reader(client)

    @contextlib.contextmanager
    def serving(self, client: socket.socket) -> Iterator[None]:
        """Within the block, ``client`` is the connection the current thread serves (``end_current`` ends it)."""
        self._current.client = client
        try:
            yield
        finally:
            self._current.client = None

    def end_current(self, after: float, written: Callable[[], bool] = lambda: True, at_most: float = 1.0) -> None:
        """Stop reading from the client whose request this thread is serving (for a WebSocket, its connection),
        ``after`` seconds once ``written()`` has said that what was queued for it has been sent and then the client's
        system has acknowledged every byte sent (time for the client to answer a closing handshake), and at most
        ``at_most`` seconds from now (a client that does not read): its socket is shut down for reading and its
        reader stopped (``stop_reader``), so the server's reader of that connection ends and the connection
        closes, whether or not the client takes part in a closing handshake (once the reader has ended, nothing
        more can be sent to it).

        Until then the connection is held open here by a duplicate of its socket (one more descriptor, for
        ``at_most`` seconds at most; without one left, it is not held): a client still sending when the server's
        side closes is answered with a reset, which discards whatever the client had not acknowledged yet, such as
        the error that told it why it was cut off."""
        client = getattr(self._current, "client", None)
        if client is None:
            return
        try:
            held = client.dup()
        except OSError as error:
            if error.errno == errno.EBADF:  # closed already
                return
            held = client  # no descriptor left: ended all the same, unheld

        def stop_when_delivered() -> None:
            try:
                pause = threading.Condition()
                deadline = self.clock.monotonic() + at_most - after
                with pause:
                    for done in (written, lambda: _unacknowledged(held) == 0):
                        while not done() and self.clock.monotonic() < deadline:
                            self.clock.wait(pause, WRITTEN_POLL)
                    self.clock.wait(pause, after)
                with contextlib.suppress(OSError):  # closed meanwhile
                    held.shutdown(socket.SHUT_RD)
                self._stop_reading(client)
            finally:
                if held is not client:
                    held.close()

        threading.Thread(target=stop_when_delivered, name="end-connection", daemon=True).start()

    def cut_lingering(self, seconds: float) -> int:
        """Wait at most ``seconds`` for every request in progress to end, then shut down every client socket still
        open (a blocked send or receive on it fails at once, the client sees the connection end); returns how
        many were cut."""
        with self._changed:
            self._changed.wait_for(lambda: not self._in_progress, timeout=seconds)
            lingering = [client for client in self._seen if client.fileno() != -1]
        for client in lingering:
            with contextlib.suppress(OSError):  # closed meanwhile
                client.shutdown(socket.SHUT_RDWR)
            self._stop_reading(client)
        return len(lingering)


def _unacknowledged(client: socket.socket) -> int:
    """How many bytes sent to ``client`` its system has not acknowledged yet (Linux's ``SIOCOUTQ``); 0 where the
    system does not say."""
    try:
        return int.from_bytes(fcntl.ioctl(client.fileno(), termios.TIOCOUTQ, bytes(4)), sys.byteorder)
    except OSError:
        return 0
