"""A real server whose Unix time a test moves forward: gunicorn imports ``create_app()`` from here (``LiveServer``
with ``app=SHIFTED_APP``) and the test writes how many seconds to add in the file ``ARENA_TEST_TIME_SHIFT`` names
(``shift_time``). Stored times, due dates and signed links follow; monotonic time (durations, waits) does not."""

from __future__ import annotations

import os
import time
from pathlib import Path

from flask import Flask

import webapp
from webapp.clock import Clock

SHIFT_FILE = "ARENA_TEST_TIME_SHIFT"
SHIFTED_APP = "shifted_app:create_app()"
"""The app a ``LiveServer`` runs to have its time moved (``tests`` on gunicorn's Python path)."""


class ShiftedClock(Clock):
    """The system's clock, with the number of seconds written in ``shift_file`` (none: 0) added to its Unix time."""

    def __init__(self, shift_file: Path) -> None:
        self._file = shift_file

    def time(self) -> float:
        try:
            shift = float(self._file.read_text())
        except FileNotFoundError:
            shift = 0.0
        return time.time() + shift


def create_app() -> Flask:
    """The usual app (``webapp.create_app``) on a ``ShiftedClock`` reading the file ``ARENA_TEST_TIME_SHIFT`` names."""
    return webapp.create_app(clock=ShiftedClock(Path(os.environ[SHIFT_FILE])))


def shift_time(shift_file: Path, seconds: float) -> None:
    """Move the server's Unix time to ``seconds`` after the system's."""
    staged = shift_file.with_suffix(".new")
    staged.write_text(repr(seconds))
    staged.replace(shift_file)  # at once: the server never reads a half-written file
