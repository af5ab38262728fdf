"""Connect Four solvers kept for reuse within a process, one per concurrent user.

A ``Solver`` holds an 8 MiB table that takes milliseconds to allocate and fill, so callers that solve now and then
(the truth column, hints, reviews, the oracle) borrow one instead of building their own: the process keeps as many
solvers as were ever in use at the same time, and no more.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from engine.solve.connect4 import Solver


class SolverPool:
    """Idle solvers, handed out one caller at a time."""

    def __init__(self) -> None:
        self._idle: list[Solver] = []
        self._lock = threading.Lock()

    @contextmanager
    def borrow(self) -> Iterator[Solver]:
        """A solver with an empty table, the caller's alone until the block ends (then kept for the next)."""
        with self._lock:
            solver = self._idle.pop() if self._idle else None
        if solver is None:
            solver = Solver()
        else:
            solver.reset()
        try:
            yield solver
        finally:
            with self._lock:
                self._idle.append(solver)


SOLVERS = SolverPool()
"""The process's pool."""
