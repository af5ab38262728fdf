"""Time the whole service is down is nobody's thinking time.

Every node records a heartbeat in the store each ``HEARTBEAT_SECONDS``. A node starting after the service was down
(the last heartbeat older than ``DOWN_AFTER_SECONDS``) moves the turn start of every running clock on by the time
since that heartbeat, or since the turn began if a move came after it (``store.heartbeat.forgive_down_time``): a
player is charged for the time the service ran, up to the last heartbeat (or move) before it stopped, and not for
the time after. So a restart longer than ``DOWN_AFTER_SECONDS``
gives back all the down time but at most one heartbeat interval, and a shorter one is charged as playing time (a
node starting beside running ones must not hand out time: while any node runs, players can move).
"""

from __future__ import annotations

import logging
import threading

from webapp.store import DatabaseUnavailableError, Store

HEARTBEAT_SECONDS = 1.0
DOWN_AFTER_SECONDS = 2.5
"""A heartbeat older than this at start-up means no node ran meanwhile (two missed beats and some)."""
log = logging.getLogger(__name__)


class Heartbeat:
    """Forgives the down time before this node started, then records a heartbeat every ``HEARTBEAT_SECONDS``
    until ``close``."""

    def __init__(self, store: Store, interval: float = HEARTBEAT_SECONDS) -> None:
        self._store = store
        self._interval = interval
        self._closed = threading.Event()
        down = store.heartbeat.forgive_down_time(DOWN_AFTER_SECONDS)
        if down:
            log.warning("the service was down for %.1f s: running clocks get that time back", down)
        threading.Thread(target=self._run, name="heartbeat", daemon=True).start()

    def close(self) -> None:
        """Record a last heartbeat and stop."""
        if not self._closed.is_set():
            self._closed.set()
            self._beat()

    def _beat(self) -> None:
        try:
            self._store.heartbeat.beat()
        except DatabaseUnavailableError:
            pass  # the store logs the outage once
        except Exception:
            log.exception("the heartbeat could not be recorded")

    def _run(self) -> None:
        while not self._closed.wait(self._interval):
            self._beat()
