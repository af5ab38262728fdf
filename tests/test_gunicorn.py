"""The app under a real gunicorn on a loopback port, driven by python-socketio clients: a whole game against the
engine watched by a spectator, a game between two people through the share link, and a crash mid-game."""

from __future__ import annotations

import contextlib
import re
import sqlite3

import pytest
import requests
import socketio
from support.servers import EventClient, LiveServer

pytestmark = pytest.mark.servers


def joined(server, game_id: str, token: str | None = None) -> EventClient:
    client = EventClient(server.url, token)
    client.emit("join", {"game_id": game_id})
    client.wait_for("state")
    return client


def connects(url: str, headers: dict[str, str]) -> bool:
    """Whether a Socket.IO connection with these extra headers is accepted (the client is closed either way)."""
    client = socketio.Client(reconnection=False)
    try:
        client.connect(url, headers=headers, transports=["websocket"], wait_timeout=5)
    except socketio.exceptions.ConnectionError:
        return False
    client.disconnect()
    return True


def test_a_whole_tictactoe_game_against_the_engine_with_a_spectator(live_server):
    created = live_server.post("/api/games", {"game": "tictactoe", "opponent": {"type": "engine", "level": 2},
                                              "side": 0}).json()
    game_id = created["id"]
    spectator = joined(live_server, game_id)
    player = joined(live_server, game_id, created["token"])
    state = player.wait_for("state")
    while state["status"] == "active":
        ply = state["ply"]
        player.emit("move", {"game_id": game_id, "move": state["legal_moves"][-1]})
        moved = player.wait_for("moved", lambda m, ply=ply: m["ply"] == ply + 1)
        state = moved["state"]
        if state["status"] == "active":
            state = player.wait_for("moved", lambda m, ply=ply: m["ply"] == ply + 2)["state"]
    total = state["ply"]
    spectator.wait_for("moved", lambda m: m["ply"] == total)
    moved = spectator.received("moved")
    assert [m["ply"] for m in moved] == list(range(1, total + 1))
    assert [m["move"] for m in moved] == state["moves"]
    engine_plies = [m["ply"] for m in moved if m["by"] == 1]
    searches = spectator.received("search")
    for ply in engine_plies:
        kinds = [s["info"]["kind"] for s in searches if s["ply"] == ply - 1]
        assert "started" in kinds and kinds[-1] == "final", (ply, kinds)
        final = next(s["info"] for s in searches if s["ply"] == ply - 1 and s["info"]["kind"] == "final")
        assert final["best"] == state["moves"][ply - 1]
    assert spectator.received("error") == [] and player.received("error") == []
    stored = live_server.get(f"/api/games/{game_id}").json()
    assert stored["moves"] == state["moves"] and stored["status"] == "finished"
    assert [e["ply"] for e in stored["evals"]] == engine_plies
    spectator.close()
    player.close()


def test_two_people_play_through_the_share_link(live_server):
    host, guest = requests.Session(), requests.Session()
    created = host.post(live_server.url + "/api/games", json={"game": "nim", "options": {"piles": [1, 2]},
                                                              "opponent": {"type": "friend"}, "side": 1}).json()
    game_id = created["id"]
    assert list(host.cookies.keys()) == ["arena_player"]
    taken = guest.post(live_server.url + f"/api/games/{game_id}/seats", json={"invite": created["invite"]}).json()
    assert taken["seat"] == 0 and list(guest.cookies.keys()) == ["arena_player"]
    late = requests.post(live_server.url + f"/api/games/{game_id}/seats", json={"invite": created["invite"]},
                         timeout=10)
    assert late.status_code == 409 and late.json()["error"] == "no_free_seat"
    first, second, spectator = (joined(live_server, game_id, token)
                                for token in (taken["token"], created["token"], None))
    second.emit("move", {"game_id": game_id, "move": "2:2"})
    assert second.wait_for("error")["code"] == "not_your_turn"
    first.emit("move", {"game_id": game_id, "move": "2:1"})
    second.wait_for("moved", lambda m: m["ply"] == 1)
    spectator.emit("move", {"game_id": game_id, "move": "1:1"})
    assert spectator.wait_for("error")["code"] == "forbidden"
    second.emit("move", {"game_id": game_id, "move": "1:1"})
    first.wait_for("moved", lambda m: m["ply"] == 2)
    first.emit("move", {"game_id": game_id, "move": "2:1"})
    final = spectator.wait_for("moved", lambda m: m["ply"] == 3)["state"]
    assert final["result"] == {"winner": 0, "reason": "took the last counter"}
    assert [m["move"] for m in spectator.received("moved")] == ["2:1", "1:1", "2:1"]
    for client in (first, second, spectator):
        client.close()


def test_socketio_refuses_other_origins_and_oversized_messages(live_server):
    assert not connects(live_server.url, {"Origin": "http://evil.example"})
    created = live_server.post("/api/games", {"game": "tictactoe", "opponent": {"type": "friend"}}).json()
    client = joined(live_server, created["id"], created["token"])
    client.emit("move", {"game_id": created["id"], "move": "5" * 20_000})
    client.sio.wait()  # returns once the server has closed the connection
    client.close()
    assert live_server.get(f"/api/games/{created['id']}").json()["moves"] == []


def test_a_crash_mid_search_loses_nothing_and_the_engine_resumes(tmp_path):
    server = LiveServer(tmp_path / "instance").start()
    try:
        created = server.post("/api/games", {"game": "nim", "options": {"piles": [6, 6, 6]}, "side": 0,
                                              "opponent": {"type": "engine", "time": 1.5, "algorithm": "minimax"}
                                              }).json()
        game_id = created["id"]
        player = joined(server, game_id, created["token"])
        player.emit("move", {"game_id": game_id, "move": "1:1"})
        player.wait_for("search", lambda s: s["info"]["kind"] == "started")
        server.kill()
        player.close()

        server.start()
        state = server.get(f"/api/games/{game_id}").json()
        assert state["moves"] == ["1:1"] and state["to_move"] == 1 and state["status"] == "active"
        assert state["search_state"] in ("queued", "thinking")
        player = joined(server, game_id, created["token"])
        reply = player.wait_for("moved", lambda m: m["ply"] == 2)
        assert reply["by"] == 1
        player.emit("move", {"game_id": game_id, "move": reply["state"]["legal_moves"][0]})
        assert player.wait_for("moved", lambda m: m["ply"] == 3)["by"] == 0
        assert [m["ply"] for m in server.get(f"/api/games/{game_id}").json()["history"]][:3] == [1, 2, 3]
        player.close()
    finally:
        server.stop()


def test_without_proxy_hops_no_forwarded_header_is_believed_and_no_control_socket_opens(tmp_path):
    """Started the README way with ``ARENA_PROXY_HOPS=0``: a client's ``X-Forwarded-Proto: https`` changes neither
    the origin the same-origin check expects nor the cookies (gunicorn believes no forwarded header either), and
    gunicorn opens no control socket in the user's home."""
    home = tmp_path / "home"
    home.mkdir()
    server = LiveServer(tmp_path / "instance", env={"HOME": str(home), "XDG_RUNTIME_DIR": ""}).start()
    try:
        answer = server.post("/api/games", {"game": "tictactoe", "opponent": {"type": "friend"}},
                             headers={"Origin": server.url, "X-Forwarded-Proto": "https"})
        assert answer.status_code == 201, answer.json()
        assert "secure" not in answer.headers["Set-Cookie"].lower()
    finally:
        server.kill()
    assert list(home.iterdir()) == []


def test_a_creation_is_one_transaction(tmp_path):
    """A creation whose last step fails (the table of the browsers' seats lost) leaves no game behind: the game,
    its seats and its creator's seat are stored together or not at all."""
    server = LiveServer(tmp_path / "instance").start()
    database_file = tmp_path / "instance" / "arena.sqlite3"
    try:
        assert server.post("/api/games", {"game": "tictactoe", "opponent": {"type": "friend"}}).status_code == 201
        with contextlib.closing(sqlite3.connect(database_file)) as database:
            database.execute("DROP TABLE player_seats")
            database.commit()
        answer = server.post("/api/games", {"game": "tictactoe", "opponent": {"type": "friend"}})
        assert answer.status_code == 500 and answer.json()["error"] == "internal_error"
        with contextlib.closing(sqlite3.connect(database_file)) as database:
            assert database.execute("SELECT COUNT(*) FROM games").fetchone() == (1,)
            assert database.execute("SELECT COUNT(*) FROM seats").fetchone() == (2,)
    finally:
        server.kill()


def test_a_server_error_is_a_500_with_a_request_id_logged_once(tmp_path):
    """A database that lost a table (an error no check foresees): creating a game answers ``500 internal_error``
    naming a request id, and the log holds that id once, with the traceback."""
    server = LiveServer(tmp_path / "instance").start()
    try:
        assert server.get("/api/games").status_code == 200
        with contextlib.closing(sqlite3.connect(tmp_path / "instance" / "arena.sqlite3")) as database:
            database.execute("DROP TABLE seats")
            database.commit()
        answer = server.post("/api/games", {"game": "tictactoe", "opponent": {"type": "friend"}})
        assert answer.status_code == 500 and answer.json()["error"] == "internal_error"
        request_id = re.search(r"\(id ([0-9a-f]{12})\)", answer.json()["message"]).group(1)
        log = server.log.read_text()
        assert log.count(request_id) == 1 and "Traceback" in log.split(request_id, 1)[1]
    finally:
        server.kill()
