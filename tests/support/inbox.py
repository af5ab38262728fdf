"""Reading what a Flask-SocketIO test client received, in order, waiting for events that are still to come."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .waiting import eventually


class Inbox:
    """Everything a test client received, read in order: ``next(name, predicate)`` waits (polling) for the next
    matching event after the last one returned."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.messages: list[tuple[str, dict]] = []
        self.cursor = 0

    def next(self, name: str, predicate: Callable[[dict], bool] = lambda _: True, timeout: float = 30.0) -> dict:
        """The next ``name`` event matching ``predicate``; ``AssertionError`` after ``timeout`` seconds."""

        def found() -> tuple[dict] | None:
            self._collect()
            while self.cursor < len(self.messages):
                event, payload = self.messages[self.cursor]
                self.cursor += 1
                if event == name and predicate(payload):
                    return (payload,)
            return None

        return eventually(found, f"a {name!r} event (after {[n for n, _ in self.messages][-30:]})", timeout,
                          interval=0.01)[0]

    def names(self) -> list[str]:
        """The names of every event received so far."""
        self._collect()
        return [name for name, _ in self.messages]

    def _collect(self) -> None:
        self.messages += [(m["name"], m["args"][0]) for m in self.client.get_received()]
