"""A gunicorn worker's SIGTERM (its graceful stop) also closes every Socket.IO connection and the engine pool, so
the WebSockets end (those the event loop holds, ``webapp.transport.loop_websockets``, and those served in a greenlet of
their own) and the worker exits within moments instead of after ``graceful_timeout``. A client that stopped reading
would still hold its connection in a blocked send, and a WebSocket whose client says nothing in a blocked receive,
until that timeout (30 s by default: the node unreachable meanwhile), so the connections still open ``CUT_AFTER``
seconds after the signal are cut
(``OpenConnections``): a request that finishes in time is not touched, one still answering a client that stopped
reading fails.

The connections are closed first and without waiting: python-engineio's ``Server.disconnect()`` closes them one by
one and waits, for each, until its writer has sent the close packet; one connection whose writer is stuck (seen
about once in five stops with twenty watchers) made that wait, and with it the whole stop, last until gunicorn's
graceful timeout. Each ``Socket.close(wait=False)`` only queues the close, and the writers then close the
WebSockets by themselves.
"""

from __future__ import annotations

import _thread
import logging
import threading
from collections.abc import Callable

from socketio import Server

from webapp.clock import Clock
from webapp.transport import internals
from webapp.transport.connections import OpenConnections

log = logging.getLogger(__name__)

CUT_AFTER = 0.5
"""Seconds a stopping worker's requests and WebSockets have to end by themselves before their sockets are cut."""


class NodeStop:
    """The app's part of a gunicorn worker's graceful stop (``PromptGeventWorker.stop_app_with_worker``): ``begin``
    closes ``server``'s connections, calls ``close`` (the engine pool and the store) and cuts the ``connections``
    still open ``CUT_AFTER`` seconds (of ``clock``) later, in a thread of its own (a greenlet under gevent) while
    gunicorn winds down; ``wait`` waits for that to end (the worker exits only then: the WebSockets the event loop
    holds are not in gunicorn's pool)."""

    def __init__(self, server: Server, close: Callable[[], None], connections: OpenConnections, clock: Clock) -> None:
        self._server = server
        self._close = close
        self._connections = connections
        self._clock = clock
        self._stopped = threading.Event()

    def begin(self) -> None:
        """Start the stop and return at once."""
        # Started without waiting for it to start (``Thread.start`` waits): a signal handler may not block, and
        # under gevent it may run inside the event loop's own callback, where no greenlet can wait.
        _thread.start_new_thread(self._stop_everything, ())

    def wait(self, seconds: float) -> bool:
        """Wait at most ``seconds`` for the stop begun to end; whether it has."""
        return self._stopped.wait(seconds)

    def _stop_everything(self) -> None:
        try:
            started = self._clock.monotonic()
            internals.close_all(self._server.eio)
            self._close()
            cut = self._connections.cut_lingering(max(0.0, started + CUT_AFTER - self._clock.monotonic()))
            if cut:
                log.warning("stopping: cut %d connection(s) still open %.1f s after the signal", cut, CUT_AFTER)
        finally:
            self._stopped.set()
