"""Recording the tree a search walks, for teaching: each node with its window, score and pruned moves.

A node is ``{"move", "alpha", "beta", "score", "depth", "children", "pruned"}``: the move that led to it (None at
the root), the window it was searched with (infinity shown as ``±WIN``), the score the search returned (None if
the search stopped inside it), the remaining depth, the nodes searched below it in order (a PVS re-search appears
as a second child with the same move), and the moves never searched because of a cutoff.
"""

from __future__ import annotations

from typing import Any

from engine.game import WIN


class TreeRecorder:
    """Builds the nested dict of at most ``limit`` nodes; nodes beyond the limit are left out and ``truncated`` set."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.count = 0
        self.truncated = False
        self.root: dict[str, Any] | None = None
        self._stack: list[dict[str, Any] | None] = []

    def enter(self, move: str | None, alpha: int, beta: int, depth: int) -> None:
        """Open a node below the current one (or the root)."""
        parent = self._stack[-1] if self._stack else None
        if self.count >= self.limit or (self._stack and parent is None):
            self.truncated = self.truncated or self.count >= self.limit
            self._stack.append(None)
            return
        node: dict[str, Any] = {
            "move": move, "alpha": max(-WIN, min(WIN, alpha)), "beta": max(-WIN, min(WIN, beta)),
            "score": None, "depth": depth, "children": [], "pruned": [],
        }
        self.count += 1
        if parent is None:
            self.root = node
        else:
            parent["children"].append(node)
        self._stack.append(node)

    def leave(self, score: int) -> None:
        """Close the current node with the score its search returned."""
        node = self._stack.pop()
        if node is not None:
            node["score"] = score

    def prune(self, moves: list[str]) -> None:
        """Note moves of the current node that a cutoff left unsearched."""
        node = self._stack[-1] if self._stack else None
        if node is not None:
            node["pruned"].extend(moves)

    def result(self) -> dict[str, Any] | None:
        """The root node (with ``truncated`` when the limit was reached), or None if nothing was recorded."""
        if self.root is not None:
            self.root["truncated"] = self.truncated
        return self.root
