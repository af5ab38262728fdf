"""``PromptGeventWorker``: gunicorn's gevent worker (one event loop serving every connection, docs/scale.md), which
begins its graceful stop as soon as it is told to (SIGTERM, its parent gone, ``max_requests`` reached) and exits as
soon as its last connection has ended (and the app's own stop, ``wait_on_stop``).

gunicorn's own ``GeventWorker.run`` looks at its stop flag once a second, and once stopping looks at its open
connections once a second: a stop took up to two seconds longer than its connections needed. Here the worker waits
on an event set together with that flag, and on its connection pools' emptiness (``Pool.join``).
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from functools import partial

import gevent.event
from gevent.pool import Pool
from gevent.server import StreamServer
from gunicorn.workers.ggevent import GeventWorker

from webapp.clock import SYSTEM_CLOCK, Clock

HEARTBEAT = 1.0
"""Seconds between two of the worker's reports to gunicorn's arbiter that it is alive, as gunicorn's own worker."""


class PromptGeventWorker(GeventWorker):
    """gunicorn's gevent worker (``worker_class = "gevent"``) with a ``run`` that reacts at once to its stop and to
    its last connection's end. It serves plain HTTP only: TLS ends at nginx (deploy/), and a configuration with a
    certificate is refused rather than served in plain text."""

    clock: Clock = SYSTEM_CLOCK
    _alive = True
    _stop_asked: gevent.event.Event | None = None
    _app_stopped: Callable[[float], object] | None = None

    def wait_on_stop(self, app_stopped: Callable[[float], object]) -> None:
        """Make a stop also wait for ``app_stopped(seconds)`` (a wait of at most that long) before the worker exits:
        the app's own stop of the connections it holds outside gunicorn's pool (``webapp.shutdown``), within the
        same ``graceful_timeout``."""
        self._app_stopped = app_stopped

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
        if self._app_stopped is not None:
            self._app_stopped(max(0.0, deadline - self.clock.monotonic()))

    def _serve(self, listener: socket.socket) -> StreamServer:
        """Start accepting on ``listener``: each connection handled by gunicorn's ``handle`` in a greenlet of a pool
        of at most ``worker_connections``."""
        listener.setblocking(True)
        server = StreamServer(listener, handle=partial(self.handle, listener), spawn=Pool(self.worker_connections))
        if self.cfg.workers > 1:
            server.max_accept = 1
        server.start()
        return server
