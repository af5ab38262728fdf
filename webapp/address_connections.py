"""At most ``REQUESTS_PER_ADDRESS`` requests of one client address in progress at once on a node that clients reach
directly (``CapRequestsPerAddress``), as nginx's ``limit_conn`` bounds them in front of a node (deploy/arena.conf).

A request in progress holds a connection of the worker's ``worker_connections`` and a greenlet; a request's body
has ``webapp.request_bodies.BODY_SECONDS`` to arrive, but a few addresses opening thousands of such requests at
once would still take every connection for that long. Hand-written: gunicorn counts no connection per address.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING

from werkzeug.wsgi import ClosingIterator

from webapp.errors import ErrorCode

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

RETRY_AFTER_SECONDS = 1
"""The ``Retry-After`` of a refusal: its address's requests in progress end within seconds."""


class CapRequestsPerAddress:
    """WSGI middleware, in front of everything that reads the request: a request whose peer (``REMOTE_ADDR`` as the
    server saw it, before any proxy header is believed) already has ``cap`` requests in progress is answered ``429``
    (``rate_limited``, ``Retry-After``) without being read. A request counts until its answer has been sent (a
    WebSocket taken over by the event loop, ``webapp.loop_websockets``, stops counting once taken over: its own cap
    is ``ARENA_SOCKETS_PER_ADDRESS``). Only under gunicorn, whose server always closes an answer once sent (which
ends the count); elsewhere requests pass uncounted."""

    def __init__(self, wsgi_app: WSGIApplication, cap: int) -> None:
        self.wsgi_app = wsgi_app
        self.cap = cap
        self._in_progress: Counter[str] = Counter()
        self._lock = threading.Lock()

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        if "gunicorn.socket" not in environ:  # not served by gunicorn (a test client): no connection to bound
            return self.wsgi_app(environ, start_response)
        address = environ.get("REMOTE_ADDR", "")
        with self._lock:
            refused = self._in_progress[address] >= self.cap
            if not refused:
                self._in_progress[address] += 1
        if refused:
            message = f"too many requests at once from this address: at most {self.cap}"
            body = json.dumps({"error": ErrorCode.RATE_LIMITED.value, "message": message}).encode()
            start_response("429 Too Many Requests", [("Content-Type", "application/json"),
                                                     ("Content-Length", str(len(body))),
                                                     ("Retry-After", str(RETRY_AFTER_SECONDS))])
            return [body]
        try:
            answer = self.wsgi_app(environ, start_response)
        except BaseException:
            self._done(address)
            raise
        return ClosingIterator(answer, lambda: self._done(address))

    def _done(self, address: str) -> None:
        with self._lock:
            self._in_progress[address] -= 1
            if self._in_progress[address] <= 0:
                del self._in_progress[address]
