"""The Socket.IO message queue of several web nodes (``SOCKETIO_MESSAGE_QUEUE=redis://...``), kept useful through a
Redis outage.

``ResilientRedisManager`` is python-socketio's ``RedisManager`` with its two Redis paths made fault-tolerant:

- Publishing. Every emit is delivered to this node's own clients first (``PubSubManager.emit``), then published
  for the other nodes, whose listeners deliver it to theirs (a node ignores its own messages, so nothing arrives
  twice). When a publish fails, the queue is marked down: one error line is logged for the whole outage, and while
  it lasts emits reach only this node's clients, without waiting on Redis at all. Each node goes on serving its own
  players; what other nodes' clients miss meanwhile is not replayed (Redis pub/sub keeps nothing).
- Listening. The listener thread pings Redis through its subscription every ``retry_interval`` seconds. When the
  connection drops, or a ping goes unanswered for ``TIMEOUT_SECONDS``, the queue is marked down and the listener
  subscribes again every ``retry_interval`` seconds (python-socketio's own listener backs off up to a minute). The
  first answered ping marks the queue up again and logs one "reconnected" line; publishing resumes from then on.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from redis.client import PubSub
from redis.exceptions import RedisError
from socketio import RedisManager

from webapp.clock import Clock
from webapp.transport import internals
from webapp.transport.redis_clients import TIMEOUT_SECONDS, connect
from webapp.transport.room_index import IndexedRooms

CHANNEL = "flask-socketio"
"""The channel Flask-SocketIO uses by default, so a process emitting through a plain ``SocketIO(message_queue=...)``
still reaches the nodes."""
log = logging.getLogger(__name__)


def redacted(url: str) -> str:
    """``url`` without its password, fit for a log line."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


class ResilientRedisManager(IndexedRooms, RedisManager):
    """A Socket.IO client manager sharing emits between nodes through Redis pub/sub, which keeps each node's own
    clients served while Redis is unreachable and recovers by itself when it returns (see the module docstring);
    it measures outages, pings and pauses on ``clock``.

    Its Redis clients follow ``webapp.transport.redis_clients``: every connect, read and write gives up after
    ``TIMEOUT_SECONDS``, so an emit waits at most that long on a Redis that stopped answering (and only the first
    emit of an outage waits); ``retry_interval`` is both the listener's ping
    interval and its pause between attempts to subscribe again.
    ``on_reconnect`` (if given) is called in a thread of its own ``2 * retry_interval`` seconds after the queue
    comes back from an outage (by then the other nodes have subscribed again), to send what clients missed.
    """

    name = "redis"

    def __init__(self, url: str, clock: Clock, channel: str = CHANNEL, retry_interval: float = 1.0,
                 on_reconnect: Callable[[], object] | None = None) -> None:
        super().__init__(url, channel=channel)
        self._clock = clock
        self.retry_interval = retry_interval
        self.on_reconnect = on_reconnect
        self._state_lock = threading.Lock()
        self._down_since: float | None = None
        self._unshared = 0
        self._publisher = connect(self.redis_url)

    def start(self) -> None:
        """Start the listener now, not at the first client connection as python-socketio would, so that a node
        nobody is connected to also notices an outage's end and shares its events (engine searches) again.
        Call it once the Socket.IO server using this manager exists."""
        internals.start_manager(self.server, self.initialize)

    @property
    def available(self) -> bool:
        """Whether emits currently reach the other nodes."""
        return self._down_since is None


    # --- state ------------------------------------------------------------------------------------------------

    def _mark_down(self, error: BaseException, where: str) -> None:
        """Note a failure; the first one of an outage is logged."""
        with self._state_lock:
            if self._down_since is not None:
                return
            self._down_since = self._clock.monotonic()
            self._unshared = 0
        log.error("Socket.IO message queue %s is unreachable (%s failed: %s); until it returns, events reach only "
                  "the clients connected to this node", redacted(self.redis_url), where, error)

    def _mark_up(self) -> None:
        """Note that Redis answers again; logs the end of an outage."""
        with self._state_lock:
            if self._down_since is None:
                return
            outage, unshared = self._clock.monotonic() - self._down_since, self._unshared
            self._down_since = None
        log.warning("Socket.IO message queue %s reconnected after %.1f s; events reach every node again (%d events "
                    "emitted meanwhile reached only this node's clients)", redacted(self.redis_url), outage, unshared)
        if self.on_reconnect is not None:
            catch_up = threading.Timer(2 * self.retry_interval, self._call_on_reconnect)
            catch_up.daemon = True
            catch_up.start()

    def _call_on_reconnect(self) -> None:
        """Run ``on_reconnect``, once the other nodes' listeners have had time to subscribe again too."""
        assert self.on_reconnect is not None
        try:
            self.on_reconnect()
        except Exception:
            log.exception("catching up after the message queue outage failed")

    # --- publishing -------------------------------------------------------------------------------------------

    def _publish(self, data: dict[str, Any]) -> None:
        """Send ``data`` to the other nodes, or, while Redis is unreachable, count it as not shared."""
        if self._down_since is not None:
            with self._state_lock:
                self._unshared += 1
            return
        try:
            self._publisher.publish(self.channel, self.json.dumps(data))
        except (RedisError, OSError) as error:
            self._mark_down(error, "publish")
            with self._state_lock:
                self._unshared += 1

    # --- listening --------------------------------------------------------------------------------------------

    def _listen(self) -> Iterator[bytes]:
        """Every message published on the channel, forever: subscribes again after each lost connection."""
        while True:
            pubsub = connect(self.redis_url).pubsub(ignore_subscribe_messages=True)
            try:
                pubsub.subscribe(self.channel)
                yield from self._messages(pubsub)
            except (RedisError, OSError) as error:
                self._mark_down(error, "listen")
            finally:
                pubsub.close()
            self._clock.sleep(self.retry_interval)

    def _messages(self, pubsub: PubSub) -> Iterator[bytes]:
        """The channel's messages from a subscribed ``pubsub``. A PING goes out every ``retry_interval`` seconds:
        its answer marks the queue up; none within ``TIMEOUT_SECONDS`` raises ``TimeoutError``, so a Redis that
        stopped answering without closing the connection is noticed too."""
        channel = self.channel.encode()
        ping_sent: float | None = None
        last_ping = -float("inf")
        while True:
            now = self._clock.monotonic()
            if ping_sent is None and now - last_ping >= self.retry_interval:
                pubsub.ping()
                ping_sent = last_ping = now
            elif ping_sent is not None and now - ping_sent > TIMEOUT_SECONDS:
                raise TimeoutError(f"no answer to PING within {TIMEOUT_SECONDS:g} s")
            message = pubsub.get_message(timeout=self.retry_interval / 2)
            if message is None:
                continue
            if message["type"] == "pong":
                ping_sent = None
                self._mark_up()
            elif message["type"] == "message" and message["channel"] == channel:
                yield message["data"]
