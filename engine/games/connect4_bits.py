"""Connect Four bitboard arithmetic shared by the game and the solver, typed for the compiled build.

Pons' layout: bit ``7 * column + row`` (0-based, row 0 at the bottom), 7 bits per column of which the top one is an
always-empty sentinel, so shifts by 1, 6, 7 and 8 walk the four directions without wrapping. Stones only ever
occupy bits 0-47.

The functions take and return ``i64``: compiled, they run on machine words; interpreted, ``i64`` is ``int``. Every
intermediate value stays below 2**56 for boards within bits 0-47, so no shift overflows a signed 64-bit word (the
left shifts are taken after the right shifts and masks that bound them).
"""

from __future__ import annotations

from typing import Final

from mypy_extensions import i64

WIDTH: Final = 7
HEIGHT: Final = 6
CELLS: Final = WIDTH * HEIGHT
BOTTOM: Final = 4432676798593
"""The bottom cell of every column: the sum of ``1 << 7 * column``."""
BOARD: Final = 279258638311359
"""Every playable cell (the sentinel row excluded): ``BOTTOM * 0b111111``."""


def winning_cells(stones: i64, mask: i64) -> i64:
    """Empty cells (bitboard) where one more stone of ``stones``' owner would complete four in a row.

    For each direction (shift 1 vertical, 7 horizontal, 6 and 8 diagonal) a cell wins when the three cells below
    it, or above it, are ``stones``, or two on one side and one on the other; written out once per direction
    because it is the solver's hot path. ``stones`` and ``mask`` must lie within bits 0-47 (any position does).
    """
    r = (stones << 1) & (stones << 2) & (stones << 3)
    left = stones << 7
    pair = stones & left
    r |= ((pair >> 14) & stones) << 21 | (pair << 7) & (stones >> 7) | (pair >> 14) & (left | (stones >> 21))
    left = stones << 6
    pair = stones & left
    r |= ((pair >> 12) & stones) << 18 | (pair << 6) & (stones >> 6) | (pair >> 12) & (left | (stones >> 18))
    left = stones << 8
    pair = stones & left
    r |= ((pair >> 16) & stones) << 24 | (pair << 8) & (stones >> 8) | (pair >> 16) & (left | (stones >> 24))
    return r & (BOARD ^ mask)


def has_four(stones: i64) -> bool:
    """True when ``stones`` hold four in a row in some direction."""
    pairs = stones & (stones >> 7)
    if pairs & (pairs >> 14):
        return True
    pairs = stones & (stones >> 6)
    if pairs & (pairs >> 12):
        return True
    pairs = stones & (stones >> 8)
    if pairs & (pairs >> 16):
        return True
    pairs = stones & (stones >> 1)
    return bool(pairs & (pairs >> 2))


def popcount(bits: i64) -> i64:
    """The number of set bits of a non-negative ``bits`` (a loop over them: compiled, it is a few machine
    instructions per bit, where ``int.bit_count`` would be a generic method call)."""
    count: i64 = 0
    while bits:
        bits &= bits - 1
        count += 1
    return count
