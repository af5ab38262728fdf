"""The registry of games: their names, and the state class of each, its module imported on first use (chess's
takes about a second to import, so a process playing another game never pays for it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from engine.game import State, UnknownGameError


def _as_state(game_state: type) -> type[State]:
    """A game's state class as a ``State``: each game's class takes and gives its own move type (a tuple, a
    string...) where the protocol says ``Hashable``, which mypy cannot match, the protocol not being generic."""
    return cast("type[State]", game_state)


def _tictactoe() -> type[State]:
    from engine.games.tictactoe import GAME_STATE
    return _as_state(GAME_STATE)


def _nim() -> type[State]:
    from engine.games.nim import GAME_STATE
    return _as_state(GAME_STATE)


def _connect4() -> type[State]:
    from engine.games.connect4 import GAME_STATE
    return _as_state(GAME_STATE)


def _wolves() -> type[State]:
    from engine.games.wolves import GAME_STATE
    return _as_state(GAME_STATE)


def _chess() -> type[State]:
    from engine.games.chess import GAME_STATE
    return _as_state(GAME_STATE)


_LOADERS: dict[str, Callable[[], type[State]]] = {
    "tictactoe": _tictactoe, "nim": _nim, "connect4": _connect4, "wolves": _wolves, "chess": _chess,
}


def game_names() -> list[str]:
    """Names of the games, in display order."""
    return list(_LOADERS)


def game_class(name: str) -> type[State]:
    """The state class of the game called ``name``; an unknown name raises ``UnknownGameError``."""
    loader = _LOADERS.get(name)
    if loader is None:
        raise UnknownGameError(f"unknown game {name!r}; known games: {', '.join(game_names())}")
    return loader()


def new_game(name: str, setup: str | None = None, **options: object) -> State:
    """The start position of ``name`` with ``options``, or the position ``setup`` in the game's notation."""
    cls = game_class(name)
    return cls.from_setup(setup) if setup is not None else cls.initial(**options)
