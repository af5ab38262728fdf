"""Request bodies read whole, within a deadline, before the app sees the request (``ReadBodies``).

Under gunicorn (served directly, without nginx in front) a request's headers must arrive within gunicorn's
``keepalive`` seconds, but nothing bounds the wait for its body: a POST that announces a body and never sends it
would hold its connection, its greenlet and its place in the worker's connections for as long as the client likes,
and the address limits, counted by the app, would count it before it had cost anything. Here the body of every
request (at most ``MAX_BODY_BYTES``: a larger one is passed on unread, for the app to refuse with ``413``) is read
before anything else runs, and must arrive within ``BODY_SECONDS`` of the request's start, as nginx's
``client_body_timeout`` bounds it in deploy/arena.conf; otherwise the answer is ``408`` with the
``request_timeout`` error and the connection is closed. Written here because gunicorn has no such setting.
"""

from __future__ import annotations

import contextlib
import io
import json
import socket
from collections.abc import Iterable
from typing import TYPE_CHECKING

from webapp.clock import Clock
from webapp.config import MAX_BODY_BYTES
from webapp.errors import ErrorCode

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

BODY_SECONDS = 10.0
"""Seconds a request's body has to arrive whole, from the moment its headers were read."""
READ_SIZE = 8192
"""Bytes asked of the body at each read."""


class BodyTimeoutError(Exception):
    """The body did not arrive within its time."""


class ReadBodies:
    """WSGI middleware: the body of a request with one (``Content-Length`` up to ``limit`` bytes, or chunked) is read
    whole within ``seconds`` of ``clock``'s time, and handed on as ``wsgi.input`` in memory; past the deadline the
    answer is ``408`` (``request_timeout``), the connection closes after it, and the app never sees the request.
    Only under gunicorn (its client socket in ``gunicorn.socket`` carries the deadline); elsewhere requests pass
    unread."""

    def __init__(self, wsgi_app: WSGIApplication, clock: Clock, seconds: float = BODY_SECONDS,
                 limit: int = MAX_BODY_BYTES) -> None:
        self.wsgi_app = wsgi_app
        self.clock = clock
        self.seconds = seconds
        self.limit = limit

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        client = environ.get("gunicorn.socket")
        chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        length = _content_length(environ)
        if not isinstance(client, socket.socket) or (length == 0 and not chunked) or length > self.limit:
            return self.wsgi_app(environ, start_response)
        try:
            body = self._read(environ["wsgi.input"], client, None if chunked else length)
        except BodyTimeoutError:
            # Nothing more is read from this connection: gunicorn then finds the rest of the body and the next
            # request ended, and closes the connection once the answer is sent.
            with contextlib.suppress(OSError):
                client.shutdown(socket.SHUT_RD)
            message = f"the request's body did not arrive within {self.seconds:g} seconds"
            answer = json.dumps({"error": ErrorCode.REQUEST_TIMEOUT.value, "message": message}).encode()
            start_response("408 Request Timeout", [("Content-Type", "application/json"),
                                                   ("Content-Length", str(len(answer)))])
            return [answer]
        environ["wsgi.input"] = io.BytesIO(body)
        environ["CONTENT_LENGTH"] = str(len(body))
        return self.wsgi_app(environ, start_response)

    def _read(self, stream: io.BufferedIOBase, client: socket.socket, length: int | None) -> bytes:
        """The body: ``length`` bytes, or for a chunked one everything up to its end (at most ``limit`` + 1, so
        that the app sees it is too large). Each read waits at most until the deadline."""
        wanted = self.limit + 1 if length is None else length
        deadline = self.clock.monotonic() + self.seconds
        parts: list[bytes] = []
        got = 0
        try:
            while got < wanted:
                left = deadline - self.clock.monotonic()
                if left <= 0:
                    raise BodyTimeoutError
                client.settimeout(left)
                part = stream.read(min(READ_SIZE, wanted - got))
                if not part:
                    break
                parts.append(part)
                got += len(part)
        except TimeoutError:
            raise BodyTimeoutError from None
        finally:
            client.settimeout(None)
        return b"".join(parts)


def _content_length(environ: WSGIEnvironment) -> int:
    """The request's ``Content-Length`` (0 when absent or unreadable: the app answers such a request itself)."""
    try:
        return max(0, int(environ.get("CONTENT_LENGTH") or 0))
    except ValueError:
        return 0
