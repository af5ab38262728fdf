"""Rate limits per client address (``request.remote_addr``) on the actions that cost the server: game creation,
seat taking, moves and lab runs. One counter per address and action, shared by HTTP and Socket.IO.

HTTP routes take a limit with the decorators ``limit_create``, ``limit_seats`` and ``limit_moves`` (Flask-Limiter);
a refused request raises ``RateLimitExceeded`` (429, with ``Retry-After``) before the view runs. Socket.IO handlers
call ``check(action)``, which counts the event in the same storage with the same strategy and key as the HTTP
limit, and raises ``RateLimitedError`` (code ``rate_limited``, ``retry_after`` seconds) when over.

The limits are the config keys of ``ACTIONS`` (``webapp.config``). The counters live in the node's memory, or in
Redis (``SOCKETIO_MESSAGE_QUEUE``) when the nodes share one, so that every node counts the same address together;
while Redis is unreachable each node counts in its memory and never refuses for that reason.
"""

from __future__ import annotations

import logging
import math
import time
from typing import Any

from flask import Flask, current_app
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from limits import parse_many

from webapp.errors import ArenaError

log = logging.getLogger(__name__)

ACTIONS = {
    "create": "ARENA_CREATE_LIMIT",
    "seats": "ARENA_SEAT_LIMIT",
    "moves": "ARENA_MOVE_LIMIT",
    "lab": "ARENA_LAB_LIMIT",
}
"""Each limited action (the counter's scope) and the config key holding its limits ("30/minute;300/hour")."""

limiter = Limiter(key_func=get_remote_address, strategy="moving-window", headers_enabled=True,
                  swallow_errors=True, in_memory_fallback_enabled=True)


def _limits_of(action: str) -> Any:
    return lambda: current_app.config[ACTIONS[action]]


limit_create = limiter.shared_limit(_limits_of("create"), scope="create")
limit_seats = limiter.shared_limit(_limits_of("seats"), scope="seats")
limit_moves = limiter.shared_limit(_limits_of("moves"), scope="moves")


class RateLimitedError(ArenaError):
    """An action refused because its address used up a limit; ``retry_after`` is the number of seconds until it
    may act again."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__("rate_limited", message)
        self.retry_after = retry_after

    @property
    def details(self) -> dict[str, Any]:
        return {"retry_after": self.retry_after}


def storage_uri(redis_url: str | None) -> str:
    """The ``limits`` storage for the nodes' shared Redis URL (``unix://`` becomes ``redis+unix://``), or memory."""
    if redis_url is None:
        return "memory://"
    return "redis+" + redis_url if redis_url.startswith("unix://") else redis_url


def init_app(app: Flask) -> None:
    """Count in the Redis of ``SOCKETIO_MESSAGE_QUEUE`` when set, else in memory, and install the limiter."""
    app.config.setdefault("RATELIMIT_STORAGE_URI", storage_uri(app.config["SOCKETIO_MESSAGE_QUEUE"]))
    limiter.init_app(app)


def check(action: str) -> None:
    """Count one ``action`` for the current request's address (a Socket.IO event's request is its connection's),
    exactly as the HTTP limit of that action does; raise ``RateLimitedError`` when one of its limits is used up.
    A storage failure lets the action through (logged), as the HTTP limits do."""
    address = get_remote_address()
    try:
        strategy = limiter.limiter
        for item in parse_many(current_app.config[ACTIONS[action]]):
            if not strategy.hit(item, address, action):
                reset = strategy.get_window_stats(item, address, action).reset_time
                raise RateLimitedError(f"too many requests from this address: at most {item}",
                                       max(1, math.ceil(reset - time.time())))
    except RateLimitedError:
        raise
    except Exception:
        log.exception("rate limit storage failed; %s from %s let through", action, address)
