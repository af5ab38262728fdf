"""gunicorn settings for the app. gunicorn reads ``./gunicorn.conf.py`` by itself, so every gunicorn started from
the project folder (the README's and the Makefile's commands, the tests' ``LiveServer``) uses them.

``worker_class`` and ``worker_connections``: gunicorn's gevent worker (``webapp.transport.gevent_worker``: one that
stops promptly) serves every connection in a greenlet of one event loop (the standard library patched by gevent, the
app's own threads included), so an open Socket.IO connection or a client slow to send its request costs a greenlet
and a descriptor, not a thread (docs/scale.md). The worker takes ``ARENA_MAX_SOCKETS`` connections plus
``HTTP_CONNECTIONS`` (``webapp.config``); the app refuses Socket.IO connections past the first number
(``webapp.transport.socket_cap``), so the rest stay for HTTP. A request's headers must arrive within ``keepalive``
seconds (gunicorn's default, 2). The limit on open files is raised to what that needs where the system allows.

``limit_request_field_size``: earlier versions gave a browser one ``arena_seat_<game>`` cookie (about 80 bytes) per
game, and after about 100 games its Cookie header outgrew gunicorn's default limit of 8190 bytes: every request,
``/`` included, was answered ``431``. Browsers keep at most 180 cookies per site (Chromium and Firefox), about
14.4 KB of them; with room for 32 KiB such a browser reaches the app again, which records its seats under the one
``arena_player`` cookie and expires the old ones (``webapp.views.players``). Not needed after 2027-02-22, when the last
of those cookies (90 days, set until 2026-11-24) has expired.

``forwarded_allow_ips`` and ``secure_scheme_headers``: gunicorn believes no ``X-Forwarded-*`` header from anyone
(by default it believes ``X-Forwarded-Proto`` from 127.0.0.1); the app alone decides, by ``ARENA_PROXY_HOPS``
(``webapp.app``), so with 0 hops nothing a client forwards changes the request's scheme.

``control_socket_disable``: no ``gunicornc`` control socket, which gunicorn would otherwise open at one path shared
by every instance of the same user (the app is stopped by its signals, ``webapp.transport.shutdown``).

``post_worker_init``: the worker's graceful stop (SIGTERM) also stops the app's own connections and engine pool
(``NodeStop``), and the worker exits once that has ended.
"""

import contextlib
import resource
from typing import Any

from webapp.config import HTTP_CONNECTIONS, max_sockets

FILES_BESIDE_CONNECTIONS = 256
"""Descriptors a node needs besides its connections: the database, the engine workers' pipes, logs, Redis, and the
duplicates that hold the connections of clients being cut off (``OpenConnections.end_current``, a few seconds each)."""

worker_class = "webapp.transport.gevent_worker.PromptGeventWorker"
worker_connections = max_sockets() + HTTP_CONNECTIONS


def _raise_open_files_limit(needed: int) -> None:
    """Raise this process's soft limit on open files to ``needed`` (at most the hard limit); the worker inherits it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        with contextlib.suppress(ValueError, OSError):  # a system that allows less keeps its limit
            resource.setrlimit(resource.RLIMIT_NOFILE,
                               (needed if hard == resource.RLIM_INFINITY else min(needed, hard), hard))


_raise_open_files_limit(worker_connections + FILES_BESIDE_CONNECTIONS)

limit_request_field_size = 32768
forwarded_allow_ips = ""
secure_scheme_headers: dict[str, str] = {}
control_socket_disable = True


def post_worker_init(worker: Any) -> None:
    """The app's own stop (``app.extensions["node_stop"]``, ``webapp.transport.shutdown.NodeStop``) runs with the
    worker's graceful stop: the worker begins it on its SIGTERM and exits once it has ended."""
    from webapp.transport.gevent_worker import PromptGeventWorker

    node_stop = getattr(worker.wsgi, "extensions", {}).get("node_stop")
    if node_stop is not None and isinstance(worker, PromptGeventWorker):
        worker.stop_app_with_worker(node_stop)
