"""Retrograde analysis of small games: every position's value under perfect play, worked backwards from the ends.

A game whose positions can be numbered ``0 .. size-1`` describes them with a ``PositionSpace``; ``solve`` gives
every position a one-byte code, from the point of view of the side to move: ``NOT_A_POSITION`` (0), ``DRAW_CODE``
(1), or ``2 + 2 * plies + (1 for a loss)`` (a win as fast as possible, a loss as slow as possible). Players
alternate: every move hands the turn to the other side. Compiled with the engine's hot modules (docs/compiled.md);
``engine.solve.tablebase`` keeps and reads the tables.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol

from mypy_extensions import mypyc_attr

INVALID, ONGOING, WON, LOST, DRAWN = range(5)
"""Statuses a ``PositionSpace`` gives an index: not a position, game going on, or over (for the side to move)."""

NOT_A_POSITION = 0
DRAW_CODE = 1
MAX_PLIES = 125
"""Longest distance a one-byte code can hold."""
_UNSOLVED = 255

@mypyc_attr(native_class=False)  # a compiled class cannot derive from ValueError
class TableError(ValueError):
    """A table that cannot be made or read: a game too long for its codes, or a file that is missing, damaged, or
    made for another game or another index layout."""


class PositionSpace(Protocol):
    """The positions of one game, numbered ``0 .. size-1``.

    ``status(i)``: INVALID (no position has this number), ONGOING, or WON / LOST / DRAWN when the game is over
    (from the point of view of the side to move). ``successors(i)``: the indices after each legal move of an
    ONGOING position (the other side to move). ``predecessors(i)``: every ONGOING index ``p`` whose successors
    contain ``i`` (each once); it may also list indices that are INVALID or finished, which are skipped.
    """

    @property
    def game(self) -> str: ...

    @property
    def version(self) -> int: ...

    @property
    def size(self) -> int: ...

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
