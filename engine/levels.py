"""Difficulty levels 1-8 of each game, as data: search limits, search options and a randomness margin.

A level plays a move chosen at random among the root moves whose score is within ``margin`` (in the game's own
evaluation units) of the best score (see ``engine.player``); level 8 has margin 0 and plays the best move it finds.
Lower levels search shallower and accept worse moves. Tables of games whose engineers tune them may be refined
without changing this module's interface.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.chess.levels import ROWS as CHESS_ROWS
from engine.search.info import Limits, SearchOptions

LEVELS = range(1, 9)


@dataclass(frozen=True, slots=True)
class Level:
    """One difficulty level: how far the engine looks and how much worse than its best it may play."""

    number: int
    limits: Limits
    options: SearchOptions
    margin: int


_SOLVE = SearchOptions(lmr=False, aspiration=False)
"""Small games are searched to the end: reductions and aspiration windows only cost nodes there."""
_PLAY = SearchOptions()

# (depth, time in seconds, margin) for levels 1..8; None = no limit of that kind.
_TABLES: dict[str, tuple[SearchOptions, tuple[tuple[int | None, float | None, int], ...]]] = {
    "tictactoe": (_SOLVE, ((1, None, 6), (1, None, 2), (2, None, 2), (2, None, 1),
                           (3, None, 1), (4, None, 0), (6, None, 0), (None, None, 0))),
    "nim": (_SOLVE, ((1, None, 1), (2, None, 1), (3, None, 1), (4, None, 1),
                     (6, None, 0), (8, None, 0), (12, 2.0, 0), (None, 5.0, 0))),
    "connect4": (_PLAY, ((1, None, 8), (2, None, 4), (3, None, 3), (4, None, 2),
                         (5, 1.0, 1), (6, 1.0, 0), (None, 0.5, 0), (None, 1.0, 0))),
    "wolves": (_PLAY, ((1, None, 30), (2, None, 20), (3, None, 10), (4, None, 5),
                       (6, 1.0, 2), (8, 1.0, 0), (None, 2.0, 0), (None, 3.0, 0))),
    "chess": (_PLAY, CHESS_ROWS),
}


def level_for(game_name: str, number: int) -> Level:
    """Level ``number`` (1-8) of the game called ``game_name``; an unknown game or level raises ``ValueError``."""
    if game_name not in _TABLES:
        raise ValueError(f"no levels for game {game_name!r}; games with levels: {', '.join(_TABLES)}")
    if not isinstance(number, int) or isinstance(number, bool) or number not in LEVELS:
        raise ValueError(f"level must be a whole number from 1 to 8, got {number!r}")
    options, rows = _TABLES[game_name]
    depth, seconds, margin = rows[number - 1]
    return Level(number, Limits(depth=depth, time=seconds), options, margin)


def game_levels(game_name: str) -> list[Level]:
    """All eight levels of ``game_name``, weakest first."""
    return [level_for(game_name, number) for number in LEVELS]
