"""The recursive part of the chess search: PVS alpha-beta and quiescence over the internal board.

``ChessTree`` holds what the recursion reads and writes at every node (the transposition table, killers, history,
the repetition set, the pawn-structure cache and the counters) and nothing else: the root, iterative deepening,
time and events are ``engine.chess.search.ChessSearcher``'s. Every ``CHECK_EVERY``-th node (``next_check``) it
calls ``tick``, which may raise to end the search (the exception passes through unchanged).

Scores are for the side to move, fail-soft: a result ``<= alpha`` is an upper bound on the true score, ``>= beta``
a lower bound, strictly between them exact (for this depth and evaluation); a forced mate scores ``WIN - plies``.
The techniques (each switched by a ``SearchOptions`` field) are listed in ``engine.chess.search``.

A transposition-table entry is one int: the best move, the bound kind, the depth and the score (relative to the
position, ``engine.search.mate_distance``), packed by ``pack_entry``; the board's 120 bytes are its key.

Compiled by mypyc (see docs/compiled.md); ``final`` so that its methods call each other natively.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Final, final

from librt.vecs import append, vec
from mypy_extensions import i64

from engine.chess.board import (
    EMPTY,
    PAWN,
    QUEEN,
    THEIRS,
    Tables,
    attacked,
    en_passant,
    gen_moves,
    gen_noisy,
    left_in_check,
    make_move,
    moved_kings,
    pinned,
    turn,
    turned_kings,
)
from engine.chess.exchange import PIECE_VALUES, exchange
from engine.chess.leaf_terms import (
    BISHOP_PAIR,
    activity,
    mobility_weights,
    mopup_score,
    pawn_structure,
    pawns_only,
)
from engine.game import MAX_PLIES, WIN
from engine.search.mate_distance import from_table, to_table
from engine.search.steps import StepRecorder

if TYPE_CHECKING:
    from engine.search.info import SearchOptions

INF: Final = WIN + 1
MATE_BOUND: Final = WIN - MAX_PLIES
"""Scores beyond ``±MATE_BOUND`` are forced mates."""
EXACT: Final = 0
LOWER: Final = 1
UPPER: Final = 2
ENDGAME_PIECES: Final = 4
"""The most pieces (kings included) an endgame table holds."""
MAX_DEPTH: Final = 64
"""Deepest iteration; killers are kept for four times as many plies (extensions and quiescence go deeper)."""
TT_LIMIT: Final = 1 << 18
"""Most TT entries kept (each costs about 0.25 kB: the board is its key); the table is cleared when full."""
REVERSE_FUTILITY_DEPTH: Final = 4
REVERSE_FUTILITY_MARGIN: Final = 90
"""Up to ``REVERSE_FUTILITY_DEPTH`` plies from the horizon, a static score ``REVERSE_FUTILITY_MARGIN`` per ply above
beta returns at once (reverse futility, "static null move"). Deeper, it cut the follow-up of sacrifices (Win At
Chess fell by four at 6 plies, docs/chess.md)."""
IIR_DEPTH: Final = 4
"""A node at least this many plies from the horizon that the table has no move for is searched a ply shallower
(internal iterative reduction): its shallower search finds a move to try first for when it comes back deeper."""
LATE_MOVE_DEPTH: Final = 4
"""Up to this many plies from the horizon, quiet moves that give no check after the first ``3 + depth * depth``
legal moves are left out (late move pruning)."""
NULL_REDUCTION: Final = 2
NULL_REDUCTION_STEP: Final = 6
"""The null move is searched ``NULL_REDUCTION + depth // NULL_REDUCTION_STEP`` plies shallower than the moves."""
HISTORY_LIMIT: Final = 16384
"""History counts stay within ``±HISTORY_LIMIT``: each bonus or penalty is damped by the count already there."""

_VALUES: Final = {**PIECE_VALUES, "k": 0, ".": 100}
VICTIM: Final = tuple(_VALUES.get(chr(byte), 0) for byte in range(128))
"""Value of what a move captures, by the byte on its target square (an empty one: en passant, a pawn)."""
ATTACKER: Final = tuple({"P": 1, "N": 3, "B": 3, "R": 5, "Q": 9, "K": 10}.get(chr(byte), 0) for byte in range(128))
"""Cost of the capturing piece for MVV-LVA ordering, by its byte."""
PIECE_VALUE: Final = tuple(_VALUES.get(chr(byte + THEIRS), 0) if 64 < byte < 91 else 0 for byte in range(128))
"""Value of one of our pieces, by its byte (the king 0)."""

MOVE_BITS: Final = 21
MOVE_MASK: Final = (1 << MOVE_BITS) - 1
QUIET_MASK: Final = (1 << 14) - 1
"""A move without its promotion: the index into the history table."""
SCORE_OFFSET: Final = 1 << 21
"""Added to a stored score so that the packed entry stays non-negative (scores are within ``±INF``)."""
TT_ORDER_KEY: Final = 1 << 30
CAPTURE_ORDER_KEY: Final = 1 << 20
KILLER_ORDER_KEY: Final = 1 << 19
LOSING_CAPTURE_KEY: Final = -(1 << 19)
"""Captures that lose material in the exchange on their square (``engine.chess.exchange``) come after every quiet
move (whose history counts stay within ``±HISTORY_LIMIT``)."""


def late_move_reduction(depth: int, number: int) -> int:
    """Plies a late quiet move, the ``number``-th legal move of a node ``depth`` plies from the horizon, is first
    searched shallower: 0 before depth 3 or the fourth move, then growing with the logarithm of both."""
    if depth < 3 or number < 4:
        return 0
    return max(1, int(0.75 + math.log(depth) * math.log(number) / 2.25))


REDUCTION_MOVES: Final = 64
REDUCTIONS: Final = tuple(late_move_reduction(depth, number) for depth in range(MAX_DEPTH + 1)
                          for number in range(REDUCTION_MOVES))
"""``late_move_reduction(d, n)`` at ``d * REDUCTION_MOVES + n``, ``d`` at most ``MAX_DEPTH`` and ``n`` at most
``REDUCTION_MOVES - 1``."""


def pack_entry(move: int, flag: int, depth: int, score: int) -> int:
    """One TT entry: ``move`` (0 for none), ``flag`` (``EXACT``, ``LOWER`` or ``UPPER``), ``depth`` (0-255) and
    ``score`` (relative to the position)."""
    return move | flag << MOVE_BITS | depth << 23 | (score + SCORE_OFFSET) << 31


def entry_move(entry: int) -> int:
    """The best move of a packed entry, or 0."""
    return entry & MOVE_MASK


@final
class ChessTree:
    """Negamax and quiescence for one searcher; see the module docstring.

    ``load`` sets the root's tables (game phase and personality), mop-up and the positions that count as
    repetitions; ``reset_counters`` starts a search; killers and history last as long as the object, the TT until
    ``clear_table``.
    """

    def __init__(self, options: SearchOptions, contempt: int, tick: Callable[[], None]) -> None:
        self.alphabeta: bool = options.alphabeta
        self.pvs: bool = options.pvs and options.alphabeta
        self.use_tt: bool = options.tt
        self.ordering: bool = options.ordering
        self.use_killers: bool = options.killers
        self.use_history: bool = options.history
        self.quiescence: bool = options.quiescence
        self.null_move: bool = options.null_move
        self.lmr: bool = options.lmr
        self.check_extension: bool = options.check_extension
        self.contempt = contempt
        self.tick = tick
        self.tt: dict[bytes, int] = {}
        self.tt_limit: int = min(options.tt_size, TT_LIMIT)
        self.killers: list[int] = [0] * (MAX_DEPTH * 4 * 2)
        self.history: list[int] = [0] * (QUIET_MASK + 1)
        self.seen: set[bytes] = set()
        self.pawn_cache: dict[bytes, int] = {}
        self.tables: Tables = ()
        self.phase = 0
        self.mobility_weights: tuple[int, ...] = mobility_weights(0)
        self.mopup = False
        self.strong_at_root = False
        self.endgame: Callable[[bytes, bool], int] | None = None
        """``endgame(board, white_to_move)``: an endgame table's code of a position of few pieces, or 0
        (``engine.solve.chess_endgames.search_probe``); None: no tables."""
        self.white_at_root = True
        self.few_at_root = False
        self.steps: StepRecorder | None = None
        """When set (``record_steps``), every node is recorded in it, its moves as internal moves
        (``engine.search.steps``)."""
        self.recording = False
        """Whether ``steps`` is set: the hot path tests this native flag only."""
        self.reset_counters(0)

    def load(self, tables: Tables, phase: int, mopup: bool, strong_at_root: bool, seen: set[bytes],
             endgame: Callable[[bytes, bool], int] | None = None, white_at_root: bool = True,
             few_at_root: bool = False) -> None:
        """Search a new root: its ``tables`` and ``phase``, whether mop-up applies (and whether the strong side
        moves at the root), the boards of the game that count as repetitions, and the endgame tables' probe
        (asked below the root after every capture or pawn move that leaves at most ``ENDGAME_PIECES`` pieces, and
        at every node when the root has that few: ``few_at_root``) with the side to move at the root."""
        self.endgame = endgame
        self.white_at_root = white_at_root
        self.few_at_root = few_at_root
        self.tables = tables
        self.phase = phase
        self.mobility_weights = mobility_weights(phase)
        self.mopup = mopup
        self.strong_at_root = strong_at_root
        self.seen = seen
        self.pawn_cache = {}

    def clear_table(self) -> None:
        """Forget every TT entry."""
        self.tt.clear()

    def reset_counters(self, next_check: int) -> None:
        """Zero the counters of a new search; ``tick`` is first called at node ``next_check``."""
        self.nodes: int = 0
        self.qnodes: int = 0
        self.cutoffs: int = 0
        self.pruned: int = 0
        self.generated: int = 0
        self.tt_probes: int = 0
        self.tt_hits: int = 0
        self.seldepth: int = 0
        self.next_check: int = next_check

    def stored_move(self, board: bytes) -> int:
        """The best move the TT holds for ``board``, or 0."""
        entry = self.tt.get(board)
        return 0 if entry is None else entry_move(entry)

    # ------------------------------------------------------------------------------------------ evaluation

    def evaluate(self, board: bytes, score: int, ply: int) -> int:
        """Static score of ``board`` for the side to move: its incremental material + piece-square ``score``, pawn
        structure (cached by pawn placement), the bishop pair and piece activity (mobility, king attack), or mop-up
        against a bare king."""
        if self.mopup:
            return score + mopup_score(board, self.strong_at_root == (ply % 2 == 0))
        pawns = pawns_only(board)
        structure = self.pawn_cache.get(pawns)
        if structure is None:
            structure = pawn_structure(pawns, self.phase)
            self.pawn_cache[pawns] = structure
        total = score + structure + activity(board, self.mobility_weights, self.phase)
        if board.count(b"B") >= 2:
            total += BISHOP_PAIR
        if board.count(b"b") >= 2:
            total -= BISHOP_PAIR
        return total

    def record_steps(self, recorder: StepRecorder | None) -> None:
        """Record every node of the next searches in ``recorder`` (None: stop recording)."""
        self.steps = recorder
        self.recording = recorder is not None

    def step(self) -> StepRecorder:
        """The recorder, while ``recording``."""
        steps = self.steps
        assert steps is not None, "recorded only while the steps are"
        return steps

    def record_order(self, board: bytes, moves: vec[i64], tt_move: int, ply: int) -> None:
        """Record in ``steps`` the moves of ``board`` in the order tried, each with why it is there."""
        reasons = self.order_reasons(board, moves, tt_move, ply)
        self.step().ordered([moves[index] for index in range(len(moves))], reasons)

    def order_reasons(self, board: bytes, moves: vec[i64], tt_move: int, ply: int) -> list[str]:
        """Why each of ``moves`` has its place in ``ordered``, in words, from its ordering key."""
        if not self.ordering:
            return ["the order the moves are generated in"] * len(moves)
        reasons: list[str] = []
        for packed in self.order_keys(board, moves, tt_move, ply):
            key = packed >> 8
            if key >= TT_ORDER_KEY:
                reasons.append("the table's best move for this position")
            elif key >= CAPTURE_ORDER_KEY:
                reasons.append(f"capture or promotion: {key - CAPTURE_ORDER_KEY} (victim x 16 - attacker)")
            elif key == KILLER_ORDER_KEY:
                reasons.append("a killer: it caused a cut-off at this ply before")
            elif key == KILLER_ORDER_KEY - 1:
                reasons.append("the second killer of this ply")
            elif key < -HISTORY_LIMIT:
                reasons.append(f"a losing capture (the exchange on its square loses material): "
                               f"{key - LOSING_CAPTURE_KEY} (victim x 16 - attacker)")
            else:
                reasons.append(f"history: {key}")
        return reasons

    def record_probe(self, outcome: str, entry: int, ply: int) -> None:
        """Record a table hit (``outcome`` "c" or "o") with the entry's depth and bounds."""
        steps = self.step()
        stored = from_table((entry >> 31) - SCORE_OFFSET, ply)
        flag = (entry >> MOVE_BITS) & 3
        steps.probe(outcome, (entry >> 23) & 255, stored if flag != UPPER else -INF, stored if flag != LOWER else INF)

    def table_score(self, code: int, ply: int) -> int:
        """The score of an endgame table's code (``engine.solve.retrograde``) ``ply`` plies below the root."""
        if code == 1:
            return self.draw(ply)
        if code & 1:
            return -(WIN - ply - ((code - 3) >> 1))
        return WIN - ply - ((code - 2) >> 1)

    def draw(self, ply: int) -> int:
        """A draw's score for the side to move at ``ply``: ``-contempt`` for the engine's side."""
        return -self.contempt if ply % 2 == 0 else self.contempt

    # ---------------------------------------------------------------------------------------------- search

    def ordered(self, board: bytes, moves: vec[i64], tt_move: int, ply: int) -> vec[i64]:
        """``moves`` best-first by ``order_keys``; moves with equal keys keep their order."""
        keyed = self.order_keys(board, moves, tt_move, ply)
        keyed.sort(reverse=True)
        result = vec[i64]()
        for key in keyed:
            result = append(result, moves[255 - (key & 255)])
        return result

    def order_keys(self, board: bytes, moves: vec[i64], tt_move: int, ply: int) -> list[int]:
        """The ordering key of each of ``moves``, higher first: ``TT_ORDER_KEY`` for the TT move, captures (MVV-LVA)
        and promotions from ``CAPTURE_ORDER_KEY``, killers at ``KILLER_ORDER_KEY`` (the second one less), then
        quiet moves by their history count, then losing captures (of a cheaper piece, losing material in the exchange
        on its square, from
        ``LOSING_CAPTURE_KEY``); each shifted 8 bits left above ``255 - index``, so that sorting them
        keeps equal keys in their order and tells each key's move."""
        killer0 = self.killers[2 * ply] if self.use_killers else 0
        killer1 = self.killers[2 * ply + 1] if self.use_killers else 0
        use_history = self.use_history
        ep = en_passant(board)
        keys: list[int] = []
        for index in range(len(moves)):
            move = moves[index]
            if move == tt_move:
                key = TT_ORDER_KEY
            else:
                i = move & 127
                j = (move >> 7) & 127
                promotion = move >> 14
                victim = board[j]
                if victim != EMPTY or promotion or (j == ep and board[i] == PAWN):
                    key = CAPTURE_ORDER_KEY + VICTIM[victim] * 16 - ATTACKER[board[i]] + (900 if promotion == QUEEN
                                                                                          else 0)
                    if (promotion != QUEEN and PIECE_VALUE[board[i]] > VICTIM[victim] + 50
                            and exchange(board, move) < 0):
                        key = LOSING_CAPTURE_KEY + VICTIM[victim] * 16 - ATTACKER[board[i]]
                elif move == killer0:
                    key = KILLER_ORDER_KEY
                elif move == killer1:
                    key = KILLER_ORDER_KEY - 1
                else:
                    key = self.history[move & QUIET_MASK] if use_history else 0
            keys.append(key << 8 | (255 - index))
        return keys

    def negamax(self, board: bytes, score: int, kings: int, alpha: int, beta: int, depth: int, ply: int, hm: int,
                check: bool, null_ok: bool) -> int:
        """The score of ``board`` (its incremental ``score``, its ``kings`` as ``engine.chess.board.kings_of`` gives
        them, ``hm`` plies since a capture or pawn move, ``check`` whether the side to move is in check) searched
        ``depth`` plies, ``ply`` plies below the root.

        One long function because it runs once per node and each piece needs most of the node's state (TT probe,
        pruning before the moves, the PVS/LMR child search, the cut-off bookkeeping).
        """
        self.nodes += 1
        if self.nodes >= self.next_check:
            self.tick()
        if ply > self.seldepth:
            self.seldepth = ply
        if ply:
            if hm >= 100 or board in self.seen:
                if self.recording:
                    self.step().answer("r")
                return self.draw(ply)
            if alpha < -WIN + ply:
                alpha = -WIN + ply
            if beta > WIN - ply - 1:
                beta = WIN - ply - 1
            if alpha >= beta:
                if self.recording:
                    self.step().answer("b")
                return alpha
            if (self.endgame is not None and (hm == 0 or self.few_at_root)
                    and 64 - board.count(b".") <= ENDGAME_PIECES):
                code = self.endgame(board, ((ply & 1) == 0) == self.white_at_root)
                if code:
                    if self.recording:
                        self.step().answer("g")
                    return self.table_score(code, ply)
        if depth <= 0:
            if self.quiescence:
                self.nodes -= 1
                return self.quiesce(board, score, kings, alpha, beta, ply, check)
            if self.recording:
                self.step().answer("h")
            return self.evaluate(board, score, ply)
        pv_node = beta - alpha > 1
        tt_move = 0
        if self.use_tt:
            self.tt_probes += 1
            entry = self.tt.get(board)
            if entry is None:
                if self.recording:
                    self.step().probe("m")
            else:
                self.tt_hits += 1
                tt_move = entry & MOVE_MASK
                e_flag = (entry >> MOVE_BITS) & 3
                e_depth = (entry >> 23) & 255
                if e_depth >= depth and not pv_node and ply:
                    stored = from_table((entry >> 31) - SCORE_OFFSET, ply)
                    if (e_flag == EXACT or (e_flag == LOWER and stored >= beta)
                            or (e_flag == UPPER and stored <= alpha)):
                        if self.recording:
                            self.record_probe("c", entry, ply)
                            self.step().answer("t")
                        return stored
                if self.recording:
                    self.record_probe("o", entry, ply)
        if self.lmr and tt_move == 0 and depth >= IIR_DEPTH and ply and self.use_tt:
            depth -= 1
            if self.recording:
                self.step().shallower()
        static = -INF
        if not pv_node and not check and ply:
            static = self.evaluate(board, score, ply)
            if (self.null_move and depth <= REVERSE_FUTILITY_DEPTH
                    and static - REVERSE_FUTILITY_MARGIN * depth >= beta and abs(beta) < MATE_BOUND):
                if self.recording:
                    self.step().answer("f")
                return static
            if (self.null_move and null_ok and depth >= 3 and static >= beta
                    and (b"Q" in board or b"R" in board or b"B" in board or b"N" in board)):
                reduction = NULL_REDUCTION + depth // NULL_REDUCTION_STEP
                if self.recording:
                    self.step().child(-1, "N", 0)
                    self.step().enter(-beta, -beta + 1, depth - 1 - reduction)
                value = -self.negamax(turn(board), -score, turned_kings(kings), -beta, -beta + 1,
                                      depth - 1 - reduction, ply + 1, hm + 1, False, False)
                if self.recording:
                    self.step().leave(-value)
                if value >= beta:
                    if self.recording:
                        self.step().answer("p")
                    return beta if value >= MATE_BOUND else value

        king = kings & 127
        moves = gen_moves(board, king)
        count = len(moves)
        self.generated += count
        if self.ordering:
            moves = self.ordered(board, moves, tt_move, ply)
        if self.recording:
            self.record_order(board, moves, tt_move, ply)
        tables = self.tables
        pins = pinned(board, king)
        ep = en_passant(board)
        seen = self.seen
        seen.add(board)
        best = -INF
        best_move = 0
        original_alpha = alpha
        legal = 0
        lmr_ok = self.lmr and depth >= 3 and not check
        prune_late = self.lmr and not pv_node and not check and ply > 0 and depth <= LATE_MOVE_DEPTH
        late_moves = 3 + depth * depth
        extend = self.check_extension
        killer0 = self.killers[2 * ply]
        killer1 = self.killers[2 * ply + 1]
        quiets = vec[i64]()
        left_out: list[int] = []
        try:
            for index in range(count):
                move = moves[index]
                i = move & 127
                j = (move >> 7) & 127
                promotion = move >> 14
                child, child_score = make_move(board, score, move, tables)
                child_kings = moved_kings(kings, move)
                piece = board[i]
                if ((check or i == king or i in pins or (j == ep and piece == PAWN))
                        and left_in_check(child, child_kings)):
                    continue
                legal += 1
                child_check = attacked(child, child_kings & 127)
                noisy = board[j] != EMPTY or promotion != 0 or (j == ep and piece == PAWN)
                if prune_late and legal > late_moves and not noisy and not child_check and best > -MATE_BOUND:
                    self.pruned += 1
                    if self.recording:
                        left_out.append(move)
                    continue
                new_depth = depth - 1 + (1 if child_check and extend and ply < 2 * depth + 8 else 0)
                child_hm = 0 if noisy or piece == PAWN else hm + 1
                if legal == 1 or not self.pvs:
                    window_alpha = alpha if self.alphabeta else -INF
                    if self.recording:
                        self.step().child(index, "F", move)
                        self.step().enter(-beta, -window_alpha, new_depth)
                    value = -self.negamax(child, child_score, child_kings, -beta, -window_alpha, new_depth, ply + 1,
                                          child_hm, child_check, True)
                    if self.recording:
                        self.step().leave(-value)
                else:
                    reduction = 0
                    if (lmr_ok and legal > 3 and not noisy and not child_check and move != killer0
                            and move != killer1):
                        reduction = REDUCTIONS[min(depth, MAX_DEPTH) * REDUCTION_MOVES
                                               + min(legal, REDUCTION_MOVES - 1)]
                        if pv_node:
                            reduction -= 1
                        if reduction >= new_depth:
                            reduction = new_depth - 1
                        if reduction < 0:
                            reduction = 0
                    if self.recording:
                        self.step().child(index, "L" if reduction else "P", move)
                        self.step().enter(-alpha - 1, -alpha, new_depth - reduction)
                    value = -self.negamax(child, child_score, child_kings, -alpha - 1, -alpha, new_depth - reduction,
                                          ply + 1, child_hm, child_check, True)
                    if self.recording:
                        self.step().leave(-value)
                    if value > alpha and reduction:
                        if self.recording:
                            self.step().child(index, "P", move)
                            self.step().enter(-alpha - 1, -alpha, new_depth)
                        value = -self.negamax(child, child_score, child_kings, -alpha - 1, -alpha, new_depth, ply + 1,
                                              child_hm, child_check, True)
                        if self.recording:
                            self.step().leave(-value)
                    if alpha < value < beta:
                        if self.recording:
                            self.step().child(index, "S", move)
                            self.step().enter(-beta, -alpha, new_depth)
                        value = -self.negamax(child, child_score, child_kings, -beta, -alpha, new_depth, ply + 1,
                                              child_hm, child_check, True)
                        if self.recording:
                            self.step().leave(-value)
                if value > best:
                    best = value
                    best_move = move
                    if value > alpha:
                        alpha = value
                        if alpha >= beta and self.alphabeta:
                            self.cutoffs += 1
                            self.pruned += count - index - 1
                            if self.recording:
                                self.step().cutoff(index)
                            if not noisy:
                                if self.killers[2 * ply] != move:
                                    self.killers[2 * ply + 1] = self.killers[2 * ply]
                                    self.killers[2 * ply] = move
                                if self.use_history:
                                    self.reward(move, depth * depth)
                                    for tried in quiets:
                                        self.reward(tried, -depth * depth)
                            break
                if not noisy:
                    quiets = append(quiets, move)
        finally:
            seen.discard(board)
            if self.recording and left_out:
                self.step().skip(left_out, "l")
        if legal == 0:
            if self.recording:
                self.step().answer("e")
            return -WIN + ply if check else self.draw(ply)
        if self.use_tt:
            if len(self.tt) >= self.tt_limit:
                self.tt.clear()
            flag = UPPER if best <= original_alpha else LOWER if best >= beta else EXACT
            self.tt[board] = pack_entry(best_move, flag, depth, to_table(best, ply))
        return best

    def reward(self, move: int, bonus: int) -> None:
        """Add ``bonus`` (a penalty when negative) to ``move``'s history count, damped so that counts stay within
        ``±HISTORY_LIMIT``."""
        index = move & QUIET_MASK
        count = self.history[index]
        self.history[index] = count + bonus - count * abs(bonus) // HISTORY_LIMIT

    def quiesce(self, board: bytes, score: int, kings: int, alpha: int, beta: int, ply: int,
                check: bool | None = None) -> int:
        """Quiescence search: stand pat or resolve captures and queen promotions; every evasion when in check
        (``check`` None: find out).

        Captures that cannot raise the score enough (delta pruning) and captures of a cheaper piece that lose
        material in the exchange on their square (losing captures) are skipped. Same bound contract as ``negamax``
        (fail-soft).
        """
        self.nodes += 1
        self.qnodes += 1
        if self.recording:
            self.step().answer("q")
        if self.nodes >= self.next_check:
            self.tick()
        if ply > self.seldepth:
            self.seldepth = ply
        king = kings & 127
        in_check = attacked(board, king) if check is None else check
        tables = self.tables
        if in_check:
            best = -WIN + ply
            moves = self.ordered(board, gen_moves(board, king), 0, ply)
            self.generated += len(moves)
            if self.recording:
                self.step().answer("e")
                self.record_order(board, moves, 0, ply)
            for index in range(len(moves)):
                move = moves[index]
                child, child_score = make_move(board, score, move, tables)
                child_kings = moved_kings(kings, move)
                if left_in_check(child, child_kings):
                    continue
                if self.recording:
                    self.step().child(index, "Q", move)
                    self.step().enter(-beta, -alpha, 0)
                value = -self.quiesce(child, child_score, child_kings, -beta, -alpha, ply + 1)
                if self.recording:
                    self.step().leave(-value)
                if value > best:
                    best = value
                    if self.recording:
                        self.step().answer("s")
                    if value > alpha:
                        alpha = value
                        if alpha >= beta:
                            self.cutoffs += 1
                            if self.recording:
                                self.step().cutoff(index)
                            break
            return best
        best = self.evaluate(board, score, ply)
        if best >= beta:
            return best
        if best > alpha:
            alpha = best
        moves = gen_noisy(board)
        count = len(moves)
        if not count:
            return best
        self.generated += count
        keyed: list[int] = []
        for index in range(count):
            move = moves[index]
            key = 1024 + VICTIM[board[(move >> 7) & 127]] * 16 - ATTACKER[board[move & 127]] + (900 if move >> 14
                                                                                                 else 0)
            keyed.append(key << 8 | (255 - index))
        keyed.sort(reverse=True)
        if self.recording:
            self.step().ordered([moves[255 - (key & 255)] for key in keyed],
                          [f"capture: {(key >> 8) - 1024} (victim x 16 - attacker)" for key in keyed])
        margin = alpha - best - 200
        pins = pinned(board, king)
        ep = en_passant(board)
        for rank in range(count):
            move = moves[255 - (keyed[rank] & 255)]
            i = move & 127
            j = (move >> 7) & 127
            victim = VICTIM[board[j]]
            if not move >> 14 and (victim < margin or (PIECE_VALUE[board[i]] > victim + 50
                                                       and exchange(board, move) < 0)):
                self.pruned += 1
                continue
            child, child_score = make_move(board, score, move, tables)
            child_kings = moved_kings(kings, move)
            if (i == king or i in pins or (j == ep and board[i] == PAWN)) and left_in_check(child, child_kings):
                continue
            if self.recording:
                self.step().child(rank, "Q", move)
                self.step().enter(-beta, -alpha, 0)
            value = -self.quiesce(child, child_score, child_kings, -beta, -alpha, ply + 1)
            if self.recording:
                self.step().leave(-value)
            if value > best:
                best = value
                if self.recording:
                    self.step().answer("s")
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        self.cutoffs += 1
                        self.pruned += count - rank - 1
                        if self.recording:
                            self.step().cutoff(rank)
                        break
        return best
