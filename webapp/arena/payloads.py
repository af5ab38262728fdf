"""What clients are sent of a game (docs/protocol.md): its state, a seat's label, a live-list summary, a past
position. Read-only: nothing here changes a game."""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal, NotRequired, TypedDict

from engine.game import score_scale
from engine.pov_score import PovScore
from webapp.arena.live import LiveGame
from webapp.arena.offers import pending
from webapp.arena.presence import Presence
from webapp.clock import Clock
from webapp.display import engine_label, tree_nodes
from webapp.search.jobs import Runner
from webapp.store import StoredSeat


class SeatPayload(TypedDict):
    """One seat: its number, who sits there, whether it is taken (an engine's always is) and its label."""

    seat: int
    kind: Literal["human", "engine"]
    taken: bool
    label: str


class PositionPayload(TypedDict):
    """A past position of a game and the move that made it (None for the start)."""

    id: str
    game: str
    ply: int
    setup: str
    view: dict[str, Any]
    move: str | None
    by: int | None


class HistoryEntry(TypedDict):
    """One move of the game state's ``history``: who played it and, for an engine's, its search's findings."""

    ply: int
    move: str
    by: int
    score: int | None
    score_text: str | None
    depth: int | None
    clock_ms: int | None


class EvalEntry(TypedDict):
    """An engine move's score in the game state's ``evals``, from seat 0's side."""

    ply: int
    score: int
    score_text: str | None


class ResultPayload(TypedDict):
    """How a finished game ended: the winning seat (None for a draw) and why."""

    winner: int | None
    reason: str | None


class ScoreAxis(TypedDict):
    """How a chart draws the game's heuristic scores: ``unit`` names the axis (a game's ``score_axis``; "" when it has
    none) and ``per_unit`` score units make one of it (chess: 100 centipawns a pawn)."""

    unit: str
    per_unit: int


class StatePayload(TypedDict):
    """The game state of docs/protocol.md; ``you`` (the asker's seat, None for a watcher) only in an answer to
    its asker."""

    id: str
    url: str
    game: str
    title: str
    players: list[str]
    score_unit: str
    score_axis: ScoreAxis
    search_tree: bool
    move_notation: str
    options: dict[str, Any]
    game_options: dict[str, Any]
    start_setup: str
    setup: str
    moves: list[str]
    ply: int
    history: list[HistoryEntry]
    evals: list[EvalEntry]
    status: str
    result: ResultPayload | None
    to_move: int | None
    seats: list[SeatPayload]
    opponent: dict[str, Any]
    legal_moves: list[str]
    view: dict[str, Any]
    watchers: int
    pace: float | None
    search_state: str
    clock: dict[str, Any] | None
    rematch_id: str | None
    offers: dict[str, int | None]
    waiting_for_opponent: bool
    version: int
    created_at: str
    updated_at: str
    you: NotRequired[int | None]


class SummaryPayload(TypedDict):
    """A game's line in the live list."""

    id: str
    url: str
    game: str
    title: str
    ply: int
    to_move: int
    status: str
    opponent: dict[str, Any]
    seats: list[SeatPayload]
    watchers: int
    free_seat: bool
    updated_at: str


def seat0_text(score: PovScore, text: str | None, units_per_point: int) -> str | None:
    """The engine's score ``text`` (said for the mover, ``score.seat``) re-said for seat 0: ``text`` itself when seat 0
    moved, else the text of ``score`` for seat 0 (in the game's ``units_per_point``)."""
    if text is None or score.seat == 0:
        return text
    return score.describe(0, units_per_point)


def seat_label(live: LiveGame, seat: StoredSeat) -> str:
    """How a seat is named to players: "X (player)", "O (free seat)", "Engine level 3 · aggressive"
    (``engine_label``)..."""
    engine = seat.engine
    if engine is None:
        return live.state.players[seat.seat] + (" (player)" if seat.taken else " (free seat)")
    return f"Engine {engine_label(engine)}"


def seat_payload(live: LiveGame, seat: StoredSeat) -> SeatPayload:
    """``{seat, kind, taken, label}`` of one seat."""
    engine = seat.engine
    return {"seat": seat.seat, "kind": "human" if engine is None else "engine",
            "taken": seat.taken or engine is not None, "label": seat_label(live, seat)}


def position_payload(live: LiveGame, ply: int) -> PositionPayload:
    """The position after ``ply`` moves (0 to ``live.ply``) and the move that made it."""
    state = live.position_at(ply)
    move = live.stored.moves[ply - 1] if ply else None
    return {"id": live.id, "game": live.stored.game, "ply": ply, "setup": state.setup(), "view": state.view(),
            "move": move.move if move else None, "by": move.by if move else None}


def iso(value: dt.datetime) -> str:
    """A time as the payloads give it (ISO 8601, whole seconds)."""
    return value.isoformat(timespec="seconds")


class Payloads:
    """Builds the payloads that depend on more than the game itself: its watchers (``presence``) and the state of
    its search (``runner``)."""

    def __init__(self, presence: Presence, runner: Runner, clock: Clock, pace: float) -> None:
        self._presence = presence
        self._runner = runner
        self._clock = clock
        self._pace = pace
        """The server's seconds between two moves of an engine-against-engine game (``ARENA_PACE``)."""

    def state(self, live: LiveGame, you: int | None = None, include_you: bool = False) -> StatePayload:
        """The game state of docs/protocol.md; ``you`` is added when ``include_you``."""
        stored, state = live.stored, live.state
        history: list[HistoryEntry] = [{"ply": m.ply, "move": m.move, "by": m.by, "score": m.score,
                                        "score_text": m.score_text, "depth": m.depth, "clock_ms": m.clock_ms}
                                       for m in stored.moves]
        scale = score_scale(state)
        evals: list[EvalEntry] = [{"ply": m.ply, "score": PovScore(m.score, m.by).pov(0),
                                   "score_text": seat0_text(PovScore(m.score, m.by), m.score_text, scale)}
                                  for m in stored.moves if m.score is not None]
        clocks = live.clocks()
        payload: StatePayload = {
            "id": stored.id, "url": f"/g/{stored.id}", "game": stored.game, "title": state.title,
            "players": list(state.players), "score_unit": state.score_unit,
            "score_axis": {"unit": state.score_axis, "per_unit": scale}, "move_notation": state.move_notation,
            "search_tree": tree_nodes(stored.game) > 0,
            "options": stored.options, "game_options": stored.game_options, "start_setup": stored.start_setup,
            "setup": state.setup(), "moves": [m.move for m in stored.moves], "ply": live.ply, "history": history,
            "evals": evals, "status": stored.status,
            "result": None if live.active else {"winner": stored.winner, "reason": stored.reason},
            "to_move": state.to_move if live.active else None,
            "seats": [seat_payload(live, seat) for seat in stored.seats],
            "opponent": stored.opponent,
            "legal_moves": [state.move_text(m) for m in state.legal_moves()] if live.active else [],
            "view": state.view(),
            "watchers": self._presence.count(stored.id),
            "pace": live.pace(self._pace) if live.between_engines else None,
            "search_state": self._search_state(live),
            "clock": None if clocks is None else clocks.to_payload(self._clock.time()),
            "rematch_id": stored.rematch_id,
            "offers": pending(stored.offers),
            "waiting_for_opponent": live.waiting_for_opponent(),
            "version": stored.version,
            "created_at": iso(stored.created_at),
            "updated_at": iso(stored.updated_at),
        }
        if include_you:
            payload["you"] = you
        return payload

    def summary(self, live: LiveGame) -> SummaryPayload:
        """The game's line in the live list."""
        stored = live.stored
        seats = [seat_payload(live, seat) for seat in stored.seats]
        return {
            "id": stored.id, "url": f"/g/{stored.id}", "game": stored.game, "title": live.state.title,
            "ply": live.ply, "to_move": live.state.to_move, "status": stored.status, "opponent": stored.opponent,
            "seats": seats, "watchers": self._presence.count(stored.id),
            "free_seat": bool(stored.opponent.get("open")) and not all(seat["taken"] for seat in seats),
            "updated_at": iso(stored.updated_at),
        }

    def _search_state(self, live: LiveGame) -> str:
        if live.paused or live.stored.options.get("paused_by_creator"):
            return "paused"
        return self._runner.state_of(live.id)
