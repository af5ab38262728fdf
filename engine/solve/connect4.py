"""Exact Connect Four solver: Pascal Pons' algorithm, flattened for CPython.

Scores follow Pons' convention, from the side to move: 0 for a draw; if the side to move wins with its k-th stone
from now, the score is ``(42 - stones_played - 2k + 3) // 2`` (22 minus the stones the winner has played when the
game ends); a loss is the opposite of the winner's score. ``pons_to_engine`` turns it into the engine's
``WIN - plies`` convention.

The algorithm (Pons, "Solving Connect 4: how to build a perfect AI"): negamax with alpha-beta pruning, called with
null windows by an outer loop that narrows the [min, max] score interval (iterative deepening on the score); a
transposition table keyed by ``position + mask`` keeping a lower or an upper bound; moves ordered by the number of
winning cells each creates (ties: centre first); moves that hand the opponent an immediate win never searched, and a
forced block played at once. Bitboards use Pons' layout: 7 bits per column, bit ``7 * column + row``, row 0 at the
bottom and row 6 an always-empty sentinel.

The search works on raw ints (``position`` = stones of the side to move, ``mask`` = all stones, ``moves`` = stones
played) inside one recursive function with every constant inlined: CPython spends its time on bytecodes, so the hot
path avoids method calls, attribute look-ups and objects per node. One saving is not in Pons' code: the score of a
move (the winning cells it creates) is exactly the opponent-threat board the child node needs for its own
non-losing moves, so the parent passes it down and every node computes threats once per child instead of once per
child plus once for itself. Node counts are Pons' (his published means, within 2%); a straightforward port of his
code, timed alongside on the same sets, takes about 2.5 times as long per position.
"""

from __future__ import annotations

from collections.abc import Callable
from time import perf_counter
from typing import Protocol

from engine.game import WIN, InvalidSetupError
from engine.games.connect4 import BOARD, BOTTOM, CELLS, COLUMN_MASKS, COLUMN_ORDER, has_four, winning_cells

DEFAULT_MAX_ENTRIES = 1 << 22
"""Table entries kept before the table is emptied (about 400 MB at most)."""

# Column masks indexed by a tie-break rank: rank 7 - i is COLUMN_ORDER[i], so sorting (score << 3 | rank) in
# descending order gives the best score first and, among equal scores, the column nearest the centre.
_RANK_MASKS = tuple(COLUMN_MASKS[COLUMN_ORDER[7 - rank]] if 1 <= rank <= 7 else 0 for rank in range(8))


class BitboardPosition(Protocol):
    """What the solver reads from a position: Pons' bitboards and the number of stones played."""

    @property
    def position(self) -> int: ...

    @property
    def mask(self) -> int: ...

    @property
    def moves(self) -> int: ...


class SolveTimeout(TimeoutError):
    """The solve's deadline passed before the score was proven."""


def _c_half(value: int) -> int:
    """``value / 2`` rounded toward zero, as C's integer division does (Pons' arithmetic)."""
    return -((-value) >> 1) if value < 0 else value >> 1


class Solver:
    """Pons' exact solver with a transposition table that lives until ``reset()``.

    ``solve(position)`` returns the exact score in Pons' convention; ``nodes`` is the number of negamax calls the
    last ``solve`` made (Pons' ``getNodeCount``). The table is a dict with exact keys rather than Pons' fixed array
    of 2^23 + 9 partial keys: clearing a dict costs what it holds, while refilling a list of 2^23 slots takes about
    a quarter of a second in CPython, a thousand times the whole solve of an End-Easy position. It is emptied
    whenever it grows past ``max_entries`` (checked every 8,192 nodes), which bounds memory at roughly 100 bytes an
    entry. Keep one solver per thread.
    """

    def __init__(self, max_entries: int = DEFAULT_MAX_ENTRIES) -> None:
        self.table: dict[int, int] = {}
        self.max_entries = max_entries
        self.nodes = 0

    def reset(self) -> None:
        """Forget every stored bound (Pons' benchmark resets before each position)."""
        self.table.clear()

    def solve(self, state: BitboardPosition, weak: bool = False, deadline: float | None = None) -> int:
        """Exact score of ``state`` for the side to move, in Pons' convention.

        With ``weak`` only the sign is exact: 1 win, 0 draw, -1 loss. A full board scores 0; a position with four
        in a row is over and raises ``InvalidSetupError``. With a ``deadline`` (a ``time.perf_counter()`` value),
        ``SolveTimeout`` is raised soon after it passes (checked every 8,192 nodes); the table keeps what was
        proven, so a later solve of the same or a nearby position goes faster.
        """
        return self.solve_bits(state.position, state.mask, state.moves, weak, deadline)

    def solve_bits(self, position: int, mask: int, moves: int, weak: bool = False,
                   deadline: float | None = None) -> int:
        """``solve`` on raw bitboards: ``position`` = stones of the side to move, ``mask`` = all stones."""
        self.nodes = 0
        if has_four(position ^ mask):
            raise InvalidSetupError("the game is over: the side that just moved has four in a row")
        if winning_cells(position, mask) & ((mask + BOTTOM) & BOARD):
            return 1 if weak else (CELLS + 1 - moves) // 2
        low = -((CELLS - moves) // 2)
        high = (CELLS + 1 - moves) // 2
        if weak:
            low, high = -1, 1
        threats = winning_cells(position ^ mask, mask)
        negamax, counter = _make_negamax(self.table, self.max_entries, deadline)
        try:
            while low < high:
                med = low + (high - low) // 2
                if med <= 0 and _c_half(low) < med:
                    med = _c_half(low)
                elif med >= 0 and _c_half(high) > med:
                    med = _c_half(high)
                result = negamax(position, mask, moves, med, med + 1, threats)
                if result <= med:
                    high = result
                else:
                    low = result
        finally:
            self.nodes = counter()
        return (low > 0) - (low < 0) if weak else low


def _make_negamax(table: dict[int, int], max_entries: int,
                  deadline: float | None) -> tuple[Callable[..., int], Callable[[], int]]:
    """A negamax closure over ``table`` and a node counter; returns ``(negamax, nodes)``.

    ``negamax(position, mask, moves, alpha, beta, threats)`` returns the exact score when it lies strictly between
    ``alpha`` and ``beta``, an upper bound (<= alpha) when the true score is at most alpha, and a lower bound
    (>= beta) when it is at least beta. ``threats`` are the opponent's winning cells (empty cells where the side
    that just moved would complete four), which the parent computes anyway to order its moves. The side to move
    must not have an immediate win. Table values pack Pons' way: ``bound + 19`` for an upper bound (1..37),
    ``bound + 56`` for a lower bound (38..74).

    ``negamax`` is one long function with ``winning_cells`` written out twice inside it, because a call per child
    costs: with those two copies replaced by ``winning_cells`` calls (same nodes), ``python -m engine bench
    --no-search --sets middle_medium --limit 40`` took 3.7 % longer per position (medians of 5 alternating runs
    of the mean: 187,060 us against 180,363 us; slower in all 5 pairs).
    """
    nodes = 0
    get = table.get
    rank_masks = _RANK_MASKS

    def negamax(position: int, mask: int, moves: int, alpha: int, beta: int, threats: int) -> int:
        nonlocal nodes
        nodes += 1
        if not nodes & 0x1FFF:
            if len(table) > max_entries:
                table.clear()
            if deadline is not None and perf_counter() > deadline:
                raise SolveTimeout(f"no answer within the time allowed ({nodes} nodes searched)")
        # The literals are BOTTOM (4432676798593) and BOARD (279258638311359), inlined for speed.
        possible = (mask + 4432676798593) & 279258638311359  # the lowest empty cell of every column
        forced = possible & threats
        if forced:
            if forced & (forced - 1):
                return -((42 - moves) >> 1)
            possible = forced
        possible &= ~(threats >> 1)  # never play below an opponent's winning cell
        if not possible:
            return -((42 - moves) >> 1)
        if moves >= 40:
            return 0
        low = -((40 - moves) >> 1)
        if alpha < low:
            alpha = low
            if alpha >= beta:
                return alpha
        high = (41 - moves) >> 1
        if beta > high:
            beta = high
            if alpha >= beta:
                return beta
        key = position + mask
        value = get(key)
        if value is not None:
            if value > 37:
                low = value - 56
                if alpha < low:
                    alpha = low
                    if alpha >= beta:
                        return alpha
            else:
                high = value - 19
                if beta > high:
                    beta = high
                    if alpha >= beta:
                        return beta
        empty = 279258638311359 ^ mask
        opponent = position ^ mask
        if possible & (possible - 1):
            # Order by the number of winning cells each move creates (Pons' move score), centre first on ties.
            # Those cells are also the child's ``threats``, so each is computed once.
            ranked = []
            child_threats = [0, 0, 0, 0, 0, 0, 0, 0]
            for rank in (7, 6, 5, 4, 3, 2, 1):
                move = possible & rank_masks[rank]
                if move:
                    p = position | move
                    r = (p << 1) & (p << 2) & (p << 3)
                    left = p << 7
                    pair = p & left
                    r |= (pair << 7) & ((p << 21) | (p >> 7)) | (pair >> 14) & (left | (p >> 21))
                    left = p << 6
                    pair = p & left
                    r |= (pair << 6) & ((p << 18) | (p >> 6)) | (pair >> 12) & (left | (p >> 18))
                    left = p << 8
                    pair = p & left
                    r = (r | (pair << 8) & ((p << 24) | (p >> 8)) | (pair >> 16) & (left | (p >> 24))) & empty
                    child_threats[rank] = r
                    ranked.append(r.bit_count() << 3 | rank)
            ranked.sort(reverse=True)
            for entry in ranked:
                rank = entry & 7
                score = -negamax(opponent, mask | (possible & rank_masks[rank]), moves + 1, -beta, -alpha,
                                 child_threats[rank])
                if score >= beta:
                    table[key] = score + 56
                    return score
                if score > alpha:
                    alpha = score
        else:
            p = position | possible
            r = (p << 1) & (p << 2) & (p << 3)
            left = p << 7
            pair = p & left
            r |= (pair << 7) & ((p << 21) | (p >> 7)) | (pair >> 14) & (left | (p >> 21))
            left = p << 6
            pair = p & left
            r |= (pair << 6) & ((p << 18) | (p >> 6)) | (pair >> 12) & (left | (p >> 18))
            left = p << 8
            pair = p & left
            r = (r | (pair << 8) & ((p << 24) | (p >> 8)) | (pair >> 16) & (left | (p >> 24))) & empty
            score = -negamax(opponent, mask | possible, moves + 1, -beta, -alpha, r)
            if score >= beta:
                table[key] = score + 56
                return score
            if score > alpha:
                alpha = score
        table[key] = alpha + 19
        return alpha

    def count() -> int:
        return nodes

    return negamax, count


def pons_to_engine(score: int, moves: int) -> int:
    """A Pons score of a position with ``moves`` stones played, in the engine's ``WIN - plies`` convention."""
    if score > 0:
        wins_with = (CELLS // 2 + 1) - moves // 2 - score
        return WIN - (2 * wins_with - 1)
    if score < 0:
        loses_to = score + (CELLS // 2 + 1) - (moves + 1) // 2
        return -(WIN - 2 * loses_to)
    return 0
