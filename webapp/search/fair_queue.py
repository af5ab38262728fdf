"""Which waiting search runs next: engine capacity shared fairly between clients instead of first come, first served.

Every search belongs to a client (``SearchJob.client``: the address of whoever made it necessary) and has a
priority (``SearchJob.priority``): ``LIVE`` for an engine's turn in a game, ``BACKGROUND`` for work nobody is
waiting to play against (the lab's races). When a worker is free, ``FairQueue.take`` hands out

1. only searches of clients running fewer than ``share`` searches (so one client never holds more than its share
   of the workers, however many games it starts; a worker may stay idle rather than go to a client over it),
   and background work only while fewer than ``background_limit`` background searches run (with several workers,
   one stays free for live turns however much background work waits: a lab race, a review or the analysis board
   never makes a player wait for a worker),
2. live turns before background work, and that before the analysis board's open-ended searches,
3. the client running the fewest searches first, then the one that has waited longest.

A client's several games therefore take turns in arrival order, and a newcomer goes before a client already
being served.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from typing import Generic, Protocol, TypeVar

LIVE = 0
"""Priority of a game's engine turn: somebody is waiting for the move."""
BACKGROUND = 1
"""Priority of work nobody waits to play against (the lab's races, reviews, hints, the analysis board's exact
values): it waits for every live turn."""
EXPLORATION = 2
"""Priority of the analysis board's searches, which run until their page moves on: they wait for every other
search, live or background (so a page's exact values come before anybody's open-ended search)."""
CLIENT_SHARE = 0.5
"""The part of the workers one client may use at once (at least one worker)."""
EXPLORATION_SLICE = 2.0
"""Seconds an analysis board's open-ended search keeps a worker while other background work waits for one: then it
stops with its best so far (its final event says ``yielded``), and the next waiting job runs
(``webapp.search.pool``)."""
LIVE_RESERVE = 1
"""Workers background work leaves free for live turns (when there are more than this many)."""


def client_share(workers: int) -> int:
    """How many searches one client may run at once on ``workers`` workers: ``CLIENT_SHARE`` of them, at least 1."""
    return max(1, math.floor(workers * CLIENT_SHARE))


def background_slots(workers: int) -> int:
    """How many background searches may run at once on ``workers`` workers: all but ``LIVE_RESERVE``, at least 1."""
    return max(1, workers - LIVE_RESERVE)


class Queued(Protocol):
    """What the queue needs to know of a search."""

    @property
    def id(self) -> int: ...

    @property
    def client(self) -> str: ...

    @property
    def priority(self) -> int: ...


Job = TypeVar("Job", bound=Queued)


class FairQueue(Generic[Job]):
    """The searches waiting for a worker. Not thread-safe: its owner holds its own lock around every call."""

    def __init__(self, share: int, background_limit: int | None = None) -> None:
        """``share``: the searches one client may run at once; ``background_limit``: the background searches that
        may run at once (None: no limit beyond the workers)."""
        self.share = share
        self.background_limit = background_limit
        self._arrival = itertools.count()
        self._waiting: dict[int, tuple[Job, int]] = {}
        """Each waiting job with its arrival number, by job id."""

    def __len__(self) -> int:
        return len(self._waiting)

    def __contains__(self, job: Job) -> bool:
        return job.id in self._waiting

    def push(self, job: Job) -> None:
        """Add ``job`` behind the ones already waiting."""
        self._waiting[job.id] = (job, next(self._arrival))

    def remove(self, job: Job) -> bool:
        """Take ``job`` out; False if it was not waiting."""
        return self._waiting.pop(job.id, None) is not None

    def clear(self) -> None:
        """Forget every waiting job."""
        self._waiting.clear()

    def background_waits(self, running: Mapping[str, int]) -> bool:
        """Whether background work of a client below its share (``running``: searches per client) waits: it would
        run if a background slot were free."""
        return any(job.priority != LIVE and running.get(job.client, 0) < self.share
                   for job, _ in self._waiting.values())

    def position(self, job: Job) -> int:
        """``job``'s place (1 for the next) among the waiting jobs, by priority then arrival; the order ``take``
        follows when no client is at its share."""
        arrival = self._waiting[job.id][1]
        return 1 + sum(1 for other, number in self._waiting.values()
                       if (other.priority, number) < (job.priority, arrival))

    def take(self, running: Mapping[str, int], background: int = 0) -> Job | None:
        """Remove and return the job to start next, given how many searches each client runs (``running``) and how
        many of all running searches are background work of either kind (``background``); None when every waiting
        job's client is at its share, or the background slots are full and only background work waits (or nothing
        waits)."""
        best: tuple[int, int, int] | None = None
        chosen = None
        slots_full = self.background_limit is not None and background >= self.background_limit
        for job, arrival in self._waiting.values():
            busy = running.get(job.client, 0)
            if busy >= self.share or (slots_full and job.priority != LIVE):
                continue
            key = (job.priority, busy, arrival)
            if best is None or key < best:
                best, chosen = key, job
        if chosen is not None:
            del self._waiting[chosen.id]
        return chosen
