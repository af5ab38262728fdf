"""Alarms on a manual clock: times given before they start are kept, each key is called back once its time has
come and not before, and they start once."""

from __future__ import annotations

import pytest
from support.clocks import ManualClock
from support.waiting import eventually

from webapp.alarms import Alarms


def test_times_given_before_the_start_are_called_back_when_due_and_not_before() -> None:
    clock = ManualClock()
    flags = Alarms(clock, "flag-watch")
    due: list[str] = []
    flags.call_at("past", clock.time() - 1)
    flags.call_at("later", clock.time() + 10)
    flags.start(due.append)
    try:
        eventually(lambda: due == ["past"], "the call of the time already past")
        clock.advance(9)
        flags.call_at("sooner", clock.time())
        eventually(lambda: due == ["past", "sooner"], "the call of a time given after the start")
        assert due == ["past", "sooner"]  # "later" is still a second away on the clock
        clock.advance(1)
        eventually(lambda: due == ["past", "sooner", "later"], "the call once the clock reached its time")
    finally:
        flags.close()


def test_a_second_start_is_refused() -> None:
    flags = Alarms(ManualClock(), "flag-watch")
    flags.start(lambda key: None)
    try:
        with pytest.raises(RuntimeError, match="already started"):
            flags.start(lambda key: None)
    finally:
        flags.close()


def test_monotonic_alarms_follow_the_clocks_monotonic_time() -> None:
    clock = ManualClock()
    pings = Alarms(clock, "pings", monotonic=True)
    due: list[str] = []
    pings.call_at("soon", clock.monotonic() + 5)
    pings.start(due.append)
    try:
        clock.advance(4)
        pings.call_at("now", clock.monotonic())
        eventually(lambda: due == ["now"], "the call of a monotonic time already reached")
        clock.advance(1)
        eventually(lambda: due == ["now", "soon"], "the call once the monotonic time reached its time")
    finally:
        pings.close()
