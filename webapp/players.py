"""Which browser a request comes from, and which seats it holds.

A browser carries one cookie, ``arena_player``: a random identity signed with the app's ``SECRET_KEY``
(itsdangerous; HttpOnly, SameSite=Lax, path /, Secure over HTTPS). The seats it holds are rows of the store
(``Store.remember_seat`` / ``Store.seat_of``), so the cookie stays the same size however many games are played.

Browsers of earlier versions carry one ``arena_seat_<game>`` cookie per game, holding that seat's token. Every
request that still has some records their seats for the browser's identity and expires them, so such a browser
leaves the growing set of cookies behind with its next visit. Those cookies lived 90 days and the last were set on
2026-11-24: this carry-over (``LEGACY_PREFIX``) and gunicorn's larger header limit (``gunicorn.conf.py``) go after
2027-02-22, when every one of them has expired.
"""

from __future__ import annotations

import secrets

from flask import Flask, Response, g, request
from itsdangerous import BadSignature, URLSafeSerializer

from webapp.seats import BadTokenError, read_token
from webapp.store import Store

COOKIE = "arena_player"
LEGACY_PREFIX = "arena_seat_"
COOKIE_MAX_AGE = 400 * 24 * 3600
"""400 days, the longest lifetime Chromium keeps a cookie for."""
ID_LENGTH = 22


class Players:
    """The identity of the browser behind the current request and the seats it holds. Request-scoped state lives in
    ``flask.g``; ``install`` adds the hooks that set the cookie and carry over legacy seat cookies."""

    def __init__(self, store: Store, secret: str) -> None:
        self.store = store
        self.secret = secret
        self._serializer = URLSafeSerializer(secret, salt="arena-player")

    def install(self, app: Flask) -> None:
        """Register the request hooks on ``app``: legacy seat cookies are recorded before the view runs and
        expired in its response, and a new identity is sent as the ``arena_player`` cookie."""
        app.before_request(self._adopt_legacy_cookies)
        app.after_request(self._set_cookies)

    def current(self) -> str | None:
        """The identity in the request's cookie, if it carries a valid one."""
        if "arena_player" not in g:
            g.arena_player = self._read(request.cookies.get(COOKIE))
        return g.arena_player

    def seat_in(self, game_id: str) -> int | None:
        """The seat of ``game_id`` the request's browser holds, or None (a spectator)."""
        player = self.current()
        return None if player is None else self.store.seat_of(player, game_id)

    def identity(self) -> str:
        """The request's browser's identity; a browser without one gets one, sent with the response."""
        player = self.current()
        if player is None:
            player = g.arena_player = secrets.token_urlsafe(16)
            g.arena_player_new = True
        return player

    def remember(self, game_id: str, seat: int) -> None:
        """The request's browser now holds ``seat`` of ``game_id`` (``identity``)."""
        self.store.remember_seat(self.identity(), game_id, seat)

    def _read(self, value: str | None) -> str | None:
        if not value:
            return None
        try:
            player = self._serializer.loads(value)
        except BadSignature:
            return None
        return player if isinstance(player, str) and len(player) == ID_LENGTH else None

    def _adopt_legacy_cookies(self) -> None:
        for name, value in request.cookies.items():
            if not name.startswith(LEGACY_PREFIX):
                continue
            try:
                claim = read_token(self.secret, value)
            except BadTokenError:
                continue
            if claim.game_id == name[len(LEGACY_PREFIX):]:
                self.remember(claim.game_id, claim.seat)

    def _set_cookies(self, response: Response) -> Response:
        if g.get("arena_player_new"):
            response.set_cookie(COOKIE, self._serializer.dumps(g.arena_player), max_age=COOKIE_MAX_AGE,
                                httponly=True, samesite="Lax", secure=request.is_secure)
        for name in request.cookies:
            if name.startswith(LEGACY_PREFIX):
                response.delete_cookie(name, httponly=True, samesite="Lax")
        return response
