"""Chess playing levels 1-8 as data: search caps, the randomness margin among near-equal moves, the book.

``engine/levels.py`` (the table for every game) takes chess's rows from here. Level 1 looks one ply ahead and
picks any move within three pawns of the best; level 8 thinks for four seconds and plays the best move.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ChessLevel:
    """One level: ``depth`` cap (None = only time), ``time`` in seconds per move, ``root_margin`` in
    centipawns (moves scoring within it of the best are candidates for a random choice), whether the opening book
    is used, and whether an ending the endgame tables know is played from them (perfectly) rather than searched."""

    level: int
    depth: int | None
    time: float
    root_margin: int
    book: bool
    tables: bool


LEVELS = {
    1: ChessLevel(1, depth=1, time=0.2, root_margin=300, book=False, tables=False),
    2: ChessLevel(2, depth=2, time=0.3, root_margin=150, book=False, tables=False),
    3: ChessLevel(3, depth=3, time=0.4, root_margin=80, book=False, tables=False),
    4: ChessLevel(4, depth=4, time=0.5, root_margin=40, book=False, tables=False),
    5: ChessLevel(5, depth=5, time=0.7, root_margin=15, book=True, tables=True),
    6: ChessLevel(6, depth=None, time=1.0, root_margin=0, book=True, tables=True),
    7: ChessLevel(7, depth=None, time=2.0, root_margin=0, book=True, tables=True),
    8: ChessLevel(8, depth=None, time=4.0, root_margin=0, book=True, tables=True),
}

ROWS = tuple((row.depth, row.time, row.root_margin) for row in LEVELS.values())
"""(depth, seconds, margin) of levels 1-8, the form ``engine.levels`` reads."""
