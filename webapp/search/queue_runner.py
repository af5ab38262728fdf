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

import logging
import threading
import uuid

from redis.exceptions import RedisError

from webapp.clock import Clock
from webapp.search.jobs import EventHandler, SearchJob, deliver
from webapp.search.queue_relay import QueueRelay
from webapp.search.queue_searches import NodeSearches, Tracked
from webapp.search.wire import node_channel
from webapp.transport.redis_clients import connect

CLIENT_SEARCHES = 1
"""How many searches of one client a node puts on the queues at once."""
log = logging.getLogger(__name__)


class QueuedRunner:
    """Searches run by the workers of the RQ queues at ``url`` (see the module). One client has at most ``share``
    searches on the queues or running. Waits and silences are measured on ``clock``."""

    def __init__(self, url: str, clock: Clock, share: int = CLIENT_SEARCHES) -> None:
        self._clock = clock
        self.node = uuid.uuid4().hex
        self.channel = node_channel(self.node)
        self._searches = NodeSearches(connect(url), self.channel, share)
        self._subscribed = threading.Event()
        self._relay: threading.Thread | None = None
        self._closed = False

    def submit(self, job: SearchJob, on_event: EventHandler) -> None:
        """Queue ``job`` for the workers; a search already under way for the same key is cancelled. If Redis
        cannot be reached, or the job's client already has ``share`` searches under way, the job is reported
        "queued" (``position`` None) and queued once Redis is back, or once the client's searches end."""
        self.cancel(job.key, "position changed")
        tracked = Tracked(job, on_event, f"{self.node}-{job.id}", self._clock.monotonic())
        with self._searches.lock:
            if self._closed:
                return
            if self._relay is None:  # it subscribes, then queues the jobs submitted before that
                relay = QueueRelay(self._searches, self._subscribed, lambda: self._closed, self._clock)
                self._relay = threading.Thread(target=relay.run, name="search-relay", daemon=True)
                self._relay.start()
            self._searches.by_key[job.key] = tracked
            self._searches.tracked[job.id] = tracked
        if not self._subscribed.is_set():
            if self._searches.outage:
                self._searches.report_unqueued(tracked)
            return
        try:
            if not self._searches.enqueue(tracked):
                self._searches.report_unqueued(tracked)
        except RedisError as error:
            log.error("search %s of %s is kept until Redis can be reached: %s", job.id, job.key, error)
            self._searches.report_unqueued(tracked)

    def cancel(self, key: str, reason: str) -> SearchJob | None:
        """Stop the search of ``key`` (queued or running); returns the job, or None if there was none.

        A "cancelled" event is sent for it, and none of its later events are delivered.
        """
        with self._searches.lock:
            tracked = self._searches.by_key.pop(key, None)
            if tracked is None:
                return None
            del self._searches.tracked[tracked.job.id]
        self._searches.stop_remote([tracked.rq_id])
        deliver(tracked.job, tracked.on_event, {"kind": "cancelled", "reason": reason})
        return tracked.job

    def state_of(self, key: str) -> str:
        """"idle", "queued" (no worker has started it yet) or "thinking" for the search of ``key``."""
        with self._searches.lock:
            tracked = self._searches.by_key.get(key)
            if tracked is None:
                return "idle"
            return "thinking" if tracked.started else "queued"

    def current_job(self, key: str) -> SearchJob | None:
        """The queued or running job of ``key``, if any."""
        with self._searches.lock:
            tracked = self._searches.by_key.get(key)
            return None if tracked is None else tracked.job

    def close(self) -> None:
        """Stop every search of this node (the workers drop them) and the relay thread."""
        with self._searches.lock:
            if self._closed:
                return
            self._closed = True
            rq_ids = [tracked.rq_id for tracked in self._searches.tracked.values()]
            self._searches.by_key.clear()
            self._searches.tracked.clear()
        if rq_ids:
            self._searches.stop_remote(rq_ids)
        if self._relay is not None:
            self._relay.join(timeout=3)
        self._searches.redis.close()
