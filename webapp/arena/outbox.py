"""Sending a game's news to its room: every change is committed to the store first, then sent (``emit(event,
payload, to=room)``; the room of a game is its id)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from webapp.arena.live import LiveGame
from webapp.arena.payloads import Payloads, StatePayload
from webapp.errors import ErrorCode

Emit = Callable[..., None]


class Outbox:
    """Sends ``state`` and other events of games through ``emit``."""

    def __init__(self, emit: Emit, payloads: Payloads) -> None:
        self.emit = emit
        self.payloads = payloads

    def state(self, live: LiveGame, you: int | None = None) -> StatePayload:
        """Send the game's state to its room; returns the state for ``you`` (with ``you``), for the answer to the
        request that changed it."""
        self.emit("state", self.payloads.state(live), to=live.id)
        return self.payloads.state(live, you, include_you=True)

    def search(self, message: dict[str, Any], **changes: Any) -> None:
        """Send a ``search`` event (``{game_id, ply, seat, info}``) to its game's room, with ``info`` replaced by
        ``changes["info"]`` when given."""
        self.emit("search", message | changes, to=message["game_id"])

    def error(self, game_id: str, code: ErrorCode, message: str, event: str) -> None:
        """Send an ``error`` the whole room must see (an engine move refused, an engine that failed)."""
        self.emit("error", {"code": code, "message": message, "event": event}, to=game_id)
