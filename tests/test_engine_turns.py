"""Engine turns that nobody should pay for without end: engine-against-engine games pause while nobody watches and
go on when somebody comes; their creator can stop them; a turn resumed after a restart keeps the ceiling of its
start."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import update
from support.fakes import ThreadRunner
from support.helpers import connect, state_when

from webapp import create_app
from webapp.arena.turns import RESUMED_MINIMUM_SECONDS
from webapp.clock import Clock
from webapp.store import GameRow

ENGINES = {"game": "tictactoe", "opponent": {"type": "engines", "levels": [1, 1]}}


@pytest.fixture
def make_app(tmp_path, monkeypatch):
    """A factory of apps sharing one instance folder (a restart is a second app on the same database), each with
    the given config keys and ``clock`` (the system's by default), searching on a ``ThreadRunner``."""
    monkeypatch.setenv("ARENA_INSTANCE", str(tmp_path / "instance"))
    for name in ("DATABASE_URL", "SECRET_KEY", "ARENA_WORKERS", "SOCKETIO_MESSAGE_QUEUE", "ARENA_SEARCH_QUEUE"):
        monkeypatch.delenv(name, raising=False)
    made = []

    def make(clock: Clock | None = None, **config):
        application = create_app({"TESTING": True, "ARENA_WORKERS": 1, "ARENA_PACE": 0, **config}, clock,
                                 ThreadRunner())
        made.append(application)
        return application

    yield make
    for application in made:
        application.extensions["arena"].close()


def test_an_unwatched_engine_game_pauses_and_goes_on_when_somebody_watches(make_app):
    # paced, so the game cannot reach its end between the watcher's third move and its leaving
    app = make_app(ARENA_UNWATCHED_PAUSE=0, ARENA_PACE=0.2)
    arena = app.extensions["arena"]
    game_id = app.test_client().post("/api/games", json=ENGINES).json["id"]
    state = app.test_client().get(f"/api/games/{game_id}").json
    assert state["search_state"] == "paused" and state["ply"] == 0
    assert arena.runner.current_job(game_id) is None

    watcher = connect(app)
    watcher.emit("join", {"game_id": game_id})
    watcher.next("moved", lambda moved: moved["ply"] == 3)
    watcher.disconnect()  # the turn under way when the watcher left is played; then the game rests
    state_when(app.test_client(), game_id, lambda state: state["search_state"] == "paused", "the pause")
    assert arena.runner.current_job(game_id) is None


def test_a_watched_engine_game_does_not_pause(make_app):
    app = make_app(ARENA_UNWATCHED_PAUSE=0)
    game_id = app.test_client().post("/api/games", json=ENGINES).json["id"]
    watcher = connect(app)
    watcher.emit("join", {"game_id": game_id})
    final = watcher.next("moved", lambda moved: moved["state"]["status"] == "finished")
    assert final["state"]["search_state"] == "idle" and final["state"]["ply"] >= 5


def test_the_creator_stops_an_engine_game_and_nobody_else_can(make_app):
    app = make_app()
    client = app.test_client()
    created = client.post("/api/games", json=ENGINES).json
    assert created["seat"] is None and len(created["stop_code"]) == 22
    game_id = created["id"]
    refused = client.post(f"/api/games/{game_id}/stop", json={"stop_code": "x" * 22})
    assert refused.status_code == 403 and refused.json["error"] == "forbidden"
    assert client.get(f"/api/games/{game_id}").json["status"] == "active"
    stopped = client.post(f"/api/games/{game_id}/stop", json={"stop_code": created["stop_code"]})
    assert stopped.status_code == 200
    assert stopped.json["status"] == "finished" and stopped.json["result"] == {"winner": None, "reason": "stopped"}
    assert app.extensions["arena"].runner.current_job(game_id) is None
    again = client.post(f"/api/games/{game_id}/stop", json={"stop_code": created["stop_code"]})
    assert again.json["error"] == "game_over"


def test_only_engine_games_can_be_stopped(make_app):
    app = make_app()
    client = app.test_client()
    created = client.post("/api/games", json={"game": "tictactoe", "opponent": {"type": "engine", "level": 1}}).json
    assert created["stop_code"] is None
    refused = client.post(f"/api/games/{created['id']}/stop", json={"stop_code": created["token"]})
    assert refused.status_code == 403 and refused.json["error"] == "forbidden"


def test_a_turn_resumed_after_a_restart_keeps_the_ceiling_of_its_start(make_app, clock):
    """Minimax to depth 64 in chess would take the whole ceiling again after every restart; a turn whose ceiling
    has passed gets a couple of seconds and plays."""
    first = make_app()
    hog = {"game": "chess", "opponent": {"type": "engine", "depth": 64, "algorithm": "minimax"}, "side": 1}
    game_id = first.test_client().post("/api/games", json=hog).json["id"]
    assert first.extensions["arena"].runner.current_job(game_id).deadline is None  # a fresh turn: the full ceiling
    store = first.extensions["arena"].store
    first.extensions["arena"].close()
    with store.engine.begin() as connection:  # the turn began ten minutes ago
        connection.execute(update(GameRow).where(GameRow.id == game_id).values(
            updated_at=dt.datetime.now(dt.UTC) - dt.timedelta(minutes=10)))

    restarted = make_app(clock)
    job = restarted.extensions["arena"].runner.current_job(game_id)
    assert job is not None and job.deadline == clock.time() + RESUMED_MINIMUM_SECONDS
    watcher = connect(restarted)
    watcher.emit("join", {"game_id": game_id})
    assert watcher.next("moved", timeout=30)["ply"] == 1


def test_a_paused_engine_game_that_left_memory_goes_on_when_somebody_watches(make_app, clock):
    app = make_app(clock, ARENA_UNWATCHED_PAUSE=0, ARENA_UNTOUCHED_GAME_SECONDS=0.05)
    arena = app.extensions["arena"]
    game_id = app.test_client().post("/api/games", json=ENGINES).json["id"]
    assert app.test_client().get(f"/api/games/{game_id}").json["search_state"] == "paused"
    clock.advance(0.1)  # past the untouched time
    arena.cache.expire_untouched()  # (its sweep thread may have done it already)
    assert arena.cache.count() == 0
    watcher = connect(app)
    watcher.emit("join", {"game_id": game_id})
    assert watcher.next("moved")["ply"] == 1
