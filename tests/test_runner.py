"""The engine runner with real worker processes: events in order, queueing, cancellation, a replaced worker,
the progress throttle, and engine-against-engine pacing; the test kit's ``ThreadRunner`` keeps the same order,
queueing and cancellation."""

from __future__ import annotations

import itertools
import os
import signal
import threading

import pytest
from support.fakes import ThreadRunner
from support.helpers import connect
from support.waiting import eventually

from engine.games import new_game
from webapp.clock import SYSTEM_CLOCK
from webapp.search.execution import Throttle, run_job
from webapp.search.fair_queue import BACKGROUND, EXPLORATION, EXPLORATION_SLICE
from webapp.search.jobs import Ceiling, SearchJob
from webapp.search.pool import EngineRunner

LONG = {"depth": None, "time": 30.0, "algorithm": "minimax"}
"""A search that runs until stopped (Nim with big piles, no pruning, 30 s)."""


class Recorder:
    """Collects ``(job id, info)`` events from the runner and waits for them."""

    def __init__(self) -> None:
        self.events: list[tuple[int, dict]] = []
        self._changed = threading.Condition()

    def __call__(self, job: SearchJob, info: dict) -> None:
        with self._changed:
            self.events.append((job.id, info))
            self._changed.notify_all()

    def kinds(self, job_id: int) -> list[str]:
        with self._changed:
            return [info["kind"] for jid, info in self.events if jid == job_id]

    def wait_kind(self, job_id: int, kind: str, timeout: float = 30) -> dict:
        with self._changed:
            ok = self._changed.wait_for(lambda: any(j == job_id and i["kind"] == kind for j, i in self.events),
                                        timeout)
            assert ok, f"job {job_id} sent no {kind!r} within {timeout} s: {self.kinds(job_id)}"
            return next(i for j, i in self.events if j == job_id and i["kind"] == kind)


@pytest.fixture
def recorder():
    return Recorder()


@pytest.fixture
def runner(recorder):
    pool = EngineRunner(1, SYSTEM_CLOCK)
    yield pool
    pool.close()


@pytest.fixture(params=["processes", "thread"])
def any_runner(request: pytest.FixtureRequest):
    """One worker, once a process (the node's pool) and once a thread of this process (the test kit's)."""
    made = EngineRunner(1, SYSTEM_CLOCK) if request.param == "processes" else ThreadRunner(SYSTEM_CLOCK)
    yield made
    made.close()


def job(job_id: int, game_id: str, engine: dict, game: str = "tictactoe", **options) -> SearchJob:
    state = new_game(game, **options)
    return SearchJob(job_id, game_id, 0, state.to_move, state, engine)


def test_a_search_sends_started_then_depths_then_one_final_move(any_runner, recorder):
    full_search = {"depth": 9, "time": None, "algorithm": "alphabeta"}
    any_runner.submit(SearchJob(1, "g", 0, 0, new_game("tictactoe"), full_search, record_tree=3000), recorder)
    final = recorder.wait_kind(1, "final")
    kinds = recorder.kinds(1)
    assert kinds[0] == "started" and kinds[-1] == "final" and "depth" in kinds
    assert final["best"] in {"1", "3", "5", "7", "9"} and final["score"] == 0
    assert final["tree"] is not None and final["sent_at"] > 0
    assert any_runner.state_of("g") == "idle"


def test_a_busy_pool_queues_and_cancelling_frees_the_worker(any_runner, recorder):
    any_runner.submit(job(1, "long", LONG, "nim", piles=[9, 9, 9, 9]), recorder)
    recorder.wait_kind(1, "started")
    any_runner.submit(job(2, "next", {"level": 1}), recorder)
    assert recorder.wait_kind(2, "queued")["position"] == 1
    assert any_runner.state_of("long") == "thinking" and any_runner.state_of("next") == "queued"
    assert any_runner.cancel("long", "resigned").id == 1
    recorder.wait_kind(2, "final", timeout=10)
    assert recorder.kinds(1)[-1] == "cancelled" and "final" not in recorder.kinds(1)
    assert any_runner.cancel("long", "resigned") is None


def test_a_new_search_of_the_same_game_replaces_the_old_one(any_runner, recorder):
    any_runner.submit(job(1, "g", LONG, "nim", piles=[9, 9, 9, 9]), recorder)
    recorder.wait_kind(1, "started")
    any_runner.submit(job(2, "g", {"level": 1}), recorder)
    assert recorder.wait_kind(1, "cancelled")["reason"] == "position changed"
    recorder.wait_kind(2, "final", timeout=10)
    assert "final" not in recorder.kinds(1)


def test_a_dead_worker_fails_its_job_and_is_replaced(runner, recorder):
    runner.submit(job(1, "g", LONG, "nim", piles=[9, 9, 9, 9]), recorder)
    recorder.wait_kind(1, "started")
    [worker] = runner._workers
    os.kill(worker.process.pid, signal.SIGKILL)
    assert "stopped" in recorder.wait_kind(1, "failed")["message"]
    runner.submit(job(2, "g", {"level": 1}), recorder)
    recorder.wait_kind(2, "final")


def test_the_throttle_lets_at_most_its_rate_through():
    now = [0.0]
    throttle = Throttle(8, clock=lambda: now[0])
    allowed = []
    for step in range(128):  # 32 events a second for 4 s (binary fractions, so the arithmetic is exact)
        now[0] = step / 32
        allowed.append(throttle.allow())
    assert sum(allowed) == 32 and allowed[:5] == [True, False, False, False, True]


def test_engine_against_engine_moves_are_paced(app):
    app.extensions["arena"].turns.pace = 0.3
    created = app.test_client().post("/api/games", json={"game": "tictactoe",
                                                         "opponent": {"type": "engines", "levels": [1, 1]}}).json
    assert created["seat"] is None and created["token"] is None
    watcher = connect(app, None, created["id"])
    sent: list[float] = []  # when the server sent each move (its ``sent_at``), however late the test reads them

    def three_moves() -> bool:
        sent.extend(moved["sent_at"] for moved in watcher.take("moved"))
        return len(sent) >= 3

    eventually(three_moves, "three engine moves", timeout=30)
    assert all(later - earlier >= 0.25 for earlier, later in itertools.pairwise(sent))


class _Collected:
    """A ``results`` end that keeps what ``run_job`` sends."""

    def __init__(self) -> None:
        self.sent: list[dict] = []

    def send(self, message: tuple[int, dict]) -> None:
        self.sent.append(message[1])


def minimax_to_depth_64(state) -> SearchJob:
    """A search that would run for hours: minimax to depth 64 with no time limit."""
    return SearchJob(id=1, key="g", ply=0, seat=0, state=state, engine={"depth": 64, "time": None,
                                                                          "algorithm": "minimax"})


def test_a_search_without_a_time_limit_stops_with_a_move_once_its_clock_passes_the_ceiling(clock):
    """The ceiling's time is read from the worker's clock: once it has passed, the search plays its best move."""
    state = new_game("chess")
    results, stop = _Collected(), threading.Event()
    search = threading.Thread(target=run_job, args=(minimax_to_depth_64(state), results, stop, clock,
                                                    Ceiling(seconds=0.5)), daemon=True)
    search.start()
    try:
        eventually(lambda: any(info["kind"] in ("progress", "depth") for info in results.sent),
                   "the search's first report")
        assert results.sent[-1]["kind"] != "final"  # the clock has not moved: the search goes on
        clock.advance(0.6)
        search.join(timeout=60)
        assert not search.is_alive()
    finally:
        stop.set()  # whatever failed, the search does not run on for hours
    final = results.sent[-1]
    assert final["kind"] == "final" and state.parse_move(final["best"])


def test_a_search_without_a_node_limit_stops_with_a_move_at_the_ceilings_node_count():
    state = new_game("chess")
    results = _Collected()
    run_job(minimax_to_depth_64(state), results, threading.Event(), SYSTEM_CLOCK, Ceiling(nodes=2_000))
    final = results.sent[-1]
    assert final["kind"] == "final" and state.parse_move(final["best"])
    assert 2_000 < final["nodes"] < 100 * 2_000


def test_one_client_holds_at_most_its_share_and_another_client_goes_first(recorder):
    """Two workers: a client with three endless searches runs one of them; another client's move starts at once
    and its next one goes before the first client's waiting searches."""
    pool = EngineRunner(2, SYSTEM_CLOCK)
    try:
        hog = [SearchJob(i, f"hog-{i}", 0, 0, new_game("nim", piles=[9, 9, 9, 9]), LONG, client="10.0.0.1")
               for i in (1, 2, 3)]
        for search in hog:
            pool.submit(search, recorder)
        recorder.wait_kind(1, "started")
        assert recorder.wait_kind(2, "queued")["position"] == 1
        assert [pool.state_of(f"hog-{i}") for i in (1, 2, 3)] == ["thinking", "queued", "queued"]
        victim = SearchJob(4, "victim", 0, 0, new_game("tictactoe"), {"level": 3}, client="10.0.0.2")
        pool.submit(victim, recorder)
        recorder.wait_kind(4, "final")
        assert "queued" not in recorder.kinds(4)
        pool.submit(SearchJob(5, "victim", 1, 1, new_game("tictactoe"), {"level": 3}, client="10.0.0.2"), recorder)
        recorder.wait_kind(5, "final")
        assert pool.state_of("hog-2") == "queued"
        pool.cancel("hog-1", "resigned")
        recorder.wait_kind(2, "started")
        assert pool.state_of("hog-3") == "queued"
    finally:
        pool.close()


def test_a_live_turn_goes_before_waiting_lab_searches(recorder):
    pool = EngineRunner(1, SYSTEM_CLOCK)
    try:
        pool.submit(SearchJob(1, "lab-1-0", 0, 0, new_game("nim", piles=[9, 9, 9, 9]), LONG, client="a",
                              priority=BACKGROUND), recorder)
        recorder.wait_kind(1, "started")
        pool.submit(SearchJob(2, "lab-1-1", 0, 0, new_game("tictactoe"), {"level": 3}, client="a",
                              priority=BACKGROUND), recorder)
        pool.submit(SearchJob(3, "game", 0, 0, new_game("tictactoe"), {"level": 3}, client="b"), recorder)
        assert recorder.wait_kind(3, "queued")["position"] == 1
        pool.cancel("lab-1-0", "stopped")
        recorder.wait_kind(3, "final")
        recorder.wait_kind(2, "final")
        starts = [job_id for job_id, info in recorder.events if info["kind"] == "started"]
        assert starts == [1, 3, 2]
    finally:
        pool.close()


def test_a_search_past_its_deadline_still_plays_a_move_at_once(clock):
    """A turn resumed after its ceiling has passed gets what the deadline leaves: a move from the first depths
    (the clock stands still, so the search ends at its first look at the stop flag, whatever the machine's speed)."""
    state = new_game("chess")
    job = SearchJob(id=1, key="g", ply=0, seat=0, state=state, deadline=clock.time() - 5,
                    engine={"depth": 64, "time": None, "algorithm": "alphabeta"})
    results = _Collected()
    run_job(job, results, threading.Event(), clock)
    final = results.sent[-1]
    assert final["kind"] == "final" and state.parse_move(final["best"])
    assert final["depth"] <= 2 and final["nodes"] < 2_000


@pytest.mark.parametrize("waiting_client", ["10.0.0.2", "10.0.0.1"])
def test_an_analysis_search_gives_its_worker_to_waiting_background_work(recorder, waiting_client: str):
    """One worker: a page's search without end holds it while nobody waits; once another page's background job
    waits (of another address, or of the same one, whose share the search holds), the search stops after its slice
    with its best so far (marked ``yielded``) and the waiting job runs."""
    pool = EngineRunner(1, SYSTEM_CLOCK)
    try:
        pool.submit(SearchJob(1, "analysis:a", 0, 0, new_game("nim", piles=[9, 9, 9, 9]), LONG, client="10.0.0.1",
                              priority=EXPLORATION), recorder)
        recorder.wait_kind(1, "started")
        pool.submit(SearchJob(2, "analysis-truth:b", 0, 0, new_game("tictactoe"), {"level": 3},
                              client=waiting_client, priority=BACKGROUND), recorder)
        final = recorder.wait_kind(1, "final", timeout=EXPLORATION_SLICE + 10)
        assert final["yielded"] is True and final["best"]
        assert "yielded" not in recorder.wait_kind(2, "final")
    finally:
        pool.close()
