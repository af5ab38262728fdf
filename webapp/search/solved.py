"""A ``Runner`` that remembers solved positions: the exact values of a position's moves, once an engine worker found
them (the truth column of a search, hints, a review), are kept in the database (``webapp.store.solved``) for every
node, and a later job on the same position brings them along (``SearchJob.known``) instead of solving it again.

Only positions worth it are kept (``engine.truth.kept_key``: Connect Four just past the opening book, where a proof
can take seconds); every other job passes through unchanged. The jobs' handlers see the job they submitted.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

from engine.truth import kept_key, of_score, values_to_pairs
from webapp.search.jobs import EventHandler, Runner, SearchJob
from webapp.store.solved import SolvedRecords

log = logging.getLogger(__name__)


def found_values(info: dict[str, Any]) -> dict[str, list[Any]] | None:
    """The exact values of every move a final event carries (``{move: [result, plies]}``), or None: a search's
    ``truth``, exact ``hints``, or a review's ``view``."""
    if info.get("truth"):
        return {move: [value["result"], value["plies"]] for move, value in info["truth"].items()}
    hints = info.get("hints")
    if hints is not None and hints["how"] == "exact" and hints["moves"]:
        scores = {move: hint["score"] for move, hint in hints["moves"].items()}
        if any(score is None for score in scores.values()):
            return None
        return values_to_pairs({move: of_score(score) for move, score in scores.items()})
    view = info.get("view")
    if view is not None and view["exact"]:
        exact: dict[str, list[Any]] = view["exact"]
        return exact
    return None


class RememberingRunner:
    """``inner`` (the node's runner) with the solved positions of ``records`` read before and kept after."""

    def __init__(self, inner: Runner, records: SolvedRecords) -> None:
        self.inner = inner
        self.records = records

    def submit(self, job: SearchJob, on_event: EventHandler) -> None:
        """Submit ``job`` to ``inner``, with the values already known of its position."""
        key = kept_key(job.state)
        if key is None:
            self.inner.submit(job, on_event)
            return
        game = job.state.name
        known = self.records.load(game, key)
        carried = dataclasses.replace(job, known=known) if known is not None else job

        def keep(_: SearchJob, info: dict[str, Any]) -> None:
            if info.get("kind") == "final" and known is None:
                values = found_values(info)
                if values is not None:
                    try:
                        self.records.save(game, key, values)
                    except Exception:  # a lost store costs a later solve, never the answer
                        log.exception("could not keep the solved position %s of %s", key, game)
            on_event(job, info)

        self.inner.submit(carried, keep)

    def cancel(self, key: str, reason: str) -> SearchJob | None:
        """As ``inner``'s."""
        return self.inner.cancel(key, reason)

    def state_of(self, key: str) -> str:
        """As ``inner``'s."""
        return self.inner.state_of(key)

    def current_job(self, key: str) -> SearchJob | None:
        """As ``inner``'s."""
        return self.inner.current_job(key)

    def close(self) -> None:
        """As ``inner``'s."""
        self.inner.close()
