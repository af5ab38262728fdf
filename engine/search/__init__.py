"""Search algorithms: alpha-beta (the engine), plain minimax and MCTS, all yielding ``SearchInfo`` events."""

from __future__ import annotations

import importlib
from collections.abc import Iterable

from engine.clock import SYSTEM_MONOTONIC, Monotonic
from engine.game import State
from engine.search.alphabeta import Searcher
from engine.search.base import BaseSearcher, StopFlag, check_options, check_personality
from engine.search.info import Limits, SearchInfo, SearchOptions
from engine.search.mcts import MctsSearcher
from engine.search.minimax import MinimaxSearcher


def make_searcher(state: State, limits: Limits = Limits(), options: SearchOptions = SearchOptions(),  # noqa: B008
                  stop: StopFlag | None = None, clock: Monotonic = SYSTEM_MONOTONIC) -> BaseSearcher:
    """The alpha-beta, minimax or MCTS searcher for ``state``, as ``options.algorithm`` says, stopped by ``stop``
    and timed on ``clock`` (``BaseSearcher``).

    A game whose state class names a ``searcher_class`` ("module:Class", a ``BaseSearcher`` subclass with the same
    constructor) gets that class for alpha-beta (chess has its own fast searcher); another class raises
    ``TypeError``.

    Bad limits or options (including a personality the game does not have) raise ``ValueError`` naming the field;
    a non-state raises ``TypeError``.
    """
    check_options(options)
    check_personality(state, options)
    own_searcher: str | None = getattr(type(state), "searcher_class", None)
    if options.algorithm == "alphabeta" and own_searcher:
        module_name, _, class_name = own_searcher.partition(":")
        game_searcher = getattr(importlib.import_module(module_name), class_name)
        if not (isinstance(game_searcher, type) and issubclass(game_searcher, BaseSearcher)):
            raise TypeError(f"{own_searcher} is not a BaseSearcher subclass")
        return game_searcher(state, limits, options, stop, clock)
    searcher = {"alphabeta": Searcher, "minimax": MinimaxSearcher, "mcts": MctsSearcher}[options.algorithm]
    return searcher(state, limits, options, stop, clock)


def final_event(events: Iterable[SearchInfo]) -> SearchInfo:
    """Run a search to its end and return its final event."""
    last = None
    for event in events:
        last = event
    if last is None or not last.final:
        raise RuntimeError("the search ended without a final event")
    return last


def analyse(state: State, limits: Limits = Limits(), options: SearchOptions = SearchOptions(),  # noqa: B008
            clock: Monotonic = SYSTEM_MONOTONIC) -> SearchInfo:
    """Search ``state`` (timed on ``clock``) and return the final event (a convenience for scripts and tests)."""
    return final_event(make_searcher(state, limits, options, clock=clock).search())
