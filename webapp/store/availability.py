"""Whether the database answers (``Availability``), and the one error every store call raises while it does not
(``DatabaseUnavailableError``).

A database that stops answering (PostgreSQL stopped, restarted or unreachable) makes SQLAlchemy raise an error
that its dialect recognises as a lost connection (``is_disconnect``) from the statement that met it, or an
``OperationalError`` from the attempt to connect. ``Availability`` listens to the engine's ``handle_error`` event,
turns each of those (and only those: a missing table is a bug to log, not an outage) into a
``DatabaseUnavailableError`` (which the web layer answers with ``503 database_unavailable``, over HTTP and
Socket.IO alike), and logs one line when the outage begins and one when a new connection succeeds again: one pair
per outage, however many requests met it.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from sqlalchemy import Engine, event, text
from sqlalchemy.engine import ExceptionContext
from sqlalchemy.exc import InterfaceError, OperationalError

from webapp.clock import Clock

log = logging.getLogger(__name__)

PROBE_INTERVAL = 2.0
"""Seconds at least between two probes of a database that is down (``probe``)."""


class DatabaseUnavailableError(Exception):
    """The database did not answer; nothing was written."""


class Availability:
    """Whether ``engine``'s database answered last time it was used (``up``), on ``clock``'s monotonic time."""

    def __init__(self, engine: Engine, clock: Clock) -> None:
        """Listen to ``engine``'s errors and new connections."""
        self._engine = engine
        self._clock = clock
        self._lock = threading.Lock()
        self._down_since: float | None = None
        self._probed_at = 0.0
        event.listen(engine, "handle_error", self._on_error, retval=True)
        event.listen(engine, "connect", self._on_connect)

    @property
    def up(self) -> bool:
        """False from the first failure of an outage until a connection succeeds again."""
        return self._down_since is None

    def probe(self) -> bool:
        """``up``; while down, first try the database once more (at most every ``PROBE_INTERVAL`` seconds), so
        that its return is noticed even when nothing else uses it."""
        if self.up:
            return True
        with self._lock:
            due = self._clock.monotonic() - self._probed_at >= PROBE_INTERVAL
            if due:
                self._probed_at = self._clock.monotonic()
        if due:
            try:
                with self._engine.connect() as connection:
                    connection.execute(text("SELECT 1"))
            except DatabaseUnavailableError:
                pass
        return self.up

    def _on_error(self, context: ExceptionContext) -> BaseException | None:
        if context.is_pre_ping:
            return None  # its failure makes the pool connect again, and a failure to connect comes here
        failed_to_connect = context.connection is None and isinstance(context.sqlalchemy_exception,
                                                                       OperationalError | InterfaceError)
        if not (context.is_disconnect or failed_to_connect):
            return None  # an error of the statement itself (a bug, a constraint), not an outage
        with self._lock:
            began = self._down_since is None
            if began:
                self._down_since = self._clock.monotonic()
        if began:
            log.warning("the database does not answer (%s); requests that need it are answered 503 "
                        "database_unavailable until it does", str(context.original_exception).strip()[:200])
        return DatabaseUnavailableError(str(context.original_exception).strip()[:200] or "the database did not answer")

    def _on_connect(self, _dbapi_connection: Any, _record: Any) -> None:
        with self._lock:
            since, self._down_since = self._down_since, None
        if since is not None:
            log.warning("the database answers again, after %.1f s", self._clock.monotonic() - since)
