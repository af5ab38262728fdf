"""How many people watch a game across every web node: each node reports the size of its own part of the game's
room to Redis (``arena:watchers:<game id>``, a hash field per node holding ``<count>:<expiry in ms>``) and adds up
what the other nodes reported. A report lives ``ttl`` seconds unless renewed, so the count of a node that died
drops out by itself. Without Redis, every call answers as if this node were alone.
"""

from __future__ import annotations

from redis import Redis

from webapp.clock import Clock
from webapp.transport.redis_clients import UNREACHABLE

REPORT_SECONDS = 10.0
"""How long a node's report counts after it was last renewed."""
PREFIX = "arena:watchers:"


class WatcherCounts:
    """The watcher counts the nodes sharing ``redis`` report; this node's id is ``node``; reports expire on
    ``clock``'s Unix time (the nodes' clocks are compared)."""

    def __init__(self, redis: Redis, node: str, clock: Clock, ttl: float = REPORT_SECONDS) -> None:
        self._clock = clock
        self.redis = redis
        self.node = node
        self.ttl_ms = int(ttl * 1000)

    def exchange(self, local: dict[str, int]) -> dict[str, int]:
        """Report this node's count of each game in ``local`` (0 removes the report) and return, for each of those
        games, the sum the other nodes currently report. An empty dict when Redis cannot be reached."""
        if not local:
            return {}
        now_ms = int(self._clock.time() * 1000)
        try:
            with self.redis.pipeline(transaction=False) as pipe:
                for game_id, count in local.items():
                    key = PREFIX + game_id
                    if count:
                        pipe.hset(key, self.node, f"{count}:{now_ms + self.ttl_ms}")
                        pipe.pexpire(key, self.ttl_ms * 6)
                    else:
                        pipe.hdel(key, self.node)
                    pipe.hgetall(key)
                replies = pipe.execute()
        except UNREACHABLE:
            return {}
        reports = [reply for reply in replies if isinstance(reply, dict)]
        return {game_id: self._others(report, now_ms) for game_id, report in zip(local, reports, strict=True)}

    def _others(self, report: dict[bytes, bytes], now_ms: int) -> int:
        total = 0
        for node, value in report.items():
            count, _, expires = value.decode().partition(":")
            if node.decode() != self.node and expires.isdigit() and int(expires) >= now_ms and count.isdigit():
                total += int(count)
        return total
