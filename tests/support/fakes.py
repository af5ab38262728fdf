"""Fakes of the app's collaborators: ``HandRunner``, an engine runner (``webapp.search.jobs.Runner``) whose searches
the test answers itself, for tests that decide exactly when each thing happens, and ``HandArena``, the game core
assembled on it (the ``hand_arena`` fixture); ``ThreadRunner``, a runner that runs
the real engine on one thread of the test's own process, the ``app`` fixture's runner unless a test is about the
engine's worker processes."""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from webapp.arena.assemble import Arena, ArenaSettings, assemble
from webapp.clock import SYSTEM_CLOCK, Clock
from webapp.search.execution import run_job
from webapp.search.fair_queue import FairQueue, background_slots, client_share
from webapp.search.jobs import EventHandler, SearchJob, deliver
from webapp.store import Store


class HandRunner:
    """A ``Runner`` that runs nothing: it keeps each submitted job and its handler for the test to answer."""

    def __init__(self) -> None:
        self.submitted: list[tuple[SearchJob, EventHandler]] = []
        self.cancelled: list[str] = []

    def submit(self, job: SearchJob, on_event: EventHandler) -> None:
        self.submitted.append((job, on_event))

    def cancel(self, key: str, reason: str) -> SearchJob | None:
        self.cancelled.append(key)
        return None

    def state_of(self, key: str) -> str:
        return "idle"

    def current_job(self, key: str) -> SearchJob | None:
        return None

    def close(self) -> None:
        pass

    def answer(self, info: dict[str, Any]) -> SearchJob:
        """Send ``info`` as the latest submitted job's event; returns that job."""
        job, on_event = self.submitted[-1]
        on_event(job, info)
        return job


@dataclass
class HandArena:
    """The game core on a ``HandRunner`` and a SQLite file, with every event it sends kept in ``emitted`` as
    (event, payload, recipient: a sid, a game's room, or None for everyone)."""

    arena: Arena
    runner: HandRunner
    emitted: list[tuple[str, Any, str | None]] = field(default_factory=list)

    @classmethod
    def open(cls, folder: Path, settings: ArenaSettings | None = None, clock: Clock = SYSTEM_CLOCK) -> HandArena:
        """A game core whose store is a new SQLite file in ``folder``, with ``settings`` (default: one node, no
        untouched games put out of memory) on ``clock``; close it with ``close``."""
        emitted: list[tuple[str, Any, str | None]] = []
        runner = HandRunner()
        arena = assemble(Store(f"sqlite:///{folder / 'arena.sqlite3'}"), "key",
                         lambda event, payload, to=None, **_: emitted.append((event, payload, to)), runner,
                         settings or ArenaSettings(shared=False, untouched_seconds=0), clock=clock)
        return cls(arena, runner, emitted)

    def payloads(self, event: str) -> list[Any]:
        """The payloads of every ``event`` sent so far, in order."""
        return [payload for name, payload, _ in self.emitted if name == event]

    def close(self) -> None:
        """Close the game core (its store and its timers)."""
        self.arena.close()


class ThreadRunner:
    """A ``Runner`` with one worker, as ``EngineRunner(1, clock)`` is, whose worker is a thread of this process: the
    same searches (``webapp.search.execution.run_job``), the same events in the same order, waiting jobs taken in
    the fair queue's order; no process to start, so none to lose. It does not stop an analysis board's open-ended
    search to share its worker (``"yielded"``), which only the pool does. Events come from the worker thread
    (except "queued" and "cancelled", from the caller's, as the protocol says)."""

    def __init__(self, clock: Clock = SYSTEM_CLOCK) -> None:
        self._clock = clock
        self._changed = threading.Condition()
        self._waiting: FairQueue[SearchJob] = FairQueue(client_share(1), background_slots(1))
        self._by_key: dict[str, SearchJob] = {}
        self._handlers: dict[int, EventHandler] = {}
        self._running: SearchJob | None = None
        """The job given to the worker thread, from the moment it is given until its search returns."""
        self._handed: SearchJob | None = None
        """The job given to the worker thread that it has not begun yet."""
        self._stop = threading.Event()
        self._closed = False
        self._worker = threading.Thread(target=self._work, name="engine-thread", daemon=True)
        self._worker.start()

    def submit(self, job: SearchJob, on_event: EventHandler) -> None:
        """Queue ``job`` for the worker thread, cancelling the job of its key first; "queued" when the worker is
        busy."""
        self.cancel(job.key, "position changed")
        with self._changed:
            if self._closed:
                return
            self._by_key[job.key] = job
            self._handlers[job.id] = on_event
            self._waiting.push(job)
            self._dispatch_locked()
            if job not in self._waiting:
                return
            position = self._waiting.position(job)
        deliver(job, on_event, {"kind": "queued", "position": position})

    def cancel(self, key: str, reason: str) -> SearchJob | None:
        """Stop the job of ``key`` (waiting or running) and send it "cancelled"; returns it, or None."""
        with self._changed:
            job = self._by_key.pop(key, None)
            if job is None:
                return None
            on_event = self._handlers.pop(job.id)
            self._waiting.remove(job)
            if self._running is job:
                self._stop.set()
        deliver(job, on_event, {"kind": "cancelled", "reason": reason})
        return job

    def state_of(self, key: str) -> str:
        """"idle", "queued" or "thinking" for the job of ``key``."""
        with self._changed:
            job = self._by_key.get(key)
            if job is None:
                return "idle"
            return "queued" if job in self._waiting else "thinking"

    def current_job(self, key: str) -> SearchJob | None:
        """The waiting or running job of ``key``, if any."""
        with self._changed:
            return self._by_key.get(key)

    def close(self) -> None:
        """Stop the running search and the worker thread; waits a few seconds at most."""
        with self._changed:
            self._closed = True
            self._waiting.clear()
            self._by_key.clear()
            self._handlers.clear()
            self._stop.set()
            self._changed.notify_all()
        self._worker.join(timeout=5)

    def _dispatch_locked(self) -> None:
        """Give the worker thread the next waiting job the fair queue hands out, when it has none."""
        if self._running is not None or self._closed:
            return
        job = self._waiting.take(Counter())
        if job is None:
            return
        self._running = self._handed = job
        self._stop.clear()
        self._changed.notify_all()

    def _work(self) -> None:
        while True:
            with self._changed:
                while not self._closed and self._handed is None:
                    self._changed.wait()
                job, self._handed = self._handed, None
            if job is None:
                return
            run_job(job, _Relay(self, job), self._stop, self._clock)
            with self._changed:
                self._running = None
                self._dispatch_locked()

    def relay(self, job: SearchJob, info: dict[str, Any]) -> None:
        """Hand ``info``, an event of the running ``job``, to its handler unless it was cancelled since."""
        with self._changed:
            if self._by_key.get(job.key) is not job:
                return
            on_event = self._handlers[job.id]
            if info.get("kind") in ("final", "failed"):
                del self._by_key[job.key]
                del self._handlers[job.id]
        deliver(job, on_event, info)


class _Relay:
    """The ``Results`` of one job run by a ``ThreadRunner``: each event goes to the runner's relay."""

    def __init__(self, runner: ThreadRunner, job: SearchJob) -> None:
        self._runner = runner
        self._job = job

    def send(self, message: tuple[int, dict[str, Any]]) -> None:
        self._runner.relay(self._job, message[1])
