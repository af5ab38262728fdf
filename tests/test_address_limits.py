"""Rate limits per client address (``webapp.views.address_limits``), hit for real through the app: game creation, seat
taking and moves over HTTP, moves and lab runs over Socket.IO. A refusal is a 429 ``{error: "rate_limited",
message}`` with ``Retry-After`` (an ``error`` event with ``retry_after`` on Socket.IO) and changes nothing; HTTP and
Socket.IO moves count together; another address keeps its own counters."""

from __future__ import annotations

import re
import socket

import pytest
import websocket
from flask_limiter.util import get_qualified_name
from support.helpers import connect, friend_game
from support.long_games import long_game
from support.servers import LiveServer

from webapp.config import ConfigError, load_config
from webapp.schema import DOCUMENT
from webapp.views.address_limits import limiter

pytestmark = pytest.mark.servers

FRIEND = {"game": "tictactoe", "opponent": {"type": "friend"}}
OTHER = {"REMOTE_ADDR": "127.0.0.2"}
LAB = {"game": "tictactoe", "setup": "", "moves": [], "configs": [{"preset": "alphabeta", "depth": 1}]}
WINDOW = 24 * 3600
"""The tests' limits are so many a day: the limiter's sliding-window counter lets a burst through where its window
turns (the counts before it are weighed by what is left of the window), and a test of a minute's limit straddled
that turn in loaded runs; a day's window turns at midnight UTC."""


def assert_rate_limited(response) -> None:
    assert response.status_code == 429, response.json
    assert set(response.json) == {"error", "message"} and response.json["error"] == "rate_limited"
    assert "at most" in response.json["message"]
    assert 1 <= int(response.headers["Retry-After"]) <= WINDOW


def test_game_creation_is_limited_per_address_and_a_refusal_creates_nothing(app):
    app.config["ARENA_CREATE_LIMIT"] = "3/day;5/month"
    client = app.test_client()
    for _ in range(3):
        assert client.post("/api/games", json=FRIEND).status_code == 201
    listed = client.get("/api/games").json["games"]
    refused = client.post("/api/games", json=FRIEND)
    assert_rate_limited(refused)
    assert "Set-Cookie" not in refused.headers
    assert client.get("/api/games").json["games"] == listed
    assert app.test_client().post("/api/games", json=FRIEND, environ_base=OTHER).status_code == 201


def test_seat_taking_is_limited_and_a_refusal_takes_no_seat(app):
    app.config["ARENA_SEAT_LIMIT"] = "2/day"
    created = app.test_client().post("/api/games", json=FRIEND).json
    client = app.test_client()
    for _ in range(2):
        assert client.post(f"/api/games/{created['id']}/seats", json={"token": created["token"]}).status_code == 200
    refused = client.post(f"/api/games/{created['id']}/seats", json={"invite": created["invite"]})
    assert_rate_limited(refused)
    assert not client.get(f"/api/games/{created['id']}").json["seats"][1]["taken"]
    taken = app.test_client().post(f"/api/games/{created['id']}/seats", json={"invite": created["invite"]},
                                   environ_base=OTHER)
    assert taken.status_code == 200 and taken.json["seat"] == 1


def test_http_and_socket_moves_share_one_counter_and_a_refusal_stores_no_move(app):
    app.config["ARENA_MOVE_LIMIT"] = "2/day"
    game_id, first, second = friend_game(app)
    client = app.test_client()
    assert client.post(f"/api/games/{game_id}/moves", json={"move": "5", "token": first}).status_code == 200
    player = connect(app, second, game_id)
    player.emit("move", {"game_id": game_id, "move": "1"})
    assert client.get(f"/api/games/{game_id}").json["moves"] == ["5", "1"]
    player.forget()
    refused = client.post(f"/api/games/{game_id}/moves", json={"move": "9", "token": first})
    assert_rate_limited(refused)
    player.emit("move", {"game_id": game_id, "move": "3"})
    [error] = player.take("error")
    assert error["code"] == "rate_limited" and error["event"] == "move" and "at most 2 per 1 day" in error["message"]
    assert 1 <= error["retry_after"] <= WINDOW
    assert client.get(f"/api/games/{game_id}").json["moves"] == ["5", "1"]
    other = client.post(f"/api/games/{game_id}/moves", json={"move": "9", "token": first}, environ_base=OTHER)
    assert other.status_code == 200 and other.json["moves"] == ["5", "1", "9"]


def test_lab_runs_are_limited_and_a_refused_run_starts_nothing(app):
    app.config["ARENA_LAB_LIMIT"] = "1/day"
    client = connect(app)
    client.emit("lab_start", LAB)
    assert len(client.take("lab_started")) == 1
    client.emit("lab_start", LAB)
    received = client.drain()
    assert "lab_started" not in [name for name, _ in received]
    [error] = [payload for name, payload in received if name == "error"]
    assert error["code"] == "rate_limited" and error["event"] == "lab_start" and 1 <= error["retry_after"] <= WINDOW


def test_reads_are_limited_per_address(app):
    """However cheap a read, one address cannot make the node answer reads without end: over
    ``ARENA_READ_LIMIT`` a read is a 429, for every read route together, while another address still reads."""
    app.config["ARENA_READ_LIMIT"] = "3/day"
    client = app.test_client()
    game_id = client.post("/api/games", json=FRIEND).json["id"]
    assert client.get(f"/api/games/{game_id}").status_code == 200
    assert client.get(f"/api/games/{game_id}/positions/0").status_code == 200
    assert client.get("/api/games").status_code == 200
    assert_rate_limited(client.get(f"/api/games/{game_id}"))
    assert_rate_limited(client.get("/api/games"))
    assert client.get(f"/api/games/{game_id}", environ_base=OTHER).status_code == 200
    assert client.get("/api/health").status_code == 200


def test_a_long_games_record_costs_reads_by_its_length_and_a_join_counts_as_a_read(app):
    """A state, a PGN, a past position or a Socket.IO ``join`` of a chess game set up from 1,200 moves costs 13
    reads (one, and one for each 100 moves of its record); over the limit nothing more is counted."""
    app.config["ARENA_READ_LIMIT"] = "40/day"
    client = app.test_client()
    setup = "startpos moves " + " ".join(long_game(1200, seed=1))
    game_id = client.post("/api/games", json={"game": "chess", "setup": setup, "opponent": {"type": "friend"}},
                          environ_base=OTHER).json["id"]
    assert client.get(f"/api/games/{game_id}").status_code == 200  # 13
    assert client.get(f"/api/games/{game_id}/pgn").status_code == 200  # 26
    assert client.get(f"/api/games/{game_id}/positions/0").status_code == 200  # 39
    assert_rate_limited(client.get(f"/api/games/{game_id}"))  # 40: the request counted, its 12 more refused
    watcher = connect(app)
    watcher.emit("join", {"game_id": game_id})  # 13 do not fit: nothing counted
    [error] = watcher.take("error")
    assert error["code"] == "rate_limited" and error["event"] == "join", error
    elsewhere = app.test_client()
    elsewhere.environ_base.update(OTHER)
    other = connect(app, http=elsewhere)
    other.emit("join", {"game_id": game_id})
    assert [state["id"] for state in other.take("state")] == [game_id]
    short = client.post("/api/games", json=FRIEND, environ_base=OTHER).json["id"]
    assert client.get(f"/api/games/{short}", environ_base=OTHER).status_code == 200  # a short game's: one


def test_new_connections_are_limited_per_address(tmp_path):
    """Connecting again and again (a client cut off for a flood that reconnects at once) is refused over
    ``ARENA_CONNECT_LIMIT`` at the Engine.IO handshake, WebSocket or polling, with a 429 and the JSON error, on a
    real gunicorn; a connection already made goes on, and another address still connects."""
    server = LiveServer(tmp_path / "instance", env={"ARENA_CONNECT_LIMIT": "2/day"}).start()

    def open_socket(source: str) -> websocket.WebSocket:
        sock = websocket.WebSocket()
        sock.connect(f"ws://127.0.0.1:{server.port}/socket.io/?EIO=4&transport=websocket", timeout=10,
                     socket=socket.create_connection(("127.0.0.1", server.port), 10, (source, 0)))
        assert sock.recv().startswith("0")
        sock.send("40")
        assert sock.recv().startswith("40{")
        return sock

    try:
        first = open_socket("127.0.0.1")
        polling = server.get("/socket.io/?EIO=4&transport=polling")
        assert polling.status_code == 200 and polling.text.startswith("0{")
        with pytest.raises(websocket.WebSocketBadStatusException) as refused:
            open_socket("127.0.0.1")
        assert refused.value.status_code == 429
        refused_polling = server.get("/socket.io/?EIO=4&transport=polling")
        assert refused_polling.status_code == 429 and refused_polling.json()["error"] == "rate_limited"
        assert "at most 2 per 1 day" in refused_polling.json()["message"]
        assert 1 <= int(refused_polling.headers["Retry-After"]) <= WINDOW
        first.send("2")  # a connection already made is never refused
        first.send('42["join",{"game_id":"nope"}]')
        assert "not_found" in first.recv()
        open_socket("127.0.0.2").close()
        first.close()
    finally:
        server.stop()


def test_unlimited_routes_answer_without_limit_headers(app):
    app.config["ARENA_CREATE_LIMIT"] = "1/day"
    client = app.test_client()
    assert client.post("/api/games", json=FRIEND).status_code == 201
    for _ in range(5):
        answer = client.get("/api/health")
        assert answer.status_code == 200 and "Retry-After" not in answer.headers


@pytest.mark.parametrize("value", ["fast", "30/fortnight", "-1/minute"])
def test_a_limit_that_cannot_be_read_is_a_config_error(tmp_path, value):
    with pytest.raises(ConfigError, match="ARENA_MOVE_LIMIT"):
        load_config(tmp_path, {"SECRET_KEY": "x", "ARENA_MOVE_LIMIT": value})


def test_the_limits_default_to_the_documented_values(tmp_path):
    config = load_config(tmp_path, {"SECRET_KEY": "x"})
    assert config["ARENA_CREATE_LIMIT"] == "30/minute;300/hour" and config["ARENA_SEAT_LIMIT"] == "30/minute"
    assert config["ARENA_MOVE_LIMIT"] == "120/minute" and config["ARENA_LAB_LIMIT"] == "10/minute"
    assert config["ARENA_READ_LIMIT"] == "1200/minute" and config["ARENA_CONNECT_LIMIT"] == "60/minute"


def test_every_route_of_the_api_description_has_a_limit(app):
    """Walks the API description: each POST and each GET but the health check is served by a view that counts
    under some per-address limit."""
    routes = app.url_map.bind("localhost")
    unlimited = []
    for path, operations in DOCUMENT["paths"].items():
        for method in ("post", "get"):
            if method not in operations or path == "/api/health":
                continue
            url = re.sub(r"\{game_id\}", "Ab3_x-9", path.replace("{ply}", "0"))
            endpoint, _ = routes.match(url, method=method.upper())
            view = app.view_functions[endpoint]
            with app.app_context():  # the limits are read from the app's config
                if not limiter.limit_manager.decorated_limits(get_qualified_name(view)):
                    unlimited.append(f"{method.upper()} {path}")
    assert unlimited == []


def test_a_rematch_counts_as_a_creation(app):
    """Resigning and asking for a rematch again and again cannot create more games than creating them would."""
    app.config["ARENA_CREATE_LIMIT"] = "3/day"
    client = app.test_client()
    created = client.post("/api/games", json={"game": "tictactoe", "opponent": {"type": "engine", "level": 1},
                                              "side": 0}).json
    game_id, token = created["id"], created["token"]
    for _ in range(2):
        assert client.post(f"/api/games/{game_id}/resign", json={"token": token}).status_code == 200
        rematch = client.post(f"/api/games/{game_id}/rematch", json={"token": token})
        assert rematch.status_code == 201, rematch.json
        game_id, token = rematch.json["id"], rematch.json["token"]
    assert client.post(f"/api/games/{game_id}/resign", json={"token": token}).status_code == 200
    listed = client.get("/api/games").json["games"]
    assert_rate_limited(client.post(f"/api/games/{game_id}/rematch", json={"token": token}))
    assert client.get("/api/games").json["games"] == listed
