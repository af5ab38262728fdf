"""Numbered position spaces of the games that have solved tables (see ``engine.solve.retrograde.PositionSpace``).

Tic-tac-toe: index = sum over cells of ``value * 3**cell`` (0 empty, 1 X, 2 O); the side to move follows from
the counts. 19,683 indices.

Wolves & Rabbit: ``index = (wolves_rank * 32 + rabbit_square) * 2 + side_to_move``, where ``wolves_rank`` numbers
the four wolves' squares in the combinatorial number system (``C(w1, 1) + C(w2, 2) + C(w3, 3) + C(w4, 4)`` for
squares ``w1 < w2 < w3 < w4``): 35,960 wolf placements x 32 rabbit squares x 2 = 2,301,440 indices.
"""

from __future__ import annotations

from itertools import combinations
from math import comb
from typing import Final

from engine.games.tictactoe import LINE_MASKS, TicTacToe
from engine.games.wolves import ALL_STEPS, DOWN, SQUARE_COUNT, TOP_RANK, UP, WOLF_COUNT, Wolves, squares_of
from engine.solve.retrograde import DRAWN, INVALID, LOST, ONGOING, WON

_POWERS = tuple(3**cell for cell in range(9))


def _has_line(mask: int) -> bool:
    return any(mask & line == line for line in LINE_MASKS)


class TicTacToeSpace:
    """Every tic-tac-toe board a game can reach, numbered in base 3."""

    game: Final = "tictactoe"
    version: Final = 1
    size: Final = 3**9

    @staticmethod
    def _masks(index: int) -> tuple[int, int]:
        x = o = 0
        for cell in range(9):
            index, value = divmod(index, 3)
            if value == 1:
                x |= 1 << cell
            elif value == 2:
                o |= 1 << cell
        return x, o

    def status(self, index: int) -> int:
        """INVALID for boards no game reaches; over when a line is made or the board is full (a draw)."""
        x, o = self._masks(index)
        x_count, o_count = x.bit_count(), o.bit_count()
        if x_count not in (o_count, o_count + 1):
            return INVALID
        x_line, o_line = _has_line(x), _has_line(o)
        if (x_line and (o_line or x_count == o_count)) or (o_line and x_count != o_count):
            return INVALID
        if x_line or o_line:
            return LOST
        return DRAWN if x_count + o_count == 9 else ONGOING

    def successors(self, index: int) -> list[int]:
        """The boards after the side to move marks each empty cell."""
        x, o = self._masks(index)
        value = 1 if x.bit_count() == o.bit_count() else 2
        taken = x | o
        return [index + value * _POWERS[cell] for cell in range(9) if not taken >> cell & 1]

    def predecessors(self, index: int) -> list[int]:
        """The boards before the last mover's marks, each one taken back."""
        x, o = self._masks(index)
        if x.bit_count() == o.bit_count():
            return [index - 2 * _POWERS[cell] for cell in range(9) if o >> cell & 1]
        return [index - _POWERS[cell] for cell in range(9) if x >> cell & 1]

    @staticmethod
    def index_of(state: TicTacToe) -> int:
        """The index of a tic-tac-toe position."""
        return sum(_POWERS[c] * (1 if state.x >> c & 1 else 2) for c in range(9) if (state.x | state.o) >> c & 1)

    def state_of(self, index: int) -> TicTacToe:
        """A position with this index (its move order is one of the possible ones: X and O alternating)."""
        x, o = self._masks(index)
        xs, os = squares_of(x), squares_of(o)
        cells = [c for pair in zip(xs, [*os, None], strict=False) for c in pair if c is not None]
        return TicTacToe(tuple(cells), x, o)


_BINOMIALS = tuple(tuple(comb(square, k) for square in range(SQUARE_COUNT)) for k in range(WOLF_COUNT + 1))


def wolves_rank(mask: int) -> int:
    """The combinatorial-number-system rank (0-35959) of four wolves' squares given as a mask."""
    return sum(_BINOMIALS[k][square] for k, square in enumerate(squares_of(mask), start=1))


class WolvesSpace:
    """Every placement of the rabbit and four wolves on the 32 dark squares, with either side to move."""

    game: Final = "wolves"
    version: Final = 1
    placements: Final = comb(SQUARE_COUNT, WOLF_COUNT)
    size: Final = placements * SQUARE_COUNT * 2

    def __init__(self) -> None:
        masks = [0] * self.placements
        for squares in combinations(range(SQUARE_COUNT), WOLF_COUNT):
            mask = sum(1 << s for s in squares)
            masks[wolves_rank(mask)] = mask
        rank_of = {mask: rank for rank, mask in enumerate(masks)}
        self.masks = masks
        self._wolf_moves: list[tuple[tuple[int, int], ...]] = []
        self._wolf_unmoves: list[tuple[tuple[int, int], ...]] = []
        for mask in masks:
            moves, unmoves = [], []
            for wolf in squares_of(mask):
                for target in DOWN[wolf]:
                    if not mask >> target & 1:
                        moves.append((rank_of[mask ^ (1 << wolf | 1 << target)] * 64, target))
                for source in UP[wolf]:
                    if not mask >> source & 1:
                        unmoves.append((rank_of[mask ^ (1 << wolf | 1 << source)] * 64 + 1, source))
            self._wolf_moves.append(tuple(moves))
            self._wolf_unmoves.append(tuple(unmoves))

    def status(self, index: int) -> int:
        """INVALID when the rabbit shares a wolf's square; over as ``Wolves.outcome`` says."""
        rabbit = index >> 1 & 31
        placement = index >> 6
        mask = self.masks[placement]
        if mask >> rabbit & 1:
            return INVALID
        if rabbit >> 2 == TOP_RANK:
            return LOST if index & 1 else WON
        if index & 1:
            return ONGOING if any(target != rabbit for _, target in self._wolf_moves[placement]) else LOST
        return ONGOING if any(not mask >> t & 1 for t in ALL_STEPS[rabbit]) else LOST

    def successors(self, index: int) -> list[int]:
        """The indices after each legal move of the side to move."""
        rabbit = index >> 1 & 31
        placement = index >> 6
        if index & 1:
            return [base + 2 * rabbit for base, target in self._wolf_moves[placement] if target != rabbit]
        mask = self.masks[placement]
        base = placement * 64 + 1
        return [base + 2 * t for t in ALL_STEPS[rabbit] if not mask >> t & 1]

    def predecessors(self, index: int) -> list[int]:
        """The indices one move earlier: a wolf one step back up, or the rabbit one step back."""
        rabbit = index >> 1 & 31
        placement = index >> 6
        if index & 1:
            mask = self.masks[placement]
            base = placement * 64
            return [base + 2 * s for s in ALL_STEPS[rabbit] if not mask >> s & 1]
        return [base + 2 * rabbit for base, source in self._wolf_unmoves[placement] if source != rabbit]

    @staticmethod
    def index_of(state: Wolves) -> int:
        """The index of a Wolves & Rabbit position."""
        return (wolves_rank(state.wolves) * 32 + state.rabbit) * 2 + state.player

    def state_of(self, index: int) -> Wolves:
        """The position with this index (it may have the rabbit on a wolf: check ``status`` first)."""
        return Wolves(index >> 1 & 31, self.masks[index >> 6], index & 1)
