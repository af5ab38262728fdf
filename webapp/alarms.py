"""Calls back at given times, many of them from one thread (``Alarms``): the arena's when a running game clock is
due to fall (so a game whose player walked away still ends on time), the WebSockets' when a ping is due.

Hand-written (a heap and a condition variable, about forty lines): ``threading.Timer`` would cost a thread per
time, and ``sched.scheduler`` cannot be woken early when a sooner time arrives.
"""

from __future__ import annotations

import heapq
import logging
import threading
from collections.abc import Callable

from webapp.clock import Clock

log = logging.getLogger(__name__)


class Alarms:
    """Once started (``start(on_due)``), calls ``on_due(key)`` from its own thread (named ``name``) once ``clock``'s
    Unix time (with ``monotonic``, its monotonic time) reaches each time given to ``call_at`` (times given before the
    start are kept). A key may be given several times (each move of a game gives a new time): ``on_due`` decides
    whether what it waited for has come."""

    def __init__(self, clock: Clock, name: str, monotonic: bool = False) -> None:
        self._clock = clock
        self._now = clock.monotonic if monotonic else clock.time
        self.name = name
        self._due: list[tuple[float, str]] = []
        self._changed = threading.Condition()
        self._closed = False
        self._started = False

    def start(self, on_due: Callable[[str], None]) -> None:
        """Start the thread that calls ``on_due(key)`` for each time due; ``RuntimeError`` if already started."""
        with self._changed:
            if self._started:
                raise RuntimeError(f"the {self.name} alarms are already started")
            self._started = True
        threading.Thread(target=self._run, args=(on_due,), name=self.name, daemon=True).start()

    def call_at(self, key: str, at: float) -> None:
        """Call ``on_due(key)`` at time ``at`` (Unix, or monotonic; at once if it is past)."""
        with self._changed:
            heapq.heappush(self._due, (at, key))
            self._changed.notify()

    def close(self) -> None:
        """Stop the thread; nothing more is called."""
        with self._changed:
            self._closed = True
            self._changed.notify()

    def _next_due(self) -> str | None:
        """Wait for the next key due and return it; None once closed."""
        with self._changed:
            while not self._closed:
                if self._due and self._due[0][0] <= self._now():
                    return heapq.heappop(self._due)[1]
                self._clock.wait(self._changed, self._due[0][0] - self._now() if self._due else None)
            return None

    def _run(self, on_due: Callable[[str], None]) -> None:
        while (key := self._next_due()) is not None:
            try:
                on_due(key)
            except Exception:
                log.exception("%s: the call for %s failed", self.name, key)
