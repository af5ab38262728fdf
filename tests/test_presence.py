"""The watcher counts of a node's rooms (``webapp.arena.presence``), on a manual clock."""

from __future__ import annotations

import threading

from support.clocks import ManualClock

from webapp.alarms import Alarms
from webapp.arena.presence import COUNT_INTERVAL, Presence


def test_a_watcher_leaving_while_the_count_is_sent_to_the_room_neither_blocks_nor_loses_the_change():
    """Sending to a room may end a watcher that stopped answering (Engine.IO looks at that on each send); its leaving
    announces a new count for the same room from inside that send, on the same thread. The count it brings is held
    back and sent when the interval is over."""
    clock = ManualClock()
    sent: list[int] = []
    presence: Presence

    def emit(event: str, payload: dict, to: str) -> None:
        sent.append(payload["count"])
        if len(sent) == 1:  # the send ends a dead watcher: it leaves, from inside the send
            presence.announce(to, presence.rooms.leave(to, "dead") or 0)

    presence = Presence(emit, Alarms(clock, "counts", monotonic=True), clock)
    presence.rooms.join("game", "alive", None)
    presence.rooms.join("game", "dead", None)
    announcing = threading.Thread(target=presence.announce, args=("game", 2), daemon=True)
    announcing.start()
    announcing.join(timeout=10)
    assert not announcing.is_alive()  # it would wait forever for the lock it holds
    assert sent == [2]
    clock.advance(COUNT_INTERVAL)
    presence.send_count("game")  # what the alarm calls when the interval is over
    assert sent == [2, 1]
