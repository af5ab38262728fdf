"""Which browser a request comes from, and which seats it holds.

A browser carries one cookie, ``arena_player``: a random identity signed with the app's ``SECRET_KEY``
(itsdangerous; HttpOnly, SameSite=Lax, path /, Secure over HTTPS). The seats it holds are rows of the store
(``Store.remember_seat`` / ``Store.seat_of``), so the cookie stays the same size however many games are played.

Browsers of earlier versions carry one ``arena_seat_<game>`` cookie per game, holding that seat's token. A request
that still has some records the seats of at most ``LEGACY_COOKIES_READ`` of them for the browser's identity (the
requested game's first) in one transaction, and expires those; the rest come with the browser's next requests. A
browser without an identity gets one made from those cookies, so the same cookies always carry over to the same
identity. Each seat carried over counts as a seat taken in the address's limits (``charge``): over them only the
requested game's seat is carried over if one more seat fits, else nothing, and no other cookie is expired. A
request, however many cookies it carries, costs the node at most one small transaction, and an address at most
``ARENA_SEAT_LIMIT`` new rows. Those cookies lived 90 days and the last were
set on 2026-11-24: this carry-over (``LEGACY_PREFIX``) and gunicorn's larger header limit (``gunicorn.conf.py``)
go after 2027-02-22, when every one of them has expired.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Callable, Mapping

from flask import Flask, Response, g, request
from itsdangerous import BadSignature, URLSafeSerializer

from webapp.seats import BadTokenError, read_token
from webapp.store import Store

COOKIE = "arena_player"
LEGACY_PREFIX = "arena_seat_"
COOKIE_MAX_AGE = 400 * 24 * 3600
"""400 days, the longest lifetime Chromium keeps a cookie for."""
ID_LENGTH = 22
LEGACY_COOKIES_READ = 20
"""At most this many ``arena_seat_<game>`` cookies are read (and expired) per request."""


class Players:
    """The identity of the browser behind the current request and the seats it holds. Request-scoped state lives in
    ``flask.g``; ``install`` adds the hooks that set the cookie and carry over legacy seat cookies."""

    def __init__(self, store: Store, secret: str, charge: Callable[[int], bool]) -> None:
        """``charge(n)`` counts ``n`` seats carried over against the request's address limits and says whether
        they fit (``webapp.views.address_limits.charge_seat_claims``)."""
        self.store = store
        self.secret = secret
        self.charge = charge
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
        asked = (request.view_args or {}).get("game_id")
        names = _legacy_cookies_to_read(request.cookies, asked)
        if not names:
            return
        seats: dict[str, int] = {}
        for name in names:
            try:
                claim = read_token(self.secret, request.cookies[name])
            except BadTokenError:
                continue
            if claim.game_id == name[len(LEGACY_PREFIX):]:
                seats[claim.game_id] = claim.seat
        if seats and not self.charge(len(seats)):
            if asked not in seats or not self.charge(1):
                return
            seats, names = {asked: seats[asked]}, [f"{LEGACY_PREFIX}{asked}"]
        if seats:
            if self.current() is None:
                g.arena_player = self._legacy_identity()
                g.arena_player_new = True
            self.store.remember_seats(g.arena_player, seats)
        g.arena_legacy_read = names

    def _legacy_identity(self) -> str:
        """The identity of a browser that has none yet, made from all its legacy seat cookies (keyed with the
        secret): its requests sent at once, before one of them set its cookie, record their seats for one identity,
        and the same cookies sent again record nothing new."""
        held = sorted(f"{name}={value}" for name, value in request.cookies.items() if name.startswith(LEGACY_PREFIX))
        digest = hmac.new(self.secret.encode(), "\n".join(held).encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).decode()[:ID_LENGTH]

    def _set_cookies(self, response: Response) -> Response:
        # The old cookies go first: a browser at its most cookies for the site (Chromium: 180) that is given one
        # more would drop some of its oldest to make room, seats not yet carried over among them.
        for name in g.get("arena_legacy_read", ()):
            response.delete_cookie(name, httponly=True, samesite="Lax")
        if g.get("arena_player_new"):
            response.set_cookie(COOKIE, self._serializer.dumps(g.arena_player), max_age=COOKIE_MAX_AGE,
                                httponly=True, samesite="Lax", secure=request.is_secure)
        return response


def _legacy_cookies_to_read(cookies: Mapping[str, str], game_id: object) -> list[str]:
    """The names of the legacy seat cookies a request reads: that of the game it is about (``game_id``, when its
    route names one) first, then the others in the order the browser sent them, at most ``LEGACY_COOKIES_READ``."""
    names = [name for name in cookies if name.startswith(LEGACY_PREFIX)]
    first = f"{LEGACY_PREFIX}{game_id}"
    if first in cookies:
        names.remove(first)
        names.insert(0, first)
    return names[:LEGACY_COOKIES_READ]
