"""Who watches which game: this node's Socket.IO rooms (``Rooms``) and the count of watchers on every node
(``Presence``: this node's rooms plus what the other nodes report through ``WatcherCounts``)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from webapp.alarms import Alarms
from webapp.arena.watcher_counts import WatcherCounts
from webapp.clock import Clock

Emit = Callable[..., None]

COUNT_INTERVAL = 1.0
"""Seconds at least between two watcher counts sent to one room: a crowd arriving together is sent one count a
second, not one per arrival to everybody already there (which grows as the square of the crowd)."""


class Rooms:
    """Who is in which game's room: ``sid -> seat`` (None for a spectator) per game. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._members: dict[str, dict[str, int | None]] = {}

    def join(self, game_id: str, sid: str, seat: int | None) -> int:
        """Add ``sid``; returns the room's new size."""
        with self._lock:
            members = self._members.setdefault(game_id, {})
            members[sid] = seat
            return len(members)

    def leave(self, game_id: str, sid: str) -> int | None:
        """Remove ``sid``; returns the room's new size, or None if it was not there."""
        with self._lock:
            members = self._members.get(game_id)
            if members is None or members.pop(sid, "absent") == "absent":
                return None
            if not members:
                del self._members[game_id]
            return len(members)

    def rooms_of(self, sid: str) -> list[str]:
        """The games whose room ``sid`` is in."""
        with self._lock:
            return [game_id for game_id, members in self._members.items() if sid in members]

    def count(self, game_id: str) -> int:
        """How many are in the game's room on this node."""
        with self._lock:
            return len(self._members.get(game_id, {}))

    def counts(self) -> dict[str, int]:
        """The size of every room with someone in it."""
        with self._lock:
            return {game_id: len(members) for game_id, members in self._members.items()}

    def members(self, game_id: str) -> dict[str, int | None]:
        """``sid -> seat`` of the game's room on this node."""
        with self._lock:
            return dict(self._members.get(game_id, {}))


class Presence:
    """The watchers of each game across the nodes. With ``watcher_counts`` (several nodes), each node reports its
    rooms' sizes and learns the others'; without, the counts are this node's rooms. Thread-safe.
    ``emit(event, payload, to=room)`` sends Socket.IO messages."""

    def __init__(self, emit: Emit, counts_due: Alarms, clock: Clock,
                 watcher_counts: WatcherCounts | None = None) -> None:
        """``counts_due`` (on ``clock``'s monotonic time) calls ``send_count`` when a room's held-back count is due;
        whoever builds the presence starts it with that callback."""
        self.rooms = Rooms()
        self._emit = emit
        self._counts_due = counts_due
        self._clock = clock
        self._watcher_counts = watcher_counts
        self._elsewhere: dict[str, int] = {}
        """What the other nodes last reported, per game."""
        self._sent: dict[str, tuple[float, int]] = {}
        """When (``clock``'s monotonic time) and which count was last sent to each room whose next change is held
        back or may be (a change within ``COUNT_INTERVAL`` of a count sent waits for ``send_count``)."""
        self._lock = threading.Lock()
        self._sends = threading.Lock()
        self._closed = threading.Event()

    def close(self) -> None:
        """Stop reporting to the other nodes and sending held-back counts (the node is stopping)."""
        self._closed.set()
        self._counts_due.close()

    def count(self, game_id: str) -> int:
        """How many watch the game: this node's room, plus what the other nodes last reported."""
        with self._lock:
            elsewhere = self._elsewhere.get(game_id, 0)
        return self.rooms.count(game_id) + elsewhere

    def watched(self) -> set[str]:
        """The games somebody watches now, on this node or another."""
        with self._lock:
            elsewhere = {game_id for game_id, count in self._elsewhere.items() if count}
        return set(self.rooms.counts()) | elsewhere

    def announce(self, game_id: str, local: int) -> None:
        """Report this node's room size ``local`` (with ``watcher_counts``) and send the room the total: now, or,
        when the room was sent a count within ``COUNT_INTERVAL``, once that interval is over (``send_count``)."""
        if self._watcher_counts is not None and not self._closed.is_set():
            others = self._watcher_counts.exchange({game_id: local}).get(game_id, 0)
            with self._lock:
                self._elsewhere[game_id] = others
        self.send_count(game_id)

    def send_count(self, game_id: str) -> None:
        """Send the room its count if it differs from the last one sent, unless one was sent within
        ``COUNT_INTERVAL``: that change is sent once the interval is over (``counts_due`` calls this again then)."""
        count = self.count(game_id)
        with self._sends:
            last = self._sent.get(game_id)
            if last is not None and self._clock.monotonic() - last[0] < COUNT_INTERVAL:
                return  # held back: the call due at the interval's end sends the count of its time
            if last is not None and last[1] == count:
                del self._sent[game_id]  # the room has it; the next change goes at once
                return
            self._hold_back(game_id, count)
        # Sent with no lock held: sending to a room may end a connection whose client stopped answering (Engine.IO
        # looks at that on each send), whose leaving calls this again for the same room, on the same thread.
        self._emit("watchers", {"game_id": game_id, "count": count}, to=game_id)

    def _hold_back(self, game_id: str, count: int) -> None:
        """``count`` is being sent to the room now: hold its next change back ``COUNT_INTERVAL`` (``_sends``
        held), so that the counts of one room go out in order."""
        now = self._clock.monotonic()
        self._sent[game_id] = (now, count)
        self._counts_due.call_at(game_id, now + COUNT_INTERVAL)

    def exchange(self) -> None:
        """Renew this node's reports of its rooms and send each room whose total changed its new count (the
        upkeep of a node sharing its watchers; nothing without ``watcher_counts``)."""
        if self._watcher_counts is None:
            return
        local = self.rooms.counts()
        elsewhere = self._watcher_counts.exchange(local)
        changed = []
        with self._lock:
            for game_id in set(self._elsewhere) - set(local):
                del self._elsewhere[game_id]
            for game_id, others in elsewhere.items():
                if self._elsewhere.get(game_id, 0) != others:
                    self._elsewhere[game_id] = others
                    changed.append(game_id)
        for game_id in changed:
            self.send_count(game_id)
