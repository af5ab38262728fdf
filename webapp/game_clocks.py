"""Game clocks: a time control (minutes for the game plus seconds added per move), each side's time, whose clock
runs, when it falls, and how long the engine may think on its own clock.

The store is the authority. Each move stores its player's time left after it (``moves.clock_ms``, the increment
included) and the game the wall-clock time its next turn began (``games.turn_started_at``), in the same transaction
as the move; the clocks of a game are worked out from those two, so every node (and a node restarted) shows the
same times. Down time of the whole service is not charged to anybody: see ``webapp.arena.downtime``.

As on Lichess, no clock runs before each side has made its first move (``CLOCK_STARTS_AT_PLY``): a player is not
charged while the friend opens the link, and either may still abort the game then.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.game import State

CLOCK_STARTS_AT_PLY = 2
"""The clock of the side to move runs once this many moves have been played."""
TIMEOUT = "time out"
"""The result reason when a clock falls and the other side wins."""
TIMEOUT_DRAW = "time out, insufficient material"
"""The result reason when a clock falls but the other side has no way left to win (chess: a lone king...)."""
MOVES_TO_PLAN_FOR = 30
"""The engine thinks as if this many moves were still to be played on its time left (plus most of its increment)."""
ENGINE_SAFETY_SECONDS = 0.3
"""Time the engine keeps back from its budget for the way of its move to the store (queue, pipe, write)."""
MIN_ENGINE_SECONDS = 0.05


@dataclass(frozen=True, slots=True)
class TimeControl:
    """``minutes`` for the whole game and ``increment`` seconds added after each move (Fischer); their ranges are
    the API description's ``TimeControl`` (webapp/openapi.yaml)."""

    minutes: float
    increment: int

    @property
    def initial_ms(self) -> int:
        return round(self.minutes * 60_000)

    @property
    def increment_ms(self) -> int:
        return self.increment * 1000

    @classmethod
    def from_options(cls, options: dict[str, Any]) -> TimeControl | None:
        """The time control kept in a stored game's ``options`` (``to_option``), or None."""
        clock = options.get("clock")
        return None if clock is None else cls(float(clock["minutes"]), int(clock["increment"]))

    def to_option(self) -> dict[str, Any]:
        """The JSON form kept in the game's options and sent in its state."""
        return {"minutes": self.minutes, "increment": self.increment}


@dataclass(frozen=True, slots=True)
class Clocks:
    """Both clocks of a game at one moment: ``left_ms`` is each side's time at the start of the current turn,
    ``running`` the side whose clock runs (None before it starts and once the game is over), since
    ``turn_started`` (a Unix time)."""

    control: TimeControl
    left_ms: tuple[int, int]
    running: int | None
    turn_started: float | None

    def left_at(self, now: float) -> tuple[int, int]:
        """Each side's time left at Unix time ``now`` (never below 0)."""
        if self.running is None or self.turn_started is None:
            return self.left_ms
        spent = round((now - self.turn_started) * 1000)
        left = list(self.left_ms)
        left[self.running] = max(0, left[self.running] - max(0, spent))
        return left[0], left[1]

    def falls_at(self) -> float | None:
        """The Unix time the running clock reaches zero, or None when none runs."""
        if self.running is None or self.turn_started is None:
            return None
        return self.turn_started + self.left_ms[self.running] / 1000

    def has_fallen(self, now: float) -> bool:
        """Whether the running clock has reached zero at ``now``."""
        falls_at = self.falls_at()
        return falls_at is not None and now >= falls_at

    def after_move(self, by: int, ply: int, now: float) -> int:
        """The time ``by`` has left after playing move number ``ply`` (1-based) at ``now``: its time at the turn's
        start less what it spent, plus the increment once clocks run. Moves before ``CLOCK_STARTS_AT_PLY`` cost
        nothing and earn nothing."""
        if ply <= CLOCK_STARTS_AT_PLY:
            return self.left_ms[by]
        return self.left_at(now)[by] + self.control.increment_ms

    def to_payload(self, now: float) -> dict[str, Any]:
        """The ``clock`` of the game state (docs/protocol.md): the control, each side's time left at ``now`` in
        milliseconds, and the side whose clock runs."""
        return self.control.to_option() | {"left_ms": list(self.left_at(now)), "running": self.running}

    def engine_seconds(self, seat: int, now: float) -> float:
        """How long the engine playing ``seat`` may think on its move from ``now``: a share of its time left
        (``MOVES_TO_PLAN_FOR``) plus three quarters of the increment, never more than half its time left, less
        ``ENGINE_SAFETY_SECONDS`` for the way back, and at least ``MIN_ENGINE_SECONDS``."""
        left = self.left_at(now)[seat] / 1000
        budget = min(left / MOVES_TO_PLAN_FOR + 0.75 * self.control.increment, left / 2)
        return max(MIN_ENGINE_SECONDS, budget - ENGINE_SAFETY_SECONDS)


def clocks_of(control: TimeControl, moves: Sequence[Any], to_move: int | None, turn_started: float | None,
              fallen: int | None = None) -> Clocks:
    """The clocks of a game with ``control`` after ``moves`` (each with ``by`` and ``clock_ms``, the mover's time
    left after it), ``to_move`` the side to move (None once it is over) and its turn begun at ``turn_started``;
    ``fallen`` is the side whose clock ended the game, which shows zero."""
    left = [control.initial_ms, control.initial_ms]
    for move in moves:
        if move.clock_ms is not None:
            left[move.by] = move.clock_ms
    if fallen is not None:
        left[fallen] = 0
    running = to_move if to_move is not None and len(moves) >= CLOCK_STARTS_AT_PLY else None
    return Clocks(control, (left[0], left[1]), running, turn_started if running is not None else None)


def clock_comment(left_ms: int) -> str:
    """The PGN command of a player's time left after a move, as Lichess writes it: ``[%clk 0:02:53]``."""
    seconds = left_ms // 1000
    return f"[%clk {seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}]"


def result_on_time(state: State, fallen: int) -> tuple[int | None, str]:
    """``(winner, reason)`` when ``fallen``'s clock reaches zero in ``state``: the other side wins, unless it has
    no way left to win (the game's optional ``can_win(seat)``; chess: not enough material to mate), then a draw."""
    other = 1 - fallen
    can_win = getattr(state, "can_win", None)
    if can_win is not None and not can_win(other):
        return None, TIMEOUT_DRAW
    return other, TIMEOUT
