"""Cross-site request forgery defence for the JSON API: every state-changing request (any method but GET, HEAD
and OPTIONS) under ``/api`` must

- say ``Content-Type: application/json`` (a browser can send that type to another origin only after a CORS
  preflight, which this server never grants), else ``unsupported_media_type`` (415);
- come from this server's own origin when the browser says where it comes from: an ``Origin`` header must equal
  ``scheme://host`` of the request itself, and a ``Sec-Fetch-Site`` header must be ``same-origin`` or ``none``;
  else ``cross_origin`` (403).

A request with neither header (curl, scripts, bots) is not a browser's and passes. This is the same-origin rule
python-engineio applies to Socket.IO connections by default. Scheme and host are the request's own, as werkzeug's
``ProxyFix`` leaves them when ``ARENA_PROXY_HOPS`` says a proxy in front may be trusted (``webapp.app._trust_proxies``).

Written here rather than taken from a library: Flask-WTF and Flask-SeaSurf protect HTML forms with a token kept in
the session, which this JSON API (it keeps no session) has no use for; the check it needs is the few lines below.
"""

from __future__ import annotations

from flask import Blueprint, Request, request

from webapp.errors import ArenaError, ErrorCode

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
ALLOWED_FETCH_SITES = frozenset({"same-origin", "none"})


def own_origin(req: Request) -> str:
    """``scheme://host[:port]`` of the server as this request reached it."""
    return f"{req.scheme}://{req.host}"


def check_request(req: Request) -> None:
    """Raise ``ArenaError`` (``unsupported_media_type`` or ``cross_origin``) unless ``req`` is safe (GET, HEAD,
    OPTIONS) or a JSON request from this server's own origin (or from no browser at all)."""
    if req.method in SAFE_METHODS:
        return
    origin = req.headers.get("Origin")
    if origin is not None and origin != own_origin(req):
        raise ArenaError(ErrorCode.CROSS_ORIGIN,
            f"requests from {origin[:100]!r} are refused; use this site's own pages")
    fetch_site = req.headers.get("Sec-Fetch-Site")
    if fetch_site is not None and fetch_site not in ALLOWED_FETCH_SITES:
        raise ArenaError(ErrorCode.CROSS_ORIGIN, f"requests from another site ({fetch_site[:20]}) are refused")
    if req.mimetype != "application/json":
        raise ArenaError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, "send the body as JSON with Content-Type: application/json")


def protect(blueprint: Blueprint) -> None:
    """Check every request routed to ``blueprint`` with ``check_request`` before its route runs; a refusal answers
    the blueprint's JSON error and changes nothing."""

    @blueprint.before_request
    def refuse_forged_requests() -> None:
        check_request(request)
