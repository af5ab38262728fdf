"""Move ordering for alpha-beta: the transposition-table move, then killers, then the game's hint and history.

Searching the best move first is what makes alpha-beta cut: a node whose first move is the best one needs every
other move searched only far enough to show it is not better.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.game import Move, State

TT_RANK, KILLER_RANK, OTHER_RANK = 3, 2, 0


class MoveOrderer:
    """Killer moves (two per ply: quiet moves that caused a cutoff at that ply) and a history table
    (cutoff counts weighted by depth squared, per side and move), kept between searches of one game."""

    def __init__(self, killers: bool = True, history: bool = True) -> None:
        self.use_killers = killers
        self.use_history = history
        self.killers: list[list[Move]] = []
        self.history: dict[tuple[int, Move], int] = {}

    def order(self, state: State, moves: list[Move], tt_move: Move | None, ply: int) -> list[Move]:
        """``moves`` sorted best first: the TT move, the killers of this ply, then by hint and history."""
        return sorted(moves, key=self._ranker(state, tt_move, ply), reverse=True)

    def reasons(self, state: State, moves: list[Move], tt_move: Move | None, ply: int) -> list[str]:
        """Why each of ``moves`` has its place in ``order``: the table's move, a killer, or its hint (named by the
        game's ``order_hint_label``) and history counts."""
        rank = self._ranker(state, tt_move, ply)
        label = getattr(type(state), "order_hint_label", "hint")
        has_hint = getattr(state, "order_hint", None) is not None
        reasons = []
        for move in moves:
            first, hint, history = rank(move)
            if first == TT_RANK:
                reasons.append("the table's best move for this position")
            elif first == KILLER_RANK:
                reasons.append("a killer: it caused a cut-off at this ply before")
            else:
                parts = [f"{label}: {hint}"] if has_hint else []
                if self.use_history:
                    parts.append(f"history: {history}")
                reasons.append(", ".join(parts) or "the order the game generates moves in")
        return reasons

    def _ranker(self, state: State, tt_move: Move | None, ply: int) -> Callable[[Move], tuple[int, int, int]]:
        """The sort key of a move of ``state``: (TT move, killer or neither), the game's hint, the history count."""
        killers = self.killers[ply] if self.use_killers and ply < len(self.killers) else ()
        hint: Callable[[Move], int] | None = getattr(state, "order_hint", None)
        history = self.history if self.use_history else {}
        side = state.to_move

        def rank(move: Move) -> tuple[int, int, int]:
            if move == tt_move:
                first = TT_RANK
            elif move in killers:
                first = KILLER_RANK
            else:
                first = OTHER_RANK
            return first, hint(move) if hint is not None else 0, history.get((side, move), 0)

        return rank

    def record_cutoff(self, state: State, move: Move, depth: int, ply: int) -> None:
        """Remember that ``move`` refuted the position ``state`` searched to ``depth`` at ``ply``."""
        if self.use_killers:
            while len(self.killers) <= ply:
                self.killers.append([])
            slot = self.killers[ply]
            if move not in slot:
                slot.insert(0, move)
                del slot[2:]
        if self.use_history:
            key = (state.to_move, move)
            self.history[key] = self.history.get(key, 0) + depth * depth
