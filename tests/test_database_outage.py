"""A database that goes away (a real PostgreSQL stopped under a real gunicorn node) and comes back: every action
is answered ``database_unavailable`` and changes nothing, games in memory are still read, health says the database
is down, the log says so once, and play goes on when it is back."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests
from support.postgres_server import PostgresServer
from support.servers import EventClient, LiveServer
from support.waiting import eventually

from webapp.errors import DATABASE_RETRY_SECONDS

pytestmark = pytest.mark.servers


@pytest.fixture
def database() -> Iterator[PostgresServer]:
    """A PostgreSQL server of this test's own (the test stops it and starts it again)."""
    server = PostgresServer().start()
    yield server
    server.stop()


def test_a_database_outage_is_answered_and_survived(database, tmp_path):
    node = LiveServer(tmp_path / "instance", env={"DATABASE_URL": database.create_database()}).start()
    try:
        created = node.post("/api/games", {"game": "tictactoe", "opponent": {"type": "friend"}, "side": 0}).json()
        game_id = created["id"]
        token = node.post(f"/api/games/{game_id}/seats", {"invite": created["invite"]}).json()["token"]
        assert node.post(f"/api/games/{game_id}/moves", {"move": "5", "token": created["token"]}).status_code == 200
        player = EventClient(node.url, token)  # the second player, to move
        player.emit("join", {"game_id": game_id})
        player.wait_for("state")
        assert node.get("/api/health").json()["database"] == "up"

        database.pause()
        player.emit("move", {"game_id": game_id, "move": "1"})
        error = player.wait_for("error", timeout=20)
        assert error["code"] == "database_unavailable" and error["event"] == "move", error
        moved = requests.post(f"{node.url}/api/games/{game_id}/moves", json={"move": "1", "token": token},
                              timeout=20)
        assert moved.status_code == 503 and moved.json()["error"] == "database_unavailable"
        # 5 s, or the limiter's window reset if later; the limiter rewrites the header in whole seconds counted from
        # a moment later than ours, so 5 may read 4
        assert int(moved.headers["Retry-After"]) >= DATABASE_RETRY_SECONDS - 1
        created_now = requests.post(f"{node.url}/api/games", json={"game": "nim", "opponent": {"type": "friend"}},
                                    timeout=20)
        assert created_now.status_code == 503 and created_now.json()["error"] == "database_unavailable"
        state = node.get(f"/api/games/{game_id}")
        assert state.status_code == 200 and state.json()["moves"] == ["5"]  # the game in memory is still read
        assert node.get("/api/health").json()["database"] == "down"
        for _ in range(20):  # many requests meet the outage; the log says it once
            requests.post(f"{node.url}/api/games/{game_id}/moves", json={"move": "1", "token": token}, timeout=20)
        log = node.log.read_text()
        assert log.count("the database does not answer") == 1, log
        assert "Traceback" not in log, log

        database.resume()
        eventually(lambda: node.get("/api/health").json()["database"] == "up", "the database seen back", timeout=30)
        player.emit("move", {"game_id": game_id, "move": "1"})
        assert player.wait_for("moved", lambda moved: moved["ply"] == 2)["move"] == "1"
        assert node.get(f"/api/games/{game_id}").json()["moves"] == ["5", "1"]
        assert node.log.read_text().count("the database answers again") == 1
        player.close()
    finally:
        node.stop()


def test_an_engine_move_that_could_not_be_stored_is_searched_again_once_the_database_is_back(database, tmp_path):
    node = LiveServer(tmp_path / "instance", env={"DATABASE_URL": database.create_database(), "ARENA_PACE": "0.3"})
    node.start()
    try:
        body = {"game": "nim", "options": {"piles": [30, 30, 30], "max_take": 1},
                "opponent": {"type": "engines", "levels": [1, 1]}}
        game_id = node.post("/api/games", body).json()["id"]
        watcher = EventClient(node.url)
        watcher.emit("join", {"game_id": game_id})
        watcher.wait_for("moved", lambda moved: moved["ply"] >= 2)
        database.pause()
        error = watcher.wait_for("error", lambda error: error["event"] == "search", timeout=20)
        assert error["code"] == "database_unavailable", error
        stopped_at = node.get(f"/api/games/{game_id}").json()["ply"]
        database.resume()
        watcher.wait_for("moved", lambda moved: moved["ply"] >= stopped_at + 2, timeout=30)
        state = node.get(f"/api/games/{game_id}").json()
        assert state["status"] == "active" and state["ply"] >= stopped_at + 2
        watcher.close()
    finally:
        node.stop()
