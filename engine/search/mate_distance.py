"""Decided scores in a transposition table: stored relative to the position, read relative to the search's root.

A win found ``ply`` plies below the root scores ``WIN - plies to mate from the root``; stored as is, it would be
wrong when the same position is reached at another ply. ``to_table`` makes a decided score relative to the position
it belongs to, ``from_table`` turns it back at the ply where it is read, so a mate found through a transposition
keeps its distance. Undecided scores pass through unchanged.

Compiled by mypyc with the chess search (see docs/compiled.md).
"""

from __future__ import annotations

from typing import Final

from engine.game import MAX_PLIES, WIN

DECIDED: Final = WIN - MAX_PLIES
"""Scores beyond ``±DECIDED`` are wins or losses at a known distance."""


def to_table(score: int, ply: int) -> int:
    """A score relative to the root, found ``ply`` plies down, made relative to that position."""
    if DECIDED < score <= WIN:
        return score + ply
    if -WIN <= score < -DECIDED:
        return score - ply
    return score


def from_table(score: int, ply: int) -> int:
    """The inverse of ``to_table``: a stored score seen ``ply`` plies from the current root."""
    if DECIDED < score <= WIN:
        return score - ply
    if -WIN <= score < -DECIDED:
        return score + ply
    return score
