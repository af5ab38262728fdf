"""Which web node searches which game's engine turn, when several nodes share a store: a lease per game in Redis
(``arena:lease:<game id>`` holding the node's id), kept alive by the node while its search is queued or running
and expiring ``ttl`` seconds after the node stops renewing it (it died, or lost Redis).

A node starts an engine search only with the lease in hand, so two nodes do not search the same turn, and a node
that finds an engine turn whose lease has expired takes it over: a turn whose node died mid-search is played by
another. Without Redis the leases cannot be known; every call then answers as if this node held the lease, which
is the behaviour of a single node (the store still accepts only one move per ply).
"""

from __future__ import annotations

import logging

from redis import Redis
from redis.exceptions import RedisError

LEASE_SECONDS = 5.0
"""How long a lease outlives its last renewal."""
UNREACHABLE = (RedisError, OSError)
"""What a Redis call raises when the server cannot be reached."""
PREFIX = "arena:lease:"
log = logging.getLogger(__name__)


def connect(url: str) -> Redis:
    """A Redis client for the nodes' shared bookkeeping (leases, watcher counts): each call gives up within a
    second when the server cannot be reached."""
    return Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1)


class SearchLeases:
    """The leases of the nodes sharing ``redis``; this node's id is ``node``."""

    def __init__(self, redis: Redis, node: str, ttl: float = LEASE_SECONDS) -> None:
        self.redis = redis
        self.node = node
        self.ttl_ms = int(ttl * 1000)

    def claim(self, game_id: str) -> bool:
        """Take the game's lease (or renew it if this node holds it); False when another node holds it.
        True when Redis cannot be reached."""
        key = PREFIX + game_id
        try:
            if self.redis.set(key, self.node, nx=True, px=self.ttl_ms):
                return True
            if self.redis.get(key) == self.node.encode():
                self.redis.pexpire(key, self.ttl_ms)
                return True
            return False
        except UNREACHABLE as error:
            log.warning("search lease of game %s not checked (%s); searching anyway", game_id, error)
            return True

    def renew(self, game_ids: list[str]) -> None:
        """Extend this node's leases of ``game_ids`` by ``ttl`` from now (in one round trip)."""
        if not game_ids:
            return
        try:
            with self.redis.pipeline(transaction=False) as pipe:
                for game_id in game_ids:
                    pipe.set(PREFIX + game_id, self.node, px=self.ttl_ms)
                pipe.execute()
        except UNREACHABLE:
            pass

    def release(self, game_id: str) -> None:
        """Give the lease back at once if this node holds it (its search ended)."""
        key = PREFIX + game_id
        try:
            if self.redis.get(key) == self.node.encode():
                self.redis.delete(key)
        except UNREACHABLE:
            pass

    def unclaimed(self, game_ids: list[str]) -> list[str]:
        """Those of ``game_ids`` whose lease no node holds (in one round trip); none when Redis cannot be
        reached (nobody can tell, so no turn is taken over)."""
        if not game_ids:
            return []
        try:
            holders = self.redis.mget([PREFIX + game_id for game_id in game_ids])
        except UNREACHABLE:
            return []
        return [game_id for game_id, holder in zip(game_ids, holders, strict=True) if holder is None]
