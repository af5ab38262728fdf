"""Engine searches on worker processes outside the web node, through an RQ queue in Redis (``ARENA_SEARCH_QUEUE``).

``QueuedRunner`` has the interface and the event contract of ``webapp.runner.EngineRunner``: "queued" (when no
worker has picked the search up yet), "started", "progress" and "depth" (together at most ``PROGRESS_PER_SECOND``
a second), then one "final" or "failed", all from one relay thread; "cancelled" from the cancelling thread, and
nothing after.

How a search travels:

- ``submit`` enqueues the RQ job ``run_queued(job, channel)`` on the queue ``QUEUE_NAME`` (a live game's turn) or
  ``BACKGROUND_QUEUE_NAME`` (the lab; workers take from it only when the first is empty); its RQ id is
  ``<node>-<job id>``, ``<node>`` being a random id of this runner. A client (``SearchJob.client``) has at most
  ``share`` searches of this node on the queues or running; its next ones wait on the node, and go to the queue
  (live turns first, then in the order they came) as its earlier ones end.
- A worker (``python -m webapp.worker``) runs it in a forked work-horse: ``run_job`` publishes every event as JSON
  ``{"job": id, "info": {...}}`` on the node's channel ``arena:node:<node>``, and ``{"job": id}`` every
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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from redis import Redis
from redis.exceptions import RedisError
from rq import Queue, Worker, get_current_job
from rq.job import Job

from webapp.fair_queue import BACKGROUND, LIVE
from webapp.runner import PROGRESS_PER_SECOND, THROTTLED, Throttle
from webapp.worker import SearchJob, run_job

QUEUE_NAME = "arena-search"
BACKGROUND_QUEUE_NAME = "arena-search-background"
QUEUE_NAMES = (QUEUE_NAME, BACKGROUND_QUEUE_NAME)
"""The queues a worker serves, first to last: it takes from a queue only when those before it are empty."""
CLIENT_SEARCHES = 1
"""How many searches of one client a node puts on the queues at once."""
HEARTBEAT_SECONDS = 0.5
CANCEL_POLL_SECONDS = 0.05
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
CANCEL_TTL = 3600
QUEUED_TTL = 24 * 3600
"""Seconds a search may wait in the queue before RQ drops it."""
FAILURE_TTL = 3600
ENDED_STATUSES = frozenset({"finished", "failed", "stopped", "canceled"})
log = logging.getLogger(__name__)

EventHandler = Callable[[SearchJob, dict[str, Any]], None]


def node_channel(node: str) -> str:
    """The pub/sub channel on which the searches of node ``node`` send their events."""
    return f"arena:node:{node}"


def cancel_key(rq_id: str) -> str:
    """The Redis key that, once set, tells the worker running RQ job ``rq_id`` to stop it."""
    return f"arena:cancel:{rq_id}"


def connect(url: str) -> Redis:
    """A Redis client for ``url`` (``redis://host:port/db``); a malformed URL raises ``ValueError``."""
    return Redis.from_url(url, socket_connect_timeout=2, socket_timeout=5, health_check_interval=10)


# --- the worker's side ------------------------------------------------------------------------------------------


class _Publisher:
    """The ``results`` end ``run_job`` sends to: publishes each event on the node's channel (progress and depth
    throttled). Once the node has gone (nobody receives) or the search is cancelled, it sets ``stop`` and sends
    nothing more."""

    def __init__(self, redis: Redis, channel: str, job_id: int, stop: threading.Event) -> None:
        self.redis = redis
        self.channel = channel
        self.job_id = job_id
        self.stop = stop
        self.silenced = False
        self._silencing = threading.Lock()
        self._progress = Throttle(PROGRESS_PER_SECOND)

    def send(self, message: tuple[int, dict[str, Any]]) -> None:
        job_id, info = message
        if info.get("kind") in THROTTLED and not self._progress.allow(job_id):
            return
        self._publish({"job": job_id, "info": info})

    def heartbeat(self) -> None:
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


def _watch(redis: Redis, key: str, publisher: _Publisher, done: threading.Event) -> None:
    """Until ``done``: stop the search once ``key`` is set; send a heartbeat every ``HEARTBEAT_SECONDS``."""
    next_beat = time.monotonic() + HEARTBEAT_SECONDS
    reachable = True
    while not done.wait(CANCEL_POLL_SECONDS):
        try:
            if redis.exists(key):
                publisher.silence()
                return
            if time.monotonic() >= next_beat:
                next_beat += HEARTBEAT_SECONDS
                publisher.heartbeat()
            reachable = True
        except RedisError as error:
            if reachable:
                log.warning("search %s cannot reach Redis: %s", publisher.job_id, error)
            reachable = False


def run_queued(job: SearchJob, channel: str) -> None:
    """The RQ job of a search (run in a worker's work-horse): ``run_job`` with its events published on
    ``channel``; a cancelled search stops within ``CANCEL_POLL_SECONDS`` and sends nothing more."""
    current = get_current_job()
    if current is None:
        raise RuntimeError("run_queued runs as an RQ job only")
    redis, key = current.connection, cancel_key(current.id)
    if redis.exists(key):
        return
    stop, done = threading.Event(), threading.Event()
    publisher = _Publisher(redis, channel, job.id, stop)
    watcher = threading.Thread(target=_watch, args=(redis, key, publisher, done), name="search-watch", daemon=True)
    watcher.start()
    try:
        run_job(job, publisher, stop)
    finally:
        done.set()
        watcher.join()


# --- the web node's side ----------------------------------------------------------------------------------------


@dataclass(slots=True, eq=False)
class _Tracked:
    """A search of this node that has not ended: its RQ id and what the node has seen of it (monotonic times)."""

    job: SearchJob
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
    """Searches run by the workers of the RQ queues at ``url``; events reach ``on_event`` (see the module). One
    client has at most ``share`` searches on the queues or running."""

    def __init__(self, url: str, on_event: EventHandler, share: int = CLIENT_SEARCHES) -> None:
        self.on_event = on_event
        self.share = share
        self.node = uuid.uuid4().hex
        self.channel = node_channel(self.node)
        self._redis = connect(url)
        self._queues = {LIVE: Queue(QUEUE_NAME, connection=self._redis),
                        BACKGROUND: Queue(BACKGROUND_QUEUE_NAME, connection=self._redis)}
        self._lock = threading.Lock()
        self._by_game: dict[str, _Tracked] = {}
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

    def submit(self, job: SearchJob) -> None:
        """Queue ``job`` for the workers; a search already under way for the same game is cancelled. If Redis
        cannot be reached, or the job's client already has ``share`` searches under way, the job is reported
        "queued" (``position`` None) and queued once Redis is back, or once the client's searches end."""
        self.cancel(job.game_id, "position changed")
        tracked = _Tracked(job, f"{self.node}-{job.id}", time.monotonic())
        with self._lock:
            if self._closed:
                return
            if self._relay is None:  # it subscribes, then queues the jobs submitted before that
                self._relay = threading.Thread(target=self._relay_loop, name="search-relay", daemon=True)
                self._relay.start()
            self._by_game[job.game_id] = tracked
            self._tracked[job.id] = tracked
        if not self._subscribed.is_set():
            if self._outage:
                self._report_unqueued(tracked)
            return
        try:
            if not self._enqueue(tracked):
                self._report_unqueued(tracked)
        except RedisError as error:
            log.error("search %s of game %s is kept until Redis can be reached: %s", job.id, job.game_id, error)
            self._report_unqueued(tracked)

    def cancel(self, game_id: str, reason: str) -> SearchJob | None:
        """Stop the search of ``game_id`` (queued or running); returns the job, or None if there was none.

        A "cancelled" event is sent for it, and none of its later events are delivered.
        """
        with self._lock:
            tracked = self._by_game.pop(game_id, None)
            if tracked is None:
                return None
            del self._tracked[tracked.job.id]
        self._stop_remote([tracked.rq_id])
        self.on_event(tracked.job, {"kind": "cancelled", "reason": reason})
        return tracked.job

    def state_of(self, game_id: str) -> str:
        """"idle", "queued" (no worker has started it yet) or "thinking" for the game's search."""
        with self._lock:
            tracked = self._by_game.get(game_id)
            if tracked is None:
                return "idle"
            return "thinking" if tracked.started else "queued"

    def current_job(self, game_id: str) -> SearchJob | None:
        """The game's queued or running job, if any."""
        with self._lock:
            tracked = self._by_game.get(game_id)
            return None if tracked is None else tracked.job

    def close(self) -> None:
        """Stop every search of this node (the workers drop them) and the relay thread."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            rq_ids = [tracked.rq_id for tracked in self._tracked.values()]
            self._by_game.clear()
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
                    "webapp.search_queue.run_queued", job, self.channel, job_id=tracked.rq_id, job_timeout=-1,
                    ttl=QUEUED_TTL, result_ttl=0, failure_ttl=FAILURE_TTL,
                    description=f"search of game {job.game_id} ply {job.ply} (job {job.id})")
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
        self.on_event(tracked.job, {"kind": "queued", "position": None})

    def _forget_locked(self, tracked: _Tracked) -> bool:
        """Stop tracking ``tracked``; False if it was no longer tracked (cancelled meanwhile)."""
        if self._tracked.get(tracked.job.id) is not tracked:
            return False
        del self._tracked[tracked.job.id]
        if self._by_game.get(tracked.job.game_id) is tracked:
            del self._by_game[tracked.job.game_id]
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
        self._deliver(tracked.job, info)

    def _deliver(self, job: SearchJob, info: dict[str, Any]) -> None:
        """``on_event(job, info)`` from the relay thread, which lives on whatever the handler raises."""
        try:
            self.on_event(job, info)
        except Exception:
            log.exception("handling the %s event of search %s failed", info.get("kind"), job.id)

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
            log.error("search %s of game %s lost: %s", tracked.job.id, tracked.job.game_id, message)
            self._deliver(tracked.job, {"kind": "failed", "message": message})
        for tracked in waiting:
            self._report_queued(tracked)

    def _report_queued(self, tracked: _Tracked) -> None:
        index = self._redis.lpos(self._queues[tracked.job.priority].key, tracked.rq_id)
        with self._lock:
            if index is None or self._tracked.get(tracked.job.id) is not tracked or tracked.started:
                return
            tracked.reported_queued = True
        self._deliver(tracked.job, {"kind": "queued", "position": index + 1})
