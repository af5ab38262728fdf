"""Rate limits per client address (``request.remote_addr``) on the actions that cost the server: game creation,
seat taking (seats carried over from old cookies included), moves, lab runs, analysis board nodes, API reads (a long
game's record costing more, Socket.IO ``join`` included) and new Socket.IO connections. One counter per address and
action, shared by HTTP and Socket.IO.

The decorators ``limit_create``, ``limit_seats``, ``limit_moves``, ``limit_lab``, ``limit_analysis``,
``limit_reads`` and ``limit_connects`` (Flask-Limiter shared limits, one scope each) go on HTTP views and on
Socket.IO handlers alike: a Socket.IO event runs in its connection's request context, so both count under the same
key. Over a limit the decorated function does not run and ``RateLimitExceeded`` (HTTP 429, with ``Retry-After``)
is raised; ``refusal(error)`` turns it into the ``ArenaError`` a Socket.IO handler answers with.

The limits are the config keys of ``ACTIONS`` (``webapp.config``). The counters live in the node's memory, or in
Redis (``SOCKETIO_MESSAGE_QUEUE``) when the nodes share one, so that every node counts an address together; while
Redis does not answer within ``REDIS_TIMEOUT`` seconds each node counts in its memory (Flask-Limiter's in-memory
fallback) and tries Redis again now and then.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from flask import Flask, current_app, g, request
from flask_limiter import Limiter, RateLimitExceeded
from flask_limiter.util import get_remote_address

from webapp.errors import ArenaError, ErrorCode
from webapp.transport.socket_cap import opens_connection, refuse

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

ACTIONS = {
    "create": "ARENA_CREATE_LIMIT",
    "seats": "ARENA_SEAT_LIMIT",
    "moves": "ARENA_MOVE_LIMIT",
    "lab": "ARENA_LAB_LIMIT",
    "analysis": "ARENA_ANALYSIS_LIMIT",
    "reads": "ARENA_READ_LIMIT",
    "connects": "ARENA_CONNECT_LIMIT",
}
"""Each limited action (the counter's scope) and the config key holding its limits ("30/minute;300/hour")."""

REDIS_TIMEOUT = 1.0
"""Seconds a limit check waits for Redis before counting in memory instead."""


def _request_identity() -> str:
    """The route of an HTTP request; a Socket.IO event, which has none, is known by its path (``/socket.io/``), so
    the limits of a decorated handler apply to it (Flask-Limiter skips requests with an empty identity)."""
    return request.endpoint or request.path


limiter = Limiter(key_func=get_remote_address, strategy="sliding-window-counter", headers_enabled=True,
                  swallow_errors=True, in_memory_fallback_enabled=True, request_identifier=_request_identity)


def _limits_of(action: str) -> Callable[[], str]:
    """The limits of ``action`` in the current app's config, read at each request (tests may change them)."""
    return lambda: current_app.config[ACTIONS[action]]


limit_create = limiter.shared_limit(_limits_of("create"), scope="create")
limit_seats = limiter.shared_limit(_limits_of("seats"), scope="seats")
limit_moves = limiter.shared_limit(_limits_of("moves"), scope="moves")
limit_lab = limiter.shared_limit(_limits_of("lab"), scope="lab")
limit_analysis = limiter.shared_limit(_limits_of("analysis"), scope="analysis")
limit_reads = limiter.shared_limit(_limits_of("reads"), scope="reads")
limit_connects = limiter.shared_limit(_limits_of("connects"), scope="connects")


@limit_connects
def _count_connection() -> None:
    """Count a new connection against its address's ``ARENA_CONNECT_LIMIT`` (``RateLimitExceeded`` over it)."""


@limiter.shared_limit(_limits_of("seats"), scope="seats", cost=lambda: int(g.arena_seat_claims))
def _count_seat_claims() -> None:
    """Count ``g.arena_seat_claims`` seats against the address's ``ARENA_SEAT_LIMIT`` (``RateLimitExceeded`` over
    it, and then nothing is counted)."""


MOVES_PER_READ = 100
"""A read of a game's whole record (its state, a Socket.IO ``join``, a PGN) costs one read more for every this
many moves of the record (``Reads.record_length``): a chess game set up from 1,600 moves and played on has a state
of tens to hundreds of KB that takes milliseconds to build and send."""


def extra_reads(moves: int) -> int:
    """How many reads beyond the first a read of the whole record of a game of ``moves`` moves costs."""
    return moves // MOVES_PER_READ


@limiter.shared_limit(_limits_of("reads"), scope="reads", cost=lambda: int(g.arena_read_cost))
def _count_reads() -> None:
    """Count ``g.arena_read_cost`` reads against the address's ``ARENA_READ_LIMIT`` (``RateLimitExceeded`` over it,
    and then nothing is counted)."""


def charge_reads(cost: int) -> None:
    """Count ``cost`` more reads for the current request or Socket.IO event (``extra_reads`` of a long game)
    against its address's ``ARENA_READ_LIMIT``; ``RateLimitExceeded`` when they would exceed it (nothing counted).
    A cost of 0 counts nothing."""
    if cost > 0:
        g.arena_read_cost = cost
        _count_reads()


def charge_seat_claims(count: int) -> bool:
    """Count ``count`` seats recorded for the current request (seats carried over from cookies of earlier
    versions, ``webapp.views.players``) against its address's ``ARENA_SEAT_LIMIT``, as that many seats taken: True when
    they fit, False (and nothing counted) when they would exceed it."""
    g.arena_seat_claims = count
    try:
        _count_seat_claims()
    except RateLimitExceeded:
        return False
    return True


class LimitHandshakes:
    """WSGI middleware in front of the Socket.IO server: a new Engine.IO connection (a ``/socket.io/`` request
    without a ``sid``: the polling handshake, or a WebSocket opened directly) counts against its address's
    ``ARENA_CONNECT_LIMIT``, as nginx's handshake zone counts them; over it the answer is ``429`` with the JSON
    error and ``Retry-After``, and no connection is made. Requests of a connection already made never count."""

    def __init__(self, app: Flask, wsgi_app: WSGIApplication) -> None:
        self.app = app
        self.wsgi_app = wsgi_app

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        if opens_connection(environ):
            with self.app.request_context(environ):
                try:
                    _count_connection()
                except RateLimitExceeded as refused:
                    error = refusal(refused)
                    return refuse(start_response, "429 Too Many Requests", error.code, error.message,
                                  error.retry_after)
        return self.wsgi_app(environ, start_response)


class RateLimitedError(ArenaError):
    """An action refused because its address used up a limit; ``retry_after`` is the number of seconds until it
    may act again."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(ErrorCode.RATE_LIMITED, message)
        self.retry_after = retry_after

    @property
    def details(self) -> dict[str, Any]:
        return {"retry_after": self.retry_after}


def message(error: RateLimitExceeded) -> str:
    """The human text of a refusal: which limit the address used up."""
    return f"too many requests from this address: at most {error.limit.limit}"


def refusal(error: RateLimitExceeded) -> RateLimitedError:
    """The error for a refused Socket.IO event, with the seconds until the limit lets the address act again (the
    limiter keeps its windows on the system's Unix time, so that is the time this reads, not the app's clock)."""
    breached = limiter.current_limit
    reset_at = breached.reset_at if breached is not None else time.time() + 1
    return RateLimitedError(message(error), max(1, int(reset_at - time.time())))  # as Retry-After


def storage_uri(redis_url: str | None) -> str:
    """The ``limits`` storage for the nodes' shared Redis URL (``unix://`` becomes ``redis+unix://``), or memory."""
    if redis_url is None:
        return "memory://"
    return "redis+" + redis_url if redis_url.startswith("unix://") else redis_url


def init_app(app: Flask) -> None:
    """Count in the Redis of ``SOCKETIO_MESSAGE_QUEUE`` when set, else in memory, and install the limiter."""
    app.config.setdefault("RATELIMIT_STORAGE_URI", storage_uri(app.config["SOCKETIO_MESSAGE_QUEUE"]))
    if app.config["SOCKETIO_MESSAGE_QUEUE"]:
        app.config.setdefault("RATELIMIT_STORAGE_OPTIONS", {"socket_timeout": REDIS_TIMEOUT,
                                                            "socket_connect_timeout": REDIS_TIMEOUT})
    limiter.init_app(app)
