"""Security headers on every response: what a browser may load and run on our pages, who may frame them, and
what it may keep.

- ``Content-Security-Policy``: scripts, styles, fonts and connections (Socket.IO's WebSocket included: CSP 3's
  ``'self'`` covers ``ws:``/``wss:`` to our own host) only from this origin; images also from ``data:`` (the
  favicon); no plugins, no ``<base>``, forms only to us; ``frame-ancestors 'none'``. No page has an inline script
  or style attribute (a style set from JS through ``element.style`` is allowed by CSP).
- ``X-Frame-Options: DENY`` for browsers without ``frame-ancestors``; ``X-Content-Type-Options: nosniff``;
  ``Referrer-Policy: same-origin`` (a game's link never leaks to other sites).
- ``Cache-Control: no-store`` on pages and API answers, which may carry a seat token (the game page embeds it), so
  no shared or back-button cache keeps them; static files keep their own caching.

Written here rather than with flask-talisman: that extension also redirects to HTTPS and sets session-cookie
flags this app does not use, and has had no release since 2023; the policy itself is the constant below.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from flask import Flask, Response, request

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

CONTENT_SECURITY_POLICY = "; ".join((
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
))

SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}

UNCACHED_PREFIXES = ("/api/", "/g/")
"""Paths whose answers may carry a seat token (API answers, game pages): never stored by a cache. Every other HTML
page is not stored either: it holds nothing private, but a stale copy is of no use."""


class _SecurityHeaders:
    """WSGI middleware: ``SECURITY_HEADERS`` on every response that does not set them itself, Flask's or not (the
    Socket.IO server answers its polling requests before Flask sees them)."""

    def __init__(self, wsgi_app: WSGIApplication) -> None:
        self.wsgi_app = wsgi_app

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            present = {name.lower() for name, _ in headers}
            headers.extend((name, value) for name, value in SECURITY_HEADERS.items() if name.lower() not in present)
            return start_response(status, headers, exc_info)

        return self.wsgi_app(environ, start)


def add_security_headers(app: Flask) -> None:
    """Set ``SECURITY_HEADERS`` on every response of ``app`` (call it after the Socket.IO server is installed, so
    that its answers get them too) and ``Cache-Control: no-store`` on its pages and API answers (a header a view
    set itself is kept)."""
    app.wsgi_app = _SecurityHeaders(app.wsgi_app)  # type: ignore[method-assign]

    @app.after_request
    def uncached(response: Response) -> Response:
        if request.path.startswith(UNCACHED_PREFIXES) or response.mimetype == "text/html":
            response.headers["Cache-Control"] = "no-store"
        return response
