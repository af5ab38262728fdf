"""The chess searcher: PVS alpha-beta on the internal board, a ``BaseSearcher`` like the generic searcher.

Why a chess-specific searcher: the generic core works on immutable ``State`` objects through method calls
(``legal_moves``, ``play``, ``evaluate``), which for chess means python-chess boards: copying one and generating its
legal moves costs tens of microseconds per node, far below the speed a playable engine needs in CPython. Here a
node is a 120-character string with an incremental score, and the hot loop is written out by hand. The numbers
are in ``docs/chess.md`` (``bench/chess_speed.py``).

Techniques (each switched by ``SearchOptions``): iterative deepening, aspiration windows, PVS, a transposition
table, move ordering (TT move, captures by most valuable victim / least valuable attacker, killers, history),
check extension, null-move pruning (off when the side to move has only pawns) with reverse futility pruning near
the horizon, late move reductions with late move pruning near the horizon, quiescence search
(captures and queen promotions; every evasion when in check), repetition and fifty-move draws inside the tree,
mate-distance scores (``WIN - plies``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import chess
from librt.vecs import vec
from mypy_extensions import i64

from engine.chess import board as cb
from engine.chess import convert
from engine.chess.evaluation import DEFAULT_PERSONALITY, PERSONALITIES, build_tables, game_phase, lone_king_side
from engine.chess.tree import ENDGAME_PIECES, INF, MATE_BOUND, MAX_DEPTH, ChessTree
from engine.clock import SYSTEM_MONOTONIC, Monotonic
from engine.game import WIN
from engine.search.base import (
    BaseSearcher,
    SearchAborted,
    StopFlag,
    check_personality,
    effective_branching_factor,
)
from engine.search.info import Algorithm, EventKind, Limits, RootMove, SearchOptions
from engine.search.steps import StepRecord, StepRecorder

SOFT_TIME = 0.6
"""With a time limit, no new iteration starts after this share of it (an unfinished one still counts its moves)."""
COUNTERS = ("nodes", "qnodes", "cutoffs", "pruned", "generated", "tt_probes", "tt_hits", "seldepth")
"""The counters the core keeps and every event reports."""


class ChessSearcher(BaseSearcher):
    """Search a chess position (``state.board`` is a ``chess.Board``) and yield ``SearchInfo`` events.

    The shell is ``BaseSearcher``'s: input checks, limits, stop flags, the worker thread, counters and events;
    this class supplies the root of the tree search (``_run``: iterative deepening, aspiration windows, the root
    moves) and fills the best line and root moves of each event (``_emit``); below the root, ``ChessTree``
    (compiled) searches. ``search()`` yields one event per completed depth, progress events about every 100 ms,
    and one final event. Scores are for the side to move at the root: exact when the best move's search returned
    inside the aspiration window, ``WIN - plies`` for a forced mate. The final ``best`` is ``None`` only when the
    root has no legal move (its score is then the result: 0 for stalemate, ``-WIN`` when mated).

    ``options.personality`` names an entry of ``engine.chess.evaluation.PERSONALITIES`` (None: balanced); another
    name raises ``ValueError`` listing them. With ``options.root_margin``
    set, every root move gets a full-window search, so every ``RootMove`` score is exact and a level can choose
    among near-equal moves. ``stop`` is any object with ``is_set()``; ``stop()`` has the same effect. ``clock``
    as ``BaseSearcher`` takes it.
    """

    algorithm: ClassVar[Algorithm] = "alphabeta"

    def __init__(self, state: Any, limits: Limits | None = None, options: SearchOptions | None = None,
                 stop: StopFlag | None = None, clock: Monotonic = SYSTEM_MONOTONIC) -> None:
        super().__init__(state, limits or Limits(), options or SearchOptions(), stop, clock)
        check_personality(state, self.options)
        self.personality = PERSONALITIES[self.options.personality or DEFAULT_PERSONALITY]
        self.core = ChessTree(self.options, self.personality.contempt, self._core_tick)
        self.entries: list[list[Any]] = []
        """The root moves as ``[move, child position, child in check, child's halfmove clock]``, best first."""
        self.root_scores: dict[int, int | None] = {}
        self.root_bounds: dict[int, str | None] = {}
        self.root_nodes: dict[int, int] = {}
        self._load(state)

    # ----------------------------------------------------------------------------------------------- setup

    def _load(self, state: Any) -> None:
        """Take ``state``'s board as the root: its game phase's tables, mop-up, the game's earlier positions."""
        if not isinstance(getattr(state, "board", None), chess.Board):
            raise TypeError(f"expected a chess state with a python-chess board, got {type(state).__name__}")
        self.board: chess.Board = state.board
        phase = game_phase(self.board)
        self.tables = build_tables(phase, self.personality)
        self.white = self.board.turn == chess.WHITE
        self.root = convert.from_board(self.board, self.tables)
        strong = lone_king_side(self.board)
        self.core.load(self.tables, phase, strong is not None, strong == self.board.turn, self._game_history(),
                       self.endgame_probe(), self.white, chess.popcount(self.board.occupied) <= ENDGAME_PIECES)

    def endgame_probe(self) -> Callable[[bytes, bool], int] | None:
        """The endgame tables the search reads below its root (``ChessTree.load``'s ``endgame``): none here; a
        subclass with tables gives them (``engine.solve.chess_endgames.TableChessSearcher``)."""
        return None

    def _game_history(self) -> set[bytes]:
        """Boards of the game since the last capture or pawn move, excluding the root (for repetitions)."""
        board = self.board.copy()
        seen = set()
        for _ in range(min(board.halfmove_clock, len(board.move_stack))):
            board.pop()
            seen.add(convert.from_board(board, self.tables).board)
        return seen

    def _core_tick(self) -> None:
        """Called by the core every ``CHECK_EVERY`` nodes: the shell's limits, stop flags and progress events."""
        self._tick()
        self.core.next_check = self._next_check

    def _sync_counters(self) -> None:
        """Copy the core's counters into the shell's, which events report."""
        core = self.core
        for name in COUNTERS:
            setattr(self, name, getattr(core, name))

    def _tick(self) -> None:
        self._sync_counters()
        super()._tick()

    # ------------------------------------------------------------------------------------------------ root

    def set_position(self, state: Any) -> None:
        """Search ``state`` next time (a later position of the same game); killers and history are kept, the
        TT is cleared."""
        super().set_position(state)
        self._load(state)
        self.core.clear_table()

    def _run(self) -> None:
        """Iterative deepening with aspiration windows; emits depth, progress and final events."""
        options, limits = self.options, self.limits
        root, core = self.root, self.core
        core.reset_counters(self._next_check)
        board = root.board
        check = cb.in_check(board)
        ep = cb.en_passant(board)
        entries: list[list[Any]] = []
        for move, child in cb.legal_moves(root, self.tables):
            start, end = cb.move_from(move), cb.move_to(move)
            noisy = board[end] != cb.EMPTY or cb.move_promotion(move) or (end == ep and board[start] == cb.PAWN)
            hm = 0 if noisy or board[start] == cb.PAWN else self.board.halfmove_clock + 1
            entries.append([move, child, cb.in_check(child.board), hm])
        self.entries = entries
        self._completed: tuple[list[str], str | None, list[RootMove]] = ([], None, [])
        self.root_scores = {e[0]: None for e in entries}
        self.root_bounds = {e[0]: None for e in entries}
        self.root_nodes = {e[0]: 0 for e in entries}
        if not entries:
            self.score = -WIN if check else 0
            self._emit("final")
            return
        if options.ordering:
            ordered = core.ordered(board, vec[i64]([e[0] for e in entries]), 0, 0)
            rank = {move: n for n, move in enumerate(ordered)}
            entries.sort(key=lambda e: rank[e[0]])
        exact_all = options.root_margin > 0 or not options.alphabeta
        max_depth = min(limits.depth or MAX_DEPTH, MAX_DEPTH)
        depths = range(1, max_depth + 1) if options.iterative or limits.depth is None else [max_depth]
        core.seen.add(board)
        try:
            for depth in depths:
                nodes_before = core.nodes
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
                self.nodes_per_depth.append(core.nodes - nodes_before)
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
            core.seen.discard(board)
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
        core = self.core
        core.generated += len(entries)
        core.nodes += 1
        steps = core.steps
        if steps is not None:
            steps.root()
            steps.enter(alpha, beta, depth)
            steps.ordered([entry[0] for entry in entries], self._root_reasons())
        best = -INF
        for index, entry in enumerate(list(entries)):
            move, child, child_check, hm = entry
            nodes_before = core.nodes
            new_depth = depth - 1 + (1 if child_check and extend else 0)
            bound = "exact"
            if exact_all:
                window = (-INF, INF)
            elif index == 0 or not pvs:
                window = (-beta, -alpha)
            else:
                window = (-alpha - 1, -alpha)
            score = -self._child(index, "F" if window[1] - window[0] > 1 else "P", move, child, window, new_depth, hm,
                                 child_check)
            if not exact_all and index > 0 and pvs and alpha < score < beta:
                score = -self._child(index, "S", move, child, (-beta, -alpha), new_depth, hm, child_check)
            if not exact_all:
                bound = "upper" if score <= alpha else "lower" if score >= beta else "exact"
            self.root_nodes[move] += core.nodes - nodes_before
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
                    core.cutoffs += 1
                    core.pruned += len(entries) - index - 1
                    if steps is not None:
                        steps.cutoff(index)
                    break
        if steps is not None:
            steps.leave(best)
        return best

    def _child(self, index: int, kind: str, move: int, child: Any, window: tuple[int, int], depth: int, hm: int,
               check: bool) -> int:
        """The value of root move ``move`` (its position ``child``, in ``check`` or not, ``hm`` plies since a
        capture or pawn move) searched to ``depth`` with ``window``, for the side to move after it; recorded as the
        ``index``-th root move searched as ``kind`` when the steps are."""
        steps = self.core.steps
        if steps is not None:
            steps.child(index, kind, move)
            steps.enter(window[0], window[1], depth)
        board, value, kings = child
        result = self.core.negamax(board, value, kings, window[0], window[1], depth, 1, hm, check, True)
        if steps is not None:
            steps.leave(result)
        return result

    def _root_reasons(self) -> list[str]:
        """Why each root move is where it is in this pass over the root: the first pass orders by the ordering keys,
        later ones keep the last pass's order, in which each move that raised the best went to the front."""
        if self.depth == 0:  # no pass over the root has ended yet
            return self.core.order_reasons(self.root.board, vec[i64]([entry[0] for entry in self.entries]), 0, 0)
        return ["the best move of the last pass over the root" if index == 0
                else "its place after the last pass over the root (a move that raised the best went first)"
                for index in range(len(self.entries))]

    def record_steps(self, recorder: StepRecorder | None) -> None:
        """Record every node of the next searches in ``recorder`` (None: stop recording); the core records."""
        super().record_steps(recorder)
        self.core.record_steps(recorder)

    def readable_steps(self, record: StepRecord) -> StepRecord:
        """``record`` with the core's internal moves written in UCI ("pass" for a null move)."""
        white = self.white

        def text(move: int, ply: int) -> str:
            return convert.move_uci(move, white == (ply % 2 == 0)) if move else "pass"

        moves = record["move"]
        plies = record["ply"]
        order = {node: [[text(int(move), plies[int(node)]), reason] for move, reason in rows]
                 for node, rows in record["order"].items()}
        skipped = {node: [text(int(move), plies[int(node)]) for move in left]
                   for node, left in record["skipped"].items()}
        return {**record, "order": order, "skipped": skipped,
                "move": [text(int(move), ply - 1) if ply else "" for move, ply in zip(moves, plies, strict=True)]}

    def _pv(self, entry: list[Any]) -> list[str]:
        """The principal variation starting with ``entry``'s move, continued from the TT while legal."""
        move, position = entry[0], entry[1]
        white = self.white
        pv = [convert.move_uci(move, white)]
        seen = {self.root.board, position.board}
        for _ in range(MAX_DEPTH):
            white = not white
            next_move = self.core.stored_move(position.board)
            children = dict(cb.legal_moves(position, self.tables)) if next_move else {}
            if next_move not in children:
                break
            pv.append(convert.move_uci(next_move, white))
            position = children[next_move]
            if position.board in seen:
                break
            seen.add(position.board)
        return pv

    def _emit(self, kind: EventKind) -> None:
        """Queue the event like every searcher, its best line, best move and root moves those of the last completed
        iteration (``self.score`` is that iteration's): a "progress" event reports the running iteration only in its
        counters. A final event after a stop mid-iteration keeps a best move that iteration proved better (the
        root's first entry), with its score in the headline and in its row."""
        self._sync_counters()
        if kind == "progress":
            self.pv, self.best, self.root_moves = self._completed
            super()._emit(kind)
            return
        entries = self.entries
        pv = self._pv(entries[0]) if entries else []
        best = pv[0] if pv else None
        completed_pv, completed_best, completed_roots = self._completed
        if kind == "final" and completed_best is not None:
            self.pv, self.best, self.root_moves = completed_pv, completed_best, completed_roots
            if best is not None and best != completed_best:
                move = entries[0][0]
                self.pv, self.best, self.score = pv, best, self.root_scores[move]
                self.root_moves = [RootMove(best, self.root_scores[move], self.root_nodes.get(move, 0),
                                            bound=self.root_bounds.get(move)) if row.move == best else row
                                   for row in completed_roots]
        else:
            white = self.white
            self.pv, self.best = pv, best
            lines = self.options.root_lines and self.options.root_margin > 0
            self.root_moves = [RootMove(convert.move_uci(entry[0], white), self.root_scores.get(entry[0]),
                                        self.root_nodes.get(entry[0], 0), bound=self.root_bounds.get(entry[0]),
                                        pv=self._pv(entry) if lines and self.root_bounds.get(entry[0]) == "exact"
                                        else None)
                               for entry in entries]
        if kind == "depth":
            self._completed = (list(self.pv), self.best, list(self.root_moves))
        super()._emit(kind)

