"""Waiting for what a server or a thread does by itself: ``eventually`` looks until it has happened, with a guard
against hanging (``WAIT``), never a timing bound."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

WAIT = 30.0
"""Seconds a test waits at most for something the server does by itself (an engine's reply, a clock's fall): a
guard against hanging, far above how long it takes, never a timing bound."""

def eventually(condition: Callable[[], T], what: str, timeout: float = WAIT, interval: float = 0.05,
               pause: Callable[[float], None] = time.sleep) -> T:
    """Call ``condition`` until it returns a true value, and return that value; ``AssertionError`` saying that
    ``what`` did not happen once ``timeout`` seconds have passed. Between two calls, ``pause(interval)`` (a
    browser test passes one that lets Playwright deliver its events)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {timeout:g} s")
        pause(interval)
