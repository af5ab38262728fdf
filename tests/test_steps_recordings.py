"""The stepper's recordings on the web node (``webapp.arena.steps.Stepper``), on a runner the test answers by hand with
the engine's own results: requests for a recording being made share its job (or, once made, its kept answer), a
recording stopped before its end is an "engine_busy" error and is not kept, a finished one is kept."""

from __future__ import annotations

import itertools
import threading

import pytest
from support.fakes import HandRunner
from support.waiting import eventually

from engine.search.info import SearchOptions
from engine.stepper import record_search
from webapp.arena.analysis import position
from webapp.arena.steps import Stepper
from webapp.errors import ArenaError, ErrorCode


def answer_with(runner: HandRunner, *, stopped: bool) -> None:
    """Answer the latest job as a worker would: the engine's recording, or one stopped by its flag."""
    job, _ = runner.submitted[-1]
    flag = threading.Event()
    if stopped:
        flag.set()
    asked = job.engine["steps"]
    stepped = record_search(job.state, asked["depth"], SearchOptions(**asked["options"]), stop=flag)
    runner.answer({"kind": "final", "steps": stepped.to_dict()})


def wait_for_jobs(runner: HandRunner, count: int) -> None:
    eventually(lambda: len(runner.submitted) >= count, f"{count} recording jobs submitted")


def test_requests_for_the_same_recording_share_one_job_and_it_is_kept() -> None:
    runner = HandRunner()
    stepper = Stepper(runner, itertools.count(1).__next__)
    node = position("tictactoe", "", "5")
    bodies: list[bytes] = []
    threads = [threading.Thread(target=lambda: bodies.append(stepper.recording(node, "everything", 3, "a")))
               for _ in range(3)]
    threads[0].start()
    wait_for_jobs(runner, 1)
    for thread in threads[1:]:
        thread.start()
    answer_with(runner, stopped=False)  # one answer: a request with a job of its own would never end
    for thread in threads:
        thread.join(10)
    assert len(bodies) == 3 and len(set(bodies)) == 1
    assert stepper.recording(node, "everything", 3, "b") == bodies[0]  # kept: no new job
    assert len(runner.submitted) == 1


def test_a_recording_stopped_before_its_end_is_an_error_and_not_kept() -> None:
    runner = HandRunner()
    stepper = Stepper(runner, itertools.count(1).__next__)
    node = position("connect4", "", "4 4")
    errors: list[ArenaError] = []

    def ask() -> None:
        try:
            stepper.recording(node, "everything", 5, "a")
        except ArenaError as error:
            errors.append(error)

    thread = threading.Thread(target=ask)
    thread.start()
    wait_for_jobs(runner, 1)
    answer_with(runner, stopped=True)
    thread.join(10)
    assert [error.code for error in errors] == [ErrorCode.ENGINE_BUSY]
    assert "stopped before its end" in str(errors[0])
    thread = threading.Thread(target=ask)
    thread.start()
    wait_for_jobs(runner, 2)  # asked again: a new job, nothing was kept
    answer_with(runner, stopped=False)
    thread.join(10)
    assert len(errors) == 1


def test_a_finished_position_and_mcts_are_refused() -> None:
    stepper = Stepper(HandRunner(), itertools.count(1).__next__)
    with pytest.raises(ArenaError) as over:
        stepper.recording(position("tictactoe", "", "1 4 2 5 3"), "everything", 3, "a")
    assert over.value.code == ErrorCode.NOT_ALLOWED
    with pytest.raises(ArenaError) as mcts:
        stepper.recording(position("tictactoe", "", ""), "mcts", 3, "a")
    assert mcts.value.code == ErrorCode.BAD_REQUEST
