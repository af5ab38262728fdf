"""``PromptGeventWorker``: gunicorn's gevent worker (one event loop serving every connection, docs/scale.md), which
begins its graceful stop as soon as it is told to and exits as soon as its last connection has ended.

gunicorn's own ``GeventWorker.run`` looks at its stop flag once a second, and once stopping looks at its open
connections once a second: a stop took up to two seconds longer than its connections needed. Here the worker waits
on an event that its SIGTERM handler sets, and on its connection pools' emptiness (``Pool.join``).
"""

from __future__ import annotations

import socket
from functools import partial
from types import FrameType

import gevent.event
from gevent.pool import Pool
from gevent.server import StreamServer
from gunicorn.workers.ggevent import GeventWorker

from webapp.clock import SYSTEM_CLOCK

HEARTBEAT = 1.0
"""Seconds between two of the worker's reports to gunicorn's arbiter that it is alive, as gunicorn's own worker."""


class PromptGeventWorker(GeventWorker):
    """gunicorn's gevent worker (``worker_class = "gevent"``), with a ``run`` that reacts at once to its stop and to
    its last connection's end; it serves plain HTTP as that worker does (no TLS: nginx terminates it)."""

    _stop_asked: gevent.event.Event | None = None

    def run(self) -> None:
        """Serve every listener until told to stop; then stop accepting, and return once every connection has ended
        or after ``graceful_timeout`` seconds (the connections left are then killed)."""
        self._stop_asked = gevent.event.Event()
        servers = [self._serve(listener) for listener in self.sockets]
        while self.alive:
            self.notify()
            self._stop_asked.wait(HEARTBEAT)
        for server in servers:
            server.close()
        deadline = SYSTEM_CLOCK.monotonic() + self.cfg.graceful_timeout
        for server in servers:
            while not server.pool.join(timeout=min(HEARTBEAT, max(0.0, deadline - SYSTEM_CLOCK.monotonic()))):
                if SYSTEM_CLOCK.monotonic() >= deadline:
                    self.log.warning("Worker graceful timeout (pid:%s)", self.pid)
                    for each in servers:
                        each.stop(timeout=1)
                    return
                self.notify()

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        """SIGTERM: stop gracefully, beginning now (setting an event never waits, so the signal may land anywhere)."""
        super().handle_exit(sig, frame)
        if self._stop_asked is not None:
            self._stop_asked.set()

    def _serve(self, listener: socket.socket) -> StreamServer:
        """Start accepting on ``listener``: each connection handled by gunicorn's ``handle`` in a greenlet of a pool
        of at most ``worker_connections``."""
        listener.setblocking(True)
        server = StreamServer(listener, handle=partial(self.handle, listener), spawn=Pool(self.worker_connections))
        if self.cfg.workers > 1:
            server.max_accept = 1
        server.start()
        return server
