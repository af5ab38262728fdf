"""When each game held in memory was last touched, oldest first, so that the games nobody touched for a while can
be found without looking at the others. ``Arena`` records a touch on every access to a game and asks ``due()``
which games are candidates for leaving memory; deciding whether one may leave (lock free, nobody watching, no
search) stays with the arena.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable


class Touches:
    """Last-touch times of game ids on ``clock`` (seconds, monotonic). Thread-safe. ``due()`` costs time in the
    number of games it returns, not in the number tracked."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self._lock = threading.Lock()
        self._touched: OrderedDict[str, float] = OrderedDict()
        """game id -> clock of its last touch, least recently touched first."""

    def touch(self, game_id: str) -> None:
        """Record that ``game_id`` is in use now."""
        now = self.clock()
        with self._lock:
            self._touched[game_id] = now
            self._touched.move_to_end(game_id)

    def forget(self, game_id: str) -> None:
        """Stop tracking ``game_id`` (it left memory)."""
        with self._lock:
            self._touched.pop(game_id, None)

    def due(self, seconds: float) -> list[str]:
        """The games not touched for at least ``seconds``, least recently touched first."""
        cutoff = self.clock() - seconds
        with self._lock:
            due = []
            for game_id, touched in self._touched.items():
                if touched > cutoff:
                    break
                due.append(game_id)
            return due

    def is_due(self, game_id: str, seconds: float) -> bool:
        """Whether ``game_id`` is tracked and was not touched for at least ``seconds``."""
        with self._lock:
            touched = self._touched.get(game_id)
        return touched is not None and touched <= self.clock() - seconds
