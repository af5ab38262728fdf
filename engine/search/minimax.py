"""Plain minimax in negamax form: every move of every node searched, nothing pruned, nothing remembered.

It is the yardstick the other techniques are measured against: from the empty tic-tac-toe board, one pass to the
end of the game visits 549,946 nodes (root included). With ``iterative`` it runs depth 1, 2, ... (each a full
pass); without a depth limit it goes on until a pass reaches no horizon (the value is then the game's value).
Every root move gets an exact score. With ``record_tree`` the last pass's tree is recorded like alpha-beta's
(every window the full one, nothing pruned).
"""

from __future__ import annotations

from engine.game import WIN, Move, State
from engine.search.base import (
    DEEPEST_ITERATION,
    BaseSearcher,
    SearchAborted,
    effective_branching_factor,
    terminal_score,
)
from engine.search.info import RootMove
from engine.search.tree_recorder import TreeRecorder

INFINITY = WIN + 1
"""Finite stand-in for an infinite bound: beyond every score."""


class MinimaxSearcher(BaseSearcher):
    """Minimax with the same events as alpha-beta; ``cutoffs``, ``pruned`` and TT counters stay 0."""

    algorithm = "minimax"

    def _run(self) -> None:
        state = self.state
        self._horizon = 0
        self._pv_table: list[list[Move]] = [[] for _ in range(DEEPEST_ITERATION + 2)]
        moves = state.legal_moves()
        outcome = state.outcome()
        if outcome is not None or not moves:
            self.nodes = 1
            self.score = terminal_score(outcome, state.to_move, 0) if outcome is not None else state.evaluate()
            self._emit("final")
            return
        self.best = state.move_text(moves[0])
        max_depth = self.limits.depth or DEEPEST_ITERATION
        depths = range(1, max_depth + 1) if self.options.iterative else (max_depth,)
        for depth in depths:
            if depth > 1 and self._elapsed() > (self.limits.time or float("inf")) / 2:
                break
            horizon_before, nodes_before = self._horizon, self.nodes
            self._recorder = TreeRecorder(self.options.record_tree) if self.options.record_tree else None
            try:
                score, best, roots = self._search_root(moves, depth)
            except SearchAborted:
                break
            if depth == DEEPEST_ITERATION:
                depth = self.seldepth
            self.nodes_per_depth.append(self.nodes - nodes_before)
            self.ebf = effective_branching_factor(self.nodes - nodes_before, depth)
            self.depth, self.score, self.best, self.root_moves = depth, score, state.move_text(best), roots
            self.pv = self._pv_texts()
            if self._recorder is not None:
                self.tree = self._recorder.result()
            self._emit("depth")
            if self._horizon == horizon_before:
                break
        self._emit("final")

    def _search_root(self, moves: list[Move], depth: int) -> tuple[int, Move, list[RootMove]]:
        state = self.state
        self.nodes += 1
        self.generated += len(moves)
        recorder = self._recorder
        if recorder is not None:
            recorder.enter(None, -WIN, WIN, depth)
        best, best_move = -INFINITY, moves[0]
        scored: list[tuple[int, RootMove]] = []
        for move in moves:
            nodes_before = self.nodes
            score = -self._visit(state, move, depth - 1, 1)
            scored.append((score, RootMove(state.move_text(move), score, self.nodes - nodes_before, bound="exact")))
            if score > best:
                best, best_move = score, move
                self._pv_table[0] = [move, *self._pv_table[1]]
        if recorder is not None:
            recorder.leave(best)
        scored.sort(key=lambda pair: pair[0], reverse=True)
        return best, best_move, [root for _, root in scored]

    def _visit(self, parent: State, move: Move, depth: int, ply: int) -> int:
        """The child's value, recorded in the tree when one is being recorded (window always the full one)."""
        recorder = self._recorder
        if recorder is None:
            return self._minimax(parent.play(move), depth, ply)
        recorder.enter(parent.move_text(move), -WIN, WIN, depth)
        score = self._minimax(parent.play(move), depth, ply)
        recorder.leave(score)
        return score

    def _minimax(self, state: State, depth: int, ply: int) -> int:
        """The exact depth-limited value of ``state`` for the side to move (heuristic at the horizon)."""
        self.nodes += 1
        if self.nodes >= self._next_check:
            self._tick()
        if ply > self.seldepth:
            self.seldepth = ply
        pv_table = self._pv_table
        pv_table[ply] = []
        outcome = state.outcome()
        if outcome is not None:
            return terminal_score(outcome, state.to_move, ply)
        if depth <= 0:
            self._horizon += 1
            return state.evaluate()
        moves = state.legal_moves()
        self.generated += len(moves)
        best = -INFINITY
        for move in moves:
            score = -self._visit(state, move, depth - 1, ply + 1)
            if score > best:
                best = score
                pv_table[ply] = [move, *pv_table[ply + 1]]
        return best

    def _pv_texts(self) -> list[str]:
        state, texts = self.state, []
        for move in self._pv_table[0]:
            texts.append(state.move_text(move))
            state = state.play(move)
        return texts
