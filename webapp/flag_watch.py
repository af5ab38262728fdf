"""Wakes the arena when a running clock is due to fall, so a game whose player walked away still ends on time.

Hand-written (a heap and a condition variable, about forty lines): ``threading.Timer`` would cost a thread per
running clock, and ``sched.scheduler`` cannot be woken early when a sooner time arrives.
"""

from __future__ import annotations

import heapq
import logging
import threading
from collections.abc import Callable

from webapp.clock import Clock

log = logging.getLogger(__name__)


class FlagWatch:
    """Once started (``start(on_due)``), calls ``on_due(game_id)`` from its own thread once ``clock``'s Unix time
    reaches each time given to ``watch`` (times given before the start are kept). A game may be watched several
    times (each move gives a new time): ``on_due`` decides whether its clock really fell."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._due: list[tuple[float, str]] = []
        self._changed = threading.Condition()
        self._closed = False
        self._started = False

    def start(self, on_due: Callable[[str], None]) -> None:
        """Start the thread that calls ``on_due(game_id)`` for each time due; ``RuntimeError`` if already started."""
        with self._changed:
            if self._started:
                raise RuntimeError("the flag watch is already started")
            self._started = True
        threading.Thread(target=self._run, args=(on_due,), name="flag-watch", daemon=True).start()

    def watch(self, game_id: str, at: float) -> None:
        """Call ``on_due(game_id)`` at Unix time ``at`` (at once if it is past)."""
        with self._changed:
            heapq.heappush(self._due, (at, game_id))
            self._changed.notify()

    def close(self) -> None:
        """Stop the thread; nothing more is called."""
        with self._changed:
            self._closed = True
            self._changed.notify()

    def _next_due(self) -> str | None:
        """Wait for the next due game and return its id; None once closed."""
        with self._changed:
            while not self._closed:
                if self._due and self._due[0][0] <= self._clock.time():
                    return heapq.heappop(self._due)[1]
                self._clock.wait(self._changed, self._due[0][0] - self._clock.time() if self._due else None)
            return None

    def _run(self, on_due: Callable[[str], None]) -> None:
        while (game_id := self._next_due()) is not None:
            try:
                on_due(game_id)
            except Exception:
                log.exception("game %s: the check of its clock failed", game_id)
