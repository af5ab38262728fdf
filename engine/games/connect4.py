"""Connect Four: 7 columns, 6 rows; stones drop to the lowest empty cell; four in a row (any direction) wins.

Columns are numbered 1-7 from the left, rows 1-6 from the bottom. Player 0 ("Red") moves first.

Move notation: the column digit, "4". Position notation: Pascal Pons' column sequence, the columns played from the
empty board in order, e.g. "4453" (the empty board is ""). A sequence may end in a won game; no move may follow it.

Bitboards use Pons' layout: bit ``7 * column + row`` (0-based, row 0 at the bottom), 7 bits per column of which the
top one is an always-empty sentinel, so shifts by 1, 6, 7 and 8 walk the four directions without wrapping.
``position`` holds the stones of the side to move and ``mask`` all stones; ``position + mask`` is an exact key.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.game import WIN, IllegalMoveError, InvalidSetupError, Outcome, play_digits
from engine.games.connect4_bits import BOARD, BOTTOM, CELLS, HEIGHT, WIDTH, has_four, winning_cells
from engine.games.connect4_heuristic import heuristic_score

COLUMN_MASKS = tuple(((1 << HEIGHT) - 1) << (HEIGHT + 1) * c for c in range(WIDTH))
BOTTOM_CELLS = tuple(1 << (HEIGHT + 1) * c for c in range(WIDTH))
TOP_CELLS = tuple(1 << (HEIGHT + 1) * c + HEIGHT - 1 for c in range(WIDTH))
COLUMN_ORDER = (3, 2, 4, 1, 5, 0, 6)
"""Columns (0-based) centre first, the order moves are listed and tried in."""
CENTRE_BONUS = (0, 1, 2, 3, 2, 1, 0)
def four_cells(stones: int) -> int:
    """Every cell of ``stones`` that belongs to some four in a row (a bitboard; 0 when there is none)."""
    cells = 0
    for shift in (1, HEIGHT + 1, HEIGHT, HEIGHT + 2):
        pairs = stones & (stones >> shift)
        starts = pairs & (pairs >> 2 * shift)
        for step in range(4):
            cells |= starts << step * shift
    return cells


def _cell(column: int, row: int) -> int:
    return 1 << (HEIGHT + 1) * column + row


@dataclass(frozen=True, slots=True)
class Connect4:
    """A Connect Four position: the columns played (0-based, in order) and Pons' bitboards.

    ``position`` holds the stones of the side to move, ``mask`` every stone; the other fields are derived by
    ``play`` (build states with ``initial``, ``from_setup`` and ``play``). Equality and hashing use the board only,
    so two move orders reaching the same board give equal states.
    """

    history: tuple[int, ...] = field(default=(), compare=False)
    position: int = 0
    mask: int = 0
    mirror_position: int = field(default=0, compare=False, repr=False)
    """``position`` reflected left-right, kept up to date by ``play`` so that ``symmetric_key`` costs nothing."""
    mirror_mask: int = field(default=0, compare=False, repr=False)
    won: bool = field(default=False, compare=False, repr=False)
    """True when the side that just moved completed four in a row (set by ``play``)."""

    name: ClassVar[str] = "connect4"
    title: ClassVar[str] = "Connect Four"
    move_notation: ClassVar[str] = (
        "the column the disc is dropped in, 1 (left) to 7, as numbered under the board")
    """How its moves are written, in words (the move list says it)."""
    order_hint_label: ClassVar[str] = "a win (1000) or nearness to the centre"
    """What ``order_hint`` rates, in a few words (the search stepper names each move's place by it)."""
    score_unit: ClassVar[str] = (
        "points of a heuristic: 1 for each stone in a line of four the opponent has not blocked, 2 more for "
        "such a line holding two, 12 for each threat on a good row (6 on another) and 20 more for a threat "
        "just above another")
    """What a heuristic score counts, in words (decided scores read "win in N" / "loss in N")."""
    score_axis: ClassVar[str] = "points"
    """The unit of a chart's value axis, in one word ("" for none: no heuristic scores)."""
    players: ClassVar[tuple[str, str]] = ("Red", "Yellow")
    score_scale: ClassVar[int] = 1
    """Evaluation units per displayed point: scores are small integers shown as they are ("+3")."""

    @classmethod
    def initial(cls, **options: Any) -> Connect4:
        """The empty board; Connect Four takes no options."""
        if options:
            raise InvalidSetupError(f"Connect Four takes no options, got {', '.join(sorted(options))}")
        return cls()

    @classmethod
    def from_setup(cls, text: str) -> Connect4:
        """The position after the columns in ``text`` (Pons' sequence, digits 1-7) are played in order."""
        return play_digits(cls(), text, 7, "column")

    def setup(self) -> str:
        """The columns played, in order, as digits 1-7 (Pons' sequence)."""
        return "".join(str(c + 1) for c in self.history)

    @property
    def moves(self) -> int:
        """Stones on the board."""
        return len(self.history)

    @property
    def to_move(self) -> int:
        """0 when Red (the first player) is to move, 1 for Yellow."""
        return len(self.history) & 1

    @property
    def key(self) -> int:
        """Pons' exact key, ``position + mask`` (49 bits)."""
        return self.position + self.mask

    @property
    def symmetric_key(self) -> int:
        """The smaller of the keys of this board and of its mirror image."""
        return min(self.position + self.mask, self.mirror_position + self.mirror_mask)

    def stones_of(self, player: int) -> int:
        """Bitboard of ``player``'s stones (0 or 1)."""
        return self.position if player == self.to_move else self.position ^ self.mask

    def can_play(self, column: int) -> bool:
        """True when ``column`` (0-based) has an empty cell."""
        return not self.mask & TOP_CELLS[column]

    def legal_moves(self) -> list[int]:
        """Columns (0-based) that are not full, centre first; none once the game is over."""
        if self.won:
            return []
        mask = self.mask
        return [c for c in COLUMN_ORDER if not mask & TOP_CELLS[c]]

    def play(self, move: int) -> Connect4:
        """The position after the side to move drops a stone in column ``move`` (0-based)."""
        if not isinstance(move, int) or isinstance(move, bool) or not 0 <= move < WIDTH:
            raise IllegalMoveError(f"{move!r} is not a column; columns are 1-7")
        mask = self.mask
        if mask & TOP_CELLS[move]:
            raise IllegalMoveError(f"column {move + 1} is full")
        if self.won:
            raise IllegalMoveError("the game is over")
        stone = (mask + BOTTOM_CELLS[move]) & COLUMN_MASKS[move]
        mirror_mask = self.mirror_mask
        mirrored = WIDTH - 1 - move
        mirror_stone = (mirror_mask + BOTTOM_CELLS[mirrored]) & COLUMN_MASKS[mirrored]
        return Connect4((*self.history, move), self.position ^ mask, mask | stone,
                        self.mirror_position ^ mirror_mask, mirror_mask | mirror_stone, has_four(self.position | stone))

    def outcome(self) -> Outcome | None:
        """Four in a row wins (only the side that just moved can have one); a full board without one is a draw."""
        if self.won:
            return Outcome(1 - self.to_move, "four in a row")
        if len(self.history) == CELLS:
            return Outcome(None, "board full")
        return None

    def evaluate(self) -> int:
        """Heuristic score for the side to move, in small units (a good threat is worth 12, a stone in an open
        window 1).

        Open windows: every four-cell line holding none of the opponent's stones counts 1 for each of the side's
        stones in it, plus ``OPEN_TWO`` when it holds two or more. Threats (empty cells where one stone would
        complete four) count ``THREAT`` on their owner's good row parity (rows 1, 3, 5 for the first player, 2, 4,
        6 for the second: the zugzwang at the end of the game fills the others first), ``WEAK_THREAT`` otherwise,
        and ``STACKED`` more with another threat of the same side just below. The opponent's figures are
        subtracted. A position the side to move wins at once scores ``DECISIVE``; one where the opponent has two
        playable threats, or a playable threat with another just above it, scores ``-DECISIVE``.
        """
        return heuristic_score(self.position, self.mask, len(self.history) & 1 == 0)

    def order_hint(self, move: int) -> int:
        """Higher for moves worth searching first: a win (1000), then nearness to the centre (3 down to 0).

        Counting the threats each move creates (Pons' order, which the exact solver keeps) costs a third of the
        depth-limited search's time and saves no nodes there: its TT, killers and history already order well.
        """
        mask = self.mask
        if has_four(self.position | (mask + BOTTOM_CELLS[move]) & COLUMN_MASKS[move]):
            return 1000
        return CENTRE_BONUS[move]

    def non_losing_moves(self) -> list[int]:
        """Legal moves that do not let the opponent win on the next move (Pons' ``possibleNonLosingMoves``).

        When the opponent threatens to win at a playable cell, only the block is left; against two such threats
        nothing is (the list is empty: every move loses). When the side to move can win at once, every legal
        move is returned (the win is among them).
        """
        if self.outcome() is not None:
            return []
        mask = self.mask
        playable = (mask + BOTTOM) & BOARD
        if winning_cells(self.position, mask) & playable:
            return self.legal_moves()
        threats = winning_cells(self.position ^ mask, mask)
        forced = playable & threats
        if forced:
            if forced & (forced - 1):
                return []
            playable = forced
        playable &= ~(threats >> 1)
        return [c for c in COLUMN_ORDER if playable & COLUMN_MASKS[c]]

    def score_bounds(self) -> tuple[int, int]:
        """Exact bounds on the game value for the side to move, in the engine's ``WIN - plies`` convention.

        A side needs four stones to win and can only play every other ply, so the side to move wins at the
        earliest on its ``max(1, 4 - stones it has)``-th stone from now and loses at the earliest on the opponent's
        ``max(1, 4 - stones the opponent has)``-th; a side with too few moves left to get there cannot win at all
        (the bound is then a draw, 0). A finished game gets its exact value for both bounds.
        """
        outcome = self.outcome()
        if outcome is not None:
            value = 0 if outcome.winner is None else -WIN
            return value, value
        empty = CELLS - len(self.history)
        mine = self.position.bit_count()
        theirs = len(self.history) - mine
        my_need = max(1, 4 - mine)
        their_need = max(1, 4 - theirs)
        high = WIN - (2 * my_need - 1) if my_need <= (empty + 1) // 2 else 0
        low = -(WIN - 2 * their_need) if their_need <= empty // 2 else 0
        return low, high

    def parse_move(self, text: str) -> int:
        """Column "1"-"7" to a 0-based column, checked for legality."""
        text = text.strip() if isinstance(text, str) else text
        if not isinstance(text, str) or len(text) != 1 or text not in "1234567":
            raise IllegalMoveError(f"{text!r} is not a column; columns are 1-7")
        move = int(text) - 1
        if self.outcome() is not None:
            raise IllegalMoveError("the game is over")
        if not self.can_play(move):
            raise IllegalMoveError(f"column {text} is full")
        return move

    def move_text(self, move: int) -> str:
        """The column number 1-7."""
        return str(move + 1)

    def view(self) -> dict[str, Any]:
        """What the browser draws.

        ``cells``: 6 rows from the top row down, each 7 entries: 0 (Red), 1 (Yellow) or None (empty).
        ``last``: ``{"column": 1-7, "row": 1-6}`` of the last stone (row 1 at the bottom), or None.
        ``winning_cells``: ``[{"column", "row"}, ...]`` of every stone in a four in a row (empty while none).
        ``legal``: legal moves as text; ``to_move``: 0 or 1; ``moves``: stones on the board.
        """
        red = self.stones_of(0)
        cells = []
        for row in range(HEIGHT - 1, -1, -1):
            cells.append([
                None if not self.mask & _cell(c, row) else 0 if red & _cell(c, row) else 1 for c in range(WIDTH)
            ])
        last = None
        if self.history:
            column = self.history[-1]
            height = (self.mask & COLUMN_MASKS[column]).bit_count()
            last = {"column": column + 1, "row": height}
        winners = four_cells(self.position ^ self.mask)
        winning = [
            {"column": c + 1, "row": row + 1}
            for c in range(WIDTH) for row in range(HEIGHT) if winners & _cell(c, row)
        ]
        return {
            "cells": cells,
            "last": last,
            "winning_cells": winning,
            "legal": [self.move_text(m) for m in self.legal_moves()],
            "to_move": self.to_move,
            "moves": len(self.history),
        }


GAME_STATE = Connect4
