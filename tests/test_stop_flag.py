"""The stop flag shared with an engine worker process (``webapp.search.stop_flag``), with real spawned processes."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading

from webapp.clock import SYSTEM_CLOCK
from webapp.search.stop_flag import SharedStopFlag

SPAWN = multiprocessing.get_context("spawn")


def wait_then_report(flag: SharedStopFlag, started: object, seen: object) -> None:
    """(In a child process.) Say it has started, wait for the flag, and report what the wait returned."""
    started.set()  # type: ignore[attr-defined]
    seen.value = 1 if flag.wait(60) else 2  # type: ignore[attr-defined]


def test_a_flag_set_here_ends_the_wait_of_another_process():
    flag = SharedStopFlag(SPAWN, SYSTEM_CLOCK)
    started, seen = SPAWN.Event(), SPAWN.RawValue("b", 0)
    child = SPAWN.Process(target=wait_then_report, args=(flag, started, seen), daemon=True)
    child.start()
    assert started.wait(30)
    assert not flag.is_set()
    flag.set()
    child.join(30)
    assert child.exitcode == 0 and seen.value == 1


def test_setting_a_flag_never_waits_for_a_process_killed_while_it_waited():
    """A multiprocessing.Event's set would wait for ever for a sleeper killed in its wait to wake; this flag keeps
    nothing of those who wait on it, so when the child is killed does not matter."""
    flag = SharedStopFlag(SPAWN, SYSTEM_CLOCK)
    started, seen = SPAWN.Event(), SPAWN.RawValue("b", 0)
    child = SPAWN.Process(target=wait_then_report, args=(flag, started, seen), daemon=True)
    child.start()
    assert started.wait(30)
    assert child.pid is not None
    os.kill(child.pid, signal.SIGKILL)
    child.join(30)
    setter = threading.Thread(target=lambda: (flag.set(), flag.clear(), flag.set()), daemon=True)
    setter.start()
    setter.join(30)
    assert not setter.is_alive() and flag.is_set() and seen.value == 0


def test_a_wait_on_a_flag_nobody_sets_ends_after_its_timeout():
    flag = SharedStopFlag(SPAWN, SYSTEM_CLOCK)
    assert flag.wait(0.05) is False and flag.wait(0) is False
    flag.set()
    assert flag.wait(0) is True and flag.wait() is True
