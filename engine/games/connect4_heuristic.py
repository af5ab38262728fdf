"""The heuristic evaluation of a Connect Four position (the depth-limited search's leaves), on Pons' bitboards.

Compiled by mypyc with the bitboard arithmetic (see docs/compiled.md); ``engine.games.connect4.Connect4.evaluate``
calls it.
"""

from __future__ import annotations

from typing import Final

from engine.games.connect4_bits import BOARD, BOTTOM, HEIGHT, popcount, winning_cells

ODD_ROWS: Final = BOTTOM * 0b010101
"""Cells on rows 1, 3 and 5 (counted from 1 at the bottom): the first player's good threat rows."""

THREAT: Final = 12
"""Evaluation weight of a threat (an empty cell completing four) on its owner's good row parity."""
WEAK_THREAT: Final = 6
"""Evaluation weight of a threat on the other row parity."""
STACKED: Final = 20
"""Extra weight of a threat directly above another threat of the same side (whoever blocks one opens the other)."""
OPEN_TWO: Final = 2
"""Evaluation weight of an open window (free of the opponent's stones) holding two or more of a side's stones."""
WINDOW_SHIFTS: Final[tuple[int, ...]] = (1, HEIGHT + 1, HEIGHT, HEIGHT + 2)
"""The bit distances between neighbouring cells of a vertical, horizontal and two diagonal windows."""
DECISIVE: Final = 100
"""Evaluation of a position the side to move wins at once (or loses to a double threat) without search."""


def open_windows(stones: int, blockers: int) -> int:
    """Sum over the four-cell windows free of ``blockers`` of the ``stones`` in each, plus ``OPEN_TWO`` for each
    such window holding at least two of them."""
    free = BOARD & ~blockers
    total = 0
    for shift in WINDOW_SHIFTS:
        starts = free & free >> shift & free >> 2 * shift & free >> 3 * shift
        a = starts & stones
        b = starts & stones >> shift
        c = starts & stones >> 2 * shift
        d = starts & stones >> 3 * shift
        two = a & (b | c | d) | b & (c | d) | c & d
        total += a.bit_count() + b.bit_count() + c.bit_count() + d.bit_count() + OPEN_TWO * two.bit_count()
    return total


def heuristic_score(mine: int, mask: int, first_player_to_move: bool) -> int:
    """Heuristic score for the side to move (its stones ``mine``, all stones ``mask``), in small units (a good
    threat is worth 12, a stone in an open window 1); see ``Connect4.evaluate`` for what it counts."""
    theirs = mine ^ mask
    playable = (mask + BOTTOM) & BOARD
    my_threats = winning_cells(mine, mask)
    if my_threats & playable:
        return DECISIVE
    their_threats = winning_cells(theirs, mask)
    urgent = their_threats & playable
    if urgent and (urgent & (urgent - 1) or urgent << 1 & their_threats):
        return -DECISIVE
    my_rows, their_rows = (ODD_ROWS, BOARD ^ ODD_ROWS) if first_player_to_move else (BOARD ^ ODD_ROWS, ODD_ROWS)
    score = THREAT * (popcount(my_threats & my_rows) - popcount(their_threats & their_rows))
    score += WEAK_THREAT * (popcount(my_threats & their_rows) - popcount(their_threats & my_rows))
    stacked = popcount(my_threats & my_threats << 1) - popcount(their_threats & their_threats << 1)
    return score + STACKED * stacked + open_windows(mine, theirs) - open_windows(theirs, mine)
