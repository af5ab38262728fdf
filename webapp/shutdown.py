"""A gunicorn worker's SIGTERM (its graceful stop) also closes every Socket.IO connection and the engine pool, so
the threads that hold WebSockets end and the worker exits within moments instead of after ``graceful_timeout``.
A client that stopped reading would still hold a thread in a blocked send, and a WebSocket whose client says nothing
one in a blocked receive, until that timeout (30 s by default: the node unreachable meanwhile), so the connections
still open ``CUT_AFTER`` seconds after the signal are cut (``OpenConnections``): a request that finishes in time is
not touched, one still answering a client that stopped reading fails.

The connections are closed first and without waiting: python-engineio's ``Server.disconnect()`` closes them one by
one and waits, for each, until its writer thread has sent the close packet; one connection whose writer is stuck
(seen about once in five stops with twenty watchers) made that wait, and with it the whole stop, last until
gunicorn's graceful timeout. Each ``Socket.close(wait=False)`` only queues the close, and the writer threads then
close the WebSockets by themselves.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import socket
import threading
import time
import weakref
from collections.abc import Callable, Iterable
from types import FrameType
from typing import TYPE_CHECKING

from socketio import Server
from werkzeug.wsgi import ClosingIterator

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

log = logging.getLogger(__name__)

CUT_AFTER = 0.5
"""Seconds a stopping worker's requests and WebSockets have to end by themselves before their sockets are cut."""


class OpenConnections:
    """WSGI middleware that knows the client socket of every request under gunicorn (its ``gunicorn.socket``):
    which requests are in progress (from the call until the answer is sent; a WebSocket's, until it closes) and
    which sockets are still open, so that a stopping worker can cut those that do not close by themselves. A
    WebSocket's reader thread may outlive its request, blocked in a receive; a kept-alive connection waits for a
    next request. Elsewhere (tests, a development server) it only passes requests on."""

    def __init__(self, wsgi_app: WSGIApplication) -> None:
        self.wsgi_app = wsgi_app
        self._in_progress: set[socket.socket] = set()
        self._seen: weakref.WeakSet[socket.socket] = weakref.WeakSet()
        self._changed = threading.Condition()

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        client = environ.get("gunicorn.socket")
        if not isinstance(client, socket.socket):
            return self.wsgi_app(environ, start_response)
        with self._changed:
            self._in_progress.add(client)
            self._seen.add(client)
        try:
            answer = self.wsgi_app(environ, start_response)
        except BaseException:
            self._done(client)
            raise
        return ClosingIterator(answer, lambda: self._done(client))

    def _done(self, client: socket.socket) -> None:
        with self._changed:
            self._in_progress.discard(client)
            self._changed.notify_all()

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
        return len(lingering)


def close_connections(server: Server) -> None:
    """Close every Engine.IO connection of ``server`` without waiting for any of them (Engine.IO's own
    ``disconnect()`` waits for each in turn)."""
    engine_io = server.eio
    for connection in list(engine_io.sockets.values()):
        connection.close(wait=False, reason=engine_io.reason.SERVER_DISCONNECT)


def stop_on_gunicorn_sigterm(server: Server, close: Callable[[], None], connections: OpenConnections) -> None:
    """Under a gunicorn worker, make its SIGTERM also close ``server``'s connections, call ``close`` (the engine
    pool and the store) and cut the ``connections`` still open ``CUT_AFTER`` seconds after the signal, in a thread
    of its own while gunicorn winds down. Anywhere else (tests, a Flask development server) nothing is changed."""
    previous = signal.getsignal(signal.SIGTERM)
    owner = getattr(previous, "__self__", None)
    if (not callable(previous) or threading.current_thread() is not threading.main_thread()
            or not type(owner).__module__.startswith("gunicorn.workers")):
        return

    def stop_everything() -> None:
        started = time.monotonic()
        close_connections(server)
        close()
        cut = connections.cut_lingering(max(0.0, started + CUT_AFTER - time.monotonic()))
        if cut:
            log.warning("stopping: cut %d connection(s) still open %.1f s after the signal", cut, CUT_AFTER)

    def on_sigterm(signum: int, frame: FrameType | None) -> None:
        threading.Thread(target=stop_everything, name="arena-shutdown", daemon=True).start()
        previous(signum, frame)

    signal.signal(signal.SIGTERM, on_sigterm)
