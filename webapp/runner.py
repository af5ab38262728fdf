"""Engine searches in worker processes: a pool of ``spawn`` processes, at most one search per game, a fair queue
when every worker is busy or the search's client already uses its share of them (``webapp.fair_queue``), one relay
thread carrying events back, and cancellation.

Each worker has a pipe for its jobs and a pipe for its events; the relay thread waits on every event pipe and
every worker's process sentinel at once (``multiprocessing.connection.wait``), so it also notices at once when
a worker process dies.

``EngineRunner.submit(job)`` queues or starts a search. Every event of it reaches ``on_event(job, info)``, called
from the relay thread only (so per game, events arrive in order): a "queued" event when it has to wait, then
"started", "progress" and "depth" (together at most ``PROGRESS_PER_SECOND`` per search; the rest are dropped),
and finally one "final" (whose ``best`` is the move to play) or "failed". A cancelled search reports "cancelled"
(from the thread that cancelled it) and nothing after that.

Each worker process has its own stop Event; cancelling a running job sets the Event of the worker running it, and
the parent clears it before handing that worker its next job, so the Event acts as the job's own.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Any

from webapp.fair_queue import FairQueue, client_share
from webapp.worker import SearchJob, worker_main

PROGRESS_PER_SECOND = 10
THROTTLED = ("progress", "depth")
"""Event kinds relayed at most ``PROGRESS_PER_SECOND`` times a second per search, together: each carries every
counter so far (``nodes_per_depth`` included), so a dropped one loses nothing the next one does not repeat."""
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
    events: Any
    stop: Any
    job: SearchJob | None = None


class EngineRunner:
    """The pool of engine workers. Processes start on the first ``submit``; ``close`` stops them. One client runs
    at most ``client_share(workers)`` searches at once."""

    def __init__(self, workers: int, on_event: EventHandler) -> None:
        self.size = workers
        self.on_event = on_event
        self._context = multiprocessing.get_context("spawn")
        self._lock = threading.Lock()
        self._workers: list[_Worker] = []
        self._waiting: FairQueue[SearchJob] = FairQueue(client_share(workers))
        self._by_game: dict[str, SearchJob] = {}
        self._progress = Throttle(PROGRESS_PER_SECOND)
        self._wake_reader, self._wake_writer = os.pipe()
        self._relay: threading.Thread | None = None
        self._closed = False

    # --- public ----------------------------------------------------------------------------------------------

    def submit(self, job: SearchJob) -> None:
        """Start ``job`` on a free worker or queue it (no worker is free, or its client already runs its share); a
        search already running for the same game is cancelled."""
        self.cancel(job.game_id, "position changed")
        with self._lock:
            if self._closed:
                return
            self._start_locked()
            self._by_game[job.game_id] = job
            self._waiting.push(job)
            self._dispatch_waiting_locked()
            if job not in self._waiting:
                return
            position = self._waiting.position(job)
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
            with contextlib.suppress(OSError):
                worker.jobs.send(None)
        for worker in workers:
            worker.process.join(timeout=3)
            if worker.process.is_alive():
                worker.process.terminate()
                worker.process.join(timeout=1)
        if self._relay is not None:
            os.write(self._wake_writer, b"x")
            self._relay.join(timeout=3)
        for worker in workers:
            worker.jobs.close()
            worker.events.close()
        os.close(self._wake_reader)
        os.close(self._wake_writer)

    # --- pool -------------------------------------------------------------------------------------------------

    def _start_locked(self) -> None:
        if self._workers:
            return
        self._workers = [self._spawn(index) for index in range(self.size)]
        self._relay = threading.Thread(target=self._relay_loop, name="engine-relay", daemon=True)
        self._relay.start()

    def _spawn(self, index: int) -> _Worker:
        job_reader, job_writer = self._context.Pipe(duplex=False)
        event_reader, event_writer = self._context.Pipe(duplex=False)
        stop = self._context.Event()
        process = self._context.Process(target=worker_main, args=(job_reader, event_writer, stop),
                                        name=f"engine-worker-{index}", daemon=True)
        process.start()
        job_reader.close()
        event_writer.close()
        return _Worker(index, process, job_writer, event_reader, stop)

    def _dispatch_locked(self, worker: _Worker, job: SearchJob) -> None:
        worker.stop.clear()
        worker.job = job
        # A worker that has just died cannot take it; the relay thread sees its sentinel and fails the job.
        with contextlib.suppress(OSError):
            worker.jobs.send(job)

    def _free_worker_locked(self, worker: _Worker) -> None:
        worker.job = None
        self._dispatch_waiting_locked()

    def _dispatch_waiting_locked(self) -> None:
        """Give every free worker the next waiting job the fair queue hands out, while it hands out any."""
        running = Counter(w.job.client for w in self._workers if w.job is not None)
        for worker in self._workers:
            if worker.job is not None:
                continue
            job = self._waiting.take(running)
            if job is None:
                return
            self._dispatch_locked(worker, job)
            running[job.client] += 1

    # --- relay ------------------------------------------------------------------------------------------------

    def _relay_loop(self) -> None:
        while True:
            with self._lock:
                if self._closed:
                    return
                by_handle = {w.events: w for w in self._workers} | {w.process.sentinel: w for w in self._workers}
            ready = wait([*by_handle, self._wake_reader], timeout=POLL_SECONDS)
            for handle in ready:
                worker = by_handle.get(handle)
                if worker is None:  # the wake-up pipe: close() was called
                    return
                if handle is worker.events:
                    self._drain(worker)
                else:
                    self._drain(worker)
                    self._replace_dead_worker(worker)

    def _drain(self, worker: _Worker) -> None:
        """Relay every message waiting on the worker's event pipe."""
        try:
            while worker.events.poll():
                job_id, info = worker.events.recv()
                try:
                    self._relay_one(worker, job_id, info)
                except Exception:
                    log.exception("relaying an engine event failed")
        except (EOFError, OSError):
            pass

    def _relay_one(self, worker: _Worker, job_id: int, info: dict[str, Any]) -> None:
        kind = info.get("kind")
        ends_job = kind in ("final", "failed")
        with self._lock:
            if worker.job is None or worker.job.id != job_id:
                return
            job = worker.job
            current = self._by_game.get(job.game_id) is job
            if ends_job:
                self._progress.forget(job.id)
                if current:
                    del self._by_game[job.game_id]
                self._free_worker_locked(worker)
            elif kind in THROTTLED and not self._progress.allow(job.id):
                return
        if current:
            self.on_event(job, info)

    def _replace_dead_worker(self, dead: _Worker) -> None:
        lost = None
        with self._lock:
            if self._closed or dead not in self._workers:
                return
            log.error("engine worker %d died (exit code %s); starting a new one", dead.index, dead.process.exitcode)
            if dead.job is not None and self._by_game.get(dead.job.game_id) is dead.job:
                lost = dead.job
                del self._by_game[dead.job.game_id]
            dead.process.join(timeout=1)
            dead.jobs.close()
            dead.events.close()
            replacement = self._spawn(dead.index)
            self._workers[self._workers.index(dead)] = replacement
            self._free_worker_locked(replacement)
        if lost is not None:
            self.on_event(lost, {"kind": "failed", "message": "the engine worker process stopped"})
