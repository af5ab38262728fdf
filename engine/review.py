"""The review of a game: a verdict on every move, against the truth where it is known, else against a search.

Where every move's exact value is known (``engine.truth``: tic-tac-toe, Wolves & Rabbit, Nim, Connect Four once
the solver proves the position) a move is

- ``best``: it keeps the best value there was (the same result, as fast a win or as slow a loss);
- ``kept the result``: a win is still a win (slower), a draw a draw, a loss a loss (sooner);
- ``threw away a win`` / ``threw away a draw``: the result got worse ("win in 9 → draw").

Elsewhere (chess; Connect Four positions the solver cannot prove in time) each position is searched at a fixed
depth and time (``SearchSettings``) and a move's loss is the fall of the mover's value from the position before to
the position after it. In chess that value is the mover's win chance (``win_chance``: Lichess's curve of the
centipawns, with no cap, and a forced win or loss at 100 or 0 %), so every value, decided or not, is on one scale
and a loss is exactly what the two shown values say; losses are graded as Lichess grades them: ``inaccuracy``
from 5 points, ``mistake`` from 10, ``blunder`` from 15; below that the move is ``good``. Elsewhere the loss
counts the game's own points, decided scores counted as ``±DECIDED_CAP``, and is not graded. The search's own
choice is ``best`` with a loss of 0, whatever the second search (one ply deeper into the game) makes of it: that
difference is the two searches' horizon, not the move's fault.

``summarise`` gives each player's accuracy: in chess Lichess's game accuracy (each move's accuracy from its loss
of win chance, averaged by a volatility-weighted mean and a harmonic mean); in the other games the share of the
exactly judged moves that kept the best result, with the distance the others gave away.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Callable, Mapping, Sequence
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
CHESS_GRADES = ((15.0, BLUNDER), (10.0, MISTAKE), (5.0, INACCURACY))
"""Falls of the mover's win chance (percentage points) from which a chess move is graded so: Lichess's thresholds
(0.3, 0.2 and 0.1 on its scale of winning chances from -1 to 1)."""
SLOW_PLIES = 10
"""A move that kept its result but gave away more than this many plies of distance (a win that much slower, a loss
that much sooner) makes an exercise, as a move that changed the result does (``Exercise``)."""
EXERCISE_GRADES = frozenset({THREW_WIN, THREW_DRAW, MISTAKE, BLUNDER})
"""The verdicts that make an exercise of a move whatever its distance."""
WIN_CHANCE_SLOPE = 0.00368208
"""Lichess's curve: a score of ``cp`` centipawns gives the side a win chance of ``100 / (1 + exp(-slope * cp))``
percent (``50 + 50 * (2 / (1 + exp(-slope * cp)) - 1)``), fitted to its players' results."""
ACCURACY_CURVE = (103.1668100711649, 0.04354415386753951, -3.166924740191411)
"""Lichess's accuracy of one move from its fall of win chance ``f``: ``a * exp(-k * f) + b``, plus 1 point for the
uncertainty of the analysis, kept within 0-100 (``(a, k, b)``)."""


def describe_grading(game: str) -> str:
    """How the losses of searched moves are graded in ``game``, in words (only chess grades them)."""
    if game == "chess":
        grades = ", ".join(f"{grade} from {limit:g}" for limit, grade in reversed(CHESS_GRADES))
        return f"falls of win chance graded as Lichess does: {grades} points"
    return "losses counted in the game's points, not graded (only chess grades them)"


def loss_unit(game: str) -> str:
    """What a searched move's loss counts in ``game``: "win-chance points" in chess, else "points"."""
    return "win-chance points" if game == "chess" else "points"


def win_chance(score: int) -> float:
    """The chance in percent that the side whose chess score this is wins (``WIN_CHANCE_SLOPE``), with no cap: a
    decided score (a forced win or loss) is 100 or 0, a draw 50."""
    if is_decided(score):
        return 100.0 if score > 0 else 0.0
    exponent = WIN_CHANCE_SLOPE * score
    if exponent >= 0:  # the logistic written so that exp never overflows
        return 100.0 / (1.0 + math.exp(-exponent))
    return 100.0 * math.exp(exponent) / (1.0 + math.exp(exponent))


def move_accuracy(fall: float) -> float:
    """Lichess's accuracy (0-100) of a chess move whose mover's win chance fell by ``fall`` points (0 or less:
    100)."""
    a, k, b = ACCURACY_CURVE
    return 100.0 if fall <= 0 else max(0.0, min(100.0, a * math.exp(-k * fall) + b + 1))


DECIDED_CAP = 1000
"""Outside chess, a decided score (a forced win or loss) counts as this many points when losses are measured."""
Progress = Callable[[int, int], None]
"""Called as ``progress(positions_done, positions_total)`` while a review runs."""


@dataclass(frozen=True, slots=True)
class SearchSettings:
    """The search each position gets where no truth is known: at most ``depth`` plies and ``seconds``. By default
    the time decides: as deep as the engine gets in 0.5 s (chess middlegames: depth 7 to 8, compiled)."""

    depth: int = 64
    seconds: float = 0.5

    def describe(self) -> str:
        return f"a search of {self.seconds:g} s (up to depth {self.depth})"


@dataclass(frozen=True, slots=True)
class MoveVerdict:
    """The verdict on one move: ``ply`` (1-based), the ``move`` played ``by`` a seat, ``verdict`` (the names
    above), ``before``/``after`` the mover's value before the move and after it ("win in 9", "draw", "+0.35"),
    ``best`` a better move when the move played was not the best (None otherwise), ``loss`` in the game's score
    units (searched positions only), ``exact`` whether the verdict comes from the truth, and ``move_shown`` /
    ``best_shown`` the two moves as players read them (SAN in chess, else the move text), ``before_score`` /
    ``after_score`` the two values as numbers (the engine's convention, the mover's point of view; None where the
    distance of a result is unknown), and in chess ``win_before`` / ``win_after`` the mover's win chance in percent
    before and after the move (``win_chance``; None elsewhere). A chess move's ``loss`` is the fall of its win
    chance in points (one decimal; 0 for the search's own choice); elsewhere it counts the game's points."""

    ply: int
    move: str
    by: int
    verdict: str | None
    before: str | None
    after: str | None
    best: str | None
    loss: float | None
    exact: bool
    move_shown: str
    best_shown: str | None
    before_score: int | None
    after_score: int | None
    win_before: float | None = None
    win_after: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MoveVerdict:
        """The verdict ``to_dict`` gave (a ``KeyError`` names a missing field)."""
        return cls(**{field.name: data[field.name] for field in dataclasses.fields(cls)})


@dataclass(frozen=True, slots=True)
class Exercise:
    """A mistake to practise: the position before move ``ply``, "find a better move than ``played``". An answer is
    right when it keeps the best result there is and, with ``within`` (plies), comes that close to the best
    distance; where no exact value is known, when the review would grade it good at most (``judge_answer``, from
    ``value``, the review's score of the position for the mover) or it is ``better``, the review's choice."""

    ply: int
    played: str
    better: str | None
    within: int | None
    value: int | None

    @classmethod
    def of(cls, verdict: MoveVerdict) -> Exercise | None:
        """The exercise ``verdict``'s move makes, or None when it is no mistake: it threw away a win or a draw, is a
        chess mistake or blunder, or kept its result while giving away more than ``SLOW_PLIES`` plies."""
        slow = (verdict.verdict == KEPT and verdict.before_score is not None and verdict.after_score is not None
                and verdict.before_score - verdict.after_score > SLOW_PLIES)
        if verdict.verdict not in EXERCISE_GRADES and not slow:
            return None
        return cls(verdict.ply, verdict.move, verdict.best, SLOW_PLIES if slow else None,
                   None if verdict.exact else verdict.before_score)

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


def judge_answer(state: State, answer: str, value: int, better: str | None, after_view: PositionView) -> MoveVerdict:
    """The verdict a review gives ``answer`` (a legal move text) in ``state``, whose value for the mover the
    review found to be ``value`` with ``better`` its choice, from ``after_view``: what was found of the position
    after it (``look_at`` with the review's settings). The review's own choice is ``best``; in chess, any other
    move is graded by the fall of the mover's win chance from ``value``. Raises the game's ``GameError`` for an
    illegal move."""
    before_view = PositionView(None, value, _text(state, value), better)
    return verdicts_from(positions_of(state, [answer]), [answer], [before_view, after_view])[0]


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
                           shown_move(state, played), shown_move(state, better), best_value.score, value.score,
                           *_win_chances(state, best_value.score, value.score))
    before = view.score
    after = _score_after(after_state, after_view)
    if before is None or after is None:
        return MoveVerdict(ply, played, by, None, view.score_text, None, None, None, False,
                           shown_move(state, played), None, before, None)
    win_before, win_after = _win_chances(state, before, after)
    loss: float
    if played == view.best:  # the search's own choice: what its value fell by is the horizon of two searches
        loss, verdict = 0, BEST
    elif win_before is not None and win_after is not None:
        loss = round(max(0.0, win_before - win_after), 1)
        verdict = next((grade for limit, grade in CHESS_GRADES if loss >= limit), GOOD)
    else:
        loss, verdict = max(0, _capped(before) - _capped(after)), GOOD
    better = None if verdict in (BEST, GOOD) else view.best
    return MoveVerdict(ply, played, by, verdict, view.score_text, _text(after_state, after), better, loss, False,
                       shown_move(state, played), shown_move(state, better), before, after, win_before, win_after)


def _win_chances(state: State, before: int | None, after: int | None) -> tuple[float | None, float | None]:
    """The mover's win chances before and after a move in chess (None elsewhere, or where a value is unknown)."""
    if state.name != "chess":
        return None, None
    return (None if before is None else round(win_chance(before), 1),
            None if after is None else round(win_chance(after), 1))


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


@dataclass(frozen=True, slots=True)
class SeatSummary:
    """One player's review in figures: ``moves`` played; ``accuracy`` in percent (None when nothing judges it) over
    ``counted`` of them, found by ``method`` ("win chance": Lichess's game accuracy, chess; "best result kept":
    the share of exactly judged moves that kept the best result, the other games); ``kept`` how many of the
    exactly judged moves kept the best result and ``plies_given`` the distance those gave away (a slower win or a
    sooner loss, in plies), both None without exactly judged moves; ``average_loss`` the mean loss of the
    searched moves in the game's loss unit (None without any)."""

    moves: int
    accuracy: float | None
    counted: int
    method: str
    kept: int | None
    plies_given: int | None
    average_loss: float | None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def summarise(verdicts: Sequence[MoveVerdict], game: str) -> list[SeatSummary]:
    """Each seat's ``SeatSummary`` of a review of ``game`` (seat 0 first)."""
    chess_accuracy = _chess_accuracy(verdicts) if game == "chess" else None
    summaries = []
    for seat in (0, 1):
        mine = [verdict for verdict in verdicts if verdict.by == seat]
        losses = [verdict.loss for verdict in mine if verdict.loss is not None and not verdict.exact]
        exact = [verdict for verdict in mine if verdict.exact]
        given = [verdict.before_score - verdict.after_score for verdict in exact if verdict.verdict in (BEST, KEPT)
                 and verdict.before_score is not None and verdict.after_score is not None]
        average_loss = round(sum(losses) / len(losses), 1) if losses else None
        kept = sum(verdict.verdict in (BEST, KEPT) for verdict in exact) if exact else None
        plies_given = sum(given) if exact else None
        if chess_accuracy is not None:
            summaries.append(SeatSummary(len(mine), chess_accuracy[seat], len(mine), "win chance", kept, plies_given,
                                         average_loss))
            continue
        accuracy = round(100 * kept / len(exact), 1) if kept is not None else None
        summaries.append(SeatSummary(len(mine), accuracy, len(exact), "best result kept", kept, plies_given,
                                     average_loss))
    return summaries


def _chess_accuracy(verdicts: Sequence[MoveVerdict]) -> list[float | None] | None:
    """Lichess's game accuracy of each seat (None for a seat without moves), or None when a move has no win
    chances. Each move's weight is the volatility of the win chances (seat 0's) around it: the standard deviation
    of a window of ``len(verdicts) // 10`` positions (2 to 8), within 0.5 to 12; a seat's accuracy is the mean of
    the weighted mean and the harmonic mean (each move's accuracy at least 1) of its moves' accuracies."""
    if not verdicts or any(v.win_before is None or v.win_after is None for v in verdicts):
        return None
    first = verdicts[0]
    assert first.win_before is not None
    chances = [first.win_before if first.by == 0 else 100 - first.win_before]
    for verdict in verdicts:
        assert verdict.win_after is not None
        chances.append(verdict.win_after if verdict.by == 0 else 100 - verdict.win_after)
    size = max(2, min(8, len(verdicts) // 10))
    windows = [chances[:size]] * (min(size, len(chances)) - 2)
    windows += [chances[start:start + size] for start in range(max(1, len(chances) - size + 1))]
    weights = [max(0.5, min(12.0, statistics.pstdev(window))) for window in windows]
    accuracies: list[float | None] = []
    for seat in (0, 1):
        moves = [(move_accuracy(_fall(v)), weight) for v, weight in zip(verdicts, weights, strict=True) if v.by == seat]
        if not moves:
            accuracies.append(None)
            continue
        weighted = sum(accuracy * weight for accuracy, weight in moves) / sum(weight for _, weight in moves)
        harmonic = len(moves) / sum(1 / max(1.0, accuracy) for accuracy, _ in moves)
        accuracies.append(round((weighted + harmonic) / 2, 1))
    return accuracies


def _fall(verdict: MoveVerdict) -> float:
    """How far a chess move's win chance fell: its searched loss, or for an exact verdict the fall from the best
    result's chance to the chance of the result the move kept."""
    if verdict.loss is not None:
        return verdict.loss
    assert verdict.win_before is not None and verdict.win_after is not None
    return max(0.0, verdict.win_before - verdict.win_after)
