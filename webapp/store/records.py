"""What the store hands out and takes: games, seats and moves as plain dataclasses, and the error of a move that
came too late."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any


class PlyTakenError(Exception):
    """The move cannot follow the stored game: another move was stored for this ply first, or the game moved on
    without it meanwhile (taken back, resigned)."""


@dataclass(slots=True)
class StoredMove:
    """One move as stored: ply (1-based), text, the seat that played it, and the engine's score and search depth
    if any."""

    ply: int
    move: str
    by: int
    score: int | None = None
    score_text: str | None = None
    depth: int | None = None
    clock_ms: int | None = None
    """The mover's time left after the move (``webapp.game_clocks``), None without a clock."""


@dataclass(slots=True)
class StoredSeat:
    """A seat: ``engine`` settings (None for a human seat) and whether a human holds it."""

    seat: int
    engine: dict[str, Any] | None
    taken: bool


@dataclass(slots=True)
class StoredGame:
    """A game with its seats and moves, as loaded from the database."""

    id: str
    game: str
    start_setup: str
    game_options: dict[str, Any]
    options: dict[str, Any]
    opponent: dict[str, Any]
    status: str
    winner: int | None
    reason: str | None
    rematch_id: str | None
    created_at: dt.datetime
    updated_at: dt.datetime
    version: int = 0
    """The stored ``games.version``: one more with every change of the game."""
    turn_started_at: dt.datetime | None = None
    """When the current turn's clock began (``webapp.game_clocks``)."""
    offers: dict[str, Any] | None = None
    """The pending offers between the players (``webapp.arena.offers``)."""
    seats: list[StoredSeat] = field(default_factory=list)
    moves: list[StoredMove] = field(default_factory=list)
