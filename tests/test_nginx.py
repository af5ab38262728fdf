"""The single-node deployment through real nginx (deploy/nginx-single.conf as committed, with deploy/arena.conf) in
front of a real gunicorn: a normal game plays over HTTP and Socket.IO, and the per-address first wall answers 429
with the app's JSON error and ``Retry-After`` on game creations, Socket.IO handshakes and open WebSockets beyond
its limits, having passed nothing on to the app."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import sqlite3
import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests
import requests.adapters
import websocket
from support.servers import GENEROUS_CONNECTIONS, EventClient, LiveServer
from support.services import NGINX_SINGLE_CONF, Nginx

pytestmark = pytest.mark.servers

FRIEND = {"game": "tictactoe", "opponent": {"type": "friend"}}
HANDSHAKE_BURST = 20
CONNECTIONS = 20
"""deploy/arena.conf: handshakes a burst of 20 then 1 a second; 20 open /socket.io/ connections per address."""


@pytest.fixture(scope="module")
def front(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """gunicorn (its own limits out of the way, to meet nginx's; SQLite in ``front/node``) behind nginx, both on
    free ports; nginx's URL."""
    folder = tmp_path_factory.mktemp("front")
    node = LiveServer(folder / "node", env={**GENEROUS_CONNECTIONS, "ARENA_PROXY_HOPS": "1"})
    nginx = Nginx(folder / "nginx", NGINX_SINGLE_CONF, node_ports=(node.port,))
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
    assert answer.headers["X-Frame-Options"] == "DENY" and answer.headers["X-Content-Type-Options"] == "nosniff"
    assert "frame-ancestors 'none'" in answer.headers["Content-Security-Policy"]


def port_of(front: str) -> int:
    """The port of nginx's URL ``front``."""
    return int(front.rsplit(":", 1)[1])


def connected_from(front: str, address: str) -> socket.socket:
    """A TCP connection to nginx at ``front`` from source ``address`` (Linux routes all of 127/8 to lo): each test
    that spends an address's handshakes or creations has an address of its own."""
    return socket.create_connection(("127.0.0.1", port_of(front)), timeout=10, source_address=(address, 0))


def polling_handshake(front: str, address: str) -> tuple[int, bytes, str | None]:
    """A Socket.IO polling handshake to nginx at ``front`` from ``address``: status, body and ``Retry-After``."""
    connection = http.client.HTTPConnection("127.0.0.1", port_of(front), timeout=10)
    connection.sock = connected_from(front, address)
    try:
        connection.request("GET", "/socket.io/?EIO=4&transport=polling")
        answer = connection.getresponse()
        return answer.status, answer.read(), answer.getheader("Retry-After")
    finally:
        connection.close()


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


class FromAddress(requests.adapters.HTTPAdapter):
    """A ``requests`` transport whose connections leave from ``address`` (see ``connected_from``)."""

    def __init__(self, address: str) -> None:
        self.address = address
        super().__init__()

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs, source_address=(self.address, 0))


def test_a_flood_of_creations_is_refused_by_nginx_and_creates_nothing(
        front: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    before = stored_games(tmp_path_factory)
    with requests.Session() as flooder:
        flooder.mount("http://", FromAddress("127.0.0.2"))
        answers = [flooder.post(front + "/api/games", json=FRIEND, timeout=10) for _ in range(100)]
    created = [answer for answer in answers if answer.status_code == 201]
    refused = [answer for answer in answers if answer.status_code != 201]
    assert 60 <= len(created) <= 70 and refused
    for answer in refused:
        assert_refused_by_nginx(answer)
    assert stored_games(tmp_path_factory) == before + len(created)
    assert requests.get(front + "/api/health", timeout=10).status_code == 200


def test_a_flood_of_socket_handshakes_is_refused(front: str) -> None:
    answers = [polling_handshake(front, "127.0.0.3") for _ in range(60)]
    statuses = [status for status, _, _ in answers]
    assert HANDSHAKE_BURST <= statuses.count(200) <= HANDSHAKE_BURST + 3, statuses
    for status, body, retry_after in answers:
        if status != 200:
            assert status == 429 and retry_after is not None and int(retry_after) > 0
            assert json.loads(body) == {"error": "rate_limited",
                                        "message": "too many requests from this address; retry later"}
    assert polling_handshake(front, "127.0.0.5")[0] == 200  # another address is not concerned


def test_at_most_twenty_websockets_per_address(front: str) -> None:
    url = f"ws://127.0.0.1:{port_of(front)}/socket.io/?EIO=4&transport=websocket"

    def open_websocket() -> websocket.WebSocket:
        return websocket.create_connection(url, timeout=10, socket=connected_from(front, "127.0.0.4"))

    sockets = [open_websocket() for _ in range(CONNECTIONS)]
    try:
        with pytest.raises(websocket.WebSocketBadStatusException) as refused:
            open_websocket()
        assert refused.value.status_code == 429
        sockets.pop().close()
        time.sleep(1.5)  # nginx notices the close, and the handshake bucket gets one back
        sockets.append(open_websocket())
    finally:
        for sock in sockets:
            sock.close()


def test_a_forwarded_host_from_the_client_is_not_believed(front: str) -> None:
    """nginx sets ``X-Forwarded-Host`` itself, so a foreign ``Origin`` cannot pass the app's same-origin check by
    sending a matching ``X-Forwarded-Host`` (from an address of its own, whose creations nginx has not counted)."""

    def create(origin: str) -> tuple[int, dict]:
        connection = http.client.HTTPConnection("127.0.0.1", port_of(front), timeout=10,
                                                source_address=("127.0.0.6", 0))
        try:
            connection.request("POST", "/api/games", body=json.dumps(FRIEND), headers={
                "Content-Type": "application/json", "Origin": origin, "X-Forwarded-Host": "evil.example"})
            answer = connection.getresponse()
            return answer.status, json.loads(answer.read())
        finally:
            connection.close()

    status, body = create("http://evil.example")
    assert (status, body["error"]) == (403, "cross_origin")
    status, body = create(front)
    assert status == 201, body


def test_a_stepped_search_comes_gzipped_and_other_answers_do_not(front: str) -> None:
    """The stepper's recordings, large and holding nothing of the caller's, are compressed; an answer that may carry
    a seat token is not (a compressed secret beside attacker-chosen text leaks through its length)."""
    steps = requests.get(f"{front}/api/steps/tictactoe?moves=5&depth=4", headers={"Accept-Encoding": "gzip"},
                         timeout=100)
    assert steps.status_code == 200
    assert steps.headers["Content-Encoding"] == "gzip"
    assert steps.json()["record"]["nodes"] == steps.json()["search"]["nodes"]
    created = requests.post(f"{front}/api/games", json=FRIEND, headers={"Accept-Encoding": "gzip", "Origin": front},
                            timeout=10)
    assert created.status_code == 201
    assert "Content-Encoding" not in created.headers
