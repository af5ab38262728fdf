"""The registry of games: their names, and the state class of each, imported on first use."""

from __future__ import annotations

import importlib
import importlib.util

from engine.game import State, UnknownGameError

_MODULES = {
    "tictactoe": "engine.games.tictactoe",
    "nim": "engine.games.nim",
    "connect4": "engine.games.connect4",
    "wolves": "engine.games.wolves",
    "chess": "engine.games.chess",
}


def game_names() -> list[str]:
    """Names of the games this installation has, in display order."""
    return [name for name, module in _MODULES.items() if importlib.util.find_spec(module) is not None]


def game_class(name: str) -> type[State]:
    """The state class of the game called ``name``; an unknown name raises ``UnknownGameError``."""
    if name not in _MODULES or name not in game_names():
        raise UnknownGameError(f"unknown game {name!r}; known games: {', '.join(game_names())}")
    return importlib.import_module(_MODULES[name]).GAME_STATE


def new_game(name: str, setup: str | None = None, **options: object) -> State:
    """The start position of ``name`` with ``options``, or the position ``setup`` in the game's notation."""
    cls = game_class(name)
    return cls.from_setup(setup) if setup is not None else cls.initial(**options)
