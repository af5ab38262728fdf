"""Seat tokens: signed proof that the bearer holds seat 0 or 1 of a game, carried in a cookie, JSON and the
Socket.IO ``auth``. Tokens are signed with the app's ``SECRET_KEY`` (itsdangerous) and never stored."""

from __future__ import annotations

from dataclasses import dataclass

from flask import Request, Response, current_app, request
from itsdangerous import BadSignature, URLSafeSerializer

COOKIE_PREFIX = "arena_seat_"
MAX_TOKEN_LENGTH = 200
COOKIE_MAX_AGE = 90 * 24 * 3600


class BadTokenError(ValueError):
    """A token that is not a string, is too long, or does not carry a valid signature."""


@dataclass(frozen=True, slots=True)
class SeatClaim:
    """What a valid token proves: the bearer holds ``seat`` of game ``game_id``."""

    game_id: str
    seat: int


def _serializer(secret: str) -> URLSafeSerializer:
    return URLSafeSerializer(secret, salt="arena-seat")


def issue_token(secret: str, game_id: str, seat: int) -> str:
    """The token for ``seat`` of ``game_id`` (the same inputs always give the same token)."""
    return _serializer(secret).dumps({"g": game_id, "s": seat})


def read_token(secret: str, token: object) -> SeatClaim:
    """The claim a token carries; anything but a well-formed, correctly signed token raises ``BadTokenError``."""
    if not isinstance(token, str) or not 0 < len(token) <= MAX_TOKEN_LENGTH:
        raise BadTokenError("the seat token must be a non-empty string of at most 200 characters")
    try:
        data = _serializer(secret).loads(token)
    except BadSignature:
        raise BadTokenError("the seat token is not valid (forged, damaged, or from another server)") from None
    if not (isinstance(data, dict) and isinstance(data.get("g"), str) and data.get("s") in (0, 1)):
        raise BadTokenError("the seat token does not name a game and a seat")
    return SeatClaim(data["g"], data["s"])


def cookie_name(game_id: str) -> str:
    """The name of the cookie holding the seat token of ``game_id``."""
    return COOKIE_PREFIX + game_id


def set_seat_cookie(response: Response, game_id: str, token: str) -> None:
    """Store ``token`` in the seat cookie of ``game_id`` (HttpOnly, SameSite=Lax, path /, Secure when the request
    came over HTTPS)."""
    response.set_cookie(cookie_name(game_id), token, max_age=COOKIE_MAX_AGE, httponly=True, samesite="Lax",
                        secure=request.is_secure)


def seat_from_cookie(request: Request, game_id: str) -> tuple[str, int] | None:
    """``(token, seat)`` when the request's cookie holds a valid token for ``game_id``, else None."""
    token = request.cookies.get(cookie_name(game_id))
    if token is None:
        return None
    try:
        claim = read_token(current_app.config["SECRET_KEY"], token)
    except BadTokenError:
        return None
    return (token, claim.seat) if claim.game_id == game_id else None
