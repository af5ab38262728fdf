"""What the browser is told rather than keeping copies of the server's facts: the scale of scores (which values
are decided wins and losses), which games draw the searched tree, and how an engine's settings are named. Every
page's body carries ``score_facts()`` as data attributes; the game state says whether its game has a tree
(``search_tree``); search events and seats carry ``engine_label``."""

from __future__ import annotations

from typing import Any, TypedDict

from engine.game import MAX_PLIES, WIN

TREE_GAMES = {"tictactoe": 3000, "nim": 3000}
"""Games whose searches record their tree for the browser, with the node cap."""


class ScoreFacts(TypedDict):
    """The score scale of ``engine.game``: a win on the spot scores ``win``; a score beyond ``win - max_plies`` in
    size is a decided result (``win - n``: a win in ``n`` plies), anything smaller a heuristic value."""

    win: int
    max_plies: int


def score_facts() -> ScoreFacts:
    """The score scale the pages' scripts read (``static/js/format.js``)."""
    return {"win": WIN, "max_plies": MAX_PLIES}


def tree_nodes(game: str) -> int:
    """How many nodes of a search's tree are recorded for the browser in ``game`` (0: it draws no tree)."""
    return TREE_GAMES.get(game, 0)


def engine_label(engine: dict[str, Any]) -> str:
    """An engine's settings in words: "level 4", "alphabeta · depth 30 · 1.5 s", each with its personality
    ("level 5 · aggressive"); "" for settings that are not a player's (a lab column, a review, hints)."""
    if "level" in engine:
        parts = [f"level {engine['level']}"]
    elif "algorithm" in engine:
        parts = [engine["algorithm"]]
        if engine.get("depth"):
            parts.append(f"depth {engine['depth']}")
        if engine.get("time"):
            parts.append(f"{engine['time']:g} s")
    else:
        return ""
    if engine.get("personality"):
        parts.append(engine["personality"])
    return " · ".join(parts)
