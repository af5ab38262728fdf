"""The time as the server reads it: one ``Clock`` object, passed to every part that reads or waits on time, so that
a test can drive it (tests/support/clocks.py ``ManualClock``). Not to be confused with the players' game clocks
(``webapp.game_clocks``), which are computed from the times this clock gives."""

from __future__ import annotations

import datetime as dt
import threading
import time


class Clock:
    """The system's clocks: Unix time for what is stored or compared across processes (move times, game clocks),
    monotonic time for durations within this process, and waits measured on them."""

    def time(self) -> float:
        """Seconds since the Unix epoch."""
        return time.time()

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back (only differences mean anything)."""
        return time.monotonic()

    def now(self) -> dt.datetime:
        """The current time as an aware UTC datetime (``time()``)."""
        return dt.datetime.fromtimestamp(self.time(), dt.UTC)

    def wait(self, condition: threading.Condition, seconds: float | None) -> None:
        """Wait on ``condition`` (held by the caller) until it is notified or ``seconds`` of this clock have passed
        (None: no limit). The caller checks again what it waits for: a wait may end early."""
        condition.wait(seconds)

    def give_turn(self) -> None:
        """Let every other ready thread (every ready greenlet, once gevent has patched the standard library) run
        before this one goes on."""
        time.sleep(0)

    def sleep(self, seconds: float) -> None:
        """Return once ``seconds`` of this clock have passed."""
        until = self.monotonic() + seconds
        condition = threading.Condition()
        with condition:
            while (left := until - self.monotonic()) > 0:
                self.wait(condition, left)


SYSTEM_CLOCK = Clock()
"""The clock of a running server."""
