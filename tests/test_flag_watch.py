"""The flag watch on a manual clock: times watched before it starts are kept, each game is called back once its
time has come and not before, and it starts once."""

from __future__ import annotations

import pytest
from helpers import ManualClock, eventually

from webapp.flag_watch import FlagWatch


def test_times_watched_before_the_start_are_called_back_when_due_and_not_before() -> None:
    clock = ManualClock()
    flags = FlagWatch(clock)
    due: list[str] = []
    flags.watch("past", clock.time() - 1)
    flags.watch("later", clock.time() + 10)
    flags.start(due.append)
    try:
        eventually(lambda: due == ["past"], "the call of the time already past")
        clock.advance(9)
        flags.watch("sooner", clock.time())
        eventually(lambda: due == ["past", "sooner"], "the call of a time watched after the start")
        assert due == ["past", "sooner"]  # "later" is still a second away on the clock
        clock.advance(1)
        eventually(lambda: due == ["past", "sooner", "later"], "the call once the clock reached its time")
    finally:
        flags.close()


def test_a_second_start_is_refused() -> None:
    flags = FlagWatch(ManualClock())
    flags.start(lambda game_id: None)
    try:
        with pytest.raises(RuntimeError, match="already started"):
            flags.start(lambda game_id: None)
    finally:
        flags.close()
