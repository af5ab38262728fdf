"""What a search is, as the web node sees it, whichever runner carries it: the job type (``SearchJob``), the most any
search may take (``Ceiling``), and the ``Runner`` protocol both runners implement (``webapp.search.pool`` on this
node's processes, ``webapp.search.queue_runner`` on the workers of an RQ queue). How a job runs inside a worker is
``webapp.search.execution``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from webapp.search.fair_queue import LIVE

CEILING_SECONDS = 60.0
CEILING_NODES = 20_000_000
log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Ceiling:
    """The most any one search may take, whatever its settings (a level, a custom depth or time, the lab, engine
    against engine): once it has run ``seconds`` or its events count more than ``nodes`` nodes, it stops and
    plays the best move found so far. The custom-engine form and docs/protocol.md state the default."""

    seconds: float = CEILING_SECONDS
    nodes: int = CEILING_NODES


@dataclass(frozen=True, slots=True)
class SearchJob:
    """One search to run: the position, who plays, with which settings.

    ``key`` names what the search is for (a game's id, a lab run's column, a review's position...): a runner runs
    at most one search per key, and a new one cancels the old. ``engine`` is ``{"level": n}`` or ``{"depth",
    "time", "algorithm"}`` (either with an optional ``"personality"``); for the lab ``{"lab": {"preset",
    "options", "limits"}}`` (``SearchOptions`` and ``Limits`` fields; a plain search without oracle or chance);
    for a review or hints ``{"review": {...}}`` / ``{"hints": {...}}`` (``engine.review.SearchSettings``).
    ``record_tree`` asks for the search tree (0 = no); ``not_before`` is a wall-clock time before which the final
    event is held back (pacing of engine against engine games); ``deadline``, a wall-clock time by which the search
    stops at the latest, sooner than its ``Ceiling`` (a turn resumed after a restart keeps the ceiling of its
    start). ``client`` (whose request made the search necessary: an address) and ``priority`` (``fair_queue.LIVE``
    or ``BACKGROUND``) decide when it runs (``webapp.search.fair_queue``). ``known``: the exact values of the
    position's moves already found (``engine.truth.values_to_pairs`` form; ``webapp.search.solved``), used instead of
    working them out again.
    """

    id: int
    key: str
    ply: int
    seat: int
    state: Any
    engine: dict[str, Any]
    record_tree: int = 0
    not_before: float = 0.0
    seed: int | None = field(default=None)
    deadline: float | None = None
    client: str = ""
    priority: int = LIVE
    known: dict[str, list[Any]] | None = None


EventHandler = Callable[[SearchJob, dict[str, Any]], None]
"""Where a runner sends the events of a job: ``on_event(job, info)``."""


class Runner(Protocol):
    """Runs searches and hands each of their events to the handler given with the job.

    A submitted job's events reach its handler in order: "queued" when it has to wait (``position`` in the queue,
    or None when unknown), then "started", "progress" and "depth", and finally one "final" (whose ``best`` is the
    move to play; ``"yielded": true`` when the runner stopped an open-ended analysis search early to share its
    workers) or "failed". A cancelled job gets "cancelled" and nothing after that. Threads: a "queued" sent
    because the job must wait from the start comes from the thread that called ``submit``, during that call;
    "cancelled" from the thread that called ``cancel`` (or ``submit`` with the same key), during that call; every
    other event from the runner's one relay thread. An exception raised by a handler is logged; the runner lives
    on.
    """

    def submit(self, job: SearchJob, on_event: EventHandler) -> None:
        """Start or queue ``job``; a job under way with the same key is cancelled first."""

    def cancel(self, key: str, reason: str) -> SearchJob | None:
        """Stop the job of ``key`` (queued or running) and send it "cancelled"; returns it, or None if none."""

    def state_of(self, key: str) -> str:
        """"idle", "queued" or "thinking" for the job of ``key``."""

    def current_job(self, key: str) -> SearchJob | None:
        """The queued or running job of ``key``, if any."""

    def close(self) -> None:
        """Stop every job and whatever runs them; waits a few seconds at most."""


def deliver(job: SearchJob, on_event: EventHandler, info: dict[str, Any]) -> None:
    """``on_event(job, info)``, logging (not raising) whatever the handler raises: a runner's relay thread calls
    it and must live on."""
    try:
        on_event(job, info)
    except Exception:
        log.exception("handling the %s event of search %s failed", info.get("kind"), job.id)
