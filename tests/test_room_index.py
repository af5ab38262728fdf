"""``webapp.transport.room_index``: python-socketio's manager with each client's rooms indexed keeps exactly the rooms
python-socketio's own keeps, whatever clients connect, enter, leave, close rooms and disconnect."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from socketio import Manager

from webapp.transport.room_index import IndexedManager

SIDS = ["a", "b", "c", "d"]
ROOMS = ["game1", "game2", "lab"]
STEPS = st.lists(st.one_of(
    st.tuples(st.just("enter"), st.sampled_from(SIDS), st.sampled_from(ROOMS)),
    st.tuples(st.just("leave"), st.sampled_from(SIDS), st.sampled_from(ROOMS)),
    st.tuples(st.just("close"), st.just(""), st.sampled_from(ROOMS)),
    st.tuples(st.just("disconnect"), st.sampled_from(SIDS), st.just("")),
), max_size=40)


def apply(manager: Manager, steps: list[tuple[str, str, str]]) -> None:
    """Connect every client of ``SIDS`` (with its own room, as python-socketio does), then take ``steps``."""
    connected = set()
    for sid in SIDS:
        manager.basic_enter_room(sid, "/", None, eio_sid="eio-" + sid)
        manager.basic_enter_room(sid, "/", sid, eio_sid="eio-" + sid)
        connected.add(sid)
    for action, sid, room in steps:
        if action == "enter" and sid in connected:
            manager.basic_enter_room(sid, "/", room)
        elif action == "leave":
            manager.basic_leave_room(sid, "/", room)
        elif action == "close":
            manager.basic_close_room(room, "/")
        elif action == "disconnect" and sid in connected:
            manager.basic_disconnect(sid, "/")
            connected.discard(sid)


def rooms(manager: Manager) -> dict[object, dict[str, str]]:
    return {room: dict(members) for room, members in manager.rooms.get("/", {}).items()}


@settings(max_examples=300, deadline=None)
@given(STEPS)
def test_the_indexed_manager_keeps_the_same_rooms_as_python_socketios(steps):
    theirs, ours = Manager(), IndexedManager()
    apply(theirs, steps)
    apply(ours, steps)
    assert rooms(ours) == rooms(theirs)
    for sid in SIDS:
        assert sorted(ours.get_rooms(sid, "/")) == sorted(theirs.get_rooms(sid, "/"))
    assert ours.callbacks == theirs.callbacks and ours.pending_connect == theirs.pending_connect
