"""The web node's side of the search queue: engine searches run by worker processes outside the node, through RQ
queues in Redis (``ARENA_SEARCH_QUEUE``). ``QueuedRunner`` is a ``Runner`` (``webapp.search.jobs``); "queued" means
no worker has picked the search up yet. The workers' side is ``webapp.search.worker``; the names both use are in
``webapp.search.wire``.

How a search travels:

- ``submit`` enqueues the RQ job ``run_queued(job, channel)`` on the queue of its priority (``QUEUE_NAMES``: a
  live game's turn, or background work, which workers take only when the first is empty); its RQ id is
  ``<node>-<job id>``, ``<node>`` being a random id of this runner. A client (``SearchJob.client``) has at most
  ``share`` searches of this node on the queues or running; its next ones wait on the node, and go to the queue
  (live turns first, then in the order they came) as its earlier ones end.
- A worker (``python -m webapp.search.worker``) runs it in a forked work-horse: ``run_job`` publishes every event
  as JSON ``{"job": id, "info": {...}}`` on the node's channel ``arena:node:<node>``, and ``{"job": id}`` every
  ``HEARTBEAT_SECONDS`` while the search runs.
- The node's relay thread, subscribed to that channel, hands each event to ``on_event``.
- ``cancel`` sets the key ``arena:cancel:<RQ id>`` and takes the job off the queue if it is still there; the
  work-horse looks at that key every ``CANCEL_POLL_SECONDS``, stops the search and sends nothing more.
- Faults: every ``CHECK_SECONDS`` the relay thread reads the RQ status of its jobs. A job that RQ says has ended
  (failed, stopped, or gone) without its final event, or a running job silent for ``SILENCE_LIMIT`` seconds (its
  machine died), is reported "failed", so the arena starts the search again.
- While Redis cannot be reached the relay thread logs it and tries again every ``RECONNECT_SECONDS``; searches
  submitted meanwhile are "queued" (``position`` null) and go to the queue once Redis is back.
- A search whose node has gone (a PUBLISH reaches nobody) stops and sends nothing more.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Any

from redis.exceptions import RedisError
from rq import Queue, Worker
from rq.job import Job

from webapp.redis_clients import connect
from webapp.search.fair_queue import LIVE
from webapp.search.jobs import EventHandler, SearchJob, deliver
from webapp.search.wire import CANCEL_TTL, QUEUE_NAMES, RUN_QUEUED, cancel_key, node_channel

CLIENT_SEARCHES = 1
"""How many searches of one client a node puts on the queues at once."""
CHECK_SECONDS = 0.5
SILENCE_LIMIT = 4.0
"""Seconds without a word from a running search before it is taken for lost."""
END_GRACE = 1.0
"""Seconds a job may look ended in RQ before its final event must have arrived (it is published first)."""
QUEUED_AFTER = 0.3
"""A search no worker has started after this many seconds is reported "queued"."""
RECONNECT_SECONDS = 1.0
SUBSCRIBE_WAIT = 5.0
"""Seconds to wait for Redis to confirm the subscription to the node's channel."""
QUEUED_TTL = 24 * 3600
"""Seconds a search may wait in the queue before RQ drops it."""
FAILURE_TTL = 3600
ENDED_STATUSES = frozenset({"finished", "failed", "stopped", "canceled"})
log = logging.getLogger(__name__)


@dataclass(slots=True, eq=False)
class _Tracked:
    """A search of this node that has not ended: its RQ id and what the node has seen of it (monotonic times)."""

    job: SearchJob
    on_event: EventHandler
    rq_id: str
    submitted: float
    enqueued: bool = False
    started: bool = False
    reported_queued: bool = False
    heard: float | None = None
    """When the last message came, or when RQ was first seen running it; None before that."""
    ended: float | None = None
    """When RQ was first seen to hold it as ended (or not at all) while its final event had not come."""


class QueuedRunner:
    """Searches run by the workers of the RQ queues at ``url`` (see the module). One client has at most ``share``
    searches on the queues or running."""

    def __init__(self, url: str, share: int = CLIENT_SEARCHES) -> None:
        self.share = share
        self.node = uuid.uuid4().hex
        self.channel = node_channel(self.node)
        self._redis = connect(url)
        self._queues = {priority: Queue(name, connection=self._redis) for priority, name in QUEUE_NAMES.items()}
        self._lock = threading.Lock()
        self._by_key: dict[str, _Tracked] = {}
        self._tracked: dict[int, _Tracked] = {}
        self._subscribed = threading.Event()
        self._outage = False
        """Set by the relay thread while Redis cannot be reached."""
        self._unsent_cancels: list[str] = []
        """RQ ids of searches cancelled while Redis could not be reached; the relay thread tells the workers."""
        self._relay: threading.Thread | None = None
        self._closed = False

    @property
    def size(self) -> int:
        """How many workers serve the queue now (0 when Redis cannot be reached)."""
        try:
            return Worker.count(connection=self._redis, queue=self._queues[LIVE])
        except RedisError:
            return 0

    # --- public ----------------------------------------------------------------------------------------------

    def submit(self, job: SearchJob, on_event: EventHandler) -> None:
        """Queue ``job`` for the workers; a search already under way for the same key is cancelled. If Redis
        cannot be reached, or the job's client already has ``share`` searches under way, the job is reported
        "queued" (``position`` None) and queued once Redis is back, or once the client's searches end."""
        self.cancel(job.key, "position changed")
        tracked = _Tracked(job, on_event, f"{self.node}-{job.id}", time.monotonic())
        with self._lock:
            if self._closed:
                return
            if self._relay is None:  # it subscribes, then queues the jobs submitted before that
                self._relay = threading.Thread(target=self._relay_loop, name="search-relay", daemon=True)
                self._relay.start()
            self._by_key[job.key] = tracked
            self._tracked[job.id] = tracked
        if not self._subscribed.is_set():
            if self._outage:
                self._report_unqueued(tracked)
            return
        try:
            if not self._enqueue(tracked):
                self._report_unqueued(tracked)
        except RedisError as error:
            log.error("search %s of %s is kept until Redis can be reached: %s", job.id, job.key, error)
            self._report_unqueued(tracked)

    def cancel(self, key: str, reason: str) -> SearchJob | None:
        """Stop the search of ``key`` (queued or running); returns the job, or None if there was none.

        A "cancelled" event is sent for it, and none of its later events are delivered.
        """
        with self._lock:
            tracked = self._by_key.pop(key, None)
            if tracked is None:
                return None
            del self._tracked[tracked.job.id]
        self._stop_remote([tracked.rq_id])
        deliver(tracked.job, tracked.on_event, {"kind": "cancelled", "reason": reason})
        return tracked.job

    def state_of(self, key: str) -> str:
        """"idle", "queued" (no worker has started it yet) or "thinking" for the search of ``key``."""
        with self._lock:
            tracked = self._by_key.get(key)
            if tracked is None:
                return "idle"
            return "thinking" if tracked.started else "queued"

    def current_job(self, key: str) -> SearchJob | None:
        """The queued or running job of ``key``, if any."""
        with self._lock:
            tracked = self._by_key.get(key)
            return None if tracked is None else tracked.job

    def close(self) -> None:
        """Stop every search of this node (the workers drop them) and the relay thread."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            rq_ids = [tracked.rq_id for tracked in self._tracked.values()]
            self._by_key.clear()
            self._tracked.clear()
        if rq_ids:
            self._stop_remote(rq_ids)
        if self._relay is not None:
            self._relay.join(timeout=3)
        self._redis.close()

    # --- helpers ----------------------------------------------------------------------------------------------

    def _stop_remote(self, rq_ids: list[str]) -> None:
        """Tell the workers to stop these jobs, and delete those still waiting on the queue. While Redis cannot
        be reached, they are kept for the relay thread to send once it can."""
        if self._outage:
            with self._lock:
                self._unsent_cancels += rq_ids
            return
        try:
            pipe = self._redis.pipeline(transaction=False)
            for rq_id in rq_ids:
                pipe.set(cancel_key(rq_id), 1, ex=CANCEL_TTL)
                for queue in self._queues.values():
                    pipe.lrem(queue.key, 1, rq_id)
            results = pipe.execute()
            step = 1 + len(self._queues)
            removed = [sum(results[i + 1:i + step]) for i in range(0, len(results), step)]
            waiting = [Job.key_for(rq_id) for rq_id, count in zip(rq_ids, removed, strict=True) if count]
            if waiting:
                self._redis.delete(*waiting)
        except RedisError as error:
            log.error("searches %s could not be cancelled on the workers yet: %s", rq_ids, error)
            with self._lock:
                self._unsent_cancels += rq_ids

    def _enqueue(self, tracked: _Tracked, unless_there: bool = False) -> bool:
        """Put ``tracked``'s RQ job on its queue (if it is still wanted and nobody else did); with
        ``unless_there``, not if Redis already holds it (an earlier attempt failed after reaching it). False (and
        nothing done) while its client already has ``share`` searches under way. Raises ``RedisError`` when Redis
        cannot be reached; the relay thread then tries again."""
        job = tracked.job
        with self._lock:
            if tracked.enqueued or self._tracked.get(job.id) is not tracked:
                return True
            under_way = sum(1 for other in self._tracked.values() if other.enqueued and other.job.client == job.client)
            if under_way >= self.share:
                return False
            tracked.enqueued = True
        try:
            if not (unless_there and self._redis.exists(Job.key_for(tracked.rq_id))):
                self._queues[job.priority].enqueue(
                    RUN_QUEUED, job, self.channel, job_id=tracked.rq_id, job_timeout=-1,
                    ttl=QUEUED_TTL, result_ttl=0, failure_ttl=FAILURE_TTL,
                    description=f"search of {job.key} ply {job.ply} (job {job.id})")
        except RedisError:
            with self._lock:
                tracked.enqueued = False
            raise
        return True

    def _report_unqueued(self, tracked: _Tracked) -> None:
        """Report a search that cannot be put on the queue yet as "queued" (with no position)."""
        with self._lock:
            if self._tracked.get(tracked.job.id) is not tracked or tracked.enqueued or tracked.reported_queued:
                return
            tracked.reported_queued = True
        deliver(tracked.job, tracked.on_event, {"kind": "queued", "position": None})

    def _forget_locked(self, tracked: _Tracked) -> bool:
        """Stop tracking ``tracked``; False if it was no longer tracked (cancelled meanwhile)."""
        if self._tracked.get(tracked.job.id) is not tracked:
            return False
        del self._tracked[tracked.job.id]
        if self._by_key.get(tracked.job.key) is tracked:
            del self._by_key[tracked.job.key]
        return True

    # --- relay ------------------------------------------------------------------------------------------------

    def _relay_loop(self) -> None:
        pubsub = None
        next_check = 0.0
        while not self._closed:
            try:
                if pubsub is None:
                    pubsub = self._subscribe()
                    if self._outage:
                        log.warning("the search queue can be reached again")
                        self._outage = False
                    self._check_jobs()  # queues the searches submitted before
                self._relay_messages(pubsub)
                if time.monotonic() >= next_check:
                    next_check = time.monotonic() + CHECK_SECONDS
                    self._check_jobs()
            except RedisError as error:
                if not self._outage:
                    log.error("the search queue cannot be reached: %s; retrying every %g s", error, RECONNECT_SECONDS)
                    self._outage = True
                self._subscribed.clear()
                if pubsub is not None:
                    pubsub.close()
                    pubsub = None
                time.sleep(RECONNECT_SECONDS)
        if pubsub is not None:
            pubsub.close()

    def _send_unsent_cancels(self) -> None:
        with self._lock:
            rq_ids, self._unsent_cancels = self._unsent_cancels, []
        if rq_ids:
            self._stop_remote(rq_ids)

    def _subscribe(self) -> Any:
        """A pub/sub connection subscribed to the node's channel (confirmed). Every running search is given
        ``SILENCE_LIMIT`` again, since its messages could not arrive while the channel was not listened to."""
        pubsub = self._redis.pubsub()
        try:
            pubsub.subscribe(self.channel)
            deadline = time.monotonic() + SUBSCRIBE_WAIT
            while (message := pubsub.get_message(timeout=0.1)) is None or message["type"] != "subscribe":
                if time.monotonic() > deadline:
                    raise RedisError(f"no confirmation of the subscription to {self.channel}")
        except RedisError:
            pubsub.close()
            raise
        now = time.monotonic()
        with self._lock:
            for tracked in self._tracked.values():
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
                log.exception("a malformed message on %s: %r", self.channel, message["data"])

    def _relay_one(self, data: bytes) -> None:
        message = json.loads(data)
        info = message.get("info")
        with self._lock:
            tracked = self._tracked.get(message["job"])
            if tracked is None:
                return
            tracked.heard = time.monotonic()
            if info is None:  # a heartbeat
                return
            kind = info.get("kind")
            if kind == "started":
                tracked.started = True
            elif kind in ("final", "failed"):
                self._forget_locked(tracked)
        deliver(tracked.job, tracked.on_event, info)

    def _check_jobs(self) -> None:
        """Send the cancellations kept during an outage, queue the searches kept, report searches that no worker
        has started as "queued", and lost ones as "failed" (see the module)."""
        self._send_unsent_cancels()
        with self._lock:
            pending = sorted((tracked for tracked in self._tracked.values() if not tracked.enqueued),
                             key=lambda tracked: (tracked.job.priority, tracked.submitted))
        for tracked in pending:
            self._enqueue(tracked, unless_there=True)
        with self._lock:
            tracked_jobs = [tracked for tracked in self._tracked.values() if tracked.enqueued]
        if not tracked_jobs:
            return
        pipe = self._redis.pipeline(transaction=False)
        for tracked in tracked_jobs:
            pipe.hget(Job.key_for(tracked.rq_id), "status")
        statuses = [status.decode() if status else None for status in pipe.execute()]
        now = time.monotonic()
        lost: list[tuple[_Tracked, str]] = []
        waiting: list[_Tracked] = []
        with self._lock:
            for tracked, status in zip(tracked_jobs, statuses, strict=True):
                if self._tracked.get(tracked.job.id) is not tracked:
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
                self._forget_locked(tracked)
        if lost:
            self._stop_remote([tracked.rq_id for tracked, _ in lost])
        for tracked, message in lost:
            log.error("search %s of %s lost: %s", tracked.job.id, tracked.job.key, message)
            deliver(tracked.job, tracked.on_event, {"kind": "failed", "message": message})
        for tracked in waiting:
            self._report_queued(tracked)

    def _report_queued(self, tracked: _Tracked) -> None:
        index = self._redis.lpos(self._queues[tracked.job.priority].key, tracked.rq_id)
        with self._lock:
            if index is None or self._tracked.get(tracked.job.id) is not tracked or tracked.started:
                return
            tracked.reported_queued = True
        deliver(tracked.job, tracked.on_event, {"kind": "queued", "position": index + 1})
