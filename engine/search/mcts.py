"""Monte Carlo tree search with UCT: select by upper confidence bound, expand one move, play out at random.

A playout's result is +1 for a win of the player who moved into a node, -1 for a loss, 0 for a draw, so each
node's ``value`` is its mean result for the player who chose it. ``Limits.nodes`` counts playouts (iterations);
with neither a node nor a time limit the search runs ``DEFAULT_PLAYOUTS`` playouts. ``options.seed`` makes the
search reproducible. The best move is the most visited one; root moves carry ``visits`` and ``value``.
"""

from __future__ import annotations

import math
import random

from engine.game import Move, State
from engine.search.base import BaseSearcher, SearchAborted, terminal_score
from engine.search.info import RootMove

DEFAULT_PLAYOUTS = 10_000
MAX_PLAYOUT_PLIES = 1_000


class _Node:
    __slots__ = ("children", "move", "parent", "state", "total", "untried", "visits")

    def __init__(self, state: State, move: Move | None, parent: _Node | None, rng: random.Random) -> None:
        self.state = state
        self.move = move
        self.parent = parent
        self.children: list[_Node] = []
        self.untried = list(state.legal_moves())
        rng.shuffle(self.untried)
        self.visits = 0
        self.total = 0.0


class MctsSearcher(BaseSearcher):
    """UCT with the same events as alpha-beta (``depth`` is the deepest tree node, ``nodes`` the playouts)."""

    algorithm = "mcts"

    def _run(self) -> None:
        rng = random.Random(self.options.seed)
        root_state = self.state
        root = _Node(root_state, None, None, rng)
        if not root.untried:
            outcome = root_state.outcome()
            self.score = terminal_score(outcome, root_state.to_move, 0) if outcome is not None else None
            self._emit("final")
            return
        budget = self.limits.nodes or (None if self.limits.time is not None else DEFAULT_PLAYOUTS)
        exploration = self.options.exploration
        self._next_check = 0
        try:
            while budget is None or self.nodes < budget:
                self._playout(root, rng, exploration)
                self.nodes += 1
                if self.nodes >= self._next_check:
                    self._summarise(root)
                    self._tick()
        except SearchAborted:
            pass
        self._summarise(root)
        self._emit("final")

    def _check_point(self) -> int:
        return self.nodes + 16

    def _playout(self, root: _Node, rng: random.Random, exploration: float) -> None:
        node, depth = root, 0
        while not node.untried and node.children:
            log_visits = math.log(node.visits)
            node = max(node.children, key=lambda child: child.total / child.visits
                       + exploration * math.sqrt(log_visits / child.visits))
            depth += 1
        if node.untried:
            move = node.untried.pop()
            child = _Node(node.state.play(move), move, node, rng)
            self.generated += len(child.untried)
            node.children.append(child)
            node = child
            depth += 1
        self.depth = max(self.depth, depth)
        state, plies = node.state, 0
        while state.outcome() is None and plies < MAX_PLAYOUT_PLIES:
            state = state.play(rng.choice(state.legal_moves()))
            plies += 1
        self.seldepth = max(self.seldepth, depth + plies)
        outcome = state.outcome()
        winner = outcome.winner if outcome is not None else None
        climber: _Node | None = node
        while climber is not None:
            climber.visits += 1
            if climber.parent is not None and winner is not None:
                climber.total += 1.0 if winner == climber.parent.state.to_move else -1.0
            climber = climber.parent

    def _summarise(self, root: _Node) -> None:
        state = root.state
        children = sorted(root.children, key=lambda child: child.visits, reverse=True)
        self.root_moves = [RootMove(state.move_text(child.move), None, child.visits, visits=child.visits,
                                    value=round(child.total / child.visits, 4)) for child in children]
        self.root_moves += [RootMove(state.move_text(move), None, 0, visits=0) for move in root.untried]
        if children:
            best = children[0]
            self.best = state.move_text(best.move)
            self.score_text_override = f"value {best.total / best.visits:+.2f} over {best.visits} playouts"
            line: list[str] = []
            node: _Node | None = best
            while node is not None:
                line.append(node.state.move_text(node.move) if node.parent is None else
                            node.parent.state.move_text(node.move))
                node = max(node.children, key=lambda child: child.visits) if node.children else None
            self.pv = line
        else:
            self.best = state.move_text(root.untried[-1])
