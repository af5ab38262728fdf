"""Engine searches in this node's own worker processes (the ``Runner`` of ``webapp.search.jobs`` used without a
search queue): a pool of ``spawn`` processes, at most one search per key, a fair queue when every worker is busy or
the search's client already uses its share of them (``webapp.search.fair_queue``), one relay thread carrying
events back, and cancellation.

Each worker has a pipe for its jobs and a pipe for its events; the relay thread waits on every event pipe and
every worker's process sentinel at once (``multiprocessing.connection.wait``), so it also notices at once when
a worker process dies.

``EngineRunner.submit(job, on_event)`` queues or starts a search; its events reach ``on_event`` as the ``Runner``
protocol says: from the relay thread, except the first "queued" (from ``submit``'s caller) and "cancelled" (from
``cancel``'s caller); per key, events arrive in order.

Each worker process has its own stop flag (``SharedStopFlag``, which no side ever waits on); cancelling a running
job sets the flag of the worker running it, and the parent clears it before handing that worker its next job, so
the flag acts as the job's own. The relay thread also sets it, without cancelling, for an analysis board's
open-ended search (``fair_queue.EXPLORATION``) that has had ``EXPLORATION_SLICE`` seconds while other background
work waits: that search ends with its best so far, its final event marked ``"yielded": true``.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import signal
import threading
from collections import Counter
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Any

from webapp.clock import Clock
from webapp.search.execution import WORKER_NICENESS, run_job
from webapp.search.fair_queue import (
    EXPLORATION,
    EXPLORATION_SLICE,
    LIVE,
    FairQueue,
    background_slots,
    client_share,
)
from webapp.search.jobs import EventHandler, SearchJob, deliver
from webapp.search.stop_flag import SharedStopFlag

POLL_SECONDS = 0.5
log = logging.getLogger(__name__)


def _exit_with_parent(parent: Any) -> None:
    """Wait for the parent process to end, then end this process at once (even in the middle of a search)."""
    parent.join()
    os._exit(0)


def worker_main(jobs: Any, results: Any, stop: SharedStopFlag, clock: Clock) -> None:
    """A worker process: run the jobs received on ``jobs`` (``run_job`` on ``clock``, events sent on ``results``)
    until it receives None or the pipe closes; it ends at once when the parent process ends. SIGINT and SIGTERM are
    ignored: a Ctrl-C or a SIGTERM sent to the whole process group reaches the server, which then stops its
    workers itself.

    Pipes, not queues: a ``Connection.send`` writes at once from the calling thread (a queue hands the object to
    a feeder thread first), so an event leaves the worker as soon as the search yields it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICENESS)
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_with_parent, args=(parent,), name="parent-watch", daemon=True).start()
    while True:
        try:
            job = jobs.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        run_job(job, results, stop, clock)


@dataclass(slots=True)
class _Worker:
    index: int
    process: Any
    jobs: Any
    events: Any
    stop: SharedStopFlag
    job: SearchJob | None = None
    started: float = 0.0
    """The clock's monotonic time when its job was handed to it."""
    yielded: bool = False
    """Whether its job, an open-ended analysis search, was stopped early to let waiting background work run."""


class EngineRunner:
    """The pool of engine workers, a ``Runner``. Processes start on the first ``submit``; ``close`` stops them.
    One client runs at most ``client_share(workers)`` searches at once, and background work at most
    ``background_slots(workers)`` searches. The workers read time from ``clock``, which
    is sent to their processes (so it must pickle: a test's manual clock stays in the test's process)."""

    def __init__(self, workers: int, clock: Clock) -> None:
        self.size = workers
        self._clock = clock
        self._context = multiprocessing.get_context("spawn")
        self._lock = threading.Lock()
        self._workers: list[_Worker] = []
        self._waiting: FairQueue[SearchJob] = FairQueue(client_share(workers), background_slots(workers))
        self._by_key: dict[str, SearchJob] = {}
        self._handlers: dict[int, EventHandler] = {}
        """The handler of each job under way, by job id."""
        self._wake_reader, self._wake_writer = os.pipe()
        self._relay: threading.Thread | None = None
        self._closed = False

    # --- public ----------------------------------------------------------------------------------------------

    def submit(self, job: SearchJob, on_event: EventHandler) -> None:
        """Start ``job`` on a free worker or queue it (no worker is free, or its client already runs its share); a
        search already under way for the same key is cancelled."""
        self.cancel(job.key, "position changed")
        with self._lock:
            if self._closed:
                return
            self._start_locked()
            self._by_key[job.key] = job
            self._handlers[job.id] = on_event
            self._waiting.push(job)
            self._dispatch_waiting_locked()
            if job not in self._waiting:
                return
            position = self._waiting.position(job)
        deliver(job, on_event, {"kind": "queued", "position": position})

    def cancel(self, key: str, reason: str) -> SearchJob | None:
        """Stop the search of ``key`` (queued or running); returns the job, or None if there was none.

        A "cancelled" event is sent for it, and none of its later events are delivered.
        """
        with self._lock:
            job = self._by_key.pop(key, None)
            if job is None:
                return None
            on_event = self._handlers.pop(job.id)
            if job in self._waiting:
                self._waiting.remove(job)
            for worker in self._workers:
                if worker.job is not None and worker.job.id == job.id:
                    worker.stop.set()
        deliver(job, on_event, {"kind": "cancelled", "reason": reason})
        return job

    def state_of(self, key: str) -> str:
        """"idle", "queued" or "thinking" for the search of ``key``."""
        with self._lock:
            job = self._by_key.get(key)
            if job is None:
                return "idle"
            return "queued" if job in self._waiting else "thinking"

    def current_job(self, key: str) -> SearchJob | None:
        """The queued or running job of ``key``, if any."""
        with self._lock:
            return self._by_key.get(key)

    def close(self) -> None:
        """Stop every search and worker process and the relay thread; waits a few seconds at most."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            workers, self._workers = self._workers, []
            self._waiting.clear()
            self._by_key.clear()
            self._handlers.clear()
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
        stop = SharedStopFlag(self._context, self._clock)
        process = self._context.Process(target=worker_main, args=(job_reader, event_writer, stop, self._clock),
                                        name=f"engine-worker-{index}", daemon=True)
        process.start()
        job_reader.close()
        event_writer.close()
        return _Worker(index, process, job_writer, event_reader, stop)

    def _dispatch_locked(self, worker: _Worker, job: SearchJob) -> None:
        worker.stop.clear()
        worker.job = job
        worker.started = self._clock.monotonic()
        worker.yielded = False
        # A worker that has just died cannot take it; the relay thread sees its sentinel and fails the job.
        with contextlib.suppress(OSError):
            worker.jobs.send(job)

    def _free_worker_locked(self, worker: _Worker) -> None:
        worker.job = None
        self._dispatch_waiting_locked()

    def _dispatch_waiting_locked(self) -> None:
        """Give every free worker the next waiting job the fair queue hands out, while it hands out any."""
        running = Counter(w.job.client for w in self._workers if w.job is not None)
        background = sum(1 for w in self._workers if w.job is not None and w.job.priority != LIVE)
        for worker in self._workers:
            if worker.job is not None:
                continue
            job = self._waiting.take(running, background)
            if job is None:
                return
            self._dispatch_locked(worker, job)
            running[job.client] += 1
            background += job.priority != LIVE

    # --- relay ------------------------------------------------------------------------------------------------

    def _relay_loop(self) -> None:
        while True:
            with self._lock:
                if self._closed:
                    return
                by_handle = {w.events: w for w in self._workers} | {w.process.sentinel: w for w in self._workers}
                self._share_locked()
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

    def _share_locked(self) -> None:
        """Stop, with its best so far, every analysis search that has had its ``EXPLORATION_SLICE`` of a worker while
        background work that could take its place waits (another page of the same address too)."""
        running = Counter(w.job.client for w in self._workers if w.job is not None)
        now = self._clock.monotonic()
        for worker in self._workers:
            job = worker.job
            if (job is None or job.priority != EXPLORATION or worker.yielded
                    or now - worker.started < EXPLORATION_SLICE):
                continue
            # What would wait for a worker if this one were free (its client's own other pages included)?
            if self._waiting.background_waits(running - Counter({job.client: 1})):
                worker.yielded = True
                worker.stop.set()

    def _drain(self, worker: _Worker) -> None:
        """Relay every message waiting on the worker's event pipe."""
        try:
            while worker.events.poll():
                job_id, info = worker.events.recv()
                self._relay_one(worker, job_id, info)
        except (EOFError, OSError):
            pass

    def _relay_one(self, worker: _Worker, job_id: int, info: dict[str, Any]) -> None:
        with self._lock:
            if worker.job is None or worker.job.id != job_id:
                return
            job = worker.job
            on_event = self._handlers.get(job.id) if self._by_key.get(job.key) is job else None
            if worker.yielded and info.get("kind") == "final":
                info = {**info, "yielded": True}
            if info.get("kind") in ("final", "failed"):
                if on_event is not None:
                    del self._by_key[job.key]
                    del self._handlers[job.id]
                self._free_worker_locked(worker)
        if on_event is not None:
            deliver(job, on_event, info)

    def _replace_dead_worker(self, dead: _Worker) -> None:
        lost: tuple[SearchJob, EventHandler] | None = None
        with self._lock:
            if self._closed or dead not in self._workers:
                return
            log.error("engine worker %d died (exit code %s); starting a new one", dead.index, dead.process.exitcode)
            if dead.job is not None and self._by_key.get(dead.job.key) is dead.job:
                lost = dead.job, self._handlers.pop(dead.job.id)
                del self._by_key[dead.job.key]
            dead.process.join(timeout=1)
            dead.jobs.close()
            dead.events.close()
            replacement = self._spawn(dead.index)
            self._workers[self._workers.index(dead)] = replacement
            self._free_worker_locked(replacement)
        if lost is not None:
            deliver(*lost, {"kind": "failed", "message": "the engine worker process stopped"})
