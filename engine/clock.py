"""The engine's time. Everything in the engine that limits or measures its work by time (``Limits.time``, the
solver's deadlines, the ``time_ms`` of events) reads it from a ``Monotonic`` it is given, ``SYSTEM_MONOTONIC``
unless the caller passes another: the web node passes its own clock's, and a test can pass one it drives."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

Monotonic = Callable[[], float]
"""A function giving seconds on a clock that never goes back (only differences mean anything)."""

SYSTEM_MONOTONIC: Monotonic = time.monotonic
"""The system's monotonic clock."""


@dataclass(frozen=True, slots=True)
class Deadline:
    """The moment ``at`` on ``clock`` by which some work must be done."""

    at: float
    clock: Monotonic = SYSTEM_MONOTONIC

    @classmethod
    def after(cls, seconds: float, clock: Monotonic = SYSTEM_MONOTONIC) -> Deadline:
        """The deadline ``seconds`` from now on ``clock``."""
        return cls(clock() + seconds, clock)

    def passed(self) -> bool:
        """Whether ``clock`` has gone past ``at``."""
        return self.clock() > self.at
