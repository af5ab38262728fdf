"""Choosing a move to play: oracles first (books, solved tables), else a search, then the level's randomness.

``think`` is what the web app's worker processes call; it yields the search's ``SearchInfo`` events unchanged
except the final one, whose ``best`` is the move chosen to play; when a level's randomness chose another move than
the search's best, that event describes the move played (its score, and its line from a short search after it)
and names the search's choice in ``search_best``.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator

from engine.clock import SYSTEM_MONOTONIC, Monotonic
from engine.game import State, describe_score, is_decided, score_scale
from engine.levels import level_for
from engine.oracles import consult, prepare
from engine.search import make_searcher
from engine.search.base import StopFlag, check_personality
from engine.search.info import Limits, RootMove, SearchInfo, SearchOptions


def candidate_moves(root_moves: list[RootMove], margin: int) -> list[str]:
    """Root moves with an exact score within ``margin`` of the best exact score, best first.

    A decided loss is never a candidate while something better exists, and when the best is a decided win only
    wins qualify (a margin in evaluation units says nothing about the distance to a win).
    """
    scored = [(root.score, root.move) for root in root_moves
              if root.score is not None and root.bound in ("exact", None)]
    if not scored:
        return []
    best = max(score for score, _ in scored)
    chosen = []
    for score, move in sorted(scored, key=lambda pair: pair[0], reverse=True):
        if score < best - margin:
            continue
        if is_decided(score) and score < 0 and score < best:
            continue
        if is_decided(best) and best > 0 and not (is_decided(score) and score > 0):
            continue
        chosen.append(move)
    return chosen


def think(state: State, limits: Limits = Limits(), options: SearchOptions = SearchOptions(),  # noqa: B008
          margin: int = 0, rng: random.Random | None = None, stop: StopFlag | None = None,
          level: int | None = None, clock: Monotonic = SYSTEM_MONOTONIC) -> Iterator[SearchInfo]:
    """Yield the events of finding a move for ``state``; the last (final) event's ``best`` is the move to play.

    With ``level``, the level's limits, options and margin (``engine.levels``) replace ``limits`` and ``margin``
    and the level's options are used with this call's ``record_tree``, ``seed`` and ``personality``. At a level,
    an oracle's events (``engine.oracles``: book, solved table, exact solver) come first, the solver's progress as it
    proves each move, and its final event ends them when it has an answer (a book's move drawn with ``rng``); else
    the search follows. Without a level (a custom search) the search asked for always runs.
    Otherwise the search runs with ``root_margin = margin`` and the move is drawn with ``rng`` (a fresh
    ``random.Random`` if None; pass a seeded one, and a clock that depends on the work alone, to reproduce a game)
    among ``candidate_moves(root_moves, margin)``; with no candidate (a stopped search, MCTS) it is the search's best
    move. The oracle and the searches are timed on ``clock``.
    """
    if level is not None:
        chosen_level = level_for(type(state).name, level)
        limits, margin = chosen_level.limits, chosen_level.margin
        options = dataclasses.replace(chosen_level.options, record_tree=options.record_tree, seed=options.seed,
                                      personality=options.personality)
    if not isinstance(margin, int) or margin < 0:
        raise ValueError(f"margin must be a whole number 0 or more, got {margin!r}")
    check_personality(state, options)
    if level is not None:
        yield from prepare(state, level, clock)
    rng = rng if rng is not None else random.Random()
    if level is not None:
        for answer in consult(state, level, clock, rng):
            yield with_readable_moves(state, answer)
            if answer.final:
                return
    searcher = make_searcher(state, limits, dataclasses.replace(options, root_margin=margin), stop, clock)
    for info in searcher.search():
        if info.final and margin > 0:
            candidates = candidate_moves(info.root_moves, margin)
            if candidates:
                info = played_instead(state, info, rng.choice(candidates), options, stop, clock)
        yield with_readable_moves(state, info)


def played_instead(state: State, info: SearchInfo, chosen: str, options: SearchOptions,
                   stop: StopFlag | None, clock: Monotonic = SYSTEM_MONOTONIC) -> SearchInfo:
    """The final event ``info`` re-said for ``chosen``, a root move the level plays instead of the search's best:
    ``best`` is ``chosen``, ``score`` its exact root score, ``pv`` it followed by the line of a search one ply
    shallower from the position after it (at most as long as the first search took), and ``search_best`` the
    search's own choice (timed on ``clock``). ``info`` itself when ``chosen`` is its best move."""
    if chosen == info.best:
        return info
    root = next(root for root in info.root_moves if root.move == chosen)
    after = state.play(state.parse_move(chosen))
    line: list[str] = []
    if info.depth > 1 and after.outcome() is None:
        follow = make_searcher(after, Limits(depth=info.depth - 1, time=max(0.05, info.time_ms / 1000)),
                               dataclasses.replace(options, record_tree=0, root_margin=0), stop, clock)
        for event in follow.search():
            if event.final:
                line = event.pv
    scale = score_scale(state)
    score_text = describe_score(root.score, scale) if root.score is not None else info.score_text
    return dataclasses.replace(info, best=chosen, score=root.score, score_text=score_text, pv=[chosen, *line],
                               search_best=info.best)


def with_readable_moves(state: State, info: SearchInfo) -> SearchInfo:
    """``info`` with ``pv_text`` and each root move's ``text`` filled in when the game writes moves for people
    differently from its move notation (its state has ``readable_line``, as chess has for SAN); else ``info``."""
    readable_line = getattr(state, "readable_line", None)
    if readable_line is None:
        return info
    root_moves = [dataclasses.replace(root, text=next(iter(readable_line([root.move])), None),
                                      pv_text=None if root.pv is None else readable_line(root.pv))
                  for root in info.root_moves]
    return dataclasses.replace(info, pv_text=readable_line(info.pv), root_moves=root_moves)


def think_at_level(state: State, level_number: int, rng: random.Random | None = None,
                   stop: StopFlag | None = None, clock: Monotonic = SYSTEM_MONOTONIC) -> Iterator[SearchInfo]:
    """``think`` with the limits, options and margin of level ``level_number`` of the state's game."""
    return think(state, rng=rng, stop=stop, level=level_number, clock=clock)
