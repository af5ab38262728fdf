"""Oracles: sources of a move that need no search (opening books, solved tables, exact solvers).

Each game with an oracle has an ``Oracle`` here, its module imported on first use (the solved tables' and chess's
take about a second to import). Its ``answers(state, level, clock, rng)`` (``level`` the level number or None)
yields what it does as ``SearchInfo`` events (``source`` "book", "table" or "solver"): progress while it works (the
solver, as it proves each move), then a final one whose ``best`` is a legal move text; or no final when it has
nothing to say about the position.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

from engine.clock import SYSTEM_MONOTONIC, Monotonic
from engine.game import State
from engine.search.info import SearchInfo


@dataclass(frozen=True, slots=True)
class Oracle:
    """A game's oracle: ``answers(state, level, clock, rng)``; ``describe_level(level)``, in words what it does at a
    level (None where the level only searches); ``prepare(state, level, clock)``, when it must first prepare something
    (a solved table built on first use), yielding the progress events of that. ``clock`` is what they measure and
    limit their time on, ``rng`` what draws among equal answers (a book's moves)."""

    answers: Callable[[Any, int | None, Monotonic, random.Random], Iterator[SearchInfo]]
    describe_level: Callable[[int], str | None]
    prepare: Callable[[State, int | None, Monotonic], Iterator[SearchInfo]] | None = None


def _connect4() -> Oracle:
    from engine.solve import connect4_oracle
    return Oracle(lambda state, level, clock, rng: connect4_oracle.connect4_answers(state, level, clock=clock),
                  connect4_oracle.describe_level)


def _solved_tables() -> Oracle:
    from engine.solve import tables
    return Oracle(lambda state, level, clock, rng: _once(tables.table_search(state, level, clock)),
                  tables.describe_level,
                  lambda state, level, clock: tables.building_events(state, level, clock=clock))


def _chess() -> Oracle:
    from engine.chess import oracle
    from engine.solve.chess_endgames import endgame_answer

    # Our endgame tables (at the levels that play them), else a book or a Syzygy tablebase: no time to measure.
    return Oracle(lambda state, level, clock, rng: _once(
        (endgame_answer(state.board) if oracle.plays_tables(level) else None)
        or oracle.chess_oracle(state, level, rng)), oracle.describe_level)


def _once(answer: SearchInfo | None) -> Iterator[SearchInfo]:
    """An oracle's events when it answers at once: its final event, or none."""
    return iter(()) if answer is None else iter((answer,))


_LOADERS: dict[str, Callable[[], Oracle]] = {
    "connect4": _connect4, "tictactoe": _solved_tables, "wolves": _solved_tables, "chess": _chess,
}
"""Game name -> its oracle's loader; games without one are simply absent."""


@cache
def oracle_for(game_name: str) -> Oracle | None:
    """The oracle of ``game_name`` (its module imported on first use), or None when the game has none."""
    loader = _LOADERS.get(game_name)
    return None if loader is None else loader()


def prepare(state: State, level: int | None = None, clock: Monotonic = SYSTEM_MONOTONIC) -> Iterator[SearchInfo]:
    """Do what the game's oracle needs done before it can answer ``state`` at ``level`` (say, build a solved
    table), yielding its progress events (timed on ``clock``); nothing when nothing is needed."""
    oracle = oracle_for(type(state).name)
    if oracle is None or oracle.prepare is None:
        return iter(())
    return oracle.prepare(state, level, clock)


def describe_level(game_name: str, level: int) -> str | None:
    """What ``game_name``'s oracle does at ``level`` in words ("plays from the solved table ..."); None when that
    level only searches."""
    oracle = oracle_for(game_name)
    return None if oracle is None else oracle.describe_level(level)


def consult(state: State, level: int | None = None, clock: Monotonic = SYSTEM_MONOTONIC,
            rng: random.Random | None = None) -> Iterator[SearchInfo]:
    """Ask the game's oracle about ``state``: its events (``Oracle.answers``), the last one final with the move to
    play, or none final (then search); the oracle measures and limits its time on ``clock`` and draws among equal
    answers with ``rng`` (a fresh one if None)."""
    oracle = oracle_for(type(state).name)
    return oracle.answers(state, level, clock, rng or random.Random()) if oracle is not None else iter(())
