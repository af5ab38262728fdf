"""Oracles: sources of a move that need no search (opening books, solved tables, exact solvers).

``ORACLES`` maps a game name to ``"module:function"``; the module is imported on first use. The function is
called as ``function(state, level)`` (``level`` is the level number or None) and returns a final ``SearchInfo``
(``source`` "book" or "table", ``best`` a legal move text) or None when it has nothing to say about the position.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator

from engine.game import State
from engine.search.info import SearchInfo

ORACLES: dict[str, str] = {
    "connect4": "engine.solve.connect4_oracle:connect4_oracle",
    "tictactoe": "engine.solve.tables:table_search",
    "wolves": "engine.solve.tables:table_search",
    "chess": "engine.chess.oracle:chess_oracle",
}
"""Game name -> "module:function" of its oracle; games without one are simply absent. Each such module also has
``describe_level(level)``: in words, what its oracle does at a level (None where the level only searches)."""
PREPARERS: dict[str, str] = {
    "tictactoe": "engine.solve.tables:building_events",
    "wolves": "engine.solve.tables:building_events",
}
"""Game name -> "module:function" yielding the progress events of what its oracle must prepare first (a solved
table built on first use), called as ``function(state, level)``; games that need nothing are absent."""

_loaded: dict[str, Callable[[State, int | None], SearchInfo | None]] = {}


def oracle_for(game_name: str) -> Callable[[State, int | None], SearchInfo | None] | None:
    """The oracle function of ``game_name`` (imported on first use), or None when the game has none."""
    target = ORACLES.get(game_name)
    if not target:
        return None
    if game_name not in _loaded:
        module_name, _, function_name = target.partition(":")
        _loaded[game_name] = getattr(importlib.import_module(module_name), function_name)
    return _loaded[game_name]


def prepare(state: State, level: int | None = None) -> Iterator[SearchInfo]:
    """Do what the game's oracle needs done before it can answer ``state`` at ``level`` (say, build a solved
    table), yielding its progress events; nothing when nothing is needed."""
    target = PREPARERS.get(type(state).name)
    if not target:
        return iter(())
    module_name, _, function_name = target.partition(":")
    events: Iterator[SearchInfo] = getattr(importlib.import_module(module_name), function_name)(state, level)
    return events


def describe_level(game_name: str, level: int) -> str | None:
    """What ``game_name``'s oracle does at ``level`` in words ("plays from the solved table ..."), from the
    ``describe_level(level)`` function of its oracle's module; None when that level only searches."""
    target = ORACLES.get(game_name)
    if not target:
        return None
    describe: Callable[[int], str | None] = importlib.import_module(target.partition(":")[0]).describe_level
    return describe(level)


def consult(state: State, level: int | None = None) -> SearchInfo | None:
    """Ask the game's oracle about ``state``: a final event with the move to play, or None (then search)."""
    oracle = oracle_for(type(state).name)
    return oracle(state, level) if oracle is not None else None
