"""A token bucket: at most ``burst`` events at once and ``rate`` events per second on average."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class TokenBucket:
    """Allows an event when a token is left; tokens refill at ``rate`` per second up to ``burst``. Thread-safe."""

    def __init__(self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._tokens = burst
        self._updated = clock()
        self._lock = threading.Lock()

    def allow(self, cost: float = 1) -> bool:
        """Take ``cost`` tokens and return True, or return False (and take nothing) when fewer are left."""
        with self._lock:
            now = self._clock()
            self._tokens = min(self.burst, self._tokens + (now - self._updated) * self.rate)
            self._updated = now
            if self._tokens < cost:
                return False
            self._tokens -= cost
            return True

    def charge(self, cost: float) -> float:
        """Take ``cost`` tokens even when fewer are left (the bucket then owes the difference); returns the seconds
        until it owes nothing (0 when it does not owe)."""
        with self._lock:
            now = self._clock()
            self._tokens = min(self.burst, self._tokens + (now - self._updated) * self.rate) - cost
            self._updated = now
            return max(0.0, -self._tokens / self.rate)
