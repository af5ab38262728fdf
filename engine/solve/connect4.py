"""Exact Connect Four solver: Pascal Pons' algorithm, typed for the compiled build.

Scores follow Pons' convention, from the side to move: 0 for a draw; if the side to move wins with its k-th stone
from now, the score is ``(42 - stones_played - 2k + 3) // 2`` (22 minus the stones the winner has played when the
game ends); a loss is the opposite of the winner's score. ``pons_to_engine`` turns it into the engine's
``WIN - plies`` convention.

The algorithm (Pons, "Solving Connect 4: how to build a perfect AI"): negamax with alpha-beta pruning, called with
null windows by an outer loop that narrows the [min, max] score interval (iterative deepening on the score); a
transposition table keeping a lower or an upper bound per position; moves ordered by the number of winning cells
each creates (ties: centre first); moves that hand the opponent an immediate win never searched, and a forced block
played at once. Bitboards use Pons' layout (``engine.games.connect4_bits``).

Three things are not in Pons' solver. The table is small (1 MiB: it stays in the processor's cache) and keeps two
entries a bucket, the one nearest the start of the game and the latest. Before searching any move, a node far from
the end looks up each child's stored bound, which may end it at once (enhanced transposition cut-offs). And a
position one stone past the opening book starts from the book's floor (``book_floor``).

The search is one class of ``i64`` arithmetic (``mypy_extensions``) over a flat table of ``i64`` entries
(``librt.vecs.vec``): compiled by mypyc, it runs on machine words with no object per node; interpreted, the same
code runs on Python ints (docs/compiled.md has the figures). One saving is not in Pons' code: the winning cells a
move creates (its ordering score) are the opponent-threat board the child node needs for its own non-losing moves,
so the parent passes them down instead of the child computing them again.
"""

from __future__ import annotations

from typing import Final, Protocol, final

from librt.vecs import append, vec
from mypy_extensions import i64, mypyc_attr

from engine.clock import Deadline
from engine.game import WIN, InvalidSetupError
from engine.games.connect4 import COLUMN_MASKS, COLUMN_ORDER
from engine.games.connect4_bits import BOARD, BOTTOM, CELLS, has_four, popcount, winning_cells
from engine.solve.connect4_book import BOOK_STONES, OpeningBook

TABLE_SIZE: Final = 65521
"""Buckets of the transposition table, the prime 2**16 - 15, two ``i64`` entries each: 1 MiB per solver. Pons'
2**23 + 9 slots (64 MiB) give his node counts exactly, but a table that outgrows the processor's cache costs more in
misses than the nodes a larger one saves (docs/compiled.md, "Table size")."""


ETC_STONES: Final = 30
"""Nodes with fewer stones than this look up each child's bound before searching any (enhanced transposition
cut-offs); nearer the end of the game a child's subtree costs less than the look-ups."""


class BitboardPosition(Protocol):
    """What the solver reads from a position: Pons' bitboards and the number of stones played."""

    @property
    def position(self) -> int: ...

    @property
    def mask(self) -> int: ...

    @property
    def moves(self) -> int: ...


@mypyc_attr(native_class=False)  # a compiled class cannot derive from TimeoutError
class SolveTimeout(TimeoutError):
    """The solve's deadline passed before the score was proven."""


def _c_half(value: int) -> int:
    """``value / 2`` rounded toward zero, as C's integer division does (Pons' arithmetic)."""
    return -((-value) >> 1) if value < 0 else value >> 1


@final
class Solver:
    """Pons' exact solver with a transposition table that lives until ``reset()``.

    ``solve(position)`` returns the exact score in Pons' convention; ``nodes`` is the number of negamax calls the
    last ``solve`` made (Pons' ``getNodeCount``). The table has ``TABLE_SIZE`` buckets of two entries (1 MiB,
    allocated with the solver: keep one per thread, or borrow one from ``engine.solve.solver_pool``); bucket
    ``key % TABLE_SIZE`` (slots ``2 * bucket`` and the next) holds ``key << 13 | stones << 7 | value`` for the exact
    key ``position + mask``: its first slot the position with the fewest stones stored there (the costliest to
    search again), the second the latest of the others. ``reset()`` costs what the solves since the last reset
    stored, not the table's size: the buckets first written since then are remembered, up to ``remembered`` of them
    (default: an eighth of the table); past that, it clears the whole table.

    With an opening ``book`` (``engine.solve.connect4_book``), a node with ``BOOK_STONES`` stones takes its exact
    score from the book instead of searching (Pons' solver does the same with his book); positions with fewer stones
    are searched down to it, and one with ``BOOK_STONES + 1`` stones starts from the book's floor, first asking
    whether its score is that floor (often the case). Without one, every position is searched to the end.
    """

    def __init__(self, remembered: i64 = TABLE_SIZE >> 3, book: OpeningBook | None = None) -> None:
        self.remembered = remembered
        self.book = book
        self.table: vec[i64] = vec[i64](memoryview(bytes(16 * TABLE_SIZE)).cast("q"))
        self.written: vec[i64] = vec[i64]()
        self.nodes: i64 = 0
        self.book_hits: i64 = 0
        """Positions of the last solve whose value the opening book gave."""
        self.deadline: Deadline | None = None
        self.order: vec[i64] = vec[i64](memoryview(bytes(8 * 8 * (CELLS + 1))).cast("q"))
        self.child_threats: vec[i64] = vec[i64](memoryview(bytes(8 * 8 * (CELLS + 1))).cast("q"))
        # The cells of the column of each tie-break rank (1-7): rank 7 - i is ``COLUMN_ORDER[i]``, so sorting
        # ``score << 3 | rank`` in descending order gives the best score first, then the column nearest the centre.
        self.rank_columns: vec[i64] = vec[i64]([COLUMN_MASKS[COLUMN_ORDER[7 - rank]] if rank else 0
                                                for rank in range(8)])

    def reset(self) -> None:
        """Forget every stored bound (Pons' benchmark resets before each position)."""
        table = self.table
        if len(self.written) > self.remembered:
            for index in range(2 * TABLE_SIZE):
                table[index] = 0
        else:
            for index in self.written:
                table[index] = 0
                table[index + 1] = 0
        self.written = vec[i64]()

    def solve(self, state: BitboardPosition, weak: bool = False, deadline: Deadline | None = None) -> int:
        """Exact score of ``state`` for the side to move, in Pons' convention.

        With ``weak`` only the sign is exact: 1 win, 0 draw, -1 loss. A full board scores 0; a position with four
        in a row is over and raises ``InvalidSetupError``. With a ``deadline``, ``SolveTimeout`` is raised soon
        after it passes (checked every 8,192 nodes); the table keeps what was proven, so a later solve of the same
        or a nearby position goes faster.
        """
        return self.solve_bits(state.position, state.mask, state.moves, weak, deadline)

    def solve_bits(self, position: int, mask: int, moves: int, weak: bool = False,
                   deadline: Deadline | None = None) -> int:
        """``solve`` on raw bitboards: ``position`` = stones of the side to move, ``mask`` = all stones."""
        self.nodes = 0
        self.book_hits = 0
        if has_four(position ^ mask):
            raise InvalidSetupError("the game is over: the side that just moved has four in a row")
        if winning_cells(position, mask) & ((mask + BOTTOM) & BOARD):
            return 1 if weak else (CELLS + 1 - moves) // 2
        low = -((CELLS - moves) // 2)
        high = (CELLS + 1 - moves) // 2
        if weak:
            low, high = -1, 1
        guess = high
        if moves == BOOK_STONES + 1 and self.book is not None and not weak:
            low = max(low, self.book_floor(position, mask))
            guess = low  # often the exact score: first ask whether the score is at most the floor
        threats = winning_cells(position ^ mask, mask)
        self.deadline = deadline
        while low < high:
            med = low + (high - low) // 2
            if med <= 0 and _c_half(low) < med:
                med = _c_half(low)
            elif med >= 0 and _c_half(high) > med:
                med = _c_half(high)
            if guess < high:
                med = guess
                guess = high
            result = self.search(position, mask, moves, med, med + 1, threats)
            if result <= med:
                high = result
            else:
                low = result
        return (low > 0) - (low < 0) if weak else low

    def book_floor(self, position: int, mask: int) -> int:
        """A lower bound on the score of a position with ``BOOK_STONES + 1`` stones, from the opening book: the
        position follows each position of ``BOOK_STONES`` stones that it has one stone more than (the top stone of a
        column, played by the side that just moved), and a position scores at least as much as each of its moves,
        so this one scores at least minus each of those positions' scores. The lowest possible score when the book
        knows none of them."""
        book = self.book
        floor = -((CELLS - BOOK_STONES - 1) // 2)
        if book is None:
            return floor
        mover = position ^ mask  # the side that just moved
        for column in range(7):
            stones = mask & COLUMN_MASKS[column]
            top = (stones + (1 << 7 * column)) >> 1
            if not stones or not mover & top or has_four(mover ^ top):
                continue
            before = book.value(mover ^ top, mask ^ top)
            if before is not None and -before > floor:
                floor = -before
        return floor

    def search(self, position: i64, mask: i64, moves: i64, alpha: i64, beta: i64, threats: i64) -> i64:
        """Pons' negamax: the exact score when it lies strictly between ``alpha`` and ``beta``, an upper bound
        (<= alpha) when the true score is at most alpha, a lower bound (>= beta) when it is at least beta.

        ``threats`` are the opponent's winning cells (empty cells where the side that just moved would complete
        four), which the parent computes anyway to order its moves. The side to move must not have an immediate
        win. Table values pack Pons' way: ``bound + 19`` for an upper bound (1..37), ``bound + 56`` for a lower
        bound (38..74); 0 is an empty slot. The moves of the node with ``moves`` stones are ordered in
        ``self.order[8 * moves:8 * moves + 8]``, and the cells each threatens kept in ``self.child_threats``
        at ``8 * moves + rank``.
        """
        self.nodes += 1
        if not self.nodes & 0x1FFF and self.deadline is not None and self.deadline.passed():
            raise SolveTimeout(f"no answer within the time allowed ({self.nodes} nodes searched)")
        possible = (mask + BOTTOM) & BOARD  # the lowest empty cell of every column
        forced = possible & threats
        if forced:
            if forced & (forced - 1):
                return -((CELLS - moves) >> 1)
            possible = forced
        possible &= ~(threats >> 1)  # never play below an opponent's winning cell
        if not possible:
            return -((CELLS - moves) >> 1)
        if moves >= CELLS - 2:
            return 0
        low = -((CELLS - 2 - moves) >> 1)
        if alpha < low:
            alpha = low
            if alpha >= beta:
                return alpha
        high = (CELLS - 1 - moves) >> 1
        if beta > high:
            beta = high
            if alpha >= beta:
                return beta
        key = position + mask
        slot = (key % TABLE_SIZE) << 1
        table = self.table
        entry = table[slot]
        if entry >> 13 != key:
            entry = table[slot + 1]
        if entry >> 13 == key:
            value = entry & 127
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
        if moves == BOOK_STONES and self.book is not None:
            known = self.book.value(position, mask)
            if known is not None:  # exact; kept as the bound this window needs, so a later visit is a table hit
                self.book_hits += 1
                self._store(slot, key, moves, known + 56 if known >= beta else known + 19)
                return known
        opponent = position ^ mask
        if moves < ETC_STONES:
            # Enhanced transposition cut-off: a child whose stored upper bound already gives this node a score of
            # at least beta ends the node before any child is searched.
            rest = possible
            while rest:
                move = rest & -rest
                rest ^= move
                child_key = opponent + (mask | move)
                child_slot = (child_key % TABLE_SIZE) << 1
                child = table[child_slot]
                if child >> 13 != child_key:
                    child = table[child_slot + 1]
                if child >> 13 == child_key and child & 127 <= 37 and 19 - (child & 127) >= beta:
                    score = 19 - (child & 127)
                    self._store(slot, key, moves, score + 56)
                    return score
        # Insertion sort of ``score << 3 | rank`` into this node's slice of the buffer, best first.
        order = self.order
        start = moves << 3
        end = start
        child_threats = self.child_threats
        rank_columns = self.rank_columns
        for rank in range(7, 0, -1):
            move = possible & rank_columns[rank]
            if move:
                cells = winning_cells(position | move, mask)  # what the move threatens: the child's ``threats``
                child_threats[start + rank] = cells
                ranked = popcount(cells) << 3 | rank
                place = end
                while place > start and order[place - 1] < ranked:
                    order[place] = order[place - 1]
                    place -= 1
                order[place] = ranked
                end += 1
        for place in range(start, end):
            rank = order[place] & 7
            move = possible & rank_columns[rank]
            score = -self.search(opponent, mask | move, moves + 1, -beta, -alpha, child_threats[start + rank])
            if score >= beta:
                self._store(slot, key, moves, score + 56)
                return score
            if score > alpha:
                alpha = score
        self._store(slot, key, moves, alpha + 19)
        return alpha

    def _store(self, slot: i64, key: i64, moves: i64, value: i64) -> None:
        """Keep ``value`` for the position ``key`` with ``moves`` stones in the bucket at ``slot``: its first entry
        holds the position nearest the start of the game (the costliest to search again), the second the latest of
        the others; the bucket is remembered for ``reset`` when it was empty."""
        table = self.table
        first = table[slot]
        entry = key << 13 | moves << 7 | value
        if not first:
            if len(self.written) <= self.remembered:
                self.written = append(self.written, slot)
            table[slot] = entry
        elif first >> 13 == key or moves <= (first >> 7) & 63:
            if first >> 13 != key:
                table[slot + 1] = first
            table[slot] = entry
        else:
            table[slot + 1] = entry


def pons_to_engine(score: int, moves: int) -> int:
    """A Pons score of a position with ``moves`` stones played, in the engine's ``WIN - plies`` convention."""
    if score > 0:
        wins_with = (CELLS // 2 + 1) - moves // 2 - score
        return WIN - (2 * wins_with - 1)
    if score < 0:
        loses_to = score + (CELLS // 2 + 1) - (moves + 1) // 2
        return -(WIN - 2 * loses_to)
    return 0
