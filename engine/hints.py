"""Hints: the value of every legal move for the side to move, exact where it is known (``engine.truth``), else the
score of a search that scores every move exactly (no move is cut off by a bound) at ``HINT_SETTINGS``.

For display only, and only in games created with hints on: both players and every spectator see the same values.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

from engine.clock import SYSTEM_MONOTONIC, Monotonic
from engine.game import State, describe_score, score_scale
from engine.review import SearchSettings, shown_move
from engine.search.every_move import score_every_move
from engine.truth import Exact, move_values

HINT_SETTINGS = SearchSettings(depth=5, seconds=30.0)
"""The search of a position whose moves' exact values are unknown: to depth 5 whatever the machine's load, so that
every viewer, every node and every run gets the same values for a position (a fixed-depth search of a fresh
searcher is deterministic). The time is a guard only: on the compiled engine a chess middlegame takes 0.05-0.5 s."""
HINT_TRUTH_SECONDS = 1.0
"""What the Connect Four solver gets to prove a position's moves before the search is used instead: within it, 200 of
200 positions sampled at 12 stones (the hardest) were proven, 199 of 200 at 13, all of them at every other ply
(``bench/connect4_exact_by_ply.py``)."""


class MoveHint(TypedDict):
    """One move's hint: its value in words, its score (engine convention) and how players write it."""

    value: str
    score: int | None
    shown: str


class MoveHints(TypedDict):
    """The hints of a position (``move_hints``)."""

    how: Literal["exact", "search"]
    depth: int | None
    moves: dict[str, MoveHint]


def move_hints(state: State, settings: SearchSettings = HINT_SETTINGS, stop: Any = None,
               known: dict[str, Exact] | None = None, truth_seconds: float = HINT_TRUTH_SECONDS,
               clock: Monotonic = SYSTEM_MONOTONIC) -> MoveHints:
    """``{"how": "exact" | "search", "depth": int | None, "moves": {move: {"value", "score", "shown"}}}`` for every
    legal move of ``state`` (empty for a finished game): ``value`` in words ("win in 3", "draw", "+0.35") for the
    side to move, ``score`` in the engine's convention (None where only the result is known), ``shown`` the move as
    players read it (SAN in chess). ``stop`` (with ``is_set()``) cuts the search short; ``known``: the exact
    values already found; ``truth_seconds``: what the solver gets to find the others (``engine.truth.move_values``)
    before the search is used instead; both the solver and the search are timed on ``clock``."""
    exact = exact_hints(state, truth_seconds, known, clock, build_tables=state.name == "tictactoe")
    if exact is not None:
        return exact
    final = score_every_move(state, settings.depth, seconds=settings.seconds, stop=stop, clock=clock)
    scale = score_scale(state)
    moves: dict[str, MoveHint] = {
        root.move: {"value": describe_score(root.score, scale), "score": root.score,
                    "shown": shown_move(state, root.move)}
        for root in final.root_moves if root.score is not None}
    return {"how": "search", "depth": final.depth, "moves": moves}


def exact_hints(state: State, seconds: float, known: dict[str, Exact] | None = None,
                clock: Monotonic = SYSTEM_MONOTONIC, build_tables: bool = True) -> MoveHints | None:
    """The hints of ``state`` (as ``move_hints`` gives them, ``how`` "exact") when every legal move's exact value is
    known (``engine.truth.move_values``: the solved tables, built first if missing when ``build_tables``, Nim's
    theory, the Connect Four solver within ``seconds`` of ``clock``; ``known``: values already found), else None."""
    exact = move_values(state, seconds, build_tables=build_tables, known=known, clock=clock)
    if exact is None:
        return None
    return {"how": "exact", "depth": None, "moves": {
        move: {"value": value.text, "score": value.score, "shown": shown_move(state, move)}
        for move, value in exact.items()}}
