"""The one error type the web app answers with: a code (see docs/protocol.md), an HTTP status and a message."""

from __future__ import annotations

import logging
import secrets
from enum import StrEnum
from typing import Any

from flask import request
from werkzeug.exceptions import InternalServerError

log = logging.getLogger(__name__)


class ErrorCode(StrEnum):
    """Every error code the app answers with (the ``error`` of an HTTP error body, the ``code`` of a Socket.IO
    ``error``), with its HTTP ``status`` (None: never sent over HTTP) and its ``meaning``. docs/protocol.md's table
    of codes is ``protocol_table()`` (tests/test_docs.py compares them)."""

    status: int | None
    meaning: str

    def __new__(cls, value: str, status: int | None, meaning: str) -> ErrorCode:
        member = str.__new__(cls, value)
        member._value_ = value
        member.status = status
        member.meaning = meaning
        return member

    BAD_REQUEST = ("bad_request", 400, 'malformed payload: wrong type, missing or unknown field, too long, bad value')
    BAD_GAME = ("bad_game", 400, 'unknown game name, bad game options or setup')
    BAD_OPPONENT = ("bad_opponent", 400, 'opponent/side not understood')
    ILLEGAL_MOVE = ("illegal_move", 400, 'the move is not legal in the position (the message says why)')
    BAD_TOKEN = ("bad_token", 403, 'token missing, forged, or for another game')
    FORBIDDEN = ("forbidden", 403, "a spectator tried to act, or the seat is the engine's")
    BAD_INVITE = ("bad_invite", 403, '(HTTP only) taking the free seat of a friend game without its invitation code')
    CROSS_ORIGIN = (
        "cross_origin", 403,
        '(HTTP only) a POST sent by a page of another origin or site (see "HTTP routes")')
    NOT_FOUND = (
        "not_found", 404,
        'no game with that id (or, for positions, no such ply; or no such path under `/api`)')
    METHOD_NOT_ALLOWED = ("method_not_allowed", 405, '(HTTP only) the route does not take that method')
    NOT_YOUR_TURN = ("not_your_turn", 409, 'a player moved out of turn (also: the engine is to move)')
    GAME_OVER = (
        "game_over", 409,
        "the game has finished (a move, a take-back or a takeback offer after the end: a game's end is final)")
    NO_FREE_SEAT = ("no_free_seat", 409, 'both seats are taken')
    NOT_ALLOWED = (
        "not_allowed", 409,
        'takeback not enabled for this game, or nothing to take back; a rematch asked for before the game is '
        'over; an offer that cannot be made now, nothing to decline, an abort after a side moved twice')
    WAITING_FOR_OPPONENT = (
        "waiting_for_opponent", 409,
        'a move in a friend game still waiting for its second player (send the invitation, or `POST .../alone`)')
    REQUEST_TIMEOUT = (
        "request_timeout", 408,
        "(HTTP only) the request's body did not arrive within 10 seconds of its headers; the connection is closed")
    TOO_LARGE = ("too_large", 413, 'HTTP body over 16 KB')
    UNSUPPORTED_MEDIA_TYPE = (
        "unsupported_media_type", 415,
        '(HTTP only) a POST without `Content-Type: application/json`')
    RATE_LIMITED = (
        "rate_limited", 429,
        'too many requests from this address (see "Rate limits per address"; HTTP sends `Retry-After` in '
        'seconds, Socket.IO `retry_after`), or too many events on this Socket.IO connection; wait and retry')
    ENGINE_BUSY = (
        "engine_busy", 503,
        '(HTTP only) a search asked over HTTP (a stepped search, `GET /api/steps/{game}`) did not finish within its '
        'wait, or failed: the engines are busy; retry')
    INTERNAL_ERROR = (
        "internal_error", 500,
        '(HTTP) the server failed on the request, something no check foresaw (a database error, a bug): the '
        "message carries a request id, and the server's log has that id with the traceback, once")
    SERVER_FULL = (
        "server_full", 503,
        '(Socket.IO handshake only) the node holds as many Socket.IO connections as it takes (`ARENA_MAX_SOCKETS`); '
        'HTTP is still served; `Retry-After` says when to try again')
    DATABASE_UNAVAILABLE = (
        "database_unavailable", 503,
        'the database does not answer: nothing was done (no move, game or seat recorded); games this server holds '
        'in memory can still be read; HTTP sends `Retry-After`; try again in a few seconds')
    ENGINE_FAILED = ("engine_failed", None, '(Socket.IO only, to the room) the engine could not produce a move')


def protocol_table() -> str:
    """docs/protocol.md's table of error codes, one row per ``ErrorCode``."""
    rows = [f"| `{code.value}` | {code.status or '—'} | {code.meaning} |" for code in ErrorCode]
    return "\n".join(["| code | HTTP | meaning |", "|---|---|---|", *rows])


class ArenaError(Exception):
    """A request the app refuses; nothing was changed."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    @property
    def status(self) -> int:
        """The HTTP status that goes with the code (500 for a code never meant for HTTP)."""
        return self.code.status or 500

    @property
    def details(self) -> dict[str, Any]:
        """Fields the ``error`` event carries besides ``code``, ``message`` and ``event`` (none by default)."""
        return {}

    def to_dict(self) -> dict[str, str]:
        """``{"error": code, "message": message}``, the JSON body of an HTTP error."""
        return {"error": self.code, "message": self.message}


DATABASE_RETRY_SECONDS = 5
"""The ``Retry-After`` of a ``database_unavailable`` answer."""


def database_unavailable() -> ArenaError:
    """The error that answers a request or event the database could not serve (``DatabaseUnavailableError``)."""
    return ArenaError(ErrorCode.DATABASE_UNAVAILABLE,
                      "the database does not answer; nothing was done; try again in a few seconds")


def logged_failure(error: InternalServerError) -> str:
    """Log a server error (an exception no handler expected) once, with its traceback, under a new request id, and
    return the id: the answer names it and shows nothing else of the failure."""
    request_id = secrets.token_hex(6)
    log.error("request %s (%s %s) failed", request_id, request.method, request.path,
              exc_info=error.original_exception or error)
    return request_id
