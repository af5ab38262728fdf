"""Retrograde analysis of small games, and the compact table of results it produces.

A game whose positions can be numbered ``0 .. size-1`` describes them with a ``PositionSpace``. ``solve`` then
works backwards from the finished positions and gives every position its value under perfect play, from the
point of view of the side to move: a win in ``n`` plies (as fast as possible), a loss in ``n`` plies (as slow as
possible) or a draw. Players alternate: every move hands the turn to the other side.

A ``Table`` holds one byte per index (``code``): ``NOT_A_POSITION`` (0), ``DRAW_CODE`` (1), or
``2 + 2 * plies + (1 for a loss)``. On disk it is a short header and the codes compressed with zlib.
"""

from __future__ import annotations

import os
import struct
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from engine.game import WIN

Result = Literal["win", "loss", "draw"]

INVALID, ONGOING, WON, LOST, DRAWN = range(5)
"""Statuses a ``PositionSpace`` gives an index: not a position, game going on, or over (for the side to move)."""

NOT_A_POSITION = 0
DRAW_CODE = 1
MAX_PLIES = 125
"""Longest distance a one-byte code can hold."""
_UNSOLVED = 255

MAGIC = b"ABTB"
FORMAT_VERSION = 1
_HEADER = struct.Struct("<4sBB32sI")
"""Magic, format version, space version, game name (NUL-padded), number of indices; then the zlib body."""


class TableError(ValueError):
    """A table file that is missing, damaged, or made for another game or another index layout."""


class PositionSpace(Protocol):
    """The positions of one game, numbered ``0 .. size-1``.

    ``status(i)``: INVALID (no position has this number), ONGOING, or WON / LOST / DRAWN when the game is over
    (from the point of view of the side to move). ``successors(i)``: the indices after each legal move of an
    ONGOING position (the other side to move). ``predecessors(i)``: every ONGOING index ``p`` whose successors
    contain ``i`` (each once); it may also list indices that are INVALID or finished, which are skipped.
    """

    game: str
    version: int
    size: int

    def status(self, index: int) -> int: ...

    def successors(self, index: int) -> list[int]: ...

    def predecessors(self, index: int) -> Iterable[int]: ...


def win_code(plies: int) -> int:
    """Code of a win for the side to move in ``plies`` plies."""
    return 2 + 2 * plies


def loss_code(plies: int) -> int:
    """Code of a loss for the side to move in ``plies`` plies."""
    return 3 + 2 * plies


Progress = Callable[[str, int, int | None], None]
"""``progress(stage, done, total)``: how far a table build is (``total`` None when not known in advance)."""
PROGRESS_EVERY = 1 << 16
"""Positions between two progress reports."""


def solve(space: PositionSpace, progress: Progress | None = None) -> bytearray:
    """The code of every index of ``space`` under perfect play (see the module docstring). ``progress`` hears
    every ``PROGRESS_EVERY`` positions: ("classifying positions", indexes looked at, size), then ("solving
    backwards", positions solved so far, None).

    Works level by level from the finished positions: a position with a move to a loss (for the opponent) at
    distance ``d`` is a win in ``d + 1``, found at the smallest ``d``; a position whose moves all lead to wins
    (for the opponent) is a loss in one more than the longest of them; whatever is left is a draw.
    Raises ``TableError`` if a game lasts longer than ``MAX_PLIES``.
    """
    size = space.size
    codes = bytearray([_UNSOLVED]) * size
    pending = bytearray(size)
    frontier: list[int] = []
    status, successors = space.status, space.successors
    for index in range(size):
        if progress is not None and not index % PROGRESS_EVERY:
            progress("classifying positions", index, size)
        state = status(index)
        if state == ONGOING:
            pending[index] = len(successors(index))
        elif state == INVALID:
            codes[index] = NOT_A_POSITION
        elif state == DRAWN:
            codes[index] = DRAW_CODE
        else:
            codes[index] = win_code(0) if state == WON else loss_code(0)
            frontier.append(index)
    predecessors = space.predecessors
    plies = 0
    solved = 0
    while frontier:
        if plies >= MAX_PLIES:
            raise TableError(f"{space.game}: a game lasts more than {MAX_PLIES} plies; codes cannot hold it")
        win, loss = win_code(plies + 1), loss_code(plies + 1)
        following = []
        for index in frontier:
            if codes[index] & 1:
                for parent in predecessors(index):
                    if codes[parent] == _UNSOLVED:
                        codes[parent] = win
                        following.append(parent)
            else:
                for parent in predecessors(index):
                    if codes[parent] == _UNSOLVED:
                        pending[parent] -= 1
                        if not pending[parent]:
                            codes[parent] = loss
                            following.append(parent)
        solved += len(frontier)
        if progress is not None:
            progress("solving backwards", solved, None)
        frontier = following
        plies += 1
    return codes.replace(bytes([_UNSOLVED]), bytes([DRAW_CODE]))


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
