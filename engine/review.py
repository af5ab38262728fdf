"""The review of a game: a verdict on every move, against the truth where it is known, else against a search.

Where every move's exact value is known (``engine.truth``: tic-tac-toe, Wolves & Rabbit, Nim, Connect Four once
the solver proves the position) a move is

- ``best``: it keeps the best value there was (the same result, as fast a win or as slow a loss);
- ``kept the result``: a win is still a win (slower), a draw a draw, a loss a loss (sooner);
- ``threw away a win`` / ``threw away a draw``: the result got worse ("win in 9 → draw").

Elsewhere (chess; Connect Four positions the solver cannot prove in time) each position is searched at a fixed
depth and time (``SearchSettings``) and a move's loss is the fall of the mover's score from the position before to
the position after it, in centipawns (chess) or the game's own points, decided scores counted as
``±DECIDED_CAP``. Chess losses are graded as Lichess grades centipawn losses: ``inaccuracy`` from 50, ``mistake``
from 100, ``blunder`` from 300; below that the move is ``good``. The search's own choice is ``best`` with a loss
of 0, whatever the second search (one ply deeper into the game) makes of it: that difference is the two searches'
horizon, not the move's fault.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, overload

from engine.clock import SYSTEM_MONOTONIC, Monotonic
from engine.game import State, describe_score, is_decided, play_moves, score_scale
from engine.search import make_searcher
from engine.search.info import Limits, SearchOptions
from engine.truth import (
    CONNECT4_SECONDS,
    Exact,
    finished_value,
    move_values,
    of_score,
    position_value,
    values_from_pairs,
    values_to_pairs,
)

BEST = "best"
KEPT = "kept the result"
THREW_WIN = "threw away a win"
THREW_DRAW = "threw away a draw"
GOOD = "good"
INACCURACY, MISTAKE, BLUNDER = "inaccuracy", "mistake", "blunder"
CHESS_GRADES = ((300, BLUNDER), (100, MISTAKE), (50, INACCURACY))
"""Centipawn losses from which a chess move is graded so (Lichess's classic thresholds)."""
def describe_grading(game: str) -> str:
    """How the losses of searched moves are graded in ``game``, in words (only chess grades them)."""
    if game == "chess":
        grades = ", ".join(f"{grade} from {limit}" for limit, grade in reversed(CHESS_GRADES))
        return f"centipawn losses graded as Lichess does: {grades}"
    return "losses counted in the game's points, not graded (only chess grades them)"


def loss_unit(game: str) -> str:
    """What a searched move's loss counts in ``game``: "centipawns" in chess, else "points"."""
    return "centipawns" if game == "chess" else "points"


DECIDED_CAP = 1000
"""A decided score (a forced win or loss) counts as this many centipawns (or points) when losses are measured."""
Progress = Callable[[int, int], None]
"""Called as ``progress(positions_done, positions_total)`` while a review runs."""


@dataclass(frozen=True, slots=True)
class SearchSettings:
    """The search each position gets where no truth is known: at most ``depth`` plies and ``seconds``."""

    depth: int = 8
    seconds: float = 0.5

    def describe(self) -> str:
        return f"a search of depth {self.depth} (at most {self.seconds:g} s a position)"


@dataclass(frozen=True, slots=True)
class MoveVerdict:
    """The verdict on one move: ``ply`` (1-based), the ``move`` played ``by`` a seat, ``verdict`` (the names
    above), ``before``/``after`` the mover's value before the move and after it ("win in 9", "draw", "+0.35"),
    ``best`` a better move when the move played was not the best (None otherwise), ``loss`` in the game's score
    units (searched positions only), ``exact`` whether the verdict comes from the truth, and ``move_shown`` /
    ``best_shown`` the two moves as players read them (SAN in chess, else the move text), ``before_score`` /
    ``after_score`` the two values as numbers (the engine's convention, the mover's point of view; None where the
    distance of a result is unknown)."""

    ply: int
    move: str
    by: int
    verdict: str | None
    before: str | None
    after: str | None
    best: str | None
    loss: int | None
    exact: bool
    move_shown: str
    best_shown: str | None
    before_score: int | None
    after_score: int | None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True, slots=True)
class PositionView:
    """What the review knows of one position: the exact value of each move, or a search's score and move."""

    exact: dict[str, Exact] | None
    score: int | None = None
    score_text: str | None = None
    best: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form (``from_dict`` reads it back): what a worker process sends for one position."""
        exact = None if self.exact is None else values_to_pairs(self.exact)
        return {"exact": exact, "score": self.score, "score_text": self.score_text, "best": self.best}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PositionView:
        exact = data["exact"]
        return cls(None if exact is None else values_from_pairs(exact), data["score"], data["score_text"],
                   data["best"])


def review_moves(start: State, moves: Sequence[str], settings: SearchSettings = SearchSettings(),
                 progress: Progress | None = None, stop: Any = None,
                 truth_seconds: float = CONNECT4_SECONDS, clock: Monotonic = SYSTEM_MONOTONIC) -> list[MoveVerdict]:
    """The verdict on each move of ``moves`` (move texts) played from ``start``. Each position is looked at once
    (``look_at``, on ``clock``); ``progress`` hears how many of the positions are done; ``stop`` (an object with
    ``is_set()``) cuts the searches short (their best so far counts). Raises the game's ``GameError`` for an
    illegal move."""
    positions = positions_of(start, moves)
    views: list[PositionView] = []
    for done, state in enumerate(positions):
        views.append(look_at(state, settings, stop, truth_seconds, clock=clock))
        if progress is not None:
            progress(done + 1, len(positions))
    return verdicts_from(positions, moves, views)


def positions_of(start: State, moves: Sequence[str]) -> list[State]:
    """``start`` and the position after each of ``moves``; an illegal move raises the game's ``GameError``."""
    positions = [start]
    for text in moves:
        positions.append(play_moves(positions[-1], [text]))
    return positions


def verdicts_from(positions: Sequence[State], moves: Sequence[str], views: Sequence[PositionView]) -> list[MoveVerdict]:
    """The verdict on each move from what was found of each position (``look_at``, one more than the moves)."""
    verdicts = []
    for ply, text in enumerate(moves, start=1):
        state = positions[ply - 1]
        played = state.move_text(state.parse_move(text))
        verdicts.append(_verdict(ply, played, state, views[ply - 1], positions[ply], views[ply]))
    return verdicts


def look_at(state: State, settings: SearchSettings = SearchSettings(), stop: Any = None,
            truth_seconds: float = CONNECT4_SECONDS, known: dict[str, Exact] | None = None,
            clock: Monotonic = SYSTEM_MONOTONIC) -> PositionView:
    """The truth of ``state``'s moves where known, else a search of it (nothing for a finished game); ``stop``
    (with ``is_set()``) cuts the search short; ``known``: the exact values already found
    (``engine.truth.move_values``); the solver's and the search's time are measured on ``clock``."""
    exact = move_values(state, truth_seconds, known=known, clock=clock)
    if exact is not None or state.outcome() is not None:
        return PositionView(exact)
    final = None
    for info in make_searcher(state, Limits(depth=settings.depth, time=settings.seconds), SearchOptions(),
                              stop, clock).search():
        final = info
    assert final is not None
    return PositionView(None, final.score, final.score_text, final.best)


def _verdict(ply: int, played: str, state: State, view: PositionView, after_state: State,
             after_view: PositionView) -> MoveVerdict:
    by = state.to_move
    if view.exact:
        best_value = position_value(view.exact)
        value = view.exact[played]
        if value.rank() == best_value.rank():
            verdict = BEST
        elif value.result == best_value.result:
            verdict = KEPT
        else:
            verdict = THREW_WIN if best_value.result == "win" else THREW_DRAW
        values = view.exact
        better = None if verdict == BEST else max(values, key=lambda move: values[move].rank())
        return MoveVerdict(ply, played, by, verdict, best_value.text, value.text, better, None, True,
                           shown_move(state, played), shown_move(state, better), best_value.score, value.score)
    before = view.score
    after = _score_after(after_state, after_view)
    if before is None or after is None:
        return MoveVerdict(ply, played, by, None, view.score_text, None, None, None, False,
                           shown_move(state, played), None, before, None)
    if played == view.best:  # the search's own choice: what its score fell by is the horizon of two searches
        loss, verdict = 0, BEST
    else:
        loss = max(0, _capped(before) - _capped(after))
        grades = CHESS_GRADES if state.name == "chess" else ()
        verdict = next((grade for limit, grade in grades if loss >= limit), GOOD)
    better = None if verdict in (BEST, GOOD) else view.best
    return MoveVerdict(ply, played, by, verdict, view.score_text, _text(after_state, after), better, loss, False,
                       shown_move(state, played), shown_move(state, better), before, after)


@overload
def shown_move(state: State, text: str) -> str: ...


@overload
def shown_move(state: State, text: None) -> None: ...


@overload
def shown_move(state: State, text: str | None) -> str | None: ...


def shown_move(state: State, text: str | None) -> str | None:
    """A move text as players read it: SAN in chess (the game's optional ``san``), else as it is."""
    san = getattr(state, "san", None)
    return text if text is None or san is None else san(state.parse_move(text))


def _score_after(after_state: State, after_view: PositionView) -> int | None:
    """The value of the move played for its mover: the opponent's value of the position after it (exact, or
    searched) seen one ply earlier; None when it is not known."""
    finished = finished_value(after_state)
    if finished is not None:
        return finished.after_move().score
    if after_view.exact:
        return position_value(after_view.exact).after_move().score
    if after_view.score is None:
        return None
    if is_decided(after_view.score):
        return of_score(after_view.score).after_move().score
    return -after_view.score


def _capped(score: int) -> int:
    if is_decided(score):
        return DECIDED_CAP if score > 0 else -DECIDED_CAP
    return max(-DECIDED_CAP, min(DECIDED_CAP, score))


def _text(state: State, mover_score: int) -> str:
    return describe_score(mover_score, score_scale(state))


def average_losses(verdicts: Sequence[MoveVerdict]) -> list[float | None]:
    """Each seat's average loss over its searched moves (chess: the average centipawn loss), None without any."""
    averages: list[float | None] = []
    for seat in (0, 1):
        losses = [verdict.loss for verdict in verdicts if verdict.by == seat and verdict.loss is not None]
        averages.append(sum(losses) / len(losses) if losses else None)
    return averages
