"""The compact table of results that retrograde analysis (``engine.solve.retrograde``) produces, on disk and read.

A ``Table`` holds one byte per index of a game's ``PositionSpace`` (``code``): ``NOT_A_POSITION`` (0),
``DRAW_CODE`` (1), or ``2 + 2 * plies + (1 for a loss)``. On disk it is a short header and the codes compressed
with zlib.
"""

from __future__ import annotations

import os
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from engine.game import WIN
from engine.solve.retrograde import DRAW_CODE, NOT_A_POSITION, TableError

Result = Literal["win", "loss", "draw"]

MAGIC = b"ABTB"
FORMAT_VERSION = 1
_HEADER = struct.Struct("<4sBB32sI")
"""Magic, format version, space version, game name (NUL-padded), number of indices; then the zlib body."""



@dataclass(frozen=True, slots=True)
class Entry:
    """The solved value of one position for the side to move: ``result`` and ``plies`` to the end (None in a
    draw)."""

    result: Result
    plies: int | None

    @classmethod
    def from_code(cls, code: int) -> Entry | None:
        """The entry a table code stands for; None for ``NOT_A_POSITION``."""
        if code == NOT_A_POSITION:
            return None
        if code == DRAW_CODE:
            return cls("draw", None)
        return cls("loss" if code & 1 else "win", (code - 2) >> 1)

    @property
    def score(self) -> int:
        """The engine's score: ``WIN - plies`` for a win, ``-(WIN - plies)`` for a loss, 0 for a draw."""
        if self.plies is None:
            return 0
        return WIN - self.plies if self.result == "win" else -(WIN - self.plies)

    def after_move(self) -> Entry:
        """This entry as seen by the opponent one ply earlier (the value of the move leading here)."""
        if self.plies is None:
            return self
        return Entry("win" if self.result == "loss" else "loss", self.plies + 1)


@dataclass(frozen=True, slots=True)
class Table:
    """A solved table: one code per index of a game's ``PositionSpace``."""

    game: str
    version: int
    codes: bytes

    def entry(self, index: int) -> Entry | None:
        """The value of position ``index`` for the side to move; None if no position has that number."""
        return Entry.from_code(self.codes[index])

    def counts(self) -> dict[str, int]:
        """How many positions are wins, losses and draws (for the side to move)."""
        histogram = [0] * 256
        for code in range(256):
            histogram[code] = self.codes.count(code)
        wins = sum(histogram[c] for c in range(2, 256, 2))
        losses = sum(histogram[c] for c in range(3, 256, 2))
        return {"positions": wins + losses + histogram[DRAW_CODE], "wins": wins, "losses": losses,
                "draws": histogram[DRAW_CODE]}

    def longest(self) -> int:
        """The largest distance to the end of any decided position, in plies."""
        top = max((c for c in range(2, 256) if bytes([c]) in self.codes), default=2)
        return (top - 2) >> 1

    def save(self, path: Path) -> None:
        """Write the table to ``path`` (through a temporary file and a rename, so readers never see half)."""
        name = self.game.encode()
        header = _HEADER.pack(MAGIC, FORMAT_VERSION, self.version, name, len(self.codes))
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.{os.getpid()}.part")
        partial.write_bytes(header + zlib.compress(self.codes, 6))
        partial.replace(path)

    @classmethod
    def load(cls, path: Path, game: str, version: int, size: int) -> Table:
        """Read the table of ``game`` from ``path``; raises ``TableError`` if it is missing, damaged, or was made
        for another game, another index layout (``version``) or another number of indices."""
        try:
            data = path.read_bytes()
        except OSError as error:
            raise TableError(f"cannot read table {path}: {error.strerror}") from None
        if len(data) < _HEADER.size:
            raise TableError(f"{path} is too short to be a table")
        magic, file_format, file_version, name, length = _HEADER.unpack_from(data)
        if magic != MAGIC or file_format != FORMAT_VERSION:
            raise TableError(f"{path} is not a table in format {FORMAT_VERSION}")
        if name.rstrip(b"\0").decode(errors="replace") != game or file_version != version or length != size:
            raise TableError(f"{path} holds another table than {game} version {version} with {size} positions")
        try:
            codes = zlib.decompress(data[_HEADER.size:])
        except zlib.error as error:
            raise TableError(f"{path} is damaged: {error}") from None
        if len(codes) != size:
            raise TableError(f"{path} is damaged: {len(codes)} codes instead of {size}")
        return cls(game, version, codes)
