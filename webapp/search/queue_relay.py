"""The relay thread of a web node's search queue (``webapp.search.queue_runner``): it listens to the node's
channel and hands each event to its search's handler, puts kept searches on the queues, and reports searches that
wait ("queued") or were lost ("failed"); see ``webapp.search.queue_runner`` for the whole path."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from typing import Any

from redis.exceptions import RedisError
from rq.job import Job

from webapp.clock import Clock
from webapp.search.jobs import deliver
from webapp.search.queue_searches import NodeSearches, Tracked
from webapp.search.wire import HEARTBEAT_SECONDS

CHECK_SECONDS = 0.5
SILENCE_HEARTBEATS = 20
"""How many heartbeats a running search may miss before it is taken for lost: enough that a worker on a machine
loaded so much that it goes quiet for seconds is not taken for dead."""
SILENCE_LIMIT = SILENCE_HEARTBEATS * HEARTBEAT_SECONDS
"""Seconds without a word from a running search (its events, and a heartbeat every ``HEARTBEAT_SECONDS``) before
it is taken for lost; a search whose worker did die waits that long before it runs elsewhere."""
END_GRACE = 1.0
"""Seconds a job may look ended in RQ before its final event must have arrived (it is published first)."""
QUEUED_AFTER = 0.3
"""A search no worker has started after this many seconds is reported "queued"."""
RECONNECT_SECONDS = 1.0
SUBSCRIBE_WAIT = 5.0
"""Seconds to wait for Redis to confirm the subscription to the node's channel."""
ENDED_STATUSES = frozenset({"finished", "failed", "stopped", "canceled"})
log = logging.getLogger(__name__)


class QueueRelay:
    """The loop of the relay thread over ``searches``; ``subscribed`` is set while the node's channel is listened
    to, and the loop ends once ``closed()`` is true. Silences, checks and pauses are measured on ``clock``."""

    def __init__(self, searches: NodeSearches, subscribed: threading.Event, closed: Callable[[], bool],
                 clock: Clock) -> None:
        self._clock = clock
        self._searches = searches
        self._redis = searches.redis
        self._subscribed = subscribed
        self._closed = closed

    def run(self) -> None:
        """Relay events and watch the searches until the runner closes (``closed()`` is true)."""
        pubsub = None
        next_check = 0.0
        while not self._closed():
            try:
                if pubsub is None:
                    pubsub = self._subscribe()
                    if self._searches.outage:
                        log.warning("the search queue can be reached again")
                        self._searches.outage = False
                    self._check_jobs()  # queues the searches submitted before
                self._relay_messages(pubsub)
                if self._clock.monotonic() >= next_check:
                    next_check = self._clock.monotonic() + CHECK_SECONDS
                    self._check_jobs()
            except RedisError as error:
                if not self._searches.outage:
                    log.error("the search queue cannot be reached: %s; retrying every %g s", error, RECONNECT_SECONDS)
                    self._searches.outage = True
                self._subscribed.clear()
                if pubsub is not None:
                    pubsub.close()
                    pubsub = None
                self._clock.sleep(RECONNECT_SECONDS)
        if pubsub is not None:
            pubsub.close()

    def _send_unsent_cancels(self) -> None:
        with self._searches.lock:
            rq_ids, self._searches.unsent_cancels = self._searches.unsent_cancels, []
        if rq_ids:
            self._searches.stop_remote(rq_ids)

    def _subscribe(self) -> Any:
        """A pub/sub connection subscribed to the node's channel (confirmed). Every running search is given
        ``SILENCE_LIMIT`` again, since its messages could not arrive while the channel was not listened to."""
        pubsub = self._redis.pubsub()
        try:
            pubsub.subscribe(self._searches.channel)
            deadline = self._clock.monotonic() + SUBSCRIBE_WAIT
            while (message := pubsub.get_message(timeout=0.1)) is None or message["type"] != "subscribe":
                if self._clock.monotonic() > deadline:
                    raise RedisError(f"no confirmation of the subscription to {self._searches.channel}")
        except RedisError:
            pubsub.close()
            raise
        now = self._clock.monotonic()
        with self._searches.lock:
            for tracked in self._searches.tracked.values():
                if tracked.heard is not None:
                    tracked.heard = now
        self._subscribed.set()
        return pubsub

    def _relay_messages(self, pubsub: Any) -> None:
        """Relay every message waiting on the channel (waiting a little for the first)."""
        timeout = 0.1
        while (message := pubsub.get_message(ignore_subscribe_messages=True, timeout=timeout)) is not None:
            timeout = 0.0
            try:
                self._relay_one(message["data"])
            except (ValueError, KeyError, TypeError):
                log.exception("a malformed message on %s: %r", self._searches.channel, message["data"])

    def _relay_one(self, data: bytes) -> None:
        message = json.loads(data)
        info = message.get("info")
        with self._searches.lock:
            tracked = self._searches.tracked.get(message["job"])
            if tracked is None:
                return
            tracked.heard = self._clock.monotonic()
            if info is None:  # a heartbeat
                return
            kind = info.get("kind")
            if kind == "started":
                tracked.started = True
            elif kind in ("final", "failed"):
                self._searches.forget_locked(tracked)
        deliver(tracked.job, tracked.on_event, info)

    def _check_jobs(self) -> None:
        """Send the cancellations kept during an outage, queue the searches kept, report searches that no worker
        has started as "queued", and lost ones as "failed" (see the module)."""
        self._send_unsent_cancels()
        with self._searches.lock:
            pending = sorted((tracked for tracked in self._searches.tracked.values() if not tracked.enqueued),
                             key=lambda tracked: (tracked.job.priority, tracked.submitted))
        for tracked in pending:
            self._searches.enqueue(tracked, unless_there=True)
        with self._searches.lock:
            tracked_jobs = [tracked for tracked in self._searches.tracked.values() if tracked.enqueued]
        if not tracked_jobs:
            return
        pipe = self._redis.pipeline(transaction=False)
        for tracked in tracked_jobs:
            pipe.hget(Job.key_for(tracked.rq_id), "status")
        statuses = [status.decode() if status else None for status in pipe.execute()]
        now = self._clock.monotonic()
        lost: list[tuple[Tracked, str]] = []
        waiting: list[Tracked] = []
        with self._searches.lock:
            for tracked, status in zip(tracked_jobs, statuses, strict=True):
                if self._searches.tracked.get(tracked.job.id) is not tracked:
                    continue
                if status is None or status in ENDED_STATUSES:
                    tracked.ended = tracked.ended or now
                else:
                    tracked.ended = None
                if status == "started" and tracked.heard is None:
                    tracked.heard = now
                if tracked.ended is not None and now - tracked.ended >= END_GRACE:
                    lost.append((tracked, f"the engine worker stopped (the search job is {status or 'gone'})"))
                elif tracked.heard is not None and now - tracked.heard > SILENCE_LIMIT:
                    lost.append((tracked, f"the engine worker stopped answering for {SILENCE_LIMIT:g} s"))
                elif status == "queued" and not tracked.started and not tracked.reported_queued and (
                        now - tracked.submitted >= QUEUED_AFTER):
                    waiting.append(tracked)
            for tracked, _ in lost:
                self._searches.forget_locked(tracked)
        if lost:
            self._searches.stop_remote([tracked.rq_id for tracked, _ in lost])
        for tracked, message in lost:
            log.error("search %s of %s lost: %s", tracked.job.id, tracked.job.key, message)
            deliver(tracked.job, tracked.on_event, {"kind": "failed", "message": message})
        for tracked in waiting:
            self._searches.report_queued(tracked)
