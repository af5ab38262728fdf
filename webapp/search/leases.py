"""Which web node searches which game's engine turn, when several nodes share a store: a lease per game in Redis
(``arena:lease:<game id>``), a redis-py ``Lock`` whose token is the node's id, kept alive by the node while its
search is queued or running and expiring ``ttl`` seconds after the node stops renewing it (it died, or lost
Redis). Renewing and releasing are redis-py's token-checked Lua scripts: a node whose lease expired and was taken
by another can neither extend nor delete the other's lease.

A node starts an engine search only with the lease in hand, so two nodes do not search the same turn, and a node
that finds an engine turn whose lease has expired takes it over: a turn whose node died mid-search is played by
another. Without Redis the leases cannot be known; every call then answers as if this node held the lease, which
is the behaviour of a single node (the store still accepts only one move per ply).
"""

from __future__ import annotations

import logging
import threading
from typing import cast

from redis import Redis
from redis.exceptions import LockError
from redis.lock import Lock

from webapp.transport.redis_clients import UNREACHABLE

LEASE_SECONDS = 5.0
"""How long a lease outlives its last renewal."""
PREFIX = "arena:lease:"
log = logging.getLogger(__name__)


class SearchLeases:
    """The leases of the nodes sharing ``redis``; this node's id is ``node``. Thread-safe."""

    def __init__(self, redis: Redis, node: str, ttl: float = LEASE_SECONDS) -> None:
        self.redis = redis
        self.node = node
        self.ttl = ttl
        self._held: dict[str, Lock] = {}
        """The leases this node holds, or believes it holds (claimed while Redis could not be reached)."""
        self._lock = threading.Lock()

    def claim(self, game_id: str) -> bool:
        """Take the game's lease, or renew it if this node holds it; False when another node holds it. True when
        Redis cannot be reached (the lease is then taken, if still free, at the next ``renew``)."""
        with self._lock:
            lease = self._held.get(game_id) or self._new_lease(game_id)
        try:
            won = self._renew_or_take(lease)
        except UNREACHABLE as error:
            log.warning("search lease of game %s not checked (%s); searching anyway", game_id, error)
            won = True
        with self._lock:
            if won:
                self._held[game_id] = lease
            elif self._held.get(game_id) is lease:
                del self._held[game_id]
        return won

    def renew(self, game_ids: list[str]) -> list[str]:
        """Extend this node's leases of ``game_ids`` to ``ttl`` from now (taking those no node holds again);
        returns the games whose lease another node holds now (this node's expired meanwhile), which are no longer
        this node's. Nothing is lost while Redis cannot be reached."""
        lost: list[str] = []
        for game_id in game_ids:
            with self._lock:
                lease = self._held.get(game_id) or self._new_lease(game_id)
            try:
                if self._renew_or_take(lease):
                    with self._lock:
                        self._held[game_id] = lease
                    continue
            except UNREACHABLE:
                return lost
            with self._lock:
                if self._held.get(game_id) is lease:
                    del self._held[game_id]
            lost.append(game_id)
        return lost

    def release(self, game_id: str) -> None:
        """Give the lease back at once if this node holds it (its search ended); another node's lease is left as
        it is."""
        with self._lock:
            lease = self._held.pop(game_id, None)
        if lease is None:
            return
        try:
            lease.release()
        except (LockError, *UNREACHABLE):
            pass  # expired (perhaps taken by another node), or Redis is away: the lease expires by itself

    def unclaimed(self, game_ids: list[str]) -> list[str]:
        """Those of ``game_ids`` whose lease no node holds (in one round trip); none when Redis cannot be
        reached (nobody can tell, so no turn is taken over)."""
        if not game_ids:
            return []
        try:
            # redis-py types the answers of its sync and asyncio clients as one (``Awaitable | Any``)
            holders = cast("list[bytes | None]", self.redis.mget([PREFIX + game_id for game_id in game_ids]))
        except UNREACHABLE:
            return []
        return [game_id for game_id, holder in zip(game_ids, holders, strict=True) if holder is None]

    def _new_lease(self, game_id: str) -> Lock:
        """The ``Lock`` of the game's lease, with this node's token (it may hold the lease already)."""
        lease = Lock(self.redis, PREFIX + game_id, timeout=self.ttl, thread_local=False)
        lease.local.token = self.node.encode()
        return lease

    def _renew_or_take(self, lease: Lock) -> bool:
        """Reset ``lease``'s time to live if this node holds it, else take it if no node does; False when another
        node holds it. Raises what ``UNREACHABLE`` names when Redis cannot be reached."""
        try:
            return lease.reacquire()
        except LockError:  # not this node's: free, or held by another node
            return lease.acquire(blocking=False, token=self.node)
