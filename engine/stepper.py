"""One alpha-beta search recorded node by node, for the search stepper: ``record_search``.

The search is depth-limited, with no time limit and a fresh searcher (empty table, killers and history), so the same
position, depth and options visit the same nodes in the same order every time: a recording is never stored, a link
reproduces it. A search that would visit more than ``limit`` nodes is stopped at that count and reported too large.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from engine.clock import SYSTEM_MONOTONIC, Monotonic
from engine.game import State
from engine.search import final_event, make_searcher
from engine.search.base import StopFlag
from engine.search.info import Limits, SearchInfo, SearchOptions
from engine.search.steps import STEP_LIMIT, StepRecord, StepRecorder, legend, ordering_quality


@dataclasses.dataclass(frozen=True, slots=True)
class SteppedSearch:
    """A recorded search: its final event (``info``) and its ``record``, None when the search went past the node
    limit (``too_large``) or was stopped before its depth."""

    info: SearchInfo
    record: StepRecord | None
    too_large: bool

    def to_dict(self) -> dict[str, Any]:
        """``{limit, too_large, search, record, legend, ordering}``: the node limit, what the search found (its
        depth, counters, score, best move and line), the record (None when too large), what its letters mean and
        how well it ordered its moves (``engine.search.steps.ordering_quality``, None without a record)."""
        info = self.info
        return {
            "limit": STEP_LIMIT, "too_large": self.too_large,
            "search": {"depth": info.depth, "nodes": info.nodes, "score": info.score, "score_text": info.score_text,
                       "best": info.best, "pv": info.pv, "cutoffs": info.cutoffs, "tt_probes": info.tt_probes,
                       "tt_hits": info.tt_hits, "pruned": info.pruned, "score_scale": info.score_scale},
            "record": self.record, "legend": legend(),
            "ordering": None if self.record is None else ordering_quality(self.record),
        }


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
    too_large = info.nodes > limit  # the search's own count: it may stop at the limit before recording that node
    complete = not too_large and not (stop is not None and stop.is_set())
    return SteppedSearch(info, searcher.readable_steps(recorder.result()) if complete else None, too_large)

