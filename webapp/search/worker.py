"""The workers' side of the search queue (``python -m webapp.search.worker``): an RQ worker that runs each queued
search in a forked work-horse (``run_queued``), publishing its events on its node's channel and stopping when the
node cancels it or has gone. The node's side is ``webapp.search.queue_runner``; the names both use are in
``webapp.search.wire``.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import logging
import os
import sys
import threading
from collections.abc import Sequence
from typing import Any

from redis import Redis
from redis.exceptions import RedisError
from rq import Queue, Worker, get_current_job

from engine.games import game_class, game_names
from webapp.clock import SYSTEM_CLOCK, Clock
from webapp.config import ConfigError, search_queue_url
from webapp.search.execution import WORKER_NICENESS, run_job
from webapp.search.job_events import JobEvent
from webapp.search.jobs import SearchJob
from webapp.search.wire import CANCEL_POLL_SECONDS, HEARTBEAT_SECONDS, QUEUE_NAMES, cancel_key
from webapp.transport.redis_clients import connect

RETRY_SECONDS = 2.0
"""How long the command waits before trying an unreachable Redis again."""
log = logging.getLogger(__name__)


class _Publisher:
    """The ``results`` end ``run_job`` sends to: publishes each event on the node's channel. Once the node has gone
    (nobody receives) or the search is cancelled, it sets ``stop`` and sends nothing more."""

    def __init__(self, redis: Redis, channel: str, job_id: int, stop: threading.Event) -> None:
        self.redis = redis
        self.channel = channel
        self.job_id = job_id
        self.stop = stop
        self.silenced = False
        self._silencing = threading.Lock()

    def send(self, message: tuple[int, JobEvent]) -> None:
        """Publish ``(job_id, info)``."""
        job_id, info = message
        self._publish({"job": job_id, "info": info})

    def heartbeat(self) -> None:
        """Say the search is alive."""
        self._publish({"job": self.job_id})

    def silence(self) -> bool:
        """Stop the search and send nothing more; False if that was done already."""
        with self._silencing:
            if self.silenced:
                return False
            self.silenced = True
        self.stop.set()
        return True

    def _publish(self, message: dict[str, Any]) -> None:
        if self.silenced:
            return
        if self.redis.publish(self.channel, json.dumps(message)) == 0 and self.silence():
            log.warning("nobody listens on %s any more; search %s stopped", self.channel, self.job_id)


def _watch(redis: Redis, key: str, publisher: _Publisher, done: threading.Event, clock: Clock) -> None:
    """Until ``done``: stop the search once ``key`` is set; send a heartbeat every ``HEARTBEAT_SECONDS`` of
    ``clock``."""
    next_beat = clock.monotonic() + HEARTBEAT_SECONDS
    reachable = True
    while not done.wait(CANCEL_POLL_SECONDS):
        try:
            if redis.exists(key):
                publisher.silence()
                return
            if clock.monotonic() >= next_beat:
                next_beat += HEARTBEAT_SECONDS
                publisher.heartbeat()
            reachable = True
        except RedisError as error:
            if reachable:
                log.warning("search %s cannot reach Redis: %s", publisher.job_id, error)
            reachable = False


def run_queued(job: SearchJob, channel: str) -> None:
    """The RQ job of a search (run in a worker's work-horse): ``run_job`` with its events published on
    ``channel``; a cancelled search stops within ``CANCEL_POLL_SECONDS`` and sends nothing more. RQ calls it with
    the job's arguments only, so it is where the work-horse's clock (the system's) is chosen."""
    current = get_current_job()
    if current is None:
        raise RuntimeError("run_queued runs as an RQ job only")
    redis, key = current.connection, cancel_key(current.id)
    if redis.exists(key):
        return
    stop, done = threading.Event(), threading.Event()
    publisher = _Publisher(redis, channel, job.id, stop)
    watcher = threading.Thread(target=_watch, args=(redis, key, publisher, done, SYSTEM_CLOCK), name="search-watch",
                               daemon=True)
    watcher.start()
    try:
        run_job(job, publisher, stop, SYSTEM_CLOCK)
    finally:
        done.set()
        watcher.join()


def _preload() -> None:
    """Import the engine and every game now, so each forked search starts without importing them."""
    for module in ("engine.player", "engine.search"):
        importlib.import_module(module)
    for name in game_names():
        game_class(name)


class StoppableWorker(Worker):
    """RQ's worker, knowing whether it was asked to stop (SIGTERM or Ctrl-C): RQ's ``work`` also returns, after
    logging it, when an error escapes its loop (Redis lost while it watches a search, for one), and a worker that
    was not asked to stop is then started again."""

    stop_asked = False

    def request_stop(self, signum: int, frame: Any) -> None:
        """The first stop signal: let the running search end, then stop."""
        self.stop_asked = True
        super().request_stop(signum, frame)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m webapp.search.worker [--url redis://...] [--burst] [--name NAME]``: run the searches of the
    search queue (``--url``, default ``ARENA_SEARCH_QUEUE``) until stopped (SIGTERM or Ctrl-C lets the running
    search end first; a second one stops it at once). While Redis cannot be reached it says so and tries again
    every ``RETRY_SECONDS``; with ``--burst`` it exits with status 1 instead. A worker that stops for any other
    reason (an error RQ caught and logged) is started again as well."""
    parser = argparse.ArgumentParser(prog="python -m webapp.search.worker",
                                     description="Run engine searches from the search queue of the web nodes.")
    parser.add_argument("--url", help="the queue's Redis, redis://HOST:PORT/DB (default: $ARENA_SEARCH_QUEUE)")
    parser.add_argument("--burst", action="store_true", help="quit once the queue is empty")
    parser.add_argument("--name", help="the worker's name in RQ and in its log (default: random)")
    args = parser.parse_args(argv)
    if not args.url:
        try:
            args.url = search_queue_url()
        except ConfigError as error:
            parser.error(str(error))
    if not args.url:
        parser.error("give --url redis://HOST:PORT/DB or set ARENA_SEARCH_QUEUE")
    try:
        redis = connect(args.url)
    except ValueError as error:
        parser.error(f"--url {args.url!r}: {error}")
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICENESS)
    _preload()
    worker = None
    while True:
        try:
            if worker is not None:  # RQ stopped on an error: mark it dead, start a new one
                worker.register_death()
            queues = [Queue(name, connection=redis) for name in QUEUE_NAMES.values()]
            worker = StoppableWorker(queues, connection=redis, name=args.name)
            worker.work(burst=args.burst, logging_level="INFO")
            if args.burst or worker.stop_asked:
                return 0
            print(f"python -m webapp.search.worker: the worker stopped on the error above; starting again in "
                  f"{RETRY_SECONDS:g} s", file=sys.stderr, flush=True)
            SYSTEM_CLOCK.sleep(RETRY_SECONDS)
        except RedisError as error:
            again = "" if args.burst else f"; trying again in {RETRY_SECONDS:g} s"
            print(f"python -m webapp.search.worker: the search queue {args.url} cannot be reached: {error}{again}",
                  file=sys.stderr, flush=True)
            if args.burst:
                return 1
            SYSTEM_CLOCK.sleep(RETRY_SECONDS)


if __name__ == "__main__":
    sys.exit(main())
