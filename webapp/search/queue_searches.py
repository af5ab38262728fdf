"""What a web node knows of its searches on the search queue (``webapp.search.queue_runner``): each one not ended,
with its RQ job, and the Redis commands that put them on the queues and take them off. Shared by the runner (which
submits and cancels) and its relay thread (``webapp.search.queue_relay``), under one lock."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import cast

from redis import Redis
from redis.exceptions import RedisError
from rq import Queue
from rq.job import Job

from webapp.search.jobs import EventHandler, SearchJob, deliver
from webapp.search.wire import CANCEL_TTL, QUEUE_NAMES, RUN_QUEUED, cancel_key

QUEUED_TTL = 24 * 3600
"""Seconds a search may wait in the queue before RQ drops it."""
FAILURE_TTL = 3600
log = logging.getLogger(__name__)


@dataclass(slots=True, eq=False)
class Tracked:
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


class NodeSearches:
    """The searches of one node that have not ended (by job id and by key), guarded by ``lock``, and the RQ
    queues they go to. ``outage`` is set by the relay thread while Redis cannot be reached; ``unsent_cancels``
    holds the RQ ids cancelled meanwhile, for the relay thread to send."""

    def __init__(self, redis: Redis, channel: str, share: int) -> None:
        self.redis = redis
        self.channel = channel
        self.share = share
        self.queues = {priority: Queue(name, connection=redis) for priority, name in QUEUE_NAMES.items()}
        self.lock = threading.Lock()
        self.by_key: dict[str, Tracked] = {}
        self.tracked: dict[int, Tracked] = {}
        self.outage = False
        self.unsent_cancels: list[str] = []

    def stop_remote(self, rq_ids: list[str]) -> None:
        """Tell the workers to stop these jobs, and delete those still waiting on the queue. While Redis cannot
        be reached, they are kept for the relay thread to send once it can."""
        if self.outage:
            with self.lock:
                self.unsent_cancels += rq_ids
            return
        try:
            pipe = self.redis.pipeline(transaction=False)
            for rq_id in rq_ids:
                pipe.set(cancel_key(rq_id), 1, ex=CANCEL_TTL)
                for queue in self.queues.values():
                    pipe.lrem(queue.key, 1, rq_id)
            results = pipe.execute()
            step = 1 + len(self.queues)
            removed = [sum(results[i + 1:i + step]) for i in range(0, len(results), step)]
            waiting = [Job.key_for(rq_id) for rq_id, count in zip(rq_ids, removed, strict=True) if count]
            if waiting:
                self.redis.delete(*waiting)
        except RedisError as error:
            log.error("searches %s could not be cancelled on the workers yet: %s", rq_ids, error)
            with self.lock:
                self.unsent_cancels += rq_ids

    def enqueue(self, tracked: Tracked, unless_there: bool = False) -> bool:
        """Put ``tracked``'s RQ job on its queue (if it is still wanted and nobody else did); with
        ``unless_there``, not if Redis already holds it (an earlier attempt failed after reaching it). False (and
        nothing done) while its client already has ``share`` searches under way. Raises ``RedisError`` when Redis
        cannot be reached; the relay thread then tries again."""
        job = tracked.job
        with self.lock:
            if tracked.enqueued or self.tracked.get(job.id) is not tracked:
                return True
            under_way = sum(1 for other in self.tracked.values() if other.enqueued and other.job.client == job.client)
            if under_way >= self.share:
                return False
            tracked.enqueued = True
        try:
            if not (unless_there and self.redis.exists(Job.key_for(tracked.rq_id))):
                self.queues[job.priority].enqueue(
                    RUN_QUEUED, job, self.channel, job_id=tracked.rq_id, job_timeout=-1,
                    ttl=QUEUED_TTL, result_ttl=0, failure_ttl=FAILURE_TTL,
                    description=f"search of {job.key} ply {job.ply} (job {job.id})")
        except RedisError:
            with self.lock:
                tracked.enqueued = False
            raise
        return True

    def report_unqueued(self, tracked: Tracked) -> None:
        """Report a search that cannot be put on the queue yet as "queued" (with no position)."""
        with self.lock:
            if self.tracked.get(tracked.job.id) is not tracked or tracked.enqueued or tracked.reported_queued:
                return
            tracked.reported_queued = True
        deliver(tracked.job, tracked.on_event, {"kind": "queued", "position": None})

    def forget_locked(self, tracked: Tracked) -> bool:
        """Stop tracking ``tracked``; False if it was no longer tracked (cancelled meanwhile)."""
        if self.tracked.get(tracked.job.id) is not tracked:
            return False
        del self.tracked[tracked.job.id]
        if self.by_key.get(tracked.job.key) is tracked:
            del self.by_key[tracked.job.key]
        return True

    def report_queued(self, tracked: Tracked) -> None:
        """Report ``tracked`` as "queued" with its place on its queue (1 = next), unless it is no longer there or
        no longer tracked, or a worker has started it."""
        # LPOS without COUNT answers one index or None (redis-py types every form of its answer together).
        index = cast(int | None, self.redis.lpos(self.queues[tracked.job.priority].key, tracked.rq_id))
        with self.lock:
            if index is None or self.tracked.get(tracked.job.id) is not tracked or tracked.started:
                return
            tracked.reported_queued = True
        deliver(tracked.job, tracked.on_event, {"kind": "queued", "position": index + 1})
