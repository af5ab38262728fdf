"""Connect Four solvers kept for reuse within a process, one per concurrent user.

A ``Solver`` holds a 1 MiB table that takes time to allocate and fill, so callers that solve now and then
(the truth column, hints, reviews, the oracle) borrow one instead of building their own: the process keeps as many
solvers as were ever in use at the same time, and no more.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from engine.solve.connect4 import Solver
from engine.solve.connect4_book import opening_book


class SolverPool:
    """Idle solvers, handed out one caller at a time; ``make_solver`` builds one when none is idle."""

    def __init__(self, make_solver: Callable[[], Solver]) -> None:
        self._make_solver = make_solver
        self._idle: list[Solver] = []
        self._lock = threading.Lock()

    @contextmanager
    def borrow(self) -> Iterator[Solver]:
        """A solver with an empty table, the caller's alone until the block ends (then kept for the next)."""
        with self._lock:
            solver = self._idle.pop() if self._idle else None
        if solver is None:
            solver = self._make_solver()
        else:
            solver.reset()
        try:
            yield solver
        finally:
            with self._lock:
                self._idle.append(solver)


SOLVERS = SolverPool(lambda: Solver(book=opening_book()))
"""The process's pool: solvers with the opening book, so positions from the empty board on are solved."""
