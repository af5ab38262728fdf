"""A node's background upkeep: every ``SWEEP_SECONDS`` when it shares its store, the engine turns' leases and the
watcher counts; every half of ``untouched_seconds``, dropping from memory the games nobody touched that long."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from webapp.arena.cache import GameCache
from webapp.arena.presence import Presence
from webapp.arena.turn_flow import TurnFlow

SWEEP_SECONDS = 2.0
"""How often a node sharing its store renews its leases and watcher counts and looks for engine turns nobody
searches."""
log = logging.getLogger(__name__)


class Upkeep:
    """The upkeep threads of a node; ``close`` stops them."""

    def __init__(self, cache: GameCache, flow: TurnFlow, presence: Presence) -> None:
        self.cache = cache
        self.flow = flow
        self.presence = presence
        self._closing = threading.Event()

    def start(self, shared: bool) -> None:
        """Start the sweep of shared state (when ``shared``) and the expiry of untouched games (unless the cache's
        ``untouched_seconds`` is 0)."""
        if shared:
            self._every(SWEEP_SECONDS, self._sweep, "shared-upkeep")
        if self.cache.untouched_seconds > 0:
            self._every(self.cache.untouched_seconds / 2, self.cache.expire_untouched, "untouched-games")

    def close(self) -> None:
        """Stop the threads (each ends within its period)."""
        self._closing.set()

    def _sweep(self) -> None:
        self.flow.keep_leases()
        self.presence.exchange()

    def _every(self, seconds: float, work: Callable[[], object], name: str) -> None:
        """Run ``work`` every ``seconds`` in a thread of its own until ``close``; a failure is logged."""
        def loop() -> None:
            while not self._closing.wait(seconds):
                try:
                    work()
                except Exception:
                    if self._closing.is_set():
                        return
                    log.exception("%s failed", name)
        threading.Thread(target=loop, name=name, daemon=True).start()
