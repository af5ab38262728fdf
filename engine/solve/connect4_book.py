"""The Connect Four opening book: the exact value of positions with 12 stones, read from a sorted binary file.

The book is the "12-ply with distances" database of BitBully (Markus Thill, MIT licence), installed by the pinned
``bitbully-databases`` package; this module is our own reader of its format, which is: records of 5 bytes sorted
by their first 4, a big-endian signed 32-bit position code, then one signed byte, the value for the side to move
(the first player: 12 stones are down). The code reads the columns left to right, each bottom to top: ``10`` for a
stone of the first player, ``11`` for the second player's, ``0`` to end the column (after its last stone, or after
the sixth); a final ``0`` completes the 32 bits. A position and its mirror image have the same value and only one
of them is stored. The value is ``100 - plies`` when the side to move wins ``plies`` plies from now, ``-(100 -
plies)`` when it loses, 0 for a draw. Positions where the side to move wins at once are not in the book.

The file is mapped into memory (``mmap``), so every process that reads it shares the operating system's one copy
of its 21 MB; each process keeps only every ``STRIDE``-th code (0.5 MB) to find the stretch of the file a look-up
reads. Compiled by mypyc with the solver (see docs/compiled.md).
"""

from __future__ import annotations

import mmap
from importlib import resources
from pathlib import Path
from typing import Final, final

from librt.vecs import append, vec
from mypy_extensions import i64

from engine.games.connect4_bits import CELLS

BOOK_STONES: Final = 12
"""Every position in the book has this many stones."""
RECORD: Final = 5
"""Bytes per record: the 4-byte position code and the value byte."""
BOOK_PACKAGE: Final = "bitbully_databases"
BOOK_FILE: Final = "assets/book_12ply_distances.dat"
STRIDE: Final = 64
"""Every ``STRIDE``-th record's code is kept in memory, so a look-up reads the file only inside one stretch of
``STRIDE`` records (6 probes instead of 23)."""
MISSING: Final = -1000


def book_path() -> Path | None:
    """Where the installed book file is, or None when the ``bitbully-databases`` package is not installed."""
    try:
        path = resources.files(BOOK_PACKAGE).joinpath(BOOK_FILE)
    except ModuleNotFoundError:
        return None
    return Path(str(path)) if path.is_file() else None


def position_code(first: int, mask: int, mirrored: bool) -> int:
    """The book's code of the position whose stones are ``mask`` (Pons' bitboards), ``first`` those of the first
    player; with ``mirrored``, the code of its mirror image (columns read right to left)."""
    code = 0
    for index in range(7):
        column = 6 - index if mirrored else index
        for row in range(6):
            cell = 1 << (7 * column + row)
            if not mask & cell:
                break
            code = code << 2 | (2 if first & cell else 3)
        code <<= 1
    code <<= 1
    return code - (1 << 32) if code >= 1 << 31 else code


def book_to_pons(value: int) -> int:
    """A book value (for the side to move, 12 stones down) in Pons' convention (``engine.solve.connect4``)."""
    if value > 0:
        stones = (101 - value) // 2  # the winner's k-th stone from now decides
        return (CELLS - BOOK_STONES - 2 * stones + 3) // 2
    if value < 0:
        stones = (100 + value) // 2  # the opponent's k-th stone from now decides
        return -((CELLS - BOOK_STONES - 2 * stones + 3) // 2)
    return 0


@final
class OpeningBook:
    """The book file mapped into memory; ``value`` finds a position's Pons score in it."""

    def __init__(self, path: Path) -> None:
        with path.open("rb") as handle:
            self.data: mmap.mmap = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        self.count: int = len(self.data) // RECORD
        self.lookups: int = 0
        self.index: vec[i64] = vec[i64]()
        for record in range(0, self.count, STRIDE):
            self.index = append(self.index, self._code_at(record))

    def _code_at(self, record: int) -> int:
        """The position code of record number ``record``."""
        return int.from_bytes(self.data[record * RECORD:record * RECORD + 4], "big", signed=True)

    def _find(self, code: int) -> int:
        """The value byte of the record with ``code`` (as a signed int), or ``MISSING`` when there is none."""
        index = self.index
        low = 0
        high = len(index) - 1
        if high < 0 or code < index[0]:
            return MISSING
        while low < high:  # the last kept code at most ``code``
            middle = (low + high + 1) >> 1
            if index[middle] <= code:
                low = middle
            else:
                high = middle - 1
        first = low * STRIDE
        block = self.data[first * RECORD:min(first + STRIDE, self.count) * RECORD]
        low = 0
        high = len(block) // RECORD - 1
        while low <= high:
            middle = (low + high) >> 1
            at = middle * RECORD
            key = block[at] << 24 | block[at + 1] << 16 | block[at + 2] << 8 | block[at + 3]
            if key >= 1 << 31:
                key -= 1 << 32
            if key == code:
                value = block[at + 4]
                return value - 256 if value > 127 else value
            if key < code:
                low = middle + 1
            else:
                high = middle - 1
        return MISSING

    def value(self, position: int, mask: int) -> int | None:
        """The exact Pons score of a position with ``BOOK_STONES`` stones (``position``: the side to move's, which
        is the first player), or None when the book does not hold it (the side to move wins at once)."""
        self.lookups += 1
        found = self._find(position_code(position, mask, False))
        if found == MISSING:
            found = self._find(position_code(position, mask, True))
        return None if found == MISSING else book_to_pons(found)


_LOADED: list[OpeningBook | None] = []


def opening_book() -> OpeningBook | None:
    """This process's book, mapped on first use; None when the book is not installed."""
    if not _LOADED:
        path = book_path()
        _LOADED.append(OpeningBook(path) if path is not None else None)
    return _LOADED[0]
