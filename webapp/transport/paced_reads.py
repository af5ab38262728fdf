"""WebSocket clients read at a bounded pace, in turn with every other connection of the node (``PaceReads``).

Under gunicorn's gevent worker every connection is a greenlet of one event loop, and a greenlet runs until it waits.
The reader of a WebSocket whose client sends without pause (empty Engine.IO packets, binary frames) would find data
at every read and never wait, and a client sending HTTP requests back to back on one connection would be served
without a pause: no other connection, request or timer of the node would run until the client stopped. So every
request starts by giving the loop a turn, and each WebSocket's reader gets its socket through ``PacedSocket``, which
gives the loop a turn after every read and reads at most ``READ_RATE`` bytes a second on average (``READ_BURST`` at
once): past that the reader sleeps, the client's TCP window fills and its own system holds it back, at no cost to
the node but its socket's buffers. The app's own client sends a few small events a second (a move is under 200
bytes), far under that pace.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from webapp.clock import Clock
from webapp.config import MAX_BODY_BYTES
from webapp.transport.token_bucket import TokenBucket

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

READ_RATE = 4 * 1024
"""Bytes a second a WebSocket's client may send on average before its reads are slowed down."""
READ_BURST = 4 * MAX_BODY_BYTES
"""Bytes a WebSocket's client may send at once: four of the largest messages the server accepts."""


class PacedSocket:
    """A client socket whose ``recv`` lets every other greenlet or thread run first and, once the client has sent
    more than its budget allows, returns only after the time that budget takes to refill; once ``stop`` is called it
    reads nothing more (what the system still holds for it included). Everything else is the socket's own.
    ``client`` and ``budget`` are the socket and its budget (the event loop's WebSockets,
    ``webapp.transport.loop_websockets``, read the socket themselves, at that budget's pace)."""

    def __init__(self, client: socket.socket, budget: TokenBucket, clock: Clock) -> None:
        self.client = client
        self.budget = budget
        self._clock = clock
        self._stopped = False
        self._stop_changed = threading.Condition()

    def recv(self, size: int) -> bytes:
        """Up to ``size`` bytes from the client (``socket.recv``), at the budget's pace; ``b""`` (the end of the
        connection) once stopped."""
        data = b"" if self._stopped else self.client.recv(size)
        owed = self.budget.charge(len(data))
        if not owed:
            self._clock.give_turn()
        until = self._clock.monotonic() + owed
        with self._stop_changed:
            while not self._stopped and (left := until - self._clock.monotonic()) > 0:
                self._clock.wait(self._stop_changed, left)
        return b"" if self._stopped else data

    def stop(self) -> None:
        """Read nothing more: a ``recv`` waiting for its budget returns ``b""`` at once, and so does every later one."""
        with self._stop_changed:
            self._stopped = True
            self._stop_changed.notify_all()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)


class PaceReads:
    """WSGI middleware that gives the loop a turn before each request and hands a WebSocket request (an
    ``Upgrade: websocket`` under gunicorn, whose socket is ``gunicorn.socket``) a ``PacedSocket`` with a budget of
    its own; ``stop_reading`` stops one."""

    def __init__(self, wsgi_app: WSGIApplication, clock: Clock) -> None:
        self.wsgi_app = wsgi_app
        self.clock = clock
        self._paced: dict[socket.socket, PacedSocket] = {}
        """The paced socket of every WebSocket being served, by its client socket."""

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        self.clock.give_turn()  # even when this client sends request after request
        client = environ.get("gunicorn.socket")
        if not isinstance(client, socket.socket) or environ.get("HTTP_UPGRADE", "").lower() != "websocket":
            return self.wsgi_app(environ, start_response)
        paced = PacedSocket(client, TokenBucket(READ_RATE, READ_BURST, self.clock.monotonic), self.clock)
        environ["gunicorn.socket"] = paced
        self._paced[client] = paced
        try:  # a WebSocket is served within this call under gunicorn: it has ended when the call returns
            return self.wsgi_app(environ, start_response)
        finally:
            del self._paced[client]

    def stop_reading(self, client: socket.socket) -> None:
        """Stop the reads of the WebSocket on ``client`` (``PacedSocket.stop``), if it has one."""
        paced = self._paced.get(client)
        if paced is not None:
            paced.stop()
