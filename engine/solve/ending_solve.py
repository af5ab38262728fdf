"""Retrograde analysis of a chess ending (``engine.solve.ending_space``): every position's distance to mate.

Codes are those of ``engine.solve.retrograde`` (one byte, for the side to move: not a position, a draw, or a win or
loss in so many plies). A move that captures or promotes leaves the table: its value is read from the table of the
material it leads to (``probe_pieces``), which must be solved first; every other move stays in the table.

``solve_ending`` works level by level: at level ``d`` it settles the positions that are won or lost in ``d``
plies. A position is won in ``d + 1`` when a move leads to a loss in ``d`` (in the table, or through an exit); it
is lost in ``d + 1`` when every move leads to a win for the opponent and the longest of them is a win in ``d``
(each position counts its distinct successors in the table and hears from each once it is settled as a win);
whatever is never settled is a draw. The symmetries that number the positions make "distinct" mean distinct
indices, on both sides: successors counted by index, predecessors listed by index. Compiled with the engine's hot
modules (docs/compiled.md).
"""

from __future__ import annotations

from collections.abc import Callable

from librt.vecs import append, vec
from mypy_extensions import i64

from engine.solve.ending_space import (
    DRAWN_MATERIALS,
    KING,
    KING_TARGETS,
    NO_SQUARE,
    PAWN,
    QUEEN,
    EndingSpace,
    material_name,
    oriented,
)
from engine.solve.retrograde import DRAW_CODE, MAX_PLIES, NOT_A_POSITION, TableError, loss_code, win_code

PROMOTIONS = (QUEEN, 4, 3, 2)
"""Queen, rook, bishop, knight."""
_UNSOLVED = 255
_NONE = 255
"""``exit_longest``: no exit leads to a win of the opponent; also "no win through an exit" while classifying."""
_CANNOT_LOSE = 254
"""``exit_longest``: an exit leads to a draw or a win, so the position is never lost."""
Tables = dict[str, tuple[EndingSpace, bytes]]
"""Solved tables by material: the space and its codes."""
Progress = Callable[[str, int, int | None], None]


def probe_pieces(tables: Tables, types: list[int], colours: list[int], squares: list[int], side: int) -> int:
    """The code of a position given piece by piece (a piece on ``NO_SQUARE`` is not on the board) with ``side``
    to move, read from the table of its material (turned over when that table has the colours the other way).
    ``TableError`` when that table is not in ``tables``."""
    name = material_name(types, colours, squares)
    table, turned = oriented(name)
    if table in DRAWN_MATERIALS:
        return DRAW_CODE
    if table not in tables:
        raise TableError(f"the table of {table} is needed first")
    space, codes = tables[table]
    flip = 1 if turned else 0
    ordered = [0] * space.count
    taken = [False] * len(types)
    for slot in range(space.count):
        for piece in range(len(types)):
            if (not taken[piece] and squares[piece] != NO_SQUARE and types[piece] == space.types[slot]
                    and colours[piece] ^ flip == space.colours[slot]):
                taken[piece] = True
                ordered[slot] = squares[piece] ^ 56 if turned else squares[piece]
                break
    return codes[space.index_of(ordered, side ^ flip)]


def solve_ending(space: EndingSpace, tables: Tables, progress: Progress | None = None) -> bytearray:
    """The code of every index of ``space`` (see the module docstring); ``tables`` holds the solved tables its
    captures and promotions lead to. ``progress`` hears ("classifying positions", done, size) every 65,536
    indices, then ("solving backwards", positions settled, None) after each level. ``TableError`` when a table it
    needs is missing or a mate is longer than ``MAX_PLIES``."""
    size = space.size
    codes = bytearray([_UNSOLVED]) * size
    pending = bytearray(size)
    exit_longest = bytearray([_NONE]) * size
    buckets: list[vec[i64]] = [vec[i64]() for _ in range(MAX_PLIES + 2)]
    for index in range(size):
        if progress is not None and not index & 0xFFFF:
            progress("classifying positions", index, size)
        _classify(space, tables, index, codes, pending, exit_longest, buckets)
    settled = 0
    for level in range(MAX_PLIES + 1):
        frontier = vec[i64]()
        for entry in buckets[level]:
            index = int(entry >> 1)
            if codes[index] != _UNSOLVED:
                continue
            codes[index] = loss_code(level) if entry & 1 else win_code(level)
            frontier = append(frontier, i64(index))
        buckets[level] = vec[i64]()
        for index in frontier:
            _tell_predecessors(space, int(index), level, codes, pending, exit_longest, buckets)
        settled += len(frontier)
        if progress is not None:
            progress("solving backwards", settled, None)
    for bucket in buckets:
        if len(bucket):
            raise TableError(f"{space.material}: a mate lasts more than {MAX_PLIES} plies; codes cannot hold it")
    return codes.replace(bytes([_UNSOLVED]), bytes([DRAW_CODE]))


def _schedule(buckets: list[vec[i64]], level: int, index: int, loss: bool) -> None:
    if level > MAX_PLIES + 1:
        raise TableError(f"a mate lasts more than {MAX_PLIES} plies; codes cannot hold it")
    buckets[level] = append(buckets[level], i64(index * 2 + (1 if loss else 0)))


def _classify(space: EndingSpace, tables: Tables, index: int, codes: bytearray, pending: bytearray,
              exit_longest: bytearray, buckets: list[vec[i64]]) -> None:
    """Look at index ``index`` once: not a position, mate (settled at level 0), stalemate (a draw), or its
    distinct successors in the table counted and its exits judged (a win through one scheduled; a draw or a win
    through one forbids a loss; the longest loss through one kept)."""
    side = index & 1
    squares = space.squares_of(index)
    if not space.is_position(squares, side, index):
        codes[index] = NOT_A_POSITION
        return
    successors: set[int] = set()
    quickest_win = _NONE
    longest_loss = -1
    can_lose = True
    moved = False
    types = list(space.types)
    for slot in range(space.count):
        if space.colours[slot] != side:
            continue
        start = squares[slot]
        for target in space.destinations(slot, squares):
            victim = space.captured_on(target, squares)
            squares[slot] = target
            if victim >= 0:
                squares[victim] = NO_SQUARE
            king = target if space.types[slot] == KING else squares[side]
            if not space.attacked(king, 1 - side, squares):
                moved = True
                last_rank = space.types[slot] == PAWN and (target >= 56 or target < 8)
                if victim < 0 and not last_rank:
                    successors.add(space.index_of(squares, 1 - side))
                else:
                    for promotion in PROMOTIONS if last_rank else (0,):
                        if promotion:
                            types[slot] = promotion
                        code = probe_pieces(tables, types, space.colours, squares, 1 - side)
                        types[slot] = space.types[slot]
                        if code == NOT_A_POSITION:
                            raise TableError(f"{space.material}: an exit to no position")
                        if code == DRAW_CODE:
                            can_lose = False
                        elif code & 1:  # the opponent loses
                            can_lose = False
                            quickest_win = min(quickest_win, (code - 3) >> 1)
                        else:
                            longest_loss = max(longest_loss, (code - 2) >> 1)
            squares[slot] = start
            if victim >= 0:
                squares[victim] = target
    if not moved:
        if space.attacked(squares[side], 1 - side, squares):
            _schedule(buckets, 0, index, loss=True)
        else:
            codes[index] = DRAW_CODE
        return
    if quickest_win != _NONE:
        _schedule(buckets, quickest_win + 1, index, loss=False)
    pending[index] = len(successors)
    if not can_lose:
        exit_longest[index] = _CANNOT_LOSE
    elif longest_loss >= 0:
        exit_longest[index] = longest_loss
    if can_lose and not successors:
        _schedule(buckets, longest_loss + 1, index, loss=True)


def _tell_predecessors(space: EndingSpace, index: int, level: int, codes: bytearray, pending: bytearray,
                       exit_longest: bytearray, buckets: list[vec[i64]]) -> None:
    """Position ``index`` was just settled at ``level``: a loss makes each unsettled predecessor a win at the next
    level; a win counts down each one's successors, and the last of them schedules its loss."""
    side = index & 1
    mover = 1 - side
    squares = space.squares_of(index)
    lost = codes[index] & 1 == 1
    seen: set[int] = set()
    for slot in range(space.count):
        if space.colours[slot] != mover:
            continue
        start = squares[slot]
        for origin in space.origins(slot, squares):
            squares[slot] = origin
            if squares[1] not in KING_TARGETS[squares[0]] and not space.attacked(squares[side], mover, squares):
                parent = space.index_of(squares, mover)
                if parent not in seen:
                    seen.add(parent)
                    if codes[parent] == _UNSOLVED:
                        if lost:
                            _schedule(buckets, level + 1, parent, loss=False)
                        elif not pending[parent]:
                            raise TableError(f"{space.material}: index {parent} heard from more successors than it has")
                        else:
                            pending[parent] -= 1
                            longest = exit_longest[parent]
                            if not pending[parent] and longest != _CANNOT_LOSE:
                                exits = -1 if longest == _NONE else longest
                                _schedule(buckets, max(level, exits) + 1, parent, loss=True)
            squares[slot] = start

