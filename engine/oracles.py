"""Oracles: sources of a move that need no search (opening books, solved tables, exact solvers).

``ORACLES`` maps a game name to ``"module:function"``; the module is imported on first use. The function is
called as ``function(state, level)`` (``level`` is the level number or None) and returns a final ``SearchInfo``
(``source`` "book" or "table", ``best`` a legal move text) or None when it has nothing to say about the position.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from engine.game import State
from engine.search.info import SearchInfo

ORACLES: dict[str, str] = {
    "connect4": "engine.solve.connect4_oracle:connect4_oracle",
    "tictactoe": "engine.solve.tables:table_search",
    "wolves": "engine.solve.tables:table_search",
    "chess": "engine.chess.oracle:chess_oracle",
}
"""Game name -> "module:function" of its oracle; games without one are simply absent."""

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


def consult(state: State, level: int | None = None) -> SearchInfo | None:
    """Ask the game's oracle about ``state``: a final event with the move to play, or None (then search)."""
    oracle = oracle_for(type(state).name)
    return oracle(state, level) if oracle is not None else None
