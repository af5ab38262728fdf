"""Seat tokens and invitations.

A seat token is signed proof that the bearer holds seat 0 or 1 of a game, carried in JSON and the Socket.IO
``auth``; an invitation code, in a friend game's share link, lets its bearer take the free seat; a stop code,
given to the creator of an engine-against-engine game, lets its bearer stop that game. Both are derived
from the app's ``SECRET_KEY`` (itsdangerous, HMAC) and never stored. Which seats a browser holds is
``webapp.views.players``'s business.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import dataclass

from itsdangerous import BadSignature, URLSafeSerializer

MAX_TOKEN_LENGTH = 200


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


def _code(secret: str, purpose: str, game_id: str) -> str:
    """22 URL-safe characters: the HMAC-SHA256 of ``arena-<purpose>:<game id>`` (first 16 bytes)."""
    digest = hmac.new(secret.encode(), f"arena-{purpose}:{game_id}".encode(), hashlib.sha256).digest()[:16]
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def _matches(code: object, expected: str) -> bool:
    return isinstance(code, str) and hmac.compare_digest(code.encode(), expected.encode())


def invite_code(secret: str, game_id: str) -> str:
    """The invitation code of ``game_id``."""
    return _code(secret, "invite", game_id)


def is_invite(secret: str, game_id: str, code: object) -> bool:
    """Whether ``code`` is the invitation code of ``game_id`` (compared in constant time)."""
    return _matches(code, invite_code(secret, game_id))


def stop_code(secret: str, game_id: str) -> str:
    """The code with which the creator of engine-against-engine game ``game_id`` can stop it."""
    return _code(secret, "stop", game_id)


def is_stop_code(secret: str, game_id: str, code: object) -> bool:
    """Whether ``code`` is the stop code of ``game_id`` (compared in constant time)."""
    return _matches(code, stop_code(secret, game_id))
