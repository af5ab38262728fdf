"""The one error type the web app answers with: a code (see docs/protocol.md), an HTTP status and a message."""

from __future__ import annotations

import logging
import secrets
from typing import Any

from flask import request
from werkzeug.exceptions import InternalServerError

log = logging.getLogger(__name__)

STATUS_OF_CODE = {
    "bad_request": 400,
    "bad_game": 400,
    "bad_opponent": 400,
    "illegal_move": 400,
    "bad_token": 403,
    "forbidden": 403,
    "cross_origin": 403,
    "bad_invite": 403,
    "not_found": 404,
    "method_not_allowed": 405,
    "not_your_turn": 409,
    "game_over": 409,
    "no_free_seat": 409,
    "not_allowed": 409,
    "waiting_for_opponent": 409,
    "too_large": 413,
    "unsupported_media_type": 415,
    "rate_limited": 429,
    "internal_error": 500,
    "engine_failed": 500,
}


class ArenaError(Exception):
    """A request the app refuses; nothing was changed. ``code`` is one of ``STATUS_OF_CODE``."""

    def __init__(self, code: str, message: str) -> None:
        if code not in STATUS_OF_CODE:
            raise ValueError(f"unknown error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message

    @property
    def status(self) -> int:
        """The HTTP status that goes with the code."""
        return STATUS_OF_CODE[self.code]

    @property
    def details(self) -> dict[str, Any]:
        """Fields the ``error`` event carries besides ``code``, ``message`` and ``event`` (none by default)."""
        return {}

    def to_dict(self) -> dict[str, str]:
        """``{"error": code, "message": message}``, the JSON body of an HTTP error."""
        return {"error": self.code, "message": self.message}


def logged_failure(error: InternalServerError) -> str:
    """Log a server error (an exception no handler expected) once, with its traceback, under a new request id, and
    return the id: the answer names it and shows nothing else of the failure."""
    request_id = secrets.token_hex(6)
    log.error("request %s (%s %s) failed", request_id, request.method, request.path,
              exc_info=error.original_exception or error)
    return request_id
