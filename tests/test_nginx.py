"""The single-node deployment through real nginx (deploy/nginx-single.conf as committed, with deploy/arena.conf) in
front of a real gunicorn: a normal game plays over HTTP and Socket.IO, and the per-address first wall answers 429
with the app's JSON error and ``Retry-After`` on game creations, Socket.IO handshakes and open WebSockets beyond
its limits, having passed nothing on to the app."""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Iterator

import pytest
import requests
import websocket
from servers import GENEROUS_LIMITS, EventClient, LiveServer
from services import NGINX_PORT, NGINX_SINGLE_CONF, NODE_PORTS, Nginx, wait_until_free

PORT_WAIT = 600.0
"""How long to wait for another test run to free the fixed ports of the nginx confs."""
FRIEND = {"game": "tictactoe", "opponent": {"type": "friend"}}
HANDSHAKE_BURST = 20
CONNECTIONS = 20
"""deploy/arena.conf: handshakes a burst of 20 then 5 a second; 20 open /socket.io/ connections per address."""


@pytest.fixture(scope="module")
def front(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """gunicorn on port 8001 (its own limits out of the way, to meet nginx's; SQLite in ``front/node``) behind
    nginx; nginx's URL."""
    folder = tmp_path_factory.mktemp("front")
    wait_until_free((NODE_PORTS[0], NGINX_PORT), PORT_WAIT)
    node = LiveServer(folder / "node", env={**GENEROUS_LIMITS, "ARENA_PROXY_HOPS": "1"}, port=NODE_PORTS[0])
    nginx = Nginx(folder / "nginx", NGINX_SINGLE_CONF)
    try:
        node.start()
        nginx.start()
        yield nginx.url
    finally:
        nginx.stop()
        node.stop()


def assert_refused_by_nginx(answer: requests.Response) -> None:
    assert answer.status_code == 429
    assert answer.json() == {"error": "rate_limited", "message": "too many requests from this address; retry later"}
    assert int(answer.headers["Retry-After"]) > 0


def refill() -> None:
    """Wait until the handshake bucket is full again."""
    time.sleep(HANDSHAKE_BURST / 5 + 1)


def test_a_game_plays_through_nginx(front: str) -> None:
    created = requests.post(front + "/api/games", json=FRIEND, timeout=10).json()
    game_id = created["id"]
    taken = requests.post(f"{front}/api/games/{game_id}/seats", json={"invite": created["invite"]}, timeout=10).json()
    watcher = EventClient(front)
    player = EventClient(front, taken["token"])
    try:
        for client in (watcher, player):
            client.emit("join", {"game_id": game_id})
            client.wait_for("state")
        answer = requests.post(f"{front}/api/games/{game_id}/moves", json={"move": "5", "token": created["token"]},
                               timeout=10)
        assert answer.status_code == 200 and answer.json()["moves"] == ["5"]
        player.emit("move", {"game_id": game_id, "move": "1"})
        assert watcher.wait_for("moved", lambda moved: moved["ply"] == 2)["move"] == "1"
    finally:
        watcher.sio.disconnect()
        player.sio.disconnect()


def stored_games(tmp_path_factory: pytest.TempPathFactory) -> int:
    database = next(tmp_path_factory.getbasetemp().glob("front*/node/arena.sqlite3"))
    with contextlib.closing(sqlite3.connect(database)) as connection:
        return connection.execute("SELECT COUNT(*) FROM games").fetchone()[0]


def test_a_flood_of_creations_is_refused_by_nginx_and_creates_nothing(
        front: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    before = stored_games(tmp_path_factory)
    answers = [requests.post(front + "/api/games", json=FRIEND, timeout=10) for _ in range(100)]
    created = [answer for answer in answers if answer.status_code == 201]
    refused = [answer for answer in answers if answer.status_code != 201]
    assert 60 <= len(created) <= 70 and refused
    for answer in refused:
        assert_refused_by_nginx(answer)
    assert stored_games(tmp_path_factory) == before + len(created)
    assert requests.get(front + "/api/health", timeout=10).status_code == 200


def test_a_flood_of_socket_handshakes_is_refused(front: str) -> None:
    refill()
    answers = [requests.get(front + "/socket.io/", params={"EIO": "4", "transport": "polling"}, timeout=10)
               for _ in range(60)]
    statuses = [answer.status_code for answer in answers]
    assert HANDSHAKE_BURST <= statuses.count(200) <= HANDSHAKE_BURST + 5, statuses
    for answer in answers:
        if answer.status_code != 200:
            assert_refused_by_nginx(answer)


def test_at_most_twenty_websockets_per_address(front: str) -> None:
    refill()
    url = f"ws://127.0.0.1:{NGINX_PORT}/socket.io/?EIO=4&transport=websocket"
    sockets = [websocket.create_connection(url, timeout=10) for _ in range(CONNECTIONS)]
    try:
        with pytest.raises(websocket.WebSocketBadStatusException) as refused:
            websocket.create_connection(url, timeout=10)
        assert refused.value.status_code == 429
        sockets.pop().close()
        time.sleep(1)
        sockets.append(websocket.create_connection(url, timeout=10))
    finally:
        for sock in sockets:
            sock.close()
