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

from flask import Flask, Response, request

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


def add_security_headers(app: Flask) -> None:
    """Set ``SECURITY_HEADERS`` on every response of ``app`` and ``Cache-Control: no-store`` on its pages and API
    answers (a header a view set itself is kept)."""

    @app.after_request
    def secure(response: Response) -> Response:
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        if request.path.startswith(UNCACHED_PREFIXES) or response.mimetype == "text/html":
            response.headers["Cache-Control"] = "no-store"
        return response
