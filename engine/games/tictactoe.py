"""Tic-tac-toe on a 3x3 board.

Cells are numbered 1-9 row by row from the top left::

    1 2 3
    4 5 6
    7 8 9

Move notation: the cell number, "5". Position notation: the cells played so far in order, X first, e.g. "5193"
(the empty board is ""). X is player 0 and moves first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from engine.game import WIN, IllegalMoveError, InvalidSetupError, Outcome, play_digits

LINES = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),
    (0, 3, 6), (1, 4, 7), (2, 5, 8),
    (0, 4, 8), (2, 4, 6),
)
LINE_MASKS = tuple(sum(1 << c for c in line) for line in LINES)
FULL = (1 << 9) - 1
CENTER_FIRST = (4, 0, 2, 6, 8, 1, 3, 5, 7)
"""Cells (0-based) in the order a good player considers them: centre, corners, edges."""

_SYMMETRIES = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8), (2, 5, 8, 1, 4, 7, 0, 3, 6), (8, 7, 6, 5, 4, 3, 2, 1, 0),
    (6, 3, 0, 7, 4, 1, 8, 5, 2), (2, 1, 0, 5, 4, 3, 8, 7, 6), (6, 7, 8, 3, 4, 5, 0, 1, 2),
    (0, 3, 6, 1, 4, 7, 2, 5, 8), (8, 5, 2, 7, 4, 1, 6, 3, 0),
)


def _transform(mask: int, mapping: tuple[int, ...]) -> int:
    return sum(1 << mapping[c] for c in range(9) if mask >> c & 1)


_HAS_LINE = tuple(any(mask & line == line for line in LINE_MASKS) for mask in range(FULL + 1))
"""For each set of cells (a 9-bit mask), whether it holds three in a row."""


def _has_line(mask: int) -> bool:
    return _HAS_LINE[mask]


_X_WINS, _O_WINS, _DRAW = Outcome(0, "three in a row"), Outcome(1, "three in a row"), Outcome(None, "board full")


@dataclass(frozen=True, slots=True)
class TicTacToe:
    """A tic-tac-toe position: ``cells`` holds the 0-based cells played, in order; ``x`` and ``o`` are
    bitmasks of each side's cells (bit i = cell i+1), kept beside the history for speed."""

    cells: tuple[int, ...] = ()
    x: int = 0
    o: int = 0

    name: ClassVar[str] = "tictactoe"
    title: ClassVar[str] = "Tic-tac-toe"
    move_notation: ClassVar[str] = (
        "the cell, 1 to 9 row by row from the top left, as numbered on the board")
    """How its moves are written, in words (the move list says it)."""
    order_hint_label: ClassVar[str] = "lines through the cell"
    """What ``order_hint`` rates, in a few words (the search stepper names each move's place by it)."""
    score_unit: ClassVar[str] = (
        "lines: the lines still open for the engine minus those still open for its opponent (a guess, before "
        "the search sees the end)")
    """What a heuristic score counts, in words (decided scores read "win in N" / "loss in N")."""
    score_axis: ClassVar[str] = "lines"
    """The unit of a chart's value axis, in one word ("" for none: no heuristic scores)."""
    players: ClassVar[tuple[str, str]] = ("X", "O")

    @classmethod
    def initial(cls, **options: Any) -> TicTacToe:
        """The empty board; tic-tac-toe takes no options."""
        if options:
            raise InvalidSetupError(f"tic-tac-toe takes no options, got {', '.join(sorted(options))}")
        return cls()

    @classmethod
    def from_setup(cls, text: str) -> TicTacToe:
        """The position after the cells in ``text`` (digits 1-9) are played in order."""
        return play_digits(cls(), text, 9, "cell")

    def setup(self) -> str:
        """The cells played, in order, as digits 1-9."""
        return "".join(str(c + 1) for c in self.cells)

    @property
    def to_move(self) -> int:
        """0 when X is to move, 1 for O."""
        return len(self.cells) % 2

    @property
    def key(self) -> int:
        """Exact key: X's mask in the low 9 bits, O's in the next 9."""
        return self.x | self.o << 9

    @property
    def symmetric_key(self) -> int:
        """The smallest key over the board's 8 symmetries (rotations and reflections)."""
        x, o = self.x, self.o
        return min(_transform(x, m) | _transform(o, m) << 9 for m in _SYMMETRIES)

    def legal_moves(self) -> list[int]:
        """Empty cells (0-based), centre first, then corners, then edges; none once the game is over."""
        if _HAS_LINE[self.x] or _HAS_LINE[self.o]:
            return []
        taken = self.x | self.o
        return [c for c in CENTER_FIRST if not taken >> c & 1]

    def play(self, move: int) -> TicTacToe:
        """The position after the side to move marks cell ``move`` (0-based)."""
        if not isinstance(move, int) or isinstance(move, bool) or not 0 <= move < 9:
            raise IllegalMoveError(f"{move!r} is not a cell; cells are 1-9")
        if (self.x | self.o) >> move & 1:
            raise IllegalMoveError(f"cell {move + 1} is already taken")
        if _HAS_LINE[self.x] or _HAS_LINE[self.o]:
            raise IllegalMoveError("the game is over")
        if len(self.cells) % 2 == 0:
            return TicTacToe((*self.cells, move), self.x | 1 << move, self.o)
        return TicTacToe((*self.cells, move), self.x, self.o | 1 << move)

    def outcome(self) -> Outcome | None:
        """Three in a row wins; a full board without one is a draw."""
        if _HAS_LINE[self.x]:
            return _X_WINS
        if _HAS_LINE[self.o]:
            return _O_WINS
        if len(self.cells) == 9:
            return _DRAW
        return None

    def evaluate(self) -> int:
        """Lines still open for the side to move minus lines still open for the opponent."""
        mine, theirs = (self.x, self.o) if self.to_move == 0 else (self.o, self.x)
        return sum((not line & theirs) - (not line & mine) for line in LINE_MASKS)

    def score_bounds(self) -> tuple[int, int]:
        """Bounds on this position's value for the side to move, from the rules (plies counted from here).

        A win on the next move is worth exactly ``WIN - 1``; otherwise no win comes before ply 3 and no loss
        before ply 2; a side with no line left open cannot win, so the other side scores at least a draw. The
        bounds also hold for depth-limited values, because ``evaluate`` never promises a side without an open line
        more than 0.
        """
        mine, theirs = (self.x, self.o) if self.to_move == 0 else (self.o, self.x)
        empty = FULL & ~(mine | theirs)
        if any(bin(line & mine).count("1") == 2 and line & empty for line in LINE_MASKS):
            return WIN - 1, WIN - 1
        high = WIN - 3 if any(not line & theirs for line in LINE_MASKS) else 0
        low = -(WIN - 2) if any(not line & mine for line in LINE_MASKS) else 0
        return low, high

    def non_losing_moves(self) -> list[int]:
        """The legal moves after which the opponent cannot win on their next move (a winning move counts as
        non-losing); empty when every move lets the opponent complete a line."""
        mine, theirs = (self.x, self.o) if self.to_move == 0 else (self.o, self.x)
        moves = self.legal_moves()
        wins = {c for c in moves if _has_line(mine | 1 << c)}
        threats = {c for c in moves if _has_line(theirs | 1 << c)}
        if len(threats) == 1:
            wins |= threats
        return moves if not threats and not wins else [c for c in moves if c in wins or not threats]

    def order_hint(self, move: int) -> int:
        """Prefer cells on more lines: centre 4, corners 3, edges 2."""
        return sum(1 for line in LINE_MASKS if line >> move & 1)

    def parse_move(self, text: str) -> int:
        """Cell "1"-"9" to a 0-based cell, checked for legality."""
        text = text.strip()
        if len(text) != 1 or text not in "123456789":
            raise IllegalMoveError(f"{text!r} is not a cell; cells are 1-9")
        move = int(text) - 1
        if move not in self.legal_moves():
            raise IllegalMoveError(
                "the game is over" if self.outcome() else f"cell {text} is already taken")
        return move

    def move_text(self, move: int) -> str:
        """The cell number 1-9."""
        return str(move + 1)

    def view(self) -> dict[str, Any]:
        """``cells``: 9 entries "X", "O" or None; ``last``: last cell played (1-9) or None; ``legal``; ``to_move``."""
        x, o = self.x, self.o
        winning = next((list(line) for line, m in zip(LINES, LINE_MASKS, strict=True)
                        if x & m == m or o & m == m), None)
        return {
            "cells": ["X" if x >> c & 1 else "O" if o >> c & 1 else None for c in range(9)],
            "last": self.cells[-1] + 1 if self.cells else None,
            "winning_line": [c + 1 for c in winning] if winning else None,
            "legal": [self.move_text(m) for m in self.legal_moves()],
            "to_move": self.to_move,
        }


GAME_STATE = TicTacToe
