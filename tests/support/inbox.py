"""The one reader of what a Socket.IO client received, for both clients the tests use: a Flask-SocketIO test client
(``SocketTestClient``, asked for what it received whenever the test reads) and a live python-socketio client
(``servers.EventClient``, an ``Inbox`` its reading thread fills as each event arrives)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
PULL_INTERVAL = 0.01
"""Seconds between two questions to a test client while waiting (a live client's events wake the waiter)."""


def anything(_: Any) -> bool:
    """A predicate every payload satisfies."""
    return True


def having(**fields: Any) -> Callable[[Any], bool]:
    """A predicate of the payloads whose ``fields`` have the given values."""
    return lambda payload: all(payload.get(key) == value for key, value in fields.items())


class Inbox:
    """Every event one client received, in order of arrival, with its arrival times. ``next`` reads in order (each
    call after the event the last one returned); ``wait_for`` and ``wait_arrival`` find the first match ever
    received; both wait for events still to come and raise ``AssertionError`` after their timeout, naming the
    last events received. ``take`` and ``drain`` read, without waiting, what arrived since the last of them (a
    cursor of their own)."""

    def __init__(self, test_client: Any = None) -> None:
        """Reads ``test_client`` (a Flask-SocketIO test client, kept as ``client``) if given; otherwise events come
        from ``add``."""
        self.client = test_client
        self._changed = threading.Condition()
        self.events: list[tuple[str, Any]] = []
        self.times: list[float] = []
        """``time.perf_counter()`` at the arrival of each of ``events`` (for a test client: when it was asked)."""
        self.wall_times: list[float] = []
        """``time.time()`` at the arrival of each of ``events`` (to compare with other processes' clocks)."""
        self._cursor = 0
        self._taken = 0

    def add(self, name: str, payload: Any = None) -> None:
        """Record the event ``name`` with ``payload``, arrived now, and wake whoever waits."""
        arrived, wall = time.perf_counter(), time.time()
        with self._changed:
            self.events.append((name, payload))
            self.times.append(arrived)
            self.wall_times.append(wall)
            self._changed.notify_all()

    def read(self) -> list[tuple[str, Any]]:
        """Every event received so far, as ``(name, payload)``."""
        with self._changed:
            self._pull_locked()
            return list(self.events)

    def received(self, name: str) -> list[Any]:
        """The payloads of every ``name`` event received so far."""
        with self._changed:
            self._pull_locked()
            return [payload for event, payload in self.events if event == name]

    def names(self) -> list[str]:
        """The names of every event received so far."""
        with self._changed:
            self._pull_locked()
            return [event for event, _ in self.events]

    def take(self, name: str) -> list[Any]:
        """The payloads of the ``name`` events among those received since the last ``take`` or ``drain``; every event
        up to now counts as read, whatever its name."""
        return [payload for event, payload in self.drain() if event == name]

    def drain(self) -> list[tuple[str, Any]]:
        """Every event received since the last ``take`` or ``drain``, as ``(name, payload)``; all count as read."""
        with self._changed:
            self._pull_locked()
            fresh = self.events[self._taken:]
            self._taken = len(self.events)
            return fresh

    def forget(self) -> None:
        """Drop every event received so far, as if none had come (the cursors start again)."""
        with self._changed:
            self._pull_locked()
            self.events.clear()
            self.times.clear()
            self.wall_times.clear()
            self._cursor = self._taken = 0

    def summary(self) -> list[str]:
        """The names of the last 30 events received."""
        return self.names()[-30:]

    def next(self, name: str, predicate: Callable[[Any], bool] = anything, timeout: float = 30.0) -> Any:
        """The next ``name`` event matching ``predicate`` after the one the last ``next`` returned."""

        def after_cursor() -> tuple[Any] | None:
            while self._cursor < len(self.events):
                event, payload = self.events[self._cursor]
                self._cursor += 1
                if event == name and predicate(payload):
                    return (payload,)
            return None

        return self._wait(after_cursor, f"a {name!r} event", timeout)[0]

    def wait_for(self, name: str, predicate: Callable[[Any], bool] = anything, timeout: float = 20.0) -> Any:
        """The first ``name`` payload (received before or after the call) matching ``predicate``."""
        return self.wait_arrival(name, predicate, timeout)[0]

    def wait_arrival(self, name: str, predicate: Callable[[Any], bool] = anything,
                     timeout: float = 20.0) -> tuple[Any, float]:
        """Like ``wait_for``, with the ``time.perf_counter()`` at which the event arrived."""

        def first() -> tuple[Any, float] | None:
            for (event, payload), arrived in zip(self.events, self.times, strict=True):
                if event == name and predicate(payload):
                    return payload, arrived
            return None

        return self._wait(first, f"a matching {name!r} event", timeout)

    def _wait(self, find: Callable[[], T | None], what: str, timeout: float) -> T:
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                self._pull_locked()
                found = find()
                if found is not None:
                    return found
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    last = [event for event, _ in self.events][-30:]
                    raise AssertionError(f"{what} did not come within {timeout:g} s (the last ones: {last})")
                self._changed.wait(min(remaining, PULL_INTERVAL) if self.client is not None else remaining)

    def _pull_locked(self) -> None:
        if self.client is None:
            return
        arrived, wall = time.perf_counter(), time.time()
        for message in self.client.get_received():
            self.events.append((message["name"], message["args"][0] if message["args"] else None))
            self.times.append(arrived)
            self.wall_times.append(wall)


class SocketTestClient(Inbox):
    """A Flask-SocketIO test client that is the ``Inbox`` of what it received."""

    def __init__(self, test_client: Any) -> None:
        """Reads and sends through ``test_client`` (``socketio.test_client(app, ...)``)."""
        super().__init__(test_client)

    def emit(self, event: str, *args: Any) -> Any:
        """Send ``event`` with ``args`` as the test client does; its acknowledgement, if the handler gave one."""
        return self.client.emit(event, *args)

    def disconnect(self) -> None:
        """Close the connection as a browser leaving would."""
        self.client.disconnect()

    def is_connected(self) -> bool:
        """Whether the server accepted the connection and has not closed it."""
        return bool(self.client.is_connected())
