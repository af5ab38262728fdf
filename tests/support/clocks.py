"""Clocks a test moves: ``ManualClock`` for the web app (``webapp.clock.Clock``), ``TickingClock`` for the
engine's searches."""

from __future__ import annotations

import threading
import time
import weakref

from webapp.clock import Clock


class ManualClock(Clock):
    """A clock that moves only when told: ``advance(seconds)`` moves its Unix and its monotonic time together (its
    Unix time starts at the real one, so what is stored with it looks recent). A wait on it ends when it is advanced
    (its waiters look again every ``REAL_POLL`` real seconds, so none misses an advance)."""

    REAL_POLL = 0.02

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._unix = time.time()
        self._monotonic = 1000.0
        self._waiting: weakref.WeakSet[threading.Condition] = weakref.WeakSet()

    def time(self) -> float:
        with self._lock:
            return self._unix

    def monotonic(self) -> float:
        with self._lock:
            return self._monotonic

    def wait(self, condition: threading.Condition, seconds: float | None) -> None:
        with self._lock:
            self._waiting.add(condition)
        condition.wait(self.REAL_POLL)

    def advance(self, seconds: float) -> None:
        """Move the clock ``seconds`` forward and wake whoever waits on it."""
        with self._lock:
            self._unix += seconds
            self._monotonic += seconds
            waiting = list(self._waiting)
        for condition in waiting:
            with condition:
                condition.notify_all()


class TickingClock:
    """A monotonic clock for the engine (``engine.clock.Monotonic``) that moves ``step`` seconds at every read, so
    that how much of it a search spends depends on the search's work alone, never on the machine's load. With a
    step of 0 it stands still: no time limit on it ever passes."""

    def __init__(self, step: float) -> None:
        self.step = step
        self.now = 0.0

    def __call__(self) -> float:
        self.now += self.step
        return self.now
