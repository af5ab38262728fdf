"""Engine searches in worker processes: a pool of ``spawn`` processes, at most one search per game, a queue when
every worker is busy, one relay thread carrying events back, and cancellation.

``EngineRunner.submit(job)`` queues or starts a search. Every event of it reaches ``on_event(job, info)``, called
from the relay thread only (so per game, events arrive in order): a "queued" event when it has to wait, then
"started", "progress" (at most ``PROGRESS_PER_SECOND`` per search; the rest are dropped), "depth", and finally one
"final" (whose ``best`` is the move to play) or "failed". A cancelled search reports "cancelled" (from the thread
that cancelled it) and nothing after that.

Each worker process has its own stop Event; cancelling a running job sets the Event of the worker running it, and
the parent clears it before handing that worker its next job, so the Event acts as the job's own.
"""

from __future__ import annotations

import logging
import multiprocessing
import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from webapp.worker import SearchJob, worker_main

PROGRESS_PER_SECOND = 10
POLL_SECONDS = 0.5
log = logging.getLogger(__name__)

EventHandler = Callable[[SearchJob, dict[str, Any]], None]


class Throttle:
    """Lets an event of a key through at most ``per_second`` times a second; the rest are dropped."""

    def __init__(self, per_second: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval = 1 / per_second
        self._clock = clock
        self._last: dict[int, float] = {}

    def allow(self, key: int) -> bool:
        """True (and the time noted) when ``key``'s last allowed event is at least ``1 / per_second`` old."""
        now = self._clock()
        last = self._last.get(key)
        if last is not None and now - last < self.interval:
            return False
        self._last[key] = now
        return True

    def forget(self, key: int) -> None:
        """Drop what is known of ``key`` (its search has ended)."""
        self._last.pop(key, None)


@dataclass(slots=True)
class _Worker:
    index: int
    process: Any
    jobs: Any
    stop: Any
    job: SearchJob | None = None


class EngineRunner:
    """The pool of engine workers. Processes start on the first ``submit``; ``close`` stops them."""

    def __init__(self, workers: int, on_event: EventHandler) -> None:
        self.size = workers
        self.on_event = on_event
        self._context = multiprocessing.get_context("spawn")
        self._lock = threading.Lock()
        self._workers: list[_Worker] = []
        self._waiting: deque[SearchJob] = deque()
        self._by_game: dict[str, SearchJob] = {}
        self._progress = Throttle(PROGRESS_PER_SECOND)
        self._results: Any = None
        self._relay: threading.Thread | None = None
        self._closed = False

    # --- public ----------------------------------------------------------------------------------------------

    def submit(self, job: SearchJob) -> None:
        """Start ``job`` on a free worker or queue it; a search already running for the same game is cancelled."""
        self.cancel(job.game_id, "position changed")
        with self._lock:
            if self._closed:
                return
            self._start_locked()
            self._by_game[job.game_id] = job
            worker = next((w for w in self._workers if w.job is None), None)
            if worker is not None:
                self._dispatch_locked(worker, job)
                return
            self._waiting.append(job)
            position = len(self._waiting)
        self.on_event(job, {"kind": "queued", "position": position})

    def cancel(self, game_id: str, reason: str) -> SearchJob | None:
        """Stop the search of ``game_id`` (queued or running); returns the job, or None if there was none.

        A "cancelled" event is sent for it, and none of its later events are delivered.
        """
        with self._lock:
            job = self._by_game.pop(game_id, None)
            if job is None:
                return None
            if job in self._waiting:
                self._waiting.remove(job)
            for worker in self._workers:
                if worker.job is not None and worker.job.id == job.id:
                    worker.stop.set()
        self.on_event(job, {"kind": "cancelled", "reason": reason})
        return job

    def state_of(self, game_id: str) -> str:
        """"idle", "queued" or "thinking" for the game's search."""
        with self._lock:
            job = self._by_game.get(game_id)
            if job is None:
                return "idle"
            return "queued" if job in self._waiting else "thinking"

    def current_job(self, game_id: str) -> SearchJob | None:
        """The game's queued or running job, if any."""
        with self._lock:
            return self._by_game.get(game_id)

    def close(self) -> None:
        """Stop every search and worker process and the relay thread; waits a few seconds at most."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            workers, self._workers = self._workers, []
            self._waiting.clear()
            self._by_game.clear()
        for worker in workers:
            worker.stop.set()
            worker.jobs.put(None)
        for worker in workers:
            worker.process.join(timeout=3)
            if worker.process.is_alive():
                worker.process.terminate()
                worker.process.join(timeout=1)
        if self._relay is not None:
            self._results.put(None)
            self._relay.join(timeout=3)

    # --- pool -------------------------------------------------------------------------------------------------

    def _start_locked(self) -> None:
        if self._workers:
            return
        self._results = self._context.Queue()
        self._workers = [self._spawn(index) for index in range(self.size)]
        self._relay = threading.Thread(target=self._relay_loop, name="engine-relay", daemon=True)
        self._relay.start()

    def _spawn(self, index: int) -> _Worker:
        jobs, stop = self._context.Queue(), self._context.Event()
        process = self._context.Process(
            target=worker_main, args=(index, jobs, self._results, stop), name=f"engine-worker-{index}", daemon=True)
        process.start()
        return _Worker(index, process, jobs, stop)

    def _dispatch_locked(self, worker: _Worker, job: SearchJob) -> None:
        worker.stop.clear()
        worker.job = job
        worker.jobs.put(job)

    def _free_worker_locked(self, worker: _Worker) -> None:
        worker.job = None
        if self._waiting:
            self._dispatch_locked(worker, self._waiting.popleft())

    # --- relay ------------------------------------------------------------------------------------------------

    def _relay_loop(self) -> None:
        while True:
            try:
                message = self._results.get(timeout=POLL_SECONDS)
            except queue.Empty:
                self._replace_dead_workers()
                continue
            if message is None:
                return
            try:
                self._relay_one(*message)
            except Exception:
                log.exception("relaying an engine event failed")

    def _relay_one(self, index: int, job_id: int, info: dict[str, Any]) -> None:
        kind = info.get("kind")
        ends_job = kind in ("final", "failed")
        with self._lock:
            worker = self._workers[index] if index < len(self._workers) else None
            if worker is None or worker.job is None or worker.job.id != job_id:
                return
            job = worker.job
            current = self._by_game.get(job.game_id) is job
            if ends_job:
                self._progress.forget(job.id)
                if current:
                    del self._by_game[job.game_id]
                self._free_worker_locked(worker)
            elif kind == "progress" and not self._progress.allow(job.id):
                return
        if current:
            self.on_event(job, info)

    def _replace_dead_workers(self) -> None:
        lost: list[SearchJob] = []
        with self._lock:
            if self._closed:
                return
            for position, worker in enumerate(self._workers):
                if worker.process.is_alive():
                    continue
                log.error("engine worker %d died (exit code %s); starting a new one", worker.index,
                          worker.process.exitcode)
                if worker.job is not None and self._by_game.get(worker.job.game_id) is worker.job:
                    lost.append(worker.job)
                    del self._by_game[worker.job.game_id]
                self._workers[position] = self._spawn(worker.index)
                self._free_worker_locked(self._workers[position])
        for job in lost:
            self.on_event(job, {"kind": "failed", "message": "the engine worker process stopped"})
