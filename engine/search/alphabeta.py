"""Negamax alpha-beta: principal-variation search, iterative deepening, transposition table, move ordering.

Scores follow ``engine.game``: from the side to move's point of view, a win ``WIN - plies`` from the root and a
loss ``-(WIN - plies)``, so the search prefers the fastest win and the slowest loss.

Techniques, each switched by ``SearchOptions``:

- ``alphabeta``: cutoffs. Off, the same code is plain negamax: every node gets the full window and no move is
  skipped (PVS, aspiration, mate-distance pruning, null move and LMR are then off too).
- ``pvs``: the first move of a node gets the full window, later ones a null window, re-searched on a fail-high.
- ``iterative``: depths 1, 2, ... up to the limit; each iteration orders the next. With no depth limit the search
  goes on until an iteration is proven, i.e. no heuristic evaluation (and no table entry resting on one) took
  part in it: its score is then the game's value.
- ``tt``: transposition table (``engine.search.tt``); uses ``state.symmetric_key`` when the game has one.
- ``ordering`` (with ``killers`` and ``history``): TT move, killers, ``order_hint`` and history first.
- ``aspiration``: once the score is stable (the last two iterations closer than the window's half-width), a
  window around the previous score, widened when the score falls outside.
- ``quiescence``: at the horizon, games with ``noisy_moves()`` search those moves until the position is quiet.
- ``null_move``: games with ``play_null()`` (and ``in_check()``) try passing with a depth reduction of 2.
- ``lmr``: late quiet moves (fourth onwards, not killers, not noisy) are searched one ply shallower first.
- ``check_extension``: games with ``in_check()`` search a position in check one ply deeper.

With no depth or time limit the search is solving the position: null move and LMR, whose reduced searches can only
delay the proof, are then left out.

- ``bounds``: mate-distance pruning (a position ``ply`` plies from the root cannot be worth more than a win on
  the next ply nor less than a loss on it), narrowed by the game's ``score_bounds()`` (bounds for the side to
  move, counted from the position itself, checked before the horizon too), and ``non_losing_moves()`` (moves
  that hand the opponent an immediate win are skipped when at least two plies remain). These are the game's
  value from its rules, so with them a depth-limited score can differ from plain minimax at that depth (it is
  closer to the truth); they never change a score searched to the end.
"""

from __future__ import annotations

from typing import cast

from engine.clock import SYSTEM_MONOTONIC, Monotonic
from engine.game import WIN, HintedState, Move, State, is_decided, score_scale
from engine.search.base import (
    DEEPEST_ITERATION,
    BaseSearcher,
    SearchAborted,
    StopFlag,
    effective_branching_factor,
    terminal_score,
)
from engine.search.info import Limits, RootMove, SearchOptions
from engine.search.mate_distance import from_table, to_table
from engine.search.ordering import MoveOrderer
from engine.search.tree_recorder import TreeRecorder
from engine.search.tt import NO_LOWER, NO_UPPER, SOLVED_DEPTH, TranspositionTable

INFINITY = WIN + 1
"""Finite stand-in for an infinite bound: beyond every score."""

LMR_MIN_DEPTH = 3
LMR_FIRST_MOVE = 3
NULL_MOVE_REDUCTION = 2
ASPIRATION_TRIES = 3


UNORDERED = "the order the game generates moves in"
"""The reason a move has its place when ordering is off."""


class Searcher(BaseSearcher):
    """Alpha-beta searcher for one game session: the TT, killers and history survive ``set_position``.

    ``search()`` yields ``SearchInfo`` events (see ``engine.search.info``): one per completed depth, progress
    about every 100 ms, and a final event whose ``best`` is a legal move whenever the position has one.
    """

    algorithm = "alphabeta"

    def __init__(self, state: State, limits: Limits = Limits(), options: SearchOptions = SearchOptions(),  # noqa: B008
                 stop: StopFlag | None = None, clock: Monotonic = SYSTEM_MONOTONIC) -> None:
        super().__init__(state, limits, options, stop, clock)
        self.tt = TranspositionTable(options.tt_size) if options.tt else None
        transfer = getattr(type(state), "refutations_transfer", True)
        self.orderer = MoveOrderer(options.killers and transfer, options.history and transfer)

    # -- iterative deepening ----------------------------------------------------------------------------------

    def _run(self) -> None:
        options = self.options
        state = self.state
        self._alphabeta = options.alphabeta
        self._pvs = options.alphabeta and options.pvs
        self._ordering = options.ordering
        self._symmetric = hasattr(state, "symmetric_key")
        self._mate_pruning = options.alphabeta and options.bounds
        self._bounds = self._mate_pruning and getattr(state, "score_bounds", None) is not None
        self._quiesce = options.quiescence and getattr(state, "noisy_moves", None) is not None
        solving = self.limits.depth is None and self.limits.time is None
        self._null_move = (options.alphabeta and options.null_move and not solving
                      and getattr(state, "play_null", None) is not None)
        self._lmr = options.alphabeta and options.lmr and not solving
        self._check_extension = options.check_extension and getattr(state, "in_check", None) is not None
        self._non_losing = self._mate_pruning and getattr(state, "non_losing_moves", None) is not None
        self._horizon = 0
        self._in_null = 0
        self._scores: list[int] = []
        self._last_root_scores: dict[Move, int] = {}
        self._pv_table: list[list[Move]] = [[] for _ in range(DEEPEST_ITERATION + 2)]
        if self.tt is not None:
            self.tt.new_search()
        moves = state.legal_moves()
        outcome = state.outcome()
        if outcome is not None or not moves:
            self.nodes = 1
            self.proven = outcome is not None
            self.score = terminal_score(outcome, state.to_move, 0) if outcome is not None else state.evaluate()
            self._emit("final")
            return
        self._root_order = self.orderer.order(state, moves, self._root_tt_move(), 0) if self._ordering else list(moves)
        self.best = state.move_text(self._root_order[0])
        max_depth = self.limits.depth or DEEPEST_ITERATION
        depths = range(1, max_depth + 1) if options.iterative else (max_depth,)
        for depth in depths:
            if depth > 1 and self._elapsed() > (self.limits.time or float("inf")) / 2:
                break
            horizon_before, nodes_before = self._horizon, self.nodes
            try:
                score = self._iterate(depth)
            except SearchAborted:
                self._adopt_partial_iteration()
                break
            if depth == DEEPEST_ITERATION:
                depth = max(self.seldepth, 1)
            iteration_nodes = self.nodes - nodes_before
            self.nodes_per_depth.append(iteration_nodes)
            self.ebf = effective_branching_factor(iteration_nodes, depth)
            self.depth = depth
            self.score = score
            self._scores.append(score)
            self.best = state.move_text(self._iteration_best)
            self.pv = self._principal_variation()
            self.root_moves = self._iteration_roots
            self.proven = self._horizon == horizon_before
            if self._recorder is not None:
                self.tree = self._recorder.result()
            self._emit("depth")
            if self.proven:
                break  # no heuristic value took part, deeper iterations would find the same
        self._emit("final")

    def _root_tt_move(self) -> Move | None:
        """The best move the TT remembers for the root (from an earlier search of this game), or None."""
        if self.tt is None:
            return None
        state = cast(HintedState, self.state)
        entry = self.tt.get(state.symmetric_key if self._symmetric else state.key)
        return entry[4] if entry is not None and entry[5] == state.key else None

    def _iterate(self, depth: int) -> int:
        """One iteration at ``depth``, with an aspiration window around the previous score when enabled."""
        self._recorder = TreeRecorder(self.options.record_tree) if self.options.record_tree else None
        previous = self.score
        if not (self._alphabeta and self.options.aspiration and previous is not None and depth > 1
                and not is_decided(previous)):
            return self._search_root(depth, -INFINITY, INFINITY)
        delta = max(1, score_scale(self.state) // 3)
        if len(self._scores) < 2 or abs(previous - self._scores[-2]) >= delta:
            return self._search_root(depth, -INFINITY, INFINITY)  # the score still swings: a window would fail
        alpha, beta = previous - delta, previous + delta
        for _ in range(ASPIRATION_TRIES):
            if self._recorder is not None:
                self._recorder = TreeRecorder(self.options.record_tree)
            score = self._search_root(depth, alpha, beta)
            if score <= alpha:
                alpha -= 4 * delta
            elif score >= beta:
                beta += 4 * delta
            else:
                return score
            delta *= 4
        if self._recorder is not None:
            self._recorder = TreeRecorder(self.options.record_tree)
        return self._search_root(depth, -INFINITY, INFINITY)

    def _adopt_partial_iteration(self) -> None:
        """After a stop: keep a move of the unfinished iteration only if it was searched to the end and beat
        the previous best (the previous best is searched first, so any completed best is at least as good). Its
        row among the root moves then gets that score, so the headline and the best move's row agree."""
        best = getattr(self, "_partial_best", None)
        self.root_moves = self.root_moves or [RootMove(self.state.move_text(m), None) for m in self._root_order]
        if best is not None and self._partial_score is not None:
            text = self.state.move_text(best)
            if text != self.best:
                self.best = text
                self.score = self._partial_score
                self.pv = [text]
                self.root_moves = [RootMove(text, self._partial_score, row.nodes, bound="exact")
                                   if row.move == text else row for row in self.root_moves]

    # -- root ---------------------------------------------------------------------------------------------------

    def _search_root(self, depth: int, alpha: int, beta: int) -> int:
        """Search every root move at ``depth`` within ``(alpha, beta)``; fail-soft like ``_negamax``.

        Sets ``_iteration_best`` and ``_iteration_roots``: each root move's score with its bound ("exact", or
        "upper" for a move refuted by a null-window search, "lower" for a fail-high). Moves within
        ``options.root_margin`` of the best get exact scores.
        """
        state = cast(HintedState, self.state)
        self.nodes += 1
        if self.nodes >= self._next_check:
            self._tick()
        recorder = self._recorder
        if recorder is not None:
            recorder.enter(None, alpha, beta, depth)
        self._partial_best, self._partial_score = None, None
        alpha_start, horizon_before = alpha, self._horizon
        moves = self._root_order
        self.generated += len(moves)
        steps = self.steps
        if steps is not None:
            steps.root()
            steps.enter(alpha, beta, depth)
            steps.ordered([state.move_text(m) for m in moves], self._root_reasons(moves))
        margin = self.options.root_margin
        lines = self.options.root_lines and margin > 0
        ab = self._alphabeta
        visit = self._visit_recorded if recorder is not None else self._visit_stepped if steps is not None else (
            self._negamax)
        best, best_move = -INFINITY, moves[0]
        results: dict[Move, RootMove] = {}
        order_keys: dict[Move, int] = {}
        self._pv_table[0] = []
        for index, move in enumerate(moves):
            child = state.play(move)
            nodes_before = self.nodes
            text = state.move_text(move)
            if not ab:
                if steps is not None:
                    steps.child(index, "F", text)
                score = -visit(child, depth - 1, -INFINITY, INFINITY, 1, move)
                floor = -INFINITY
            else:
                floor = alpha if index == 0 else max(alpha, best - margin - 1 if margin else best)
                if index == 0 or not self._pvs:
                    if steps is not None:
                        steps.child(index, "F", text)
                    score = -visit(child, depth - 1, -beta, -floor, 1, move)
                else:
                    if steps is not None:
                        steps.child(index, "P", text)
                    score = -visit(child, depth - 1, -floor - 1, -floor, 1, move)
                    if floor < score < beta:
                        if steps is not None:
                            steps.child(index, "S", text)
                        score = -visit(child, depth - 1, -beta, -floor, 1, move)
            bound = "exact" if not ab or floor < score < beta else ("upper" if score <= floor else "lower")
            line = self._line_texts([move, *self._pv_table[1]]) if lines and bound == "exact" else None
            results[move] = RootMove(text, score, self.nodes - nodes_before, bound=bound, pv=line)
            order_keys[move] = score
            if score > best:
                best, best_move = score, move
                self._pv_table[0] = [move, *self._pv_table[1]]
                if bound == "exact" or index == 0:
                    self._partial_best, self._partial_score = move, score
                if ab and score >= beta:
                    self.cutoffs += 1
                    self.pruned += len(moves) - index - 1
                    if recorder is not None:
                        recorder.prune([state.move_text(m) for m in moves[index + 1:]])
                    if steps is not None:
                        steps.cutoff(index)
                    break
                if ab and score > alpha and not margin:
                    alpha = score
        if recorder is not None:
            recorder.leave(best)
        if steps is not None:
            steps.leave(best)
        # next iteration: best first, then by this iteration's scores (unsearched moves keep their place)
        self._last_root_scores = order_keys
        searched = sorted(order_keys, key=order_keys.__getitem__, reverse=True)
        searched.remove(best_move)
        self._root_order = [best_move, *searched, *(m for m in moves if m not in order_keys)]
        self._iteration_best = best_move
        self._iteration_roots = [results[m] if m in results else RootMove(state.move_text(m), None)
                                 for m in self._root_order]
        if self.tt is not None:
            key = state.symmetric_key if self._symmetric else state.key
            stored_depth = SOLVED_DEPTH if self._horizon == horizon_before else depth
            self.tt.store(key, stored_depth, *_bounds_of(best, alpha_start, beta, ab), best_move, state.key)
        return best

    def _principal_variation(self) -> list[str]:
        """The PV of the last iteration as move texts, extended from the TT while its moves stay legal."""
        return self._line_texts(list(self._pv_table[0]))

    def _line_texts(self, line: list[Move]) -> list[str]:
        """The moves of ``line``, played from the root, as texts, extended from the TT while its moves stay
        legal."""
        state = cast(HintedState, self.state)
        texts = []
        for move in line:
            texts.append(state.move_text(move))
            state = state.play(move)
        if self.tt is not None:
            seen = {state.key}
            while len(texts) < DEEPEST_ITERATION and state.outcome() is None:
                entry = self.tt.get(state.symmetric_key if self._symmetric else state.key)
                if entry is None or entry[4] is None or entry[5] != state.key or entry[4] not in state.legal_moves():
                    break
                texts.append(state.move_text(entry[4]))
                state = state.play(entry[4])
                if state.key in seen:
                    break
                seen.add(state.key)
        return texts

    def _root_reasons(self, moves: list[Move]) -> list[str]:
        """Why each root move is where it is: the first iteration orders like any node; later ones put the last
        iteration's best first, then its other moves by their scores."""
        last = self._last_root_scores
        if not last:
            if not self._ordering:
                return [UNORDERED] * len(moves)
            return self.orderer.reasons(self.state, moves, self._root_tt_move(), 0)
        reasons = []
        for index, move in enumerate(moves):
            if index == 0:
                reasons.append("the best move of the last pass over the root")
            elif move in last:
                reasons.append(f"its score in the last pass over the root: {last[move]}")
            else:
                reasons.append("not searched in the last pass over the root")
        return reasons

    # -- interior nodes -------------------------------------------------------------------------------------------

    def _visit_stepped(self, state: HintedState, depth: int, alpha: int, beta: int, ply: int,
                       move: Move | None) -> int:
        steps = self.steps
        assert steps is not None, "only visited while the steps are recorded"
        steps.enter(alpha, beta, depth)
        score = self._negamax(state, depth, alpha, beta, ply, move)
        steps.leave(score)
        return score

    def _visit_recorded(self, state: HintedState, depth: int, alpha: int, beta: int, ply: int, move: Move) -> int:
        recorder = self._recorder
        assert recorder is not None, "only visited while a tree is recorded"
        recorder.enter(state.move_text(move), alpha, beta, depth)
        score = self._negamax(state, depth, alpha, beta, ply, move)
        recorder.leave(score)
        return score

    def _negamax(self, state: HintedState, depth: int, alpha: int, beta: int, ply: int,
                 move: Move | None = None) -> int:
        """The value of ``state`` searched to ``depth`` plies, ``ply`` plies from the root; fail-soft.

        With true value ``v``: if ``v <= alpha`` the result ``r`` is an upper bound, ``v <= r <= alpha``; if
        ``v >= beta`` it is a lower bound, ``beta <= r <= v``; otherwise ``r == v``. "True value" means the
        depth-limited value (heuristic at the horizon), which is the game's value when no horizon is reached.

        One long function because its steps (bounds, TT probe, null move, move loop, TT store) read and narrow the
        same locals (``alpha``, ``beta``, ``alpha_start``, ``tt_move``, the horizon count) in turn. Speed is not
        the reason here: moving the TT probe into a helper method (returning the hit, the TT move and the
        narrowed window) gave the same nodes per second (``python -m engine analyse connect4 --depth 13``, medians
        of 5 alternating runs: 64,505 against 64,486, same 161,651 nodes).
        """
        self.nodes += 1
        if self.nodes >= self._next_check:
            self._tick()
        if ply > self.seldepth:
            self.seldepth = ply
        pv_table = self._pv_table
        pv_table[ply] = []
        steps = self.steps
        outcome = state.outcome()
        if outcome is not None:
            if steps is not None:
                steps.answer("e")
            return terminal_score(outcome, state.to_move, ply)
        if self._check_extension and ply < DEEPEST_ITERATION - 1 and state.in_check():
            depth += 1
        ab = self._alphabeta
        if depth <= 0 and not self._bounds:
            if self._quiesce:
                return self._quiescence(state, alpha, beta, ply)
            self._horizon += 1
            if steps is not None:
                steps.answer("h")
            return state.evaluate()
        if self._mate_pruning:
            low, high = -(WIN - ply - 1), WIN - ply - 1
            if self._bounds:
                bound_low, bound_high = state.score_bounds()
                low, high = max(low, from_table(bound_low, ply)), min(high, from_table(bound_high, ply))
            if low >= beta:
                if steps is not None:
                    steps.answer("b")
                return low
            if high <= alpha:
                if steps is not None:
                    steps.answer("b")
                return high
            if low > alpha:
                alpha = low
            if high < beta:
                beta = high
            if alpha >= beta:
                if steps is not None:
                    steps.answer("b")
                return alpha
            if depth <= 0:
                if self._quiesce:
                    return self._quiescence(state, alpha, beta, ply)
                self._horizon += 1
                if steps is not None:
                    steps.answer("h")
                return state.evaluate()
        alpha_start = alpha
        tt = self.tt
        tt_move = None
        if tt is not None:
            key = state.symmetric_key if self._symmetric else state.key
            self.tt_probes += 1
            entry = tt.get(key)
            if entry is None:
                if steps is not None:
                    steps.probe("m")
            else:
                self.tt_hits += 1
                if entry[5] == state.key:
                    tt_move = entry[4]
                if steps is not None:
                    steps.probe("o", *_entry_text(entry, ply))
                if entry[1] >= depth:
                    lower, upper = from_table(entry[2], ply), from_table(entry[3], ply)
                    if lower == upper or (ab and (lower >= beta or upper <= alpha)):
                        if entry[1] != SOLVED_DEPTH:
                            self._horizon += 1
                        if steps is not None:
                            steps.probe("c", *_entry_text(entry, ply))
                            steps.answer("t")
                        return lower if lower == upper or lower >= beta else upper
                    if ab and (lower > alpha or upper < beta):
                        # a narrower window; results within the stored bounds stay exact, so no horizon mark
                        alpha, beta = max(alpha, lower), min(beta, upper)
                        alpha_start = alpha
                        if steps is not None:
                            steps.probe("n", *_entry_text(entry, ply))
        horizon_before = self._horizon
        visit = self._visit_recorded if self._recorder is not None else self._visit_stepped if steps is not None else (
            self._negamax)
        if (self._null_move and not self._in_null and depth > NULL_MOVE_REDUCTION and not is_decided(beta)
                and not (hasattr(state, "in_check") and state.in_check())):
            self._in_null += 1
            if steps is not None:
                steps.child(-1, "N", "pass")
            try:
                score = -(self._negamax if steps is None else self._visit_stepped)(
                    state.play_null(), depth - 1 - NULL_MOVE_REDUCTION, -beta, -beta + 1, ply + 1, None)
            finally:
                self._in_null -= 1
            if score >= beta:
                self._horizon += 1
                if steps is not None:
                    steps.answer("p")
                return score
        moves = state.legal_moves()
        self.generated += len(moves)
        if self._non_losing and depth >= 2:  # moves handing the opponent a win at once count as pruned
            safe = state.non_losing_moves()
            if safe:
                self.pruned += len(moves) - len(safe)
                if self._recorder is not None:
                    self._recorder.prune([state.move_text(m) for m in moves if m not in safe])
                if steps is not None:
                    steps.skip([state.move_text(m) for m in moves if m not in safe])
                moves = safe
        if self._ordering:
            moves = self.orderer.order(state, moves, tt_move, ply)
        if steps is not None:
            steps.ordered([state.move_text(m) for m in moves],
                          self.orderer.reasons(state, moves, tt_move, ply) if self._ordering
                          else [UNORDERED] * len(moves))
        pvs = self._pvs
        noisy = None
        best, best_move = -INFINITY, None
        for index, move in enumerate(moves):
            child = state.play(move)
            if not ab:
                if steps is not None:
                    steps.child(index, "F", state.move_text(move))
                score = -visit(child, depth - 1, -INFINITY, INFINITY, ply + 1, move)
            elif index == 0 or not pvs:
                if steps is not None:
                    steps.child(index, "F", state.move_text(move))
                score = -visit(child, depth - 1, -beta, -alpha, ply + 1, move)
            else:
                reduction = 0
                if (self._lmr and depth >= LMR_MIN_DEPTH and index >= LMR_FIRST_MOVE and move != tt_move
                        and beta == alpha + 1):
                    if noisy is None:
                        noisy = set(state.noisy_moves()) if self._quiesce else ()
                    killers = self.orderer.killers[ply] if ply < len(self.orderer.killers) else ()
                    if move not in noisy and move not in killers:
                        reduction = 1
                if steps is not None:
                    steps.child(index, "L" if reduction else "P", state.move_text(move))
                score = -visit(child, depth - 1 - reduction, -alpha - 1, -alpha, ply + 1, move)
                if reduction and score > alpha:
                    if steps is not None:
                        steps.child(index, "P", state.move_text(move))
                    score = -visit(child, depth - 1, -alpha - 1, -alpha, ply + 1, move)
                if alpha < score < beta:
                    if steps is not None:
                        steps.child(index, "S", state.move_text(move))
                    score = -visit(child, depth - 1, -beta, -alpha, ply + 1, move)
            if score > best:
                best, best_move = score, move
                if ab and score >= beta:
                    self.cutoffs += 1
                    self.pruned += len(moves) - index - 1
                    if self._recorder is not None:
                        self._recorder.prune([state.move_text(m) for m in moves[index + 1:]])
                    if steps is not None:
                        steps.cutoff(index)
                    if self._ordering:
                        self.orderer.record_cutoff(state, move, depth, ply)
                    break
                if score > alpha or not ab:
                    pv_table[ply] = [move, *pv_table[ply + 1]]
                    if ab:
                        alpha = score
        if tt is not None:
            stored_depth = SOLVED_DEPTH if self._horizon == horizon_before else depth
            lower, upper = _bounds_of(best, alpha_start, beta, ab)
            tt.store(key, stored_depth, to_table(lower, ply), to_table(upper, ply), best_move, state.key)
        return best

    def _quiescence(self, state: HintedState, alpha: int, beta: int, ply: int) -> int:
        """Stand pat on ``evaluate()`` or try the noisy moves; fail-soft like ``_negamax`` (the node itself was
        already counted by the caller)."""
        self._horizon += 1
        steps = self.steps
        if steps is not None:
            steps.answer("q")
        best = state.evaluate()
        if best >= beta:
            return best
        if best > alpha:
            alpha = best
        moves = state.noisy_moves()
        self.generated += len(moves)
        hint = getattr(state, "order_hint", None)
        if hint is not None and self._ordering:
            moves = sorted(moves, key=hint, reverse=True)
        if steps is not None:
            steps.ordered([state.move_text(m) for m in moves],
                          [f"capture order: {hint(m)}" if hint is not None and self._ordering else UNORDERED
                           for m in moves])
        for index, move in enumerate(moves):
            child = state.play(move)
            self.nodes += 1
            self.qnodes += 1
            if steps is not None:
                steps.child(index, "Q", state.move_text(move))
                steps.enter(-beta, -alpha, 0)
            if self.nodes >= self._next_check:
                self._tick()
            if ply + 1 > self.seldepth:
                self.seldepth = ply + 1
            outcome = child.outcome()
            if outcome is not None:
                if steps is not None:
                    steps.answer("e")
                score = -terminal_score(outcome, child.to_move, ply + 1)
            else:
                score = -self._quiescence(child, -beta, -alpha, ply + 1)
            if steps is not None:
                steps.leave(-score)
            if score > best:
                best = score
                if steps is not None:
                    steps.answer("s")
                if score >= beta:
                    self.cutoffs += 1
                    self.pruned += len(moves) - index - 1
                    if steps is not None:
                        steps.cutoff(index)
                    break
                if score > alpha:
                    alpha = score
        return best


def _entry_text(entry: tuple[int, int, int, int, Move | None, int, int], ply: int) -> tuple[int, int, int]:
    """A table entry as the steps record it: its depth (-1 for proven) and its bounds relative to the root."""
    lower = entry[2] if entry[2] == NO_LOWER else from_table(entry[2], ply)
    upper = entry[3] if entry[3] == NO_UPPER else from_table(entry[3], ply)
    return (-1 if entry[1] == SOLVED_DEPTH else entry[1]), lower, upper


def _bounds_of(score: int, alpha: int, beta: int, alphabeta: bool) -> tuple[int, int]:
    """What a fail-soft result says about the value: (lower, upper) bounds, equal when exact."""
    if not alphabeta or alpha < score < beta:
        return score, score
    return (NO_LOWER, score) if score <= alpha else (score, NO_UPPER)
