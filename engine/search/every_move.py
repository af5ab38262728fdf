"""Every root move scored exactly: the search a panel's "score every move" asks for beside an alpha-beta search.

Alpha-beta proves of most root moves only a bound (a move refuted by one reply is "at most" the best so far). The
same search with a full window for each root move (``root_margin`` beyond any score) and no aspiration window gives
each of them its exact score at the same depth, at the cost of the nodes the cut-offs saved.
"""

from __future__ import annotations

import dataclasses

from engine.clock import SYSTEM_MONOTONIC, Monotonic
from engine.game import WIN, State
from engine.search import final_event, make_searcher
from engine.search.base import StopFlag
from engine.search.info import Limits, SearchInfo, SearchOptions

EVERY_MOVE_MARGIN = 2 * WIN
"""A root margin no score difference reaches: every root move is searched with a full window."""


def every_move_options(options: SearchOptions) -> SearchOptions:
    """``options`` with every root move searched to an exact score (and nothing else changed but the aspiration
    window, which would narrow the root's window)."""
    return dataclasses.replace(options, root_margin=EVERY_MOVE_MARGIN, aspiration=False)


def score_every_move(state: State, depth: int, options: SearchOptions = SearchOptions(),  # noqa: B008
                     seconds: float | None = None, stop: StopFlag | None = None,
                     clock: Monotonic = SYSTEM_MONOTONIC) -> SearchInfo:
    """The final event of an alpha-beta search of ``state`` to ``depth`` plies with ``options`` (as
    ``every_move_options`` changes them) in which every root move has an exact score (``bound`` "exact"), or the
    deepest iteration done within ``seconds`` of ``clock`` (its ``depth`` then says which); ``stop`` (with
    ``is_set()``) ends it early the same way. ``ValueError`` for an algorithm other than alpha-beta (minimax scores
    every move anyway, MCTS has no bounds)."""
    if options.algorithm != "alphabeta":
        raise ValueError(f"only an alpha-beta search leaves bounds to score, not {options.algorithm}")
    return final_event(make_searcher(state, Limits(depth=depth, time=seconds), every_move_options(options),
                                     stop, clock).search())
