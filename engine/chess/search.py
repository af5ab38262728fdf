"""The chess searcher: PVS alpha-beta on the internal board, a ``BaseSearcher`` like the generic searcher.

Why a chess-specific searcher: the generic core works on immutable ``State`` objects through method calls
(``legal_moves``, ``play``, ``evaluate``), which for chess means python-chess boards: copying one and generating its
legal moves costs tens of microseconds per node, far below the speed a playable engine needs in CPython. Here a
node is a 120-character string with an incremental score, and the hot loop is written out by hand. The numbers
are in ``docs/chess.md`` (``bench/chess_speed.py``).

Techniques (each switched by ``SearchOptions``): iterative deepening, aspiration windows, PVS, a transposition
table, move ordering (TT move, captures by most valuable victim / least valuable attacker, killers, history),
check extension, null-move pruning (off when the side to move has only pawns) with reverse futility pruning at
depth 1, late move reductions, quiescence search (captures and queen promotions; every evasion when in
check), repetition and fifty-move draws inside the tree, mate-distance scores (``WIN - plies``).
"""

from __future__ import annotations

from typing import Any, ClassVar

import chess

from engine.chess import board as cb
from engine.chess.board import Move, Position, gen_moves, gen_noisy, make_move, move_uci
from engine.chess.evaluation import (
    BISHOP_PAIR,
    DEFAULT_PERSONALITY,
    PAWNS_ONLY,
    PERSONALITIES,
    build_tables,
    game_phase,
    lone_king_side,
    mopup_score,
    pawn_structure,
)
from engine.game import MAX_PLIES, WIN
from engine.search.base import (
    BaseSearcher,
    SearchAborted,
    StopFlag,
    check_personality,
    effective_branching_factor,
)
from engine.search.info import Algorithm, EventKind, Limits, RootMove, SearchOptions
from engine.search.tt import from_table, to_table

INF = WIN + 1
MATE_BOUND = WIN - MAX_PLIES
EXACT, LOWER, UPPER = 0, 1, 2
MAX_DEPTH = 64
VICTIM = {"p": 100, "n": 320, "b": 330, "r": 500, "q": 950, "k": 0, ".": 100}
ATTACKER = {"P": 1, "N": 3, "B": 3, "R": 5, "Q": 9, "K": 10}
PIECE_VALUE = {"P": 100, "N": 320, "B": 330, "R": 500, "Q": 950, "K": 0}
TT_LIMIT = 1 << 18
"""Most TT entries kept (each costs about 0.5 kB: the position is its own key); the table is cleared when full."""
SOFT_TIME = 0.6
"""With a time limit, no new iteration starts after this share of it (an unfinished one still counts its moves)."""
FUTILITY_MARGIN = 150
"""At depth 1, a static score this far above beta returns at once (reverse futility, "static null move")."""


class ChessSearcher(BaseSearcher):
    """Search a chess position (``state.board`` is a ``chess.Board``) and yield ``SearchInfo`` events.

    The shell is ``BaseSearcher``'s: input checks, limits, stop flags, the worker thread, counters and events;
    this class supplies the tree search (``_run``) and fills the best line and root moves of each event
    (``_emit``). ``search()`` yields one event per completed depth, progress events about every 100 ms, and one
    final event. Scores are for the side to move at the root: exact when the best move's search returned inside
    the aspiration window, ``WIN - plies`` for a forced mate. The final ``best`` is ``None`` only when the root
    has no legal move (its score is then the result: 0 for stalemate, ``-WIN`` when mated).

    ``options.personality`` names an entry of ``engine.chess.evaluation.PERSONALITIES`` (None: balanced); another
    name raises ``ValueError`` listing them. With ``options.root_margin``
    set, every root move gets a full-window search, so every ``RootMove`` score is exact and a level can choose
    among near-equal moves. ``stop`` is any object with ``is_set()``; ``stop()`` has the same effect.
    """

    algorithm: ClassVar[Algorithm] = "alphabeta"

    def __init__(self, state: Any, limits: Limits | None = None, options: SearchOptions | None = None,
                 stop: StopFlag | None = None) -> None:
        super().__init__(state, limits or Limits(), options or SearchOptions(), stop)
        check_personality(state, self.options)
        self.personality = PERSONALITIES[self.options.personality or DEFAULT_PERSONALITY]
        self.contempt = self.personality.contempt
        self.tt: dict[Position, tuple[int, int, int, Move | None]] = {}
        self.tt_limit = min(self.options.tt_size, TT_LIMIT)
        self.killers: list[list[Move | None]] = [[None, None] for _ in range(MAX_DEPTH * 4)]
        self.history: dict[Move, int] = {}
        self.entries: list[list[Any]] = []
        """The root moves as ``[move, child, child in check, child's halfmove clock]``, best first."""
        self.root_scores: dict[Move, int | None] = {}
        self.root_bounds: dict[Move, str | None] = {}
        self.root_nodes: dict[Move, int] = {}
        self._load(state)

    # ----------------------------------------------------------------------------------------------- setup

    def _load(self, state: Any) -> None:
        """Take ``state``'s board as the root: its game phase's tables, mop-up, the game's earlier positions."""
        if not isinstance(getattr(state, "board", None), chess.Board):
            raise TypeError(f"expected a chess state with a python-chess board, got {type(state).__name__}")
        self.board: chess.Board = state.board
        self.phase = game_phase(self.board)
        self.tables = build_tables(self.phase, self.personality)
        self.pawn_cache: dict[str, int] = {}
        self.white = self.board.turn == chess.WHITE
        self.root = cb.from_board(self.board, self.tables)
        strong = lone_king_side(self.board)
        self.mopup = strong is not None
        self.strong_at_root = strong == self.board.turn
        self.seen = self._game_history()

    def _game_history(self) -> set[Position]:
        """Positions of the game since the last capture or pawn move, excluding the root (for repetitions)."""
        board = self.board.copy()
        seen = set()
        for _ in range(min(board.halfmove_clock, len(board.move_stack))):
            board.pop()
            seen.add(cb.from_board(board, self.tables))
        return seen

    # ------------------------------------------------------------------------------------------ evaluation

    def _evaluate(self, pos: Position, ply: int) -> int:
        """Static score of ``pos`` for the side to move: the incremental material + piece-square score, pawn
        structure (cached by pawn placement), the bishop pair, and mop-up against a bare king."""
        board = pos.board
        if self.mopup:
            return pos.score + mopup_score(board, self.strong_at_root == (ply % 2 == 0))
        pawns = board.translate(PAWNS_ONLY)
        structure = self.pawn_cache.get(pawns)
        if structure is None:
            structure = self.pawn_cache[pawns] = pawn_structure(pawns, self.phase)
        score = pos.score + structure
        if board.count("B") >= 2:
            score += BISHOP_PAIR
        if board.count("b") >= 2:
            score -= BISHOP_PAIR
        return score

    def _draw(self, ply: int) -> int:
        """A draw's score for the side to move at ``ply``: ``-contempt`` for the engine's side."""
        return -self.contempt if ply % 2 == 0 else self.contempt

    # ---------------------------------------------------------------------------------------------- search

    def _ordered(self, pos: Position, moves: list[Move], tt_move: Move | None, ply: int) -> list[Move]:
        """``moves`` best-first: TT move, captures (MVV-LVA) and promotions, killers, then quiets by history."""
        board = pos.board
        options = self.options
        killers = self.killers[ply] if options.killers else (None, None)
        history = self.history if options.history else {}
        k0, k1 = killers
        ep = pos.ep

        def key(move: Move) -> int:
            if move == tt_move:
                return 1 << 30
            i, j, promo = move
            victim = board[j]
            if victim != "." or promo or (j == ep and board[i] == "P"):
                return (1 << 20) + VICTIM[victim] * 16 - ATTACKER[board[i]] + (900 if promo == "Q" else 0)
            if move == k0:
                return 1 << 19
            if move == k1:
                return (1 << 19) - 1
            return history.get(move, 0)

        moves.sort(key=key, reverse=True)
        return moves

    def _negamax(self, pos: Position, alpha: int, beta: int, depth: int, ply: int, hm: int, check: bool,
                 null_ok: bool) -> int:
        """The score of ``pos`` for the side to move, searched ``depth`` plies (fail-soft).

        A result ``<= alpha`` is an upper bound on the true score, ``>= beta`` a lower bound; strictly between
        them it is exact (for this depth and evaluation).

        One long function because it runs once per node and each piece needs most of the node's state: with its
        TT probe, its pruning before the moves, its PVS/LMR child search and its cutoff bookkeeping moved into four
        helper methods (taking up to 14 arguments; same nodes searched), the positions of ``bench/chess_speed.py``
        searched to depth 6 gave 2.8 % fewer nodes per CPU second (medians of 13 alternating runs: 52,573 against
        54,113; the split version was the slower in 8 of the 13 pairs, a small cost near the run-to-run spread).
        """
        self.nodes += 1
        if self.nodes >= self._next_check:
            self._tick()
        if ply > self.seldepth:
            self.seldepth = ply
        options = self.options
        if ply:
            if hm >= 100 or pos in self.seen:
                return self._draw(ply)
            if alpha < -WIN + ply:
                alpha = -WIN + ply
            if beta > WIN - ply - 1:
                beta = WIN - ply - 1
            if alpha >= beta:
                return alpha
        if depth <= 0:
            if options.quiescence:
                self.nodes -= 1
                return self._quiesce(pos, alpha, beta, ply, check)
            return self._evaluate(pos, ply)
        pv_node = beta - alpha > 1
        tt_move = None
        use_tt = options.tt
        if use_tt:
            self.tt_probes += 1
            entry = self.tt.get(pos)
            if entry is not None:
                self.tt_hits += 1
                e_depth, e_flag, e_score, tt_move = entry
                if e_depth >= depth and not pv_node and ply:
                    score = from_table(e_score, ply)
                    if e_flag == EXACT or (e_flag == LOWER and score >= beta) or (e_flag == UPPER and score <= alpha):
                        return score
        board = pos.board
        if not pv_node and not check and ply:
            static = self._evaluate(pos, ply)
            if options.null_move and depth == 1 and static - FUTILITY_MARGIN >= beta and abs(beta) < MATE_BOUND:
                return static
            if (options.null_move and null_ok and depth >= 3 and static >= beta
                    and ("Q" in board or "R" in board or "B" in board or "N" in board)):
                reduction = 3 if depth >= 6 else 2
                score = -self._negamax(pos.rotate(), -beta, -beta + 1, depth - 1 - reduction, ply + 1, hm + 1,
                                       False, False)
                if score >= beta:
                    return beta if score >= MATE_BOUND else score

        moves = gen_moves(board, pos.castling, pos.ep)
        self.generated += len(moves)
        if options.ordering:
            moves = self._ordered(pos, moves, tt_move, ply)
        tables = self.tables
        king = board.find("K")
        pins = cb.pinned(board, king)
        ep = pos.ep
        seen = self.seen
        seen.add(pos)
        best = -INF
        best_move = None
        original_alpha = alpha
        legal = 0
        lmr_ok = options.lmr and depth >= 3 and not check
        pvs = options.pvs and options.alphabeta
        extend = options.check_extension
        killers = self.killers[ply]
        try:
            for index, move in enumerate(moves):
                i, j, promo = move
                child = make_move(pos, move, tables)
                piece = board[i]
                if (check or i == king or i in pins or (j == ep and piece == "P")) and cb.left_in_check(child):
                    continue
                legal += 1
                child_board = child.board
                child_check = cb.attacked(child_board, child_board.find("K"))
                noisy = board[j] != "." or promo or (j == ep and piece == "P")
                new_depth = depth - 1 + (1 if child_check and extend and ply < 2 * depth + 8 else 0)
                child_hm = 0 if noisy or piece == "P" else hm + 1
                if legal == 1 or not pvs:
                    window_alpha = alpha if options.alphabeta else -INF
                    score = -self._negamax(child, -beta, -window_alpha, new_depth, ply + 1, child_hm, child_check,
                                           True)
                else:
                    reduction = 0
                    if (lmr_ok and legal > 3 and not noisy and not child_check and move != killers[0]
                            and move != killers[1]):
                        reduction = 1 if legal < 8 or depth < 5 else 2
                    score = -self._negamax(child, -alpha - 1, -alpha, new_depth - reduction, ply + 1, child_hm,
                                           child_check, True)
                    if score > alpha and reduction:
                        score = -self._negamax(child, -alpha - 1, -alpha, new_depth, ply + 1, child_hm, child_check,
                                               True)
                    if alpha < score < beta:
                        score = -self._negamax(child, -beta, -alpha, new_depth, ply + 1, child_hm, child_check, True)
                if score > best:
                    best = score
                    best_move = move
                    if score > alpha:
                        alpha = score
                        if alpha >= beta and options.alphabeta:
                            self.cutoffs += 1
                            self.pruned += len(moves) - index - 1
                            if not noisy:
                                if killers[0] != move:
                                    killers[1] = killers[0]
                                    killers[0] = move
                                self.history[move] = self.history.get(move, 0) + depth * depth
                            break
        finally:
            seen.discard(pos)
        if legal == 0:
            return -WIN + ply if check else self._draw(ply)
        if use_tt:
            if len(self.tt) >= self.tt_limit:
                self.tt.clear()
            flag = UPPER if best <= original_alpha else LOWER if best >= beta else EXACT
            self.tt[pos] = (depth, flag, to_table(best, ply), best_move)
        return best

    def _quiesce(self, pos: Position, alpha: int, beta: int, ply: int, check: bool | None = None) -> int:
        """Quiescence search: stand pat or resolve captures and queen promotions; every evasion when in check.

        Captures that cannot raise the score enough (delta pruning) and captures of a cheaper piece on a defended
        square (losing captures) are skipped.

        Same bound contract as ``_negamax`` (fail-soft).
        """
        self.nodes += 1
        self.qnodes += 1
        if self.nodes >= self._next_check:
            self._tick()
        if ply > self.seldepth:
            self.seldepth = ply
        board = pos.board
        king = board.find("K")
        if check is None:
            check = cb.attacked(board, king)
        tables = self.tables
        ep = pos.ep
        if check:
            best = -WIN + ply
            moves = gen_moves(board, pos.castling, ep)
            self.generated += len(moves)
            moves = self._ordered(pos, moves, None, ply)
            for move in moves:
                child = make_move(pos, move, tables)
                if cb.left_in_check(child):
                    continue
                score = -self._quiesce(child, -beta, -alpha, ply + 1)
                if score > best:
                    best = score
                    if score > alpha:
                        alpha = score
                        if alpha >= beta:
                            self.cutoffs += 1
                            break
            return best
        best = self._evaluate(pos, ply)
        if best >= beta:
            return best
        if best > alpha:
            alpha = best
        moves = gen_noisy(board, ep)
        if not moves:
            return best
        self.generated += len(moves)
        moves.sort(key=lambda m: VICTIM[board[m[1]]] * 16 - ATTACKER[board[m[0]]] + (900 if m[2] else 0),
                   reverse=True)
        margin = alpha - best - 200
        pins = cb.pinned(board, king)
        for index, move in enumerate(moves):
            i, j, promo = move
            victim = VICTIM[board[j]]
            if not promo and (victim < margin or (PIECE_VALUE[board[i]] > victim + 50 and cb.attacked(board, j))):
                self.pruned += 1
                continue
            child = make_move(pos, move, tables)
            if (i == king or i in pins or (j == ep and board[i] == "P")) and cb.left_in_check(child):
                continue
            score = -self._quiesce(child, -beta, -alpha, ply + 1)
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        self.cutoffs += 1
                        self.pruned += len(moves) - index - 1
                        break
        return best

    # ------------------------------------------------------------------------------------------------ root

    def set_position(self, state: Any) -> None:
        """Search ``state`` next time (a later position of the same game); killers and history are kept, the
        TT is cleared."""
        super().set_position(state)
        self._load(state)
        self.tt.clear()

    def _run(self) -> None:
        """Iterative deepening with aspiration windows; emits depth, progress and final events."""
        options, limits = self.options, self.limits
        root = self.root
        check = cb.in_check(root.board)
        entries: list[list[Any]] = []
        for move, child in cb.legal_moves(root, self.tables):
            child_check = cb.in_check(child.board)
            board = root.board
            noisy = board[move[1]] != "." or move[2] or (move[1] == root.ep and board[move[0]] == "P")
            hm = 0 if noisy or board[move[0]] == "P" else self.board.halfmove_clock + 1
            entries.append([move, child, child_check, hm])
        self.entries = entries
        self.root_scores = {e[0]: None for e in entries}
        self.root_bounds = {e[0]: None for e in entries}
        self.root_nodes = {e[0]: 0 for e in entries}
        if not entries:
            self.score = -WIN if check else 0
            self._emit("final")
            return
        if options.ordering:
            ordered = self._ordered(root, [e[0] for e in entries], None, 0)
            rank = {move: n for n, move in enumerate(ordered)}
            entries.sort(key=lambda e: rank[e[0]])
        exact_all = options.root_margin > 0 or not options.alphabeta
        max_depth = min(limits.depth or MAX_DEPTH, MAX_DEPTH)
        depths = range(1, max_depth + 1) if options.iterative or limits.depth is None else [max_depth]
        self.seen.add(root)
        try:
            for depth in depths:
                nodes_before = self.nodes
                score = self.score
                delta = 35
                alpha, beta = -INF, INF
                if (options.aspiration and not exact_all and depth >= 4 and score is not None
                        and abs(score) < MATE_BOUND):
                    alpha, beta = score - delta, score + delta
                while True:
                    result = self._root_iteration(depth, alpha, beta, exact_all)
                    if result <= alpha:
                        alpha = max(-INF, alpha - delta * 4)
                        delta *= 4
                    elif result >= beta:
                        beta = min(INF, beta + delta * 4)
                        delta *= 4
                    else:
                        break
                self.score = result
                self.depth = depth
                self.nodes_per_depth.append(self.nodes - nodes_before)
                self.ebf = effective_branching_factor(self.nodes_per_depth[-1], depth)
                self._emit("depth")
                if abs(result) > MATE_BOUND and depth >= WIN - abs(result) + 2:
                    break
                if limits.time is not None and self._elapsed() > SOFT_TIME * limits.time:
                    break
                if len(entries) == 1 and limits.depth is None and limits.time is not None:
                    break
        except SearchAborted:
            pass
        finally:
            self.seen.discard(root)
        self._emit("final")

    def _root_iteration(self, depth: int, alpha: int, beta: int, exact_all: bool) -> int:
        """Search every root move to ``depth`` within ``(alpha, beta)``; returns the best score (fail-soft).

        The best move found so far is kept first in ``self.entries``. With ``exact_all`` every root move gets a
        full-window search, so every score is exact (weak levels choose among near-equal moves).
        """
        options = self.options
        pvs = options.pvs and options.alphabeta and not exact_all
        extend = options.check_extension
        entries = self.entries
        self.generated += len(entries)
        best = -INF
        for index, entry in enumerate(list(entries)):
            move, child, child_check, hm = entry
            nodes_before = self.nodes
            new_depth = depth - 1 + (1 if child_check and extend else 0)
            bound = "exact"
            if exact_all:
                score = -self._negamax(child, -INF, INF, new_depth, 1, hm, child_check, True)
            elif index == 0 or not pvs:
                score = -self._negamax(child, -beta, -alpha, new_depth, 1, hm, child_check, True)
            else:
                score = -self._negamax(child, -alpha - 1, -alpha, new_depth, 1, hm, child_check, True)
                if alpha < score < beta:
                    score = -self._negamax(child, -beta, -alpha, new_depth, 1, hm, child_check, True)
            if not exact_all:
                bound = "upper" if score <= alpha else "lower" if score >= beta else "exact"
            self.root_nodes[move] += self.nodes - nodes_before
            self.root_scores[move] = score
            self.root_bounds[move] = bound
            if exact_all:
                if score > best:
                    best = score
                    if index:
                        entries.remove(entry)
                        entries.insert(0, entry)
                continue
            best = max(best, score)
            if score > alpha:
                # Only a proven improvement (not an upper bound from a failed-low window) changes the best move.
                if index:
                    entries.remove(entry)
                    entries.insert(0, entry)
                alpha = score
                if alpha >= beta:
                    self.cutoffs += 1
                    self.pruned += len(entries) - index - 1
                    break
        return best

    def _pv(self, entry: list[Any]) -> list[str]:
        """The principal variation starting with ``entry``'s move, continued from the TT while legal."""
        move, pos = entry[0], entry[1]
        white = self.white
        pv = [move_uci(move, white)]
        seen = {self.root, pos}
        for _ in range(MAX_DEPTH):
            white = not white
            stored = self.tt.get(pos)
            if stored is None or stored[3] is None:
                break
            children = dict(cb.legal_moves(pos, self.tables))
            next_move = stored[3]
            if next_move not in children:
                break
            pv.append(move_uci(next_move, white))
            pos = children[next_move]
            if pos in seen:
                break
            seen.add(pos)
        return pv

    def _emit(self, kind: EventKind) -> None:
        """Take the best line and the root moves from ``self.entries``, then queue the event like every searcher."""
        entries = self.entries
        self.pv = self._pv(entries[0]) if entries else []
        self.best = self.pv[0] if self.pv else None
        white = self.white
        self.root_moves = [RootMove(move_uci(move, white), self.root_scores.get(move), self.root_nodes.get(move, 0),
                                    bound=self.root_bounds.get(move)) for move, *_ in entries]
        super()._emit(kind)


Searcher = ChessSearcher
