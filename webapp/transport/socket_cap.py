"""The node's caps on Socket.IO connections (``ARENA_MAX_SOCKETS``, and ``ARENA_SOCKETS_PER_ADDRESS`` for one
client address): a new Engine.IO connection while the node already holds that many is refused with ``503`` and the
``server_full`` error (``429`` ``rate_limited`` when its address holds its share), and no connection is made; HTTP
requests are served as before. gunicorn accepts that many connections and ``HTTP_CONNECTIONS`` more
(gunicorn.conf.py), which Socket.IO leaves to HTTP: a WebSocket holds one connection, a long-polling session
at most two for a moment (its wait and a send)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING
from urllib.parse import parse_qs

from webapp.errors import ErrorCode

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

RETRY_AFTER_SECONDS = 30
"""The ``Retry-After`` of a refusal: when a full node may have room again."""


def refuse(start_response: StartResponse, status: str, code: ErrorCode, message: str,
           retry_after: int) -> list[bytes]:
    """Answer a refused handshake: ``status`` with the JSON error (``code``, ``message``) and ``Retry-After``."""
    body = json.dumps({"error": code.value, "message": message}).encode()
    start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(body))),
                            ("Retry-After", str(retry_after))])
    return [body]


def opens_connection(environ: WSGIEnvironment) -> bool:
    """Whether the request starts a new Engine.IO connection: a ``/socket.io/`` request without a ``sid`` (the
    polling handshake, or a WebSocket opened directly)."""
    return (environ.get("PATH_INFO", "").startswith("/socket.io")
            and "sid" not in parse_qs(environ.get("QUERY_STRING", "")))


class CapSockets:
    """WSGI middleware: refuses a new Engine.IO connection (``opens_connection``) while ``open_count()`` is at
    least ``cap`` (``503 server_full``), or while ``open_from(address)`` (the connections open from the request's
    ``REMOTE_ADDR``) is at least ``per_address`` (``429 rate_limited``); passes every other request on."""

    def __init__(self, wsgi_app: WSGIApplication, open_count: Callable[[], int], cap: int,
                 open_from: Callable[[str], int], per_address: int) -> None:
        self.wsgi_app = wsgi_app
        self.open_count = open_count
        self.cap = cap
        self.open_from = open_from
        self.per_address = per_address

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        if opens_connection(environ):
            if self.open_count() >= self.cap:
                return refuse(start_response, "503 Service Unavailable", ErrorCode.SERVER_FULL,
                              f"this server holds its {self.cap} live connections; try again later",
                              RETRY_AFTER_SECONDS)
            if self.open_from(environ.get("REMOTE_ADDR", "")) >= self.per_address:
                return refuse(start_response, "429 Too Many Requests", ErrorCode.RATE_LIMITED,
                              f"too many live connections from this address: at most {self.per_address}; close one",
                              RETRY_AFTER_SECONDS)
        return self.wsgi_app(environ, start_response)
