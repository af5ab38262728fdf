"""The rooms of each Socket.IO client, indexed (``IndexedRooms``), so that a client's leaving costs the rooms it is
in, not every room of the node.

python-socketio keeps ``rooms[namespace][room] = {sid: eio_sid}`` and, when a client disconnects, looks for it in
every room of the namespace, a copy of which it makes first; every client has a room of its own, so each
disconnect costs as many steps as there are clients, and a crowd leaving together the square of its size: 2,000
watchers of one game closing at once kept a node from answering for half a second (bench/crowd_leaves.py,
``py-spy`` on the worker: half the time in ``BaseManager.basic_disconnect``). ``IndexedRooms`` records the rooms
of each client as it enters and leaves them, and disconnects it from those alone; it goes in front of
python-socketio's manager classes (``IndexedManager`` for one node, ``webapp.transport.message_queue`` for several).
"""

from __future__ import annotations

from typing import Any

from socketio import Manager


class IndexedRooms:
    """A mixin for a python-socketio manager (``BaseManager``): its ``basic_enter_room`` and ``basic_leave_room``
    keep ``rooms_of``, its ``basic_disconnect`` and ``get_rooms`` read it. ``basic_disconnect`` is python-socketio
    5.18's with the search through every room replaced (the version is pinned; tests/test_room_index.py compares
    the two managers' rooms after the same steps)."""

    rooms: dict[str, dict[Any, Any]]
    callbacks: dict[str, Any]
    pending_connect: dict[str, list[str]]
    pending_disconnect: dict[str, list[str]]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rooms_of: dict[tuple[str, str], set[Any]] = {}
        """The rooms (None: the namespace's list of clients) each client is in, by namespace and sid."""

    def basic_enter_room(self, sid: str, namespace: str, room: Any, eio_sid: str | None = None) -> None:
        """Put ``sid`` in ``room`` (python-socketio's), and note it."""
        super().basic_enter_room(sid, namespace, room, eio_sid=eio_sid)  # type: ignore[misc]  # the manager's
        self.rooms_of.setdefault((namespace, sid), set()).add(room)

    def basic_leave_room(self, sid: str, namespace: str, room: Any) -> None:
        """Take ``sid`` out of ``room`` (python-socketio's), and note it."""
        super().basic_leave_room(sid, namespace, room)  # type: ignore[misc]  # the manager's
        rooms = self.rooms_of.get((namespace, sid))
        if rooms is not None:
            rooms.discard(room)
            if not rooms:
                del self.rooms_of[(namespace, sid)]

    def basic_disconnect(self, sid: str, namespace: str, **_kwargs: Any) -> None:
        """Take ``sid`` out of every room it is in and forget what the manager kept of it."""
        if namespace not in self.rooms:
            return
        for room in list(self.rooms_of.get((namespace, sid), ())):
            self.basic_leave_room(sid, namespace, room)
        self.callbacks.pop(sid, None)
        for pending in (self.pending_connect, self.pending_disconnect):
            if sid in pending.get(namespace, ()):
                pending[namespace].remove(sid)
                if not pending[namespace]:
                    del pending[namespace]

    def get_rooms(self, sid: str, namespace: str) -> list[Any]:
        """The rooms ``sid`` is in (its own included, not the namespace's list of clients)."""
        return [room for room in self.rooms_of.get((namespace, sid), ()) if room is not None]


class IndexedManager(IndexedRooms, Manager):
    """python-socketio's manager for one node, with each client's rooms indexed."""
