"""``PromptGeventWorker``: gunicorn's gevent worker (one event loop serving every connection, docs/scale.md), which
begins its graceful stop as soon as it is told to (SIGTERM, its parent gone, ``max_requests`` reached) and exits as
soon as its last connection has ended (and the app's own stop, ``stop_app_with_worker``); reached directly (no proxy in
front), it serves at most ``CONNECTIONS_PER_ADDRESS`` connections of one client address at once, as nginx's
``limit_conn`` does in front of it (hand-written: gunicorn counts no connection per address). Past that, a new
connection is answered ``429`` at once, before any of its request is read, and closed: a flood of connections from
a few addresses costs the node an accept and a write each.

gunicorn's own ``GeventWorker.run`` looks at its stop flag once a second, and once stopping looks at its open
connections once a second: a stop took up to two seconds longer than its connections needed. Here the worker waits
on an event set together with that flag, and on its connection pools' emptiness (``Pool.join``).
"""

from __future__ import annotations

import contextlib
import json
import socket
from collections import Counter
from functools import partial
from types import FrameType
from typing import Protocol

import gevent.event
from gevent.pool import Pool
from gevent.server import StreamServer

from webapp.clock import SYSTEM_CLOCK, Clock
from webapp.config import CONNECTIONS_PER_ADDRESS, proxy_hops
from webapp.errors import ErrorCode
from webapp.transport.internals import GunicornGeventWorker

READ_SIZE = 65536
"""Bytes read at once from a refused connection, to drop what it sent."""
HEARTBEAT = 1.0
"""Seconds between two of the worker's reports to gunicorn's arbiter that it is alive, as gunicorn's own worker."""


_REFUSAL_BODY = json.dumps({"error": ErrorCode.RATE_LIMITED.value,
                            "message": f"too many connections at once from this address: at most "
                                       f"{CONNECTIONS_PER_ADDRESS}"}).encode()
TOO_MANY_CONNECTIONS = (b"HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: 1\r\n"
                        b"Connection: close\r\nContent-Length: " + str(len(_REFUSAL_BODY)).encode() + b"\r\n\r\n"
                        + _REFUSAL_BODY)
"""The whole answer to a connection over its address's share, made once."""


class AppStop(Protocol):
    """The app's part of a worker's graceful stop (``webapp.transport.shutdown.NodeStop``)."""

    def begin(self) -> None:
        """Start stopping, without waiting (called from the signal handler)."""

    def wait(self, seconds: float) -> object:
        """Wait at most ``seconds`` for the stop begun to end."""


class PromptGeventWorker(GunicornGeventWorker):
    """gunicorn's gevent worker (``worker_class = "gevent"``) with a ``run`` that reacts at once to its stop and to
    its last connection's end. It serves plain HTTP only: TLS ends at nginx (deploy/), and a configuration with a
    certificate is refused rather than served in plain text."""

    clock: Clock = SYSTEM_CLOCK
    per_address: int = 0
    """Connections of one address served at once (0: no limit, behind proxies); set when the worker runs."""
    _open: Counter[str]
    """The connections open per address, while ``per_address`` limits them."""
    _alive = True
    _stop_asked: gevent.event.Event | None = None
    _app_stop: AppStop | None = None

    def stop_app_with_worker(self, app_stop: AppStop) -> None:
        """Make the worker's graceful stop (SIGTERM, gunicorn's ``handle_exit``) begin ``app_stop`` at once, and wait
        for it to end (within the same ``graceful_timeout``) before the worker exits: the app's own stop of the
        connections it holds outside gunicorn's pool (``webapp.transport.shutdown.NodeStop``; gunicorn.conf.py's
        ``post_worker_init`` wires it)."""
        self._app_stop = app_stop

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        """gunicorn's graceful stop (the SIGTERM handler), beginning the app's own stop first."""
        if self._app_stop is not None:
            self._app_stop.begin()
        super().handle_exit(sig, frame)

    @property
    def alive(self) -> bool:
        """Whether the worker is to go on serving; setting it False (gunicorn does, on each reason to stop) also
        wakes ``run`` at once."""
        return self._alive

    @alive.setter
    def alive(self, value: bool) -> None:
        self._alive = value
        if not value and self._stop_asked is not None:
            self._stop_asked.set()  # never waits, so a signal handler may do it wherever it lands

    def run(self) -> None:
        """Serve every listener until told to stop; then stop accepting, and return once every connection has ended
        or after ``graceful_timeout`` seconds (the connections left are then killed)."""
        if self.cfg.is_ssl:
            raise RuntimeError("this worker serves plain HTTP: end TLS in front of it (deploy/nginx.conf)")
        self.per_address = 0 if proxy_hops() else CONNECTIONS_PER_ADDRESS
        self._open = Counter()
        self._stop_asked = gevent.event.Event()
        servers = [self._serve(listener) for listener in self.sockets]
        while self.alive:
            self.notify()
            self._stop_asked.wait(HEARTBEAT)
        for server in servers:
            server.close()
        deadline = self.clock.monotonic() + self.cfg.graceful_timeout
        for server in servers:
            while not server.pool.join(timeout=min(HEARTBEAT, max(0.0, deadline - self.clock.monotonic()))):
                if self.clock.monotonic() >= deadline:
                    self.log.warning("Worker graceful timeout (pid:%s)", self.pid)
                    for each in servers:
                        each.stop(timeout=1)
                    return
                self.notify()
        if self._app_stop is not None:
            self._app_stop.wait(max(0.0, deadline - self.clock.monotonic()))

    def handle(self, listener: socket.socket, client: socket.socket, addr: object) -> None:
        """Serve one connection (gunicorn's ``handle``), unless its address already has ``per_address`` open: then
        answer ``TOO_MANY_CONNECTIONS`` and close it. The count is the event loop's alone (no lock: one thread)."""
        if not self.per_address:
            super().handle(listener, client, addr)
            return
        address = addr[0] if isinstance(addr, tuple) else str(addr)
        if self._open[address] >= self.per_address:
            with contextlib.suppress(OSError):
                client.sendall(TOO_MANY_CONNECTIONS)
                # What the client already sent is read and dropped: a socket closed with unread input is reset,
                # and the client's system would then drop the answer before the client read it.
                client.setblocking(False)
                while client.recv(READ_SIZE):
                    pass
            client.close()
            return
        self._open[address] += 1
        try:
            super().handle(listener, client, addr)
        finally:
            self._open[address] -= 1
            if not self._open[address]:
                del self._open[address]

    def _serve(self, listener: socket.socket) -> StreamServer:
        """Start accepting on ``listener``: each connection handled by gunicorn's ``handle`` in a greenlet of a pool
        of at most ``worker_connections``."""
        listener.setblocking(True)
        server = StreamServer(listener, handle=partial(self.handle, listener), spawn=Pool(self.worker_connections))
        if self.cfg.workers > 1:
            server.max_accept = 1
        server.start()
        return server
