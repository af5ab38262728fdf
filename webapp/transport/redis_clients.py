"""The one way this app's own code opens a Redis client (the Socket.IO message queue, the search queue on both sides,
search leases, watcher counts), with one timeout policy (Flask-Limiter opens the rate limits' client itself, given
the same connect and reply timeouts by ``webapp.views.address_limits``, and keeps its own retry rules):

- connecting gives up after ``TIMEOUT_SECONDS``, and so does waiting for any reply (a blocking read such as RQ's
  queue wait raises its own bound above its wait; RQ does that itself);
- a failed call is not retried inside redis-py: it raises ``RedisError`` (or ``OSError``) at once, and the caller
  decides what the failure means (each caller's docstring says: report, keep for later, or act as if alone).

So a Redis that stops answering holds any thread of the node for at most ``TIMEOUT_SECONDS`` per call.
"""

from __future__ import annotations

from redis import Redis
from redis.backoff import NoBackoff
from redis.exceptions import RedisError
from redis.retry import Retry

TIMEOUT_SECONDS = 2.0
UNREACHABLE = (RedisError, OSError)
"""What a Redis call raises when the server cannot be reached."""


def connect(url: str) -> Redis:
    """A client for ``url`` (``redis://[:password@]host:port/db``) with the module's timeout policy; a malformed
    URL raises ``ValueError``. No connection is made before the first call."""
    return Redis.from_url(url, socket_connect_timeout=TIMEOUT_SECONDS, socket_timeout=TIMEOUT_SECONDS,
                          retry=Retry(NoBackoff(), 0))
