"""One alpha-beta search recorded node by node, for the search stepper: ``record_search``.

The search is depth-limited, with no time limit and a fresh searcher (empty table, killers and history), so the same
position, depth and options visit the same nodes in the same order every time: a recording is never stored, a link
reproduces it. A search that would visit more than ``limit`` nodes is stopped at that count and reported too large.
"""

from __future__ import annotations

import dataclasses

from engine.clock import SYSTEM_MONOTONIC, Monotonic
from engine.game import State
from engine.search import final_event, make_searcher
from engine.search.base import StopFlag
from engine.search.info import Limits, SearchInfo, SearchOptions
from engine.search.steps import STEP_LIMIT, StepRecord, StepRecorder


@dataclasses.dataclass(frozen=True, slots=True)
class SteppedSearch:
    """A recorded search: its final event (``info``) and its ``record``, None when the search went past the node
    limit (``too_large``) or was stopped before its depth."""

    info: SearchInfo
    record: StepRecord | None
    too_large: bool


def record_search(state: State, depth: int, options: SearchOptions, limit: int = STEP_LIMIT,
                  stop: StopFlag | None = None, clock: Monotonic = SYSTEM_MONOTONIC) -> SteppedSearch:
    """Search ``state`` to ``depth`` with ``options`` (alpha-beta only: ``ValueError`` otherwise), recording every
    node; ``stop`` ends it early (no record then). ``options.record_tree`` is ignored."""
    if options.algorithm != "alphabeta":
        raise ValueError(f"only alpha-beta searches can be stepped through, not {options.algorithm} "
                         "(alpha-beta with its techniques off is plain negamax)")
    options = dataclasses.replace(options, record_tree=0)
    searcher = make_searcher(state, Limits(depth=depth, nodes=limit + 1), options, stop, clock)
    recorder = StepRecorder()
    searcher.record_steps(recorder)
    info = final_event(searcher.search())
    too_large = recorder.nodes > limit
    complete = not too_large and not (stop is not None and stop.is_set())
    return SteppedSearch(info, searcher.readable_steps(recorder.result()) if complete else None, too_large)

