"""What the web nodes and the search queue's workers agree on: the RQ queues, the function a queued search runs,
and the Redis names and timings of a search's events and cancellation (see ``webapp.search.queue_runner``)."""

from __future__ import annotations

from webapp.search.fair_queue import BACKGROUND, EXPLORATION, LIVE

QUEUE_NAMES = {LIVE: "arena-search", BACKGROUND: "arena-search-background", EXPLORATION: "arena-search-exploration"}
"""The RQ queue of each priority. A worker serves them in this order: it takes from a queue only when those
before it are empty."""
RUN_QUEUED = "webapp.search.worker.run_queued"
"""The RQ job function of a search: ``run_queued(job, channel)``."""
HEARTBEAT_SECONDS = 0.5
"""How often a running search says it is alive."""
CANCEL_POLL_SECONDS = 0.05
"""How often a running search looks whether it was cancelled."""
CANCEL_TTL = 3600


def node_channel(node: str) -> str:
    """The pub/sub channel on which the searches of node ``node`` send their events, as JSON ``{"job": id,
    "info": {...}}``, and ``{"job": id}`` as a heartbeat."""
    return f"arena:node:{node}"


def cancel_key(rq_id: str) -> str:
    """The Redis key that, once set, tells the worker running RQ job ``rq_id`` to stop it."""
    return f"arena:cancel:{rq_id}"
