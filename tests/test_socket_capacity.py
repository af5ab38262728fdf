"""What open connections cost a real gunicorn node (gunicorn.conf.py's gevent worker): idle WebSockets and clients
slow to send a request, more than any thread pool would hold, and a client sending without pause (on a WebSocket or
as HTTP requests back to back) leave HTTP requests and moves answering; past ``ARENA_MAX_SOCKETS`` a new Socket.IO
connection is refused with ``503 server_full`` and HTTP still answers."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
from collections.abc import Iterator

import pytest
import requests
from support.servers import GENEROUS_CONNECTIONS, LiveServer, flooding, masked_frame, open_websocket
from support.waiting import eventually

pytestmark = pytest.mark.servers

ANSWER_TIMEOUT = 10.0
"""Seconds a request may take before the test counts it as not answered (a failure, not a latency bound)."""


@contextlib.contextmanager
def held(sockets: list[socket.socket]) -> Iterator[list[socket.socket]]:
    try:
        yield sockets
    finally:
        for sock in sockets:
            sock.close()


def health_and_a_move_answer(server: LiveServer, game_id: str, token: str) -> None:
    """``GET /api/health`` answers 200, and the move "1:1" of ``token``'s seat in ``game_id`` is played."""
    assert requests.get(server.url + "/api/health", timeout=ANSWER_TIMEOUT).status_code == 200
    moved = requests.post(f"{server.url}/api/games/{game_id}/moves", json={"move": "1:1", "token": token},
                          timeout=ANSWER_TIMEOUT)
    assert moved.status_code == 200, moved.text


def friend_nim_game(server: LiveServer) -> tuple[str, str]:
    """A Nim game between two people, both seats taken: its id and the first mover's token."""
    created = server.post("/api/games", {"game": "nim", "options": {"piles": [50, 50]},
                                         "opponent": {"type": "friend"}, "side": 0}).json()
    requests.post(f"{server.url}/api/games/{created['id']}/seats", json={"invite": created["invite"]},
                  timeout=ANSWER_TIMEOUT).raise_for_status()
    return created["id"], created["token"]


def open_websockets(server: LiveServer, count: int, sockets: list[socket.socket]) -> None:
    """Open ``count`` WebSockets to ``server``, each accepted, into ``sockets``."""
    for _ in range(count):
        sock, answer = open_websocket(server.port, ANSWER_TIMEOUT)
        sockets.append(sock)
        assert answer.startswith(b"HTTP/1.1 101"), answer


def one_closes_and_another_is_accepted(server: LiveServer, sockets: list[socket.socket]) -> None:
    """Close the first of ``sockets``; a new WebSocket is then accepted (once the server has seen the close)."""
    sockets.pop(0).close()

    def accepted() -> bool:
        sock, answer = open_websocket(server.port, ANSWER_TIMEOUT)
        sockets.append(sock)
        return answer.startswith(b"HTTP/1.1 101")

    eventually(accepted, "a connection accepted once one of those held closed")


def test_idle_websockets_and_slow_clients_beyond_any_thread_pool_leave_requests_and_moves_answering(tmp_path):
    server = LiveServer(tmp_path / "instance", env=GENEROUS_CONNECTIONS).start()
    try:
        game_id, token = friend_nim_game(server)
        with held([]) as sockets:
            open_websockets(server, 300, sockets)
            for _ in range(50):
                slow = socket.create_connection(("127.0.0.1", server.port))
                slow.sendall(b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                             b"Content-Length: 1000\r\n\r\n{")
                sockets.append(slow)
            for _ in range(5):
                assert requests.get(server.url + "/api/health", timeout=ANSWER_TIMEOUT).status_code == 200
            moved = requests.post(f"{server.url}/api/games/{game_id}/moves", json={"move": "1:1", "token": token},
                                  timeout=ANSWER_TIMEOUT)
            assert moved.status_code == 200, moved.text
            assert moved.json()["moves"] == ["1:1"]
    finally:
        server.stop()


def test_past_the_socket_cap_a_new_connection_is_refused_with_server_full_and_http_still_answers(tmp_path):
    server = LiveServer(tmp_path / "instance", env={**GENEROUS_CONNECTIONS, "ARENA_MAX_SOCKETS": "5"}).start()
    try:
        with held([]) as sockets:
            open_websockets(server, 5, sockets)
            refused, answer = open_websocket(server.port, ANSWER_TIMEOUT)
            sockets.append(refused)
            head, _, body = answer.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 503"), answer
            assert b"Retry-After: 30" in head
            while len(body) < int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0]):
                chunk = refused.recv(4096)
                assert chunk, body
                body += chunk
            assert json.loads(body)["error"] == "server_full"
            polling = requests.get(server.url + "/socket.io/?EIO=4&transport=polling", timeout=ANSWER_TIMEOUT)
            assert polling.status_code == 503 and polling.json()["error"] == "server_full"
            assert requests.get(server.url + "/api/health", timeout=ANSWER_TIMEOUT).status_code == 200
            one_closes_and_another_is_accepted(server, sockets)
    finally:
        server.stop()


def test_a_client_that_does_not_finish_its_request_head_is_disconnected(live_server):
    slow = socket.create_connection(("127.0.0.1", live_server.port), timeout=30)
    with contextlib.closing(slow):
        slow.sendall(b"GET /api/health HTTP/1.1\r\n")
        assert slow.recv(4096) == b""


def test_a_websocket_client_sending_without_pause_leaves_requests_and_moves_answering(live_server):
    """Empty Engine.IO packets cost no event of the client's rate limit, so nothing cuts the client off: its reads are
    paced instead (``webapp.transport.paced_reads``), and the node answers others while it goes on sending."""
    game_id, token = friend_nim_game(live_server)
    sock, answer = open_websocket(live_server.port, ANSWER_TIMEOUT)
    assert answer.startswith(b"HTTP/1.1 101"), answer
    with flooding(sock, masked_frame(0x1, b"6") * 1000) as flood:  # Engine.IO's empty packet
        health_and_a_move_answer(live_server, game_id, token)
        assert flood.sender.is_alive()  # the answers came while the flood went on


def test_a_client_sending_requests_back_to_back_leaves_others_answering(live_server):
    """One kept-alive connection sending requests without pause (and reading the answers) gets its turns, no more."""
    game_id, token = friend_nim_game(live_server)
    sock = socket.create_connection(("127.0.0.1", live_server.port))
    with flooding(sock, b"GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n" * 100) as flood:
        health_and_a_move_answer(live_server, game_id, token)
        assert flood.sender.is_alive()  # the answers came while the flood went on


def read_answer(sock: socket.socket) -> tuple[bytes, bytes]:
    """The head and the body of the HTTP answer on ``sock``, once the server has sent it all and closed."""
    answer = b""
    while chunk := sock.recv(4096):
        answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return head, body


def test_a_body_that_does_not_arrive_gets_408_within_ten_seconds_and_the_connection_closes(live_server):
    game_id, token = friend_nim_game(live_server)
    slow = socket.create_connection(("127.0.0.1", live_server.port), timeout=30)
    with contextlib.closing(slow):
        slow.sendall(f"POST /api/games/{game_id}/moves HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     "Content-Length: 200\r\n\r\n".encode() + json.dumps({"move": "1:1", "token": token})[:20].encode())
        head, body = read_answer(slow)  # the server closes the connection after its answer
    assert head.startswith(b"HTTP/1.1 408"), head
    assert json.loads(body)["error"] == "request_timeout"
    assert requests.get(f"{live_server.url}/api/games/{game_id}", timeout=ANSWER_TIMEOUT).json()["moves"] == []


def test_an_address_directly_connected_has_at_most_64_connections_and_others_are_served(live_server):
    with held([]) as sockets:
        for _ in range(64):
            slow = socket.create_connection(("127.0.0.1", live_server.port), timeout=30)
            slow.sendall(b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 1000\r\n\r\n{")
            sockets.append(slow)

        def refused() -> bool:
            return requests.get(live_server.url + "/api/health", timeout=ANSWER_TIMEOUT).status_code == 429

        eventually(refused, "the 65th connection refused")
        answer = requests.get(live_server.url + "/api/health", timeout=ANSWER_TIMEOUT)
        assert answer.json()["error"] == "rate_limited" and answer.headers["Retry-After"] == "1"
        other = socket.create_connection(("127.0.0.1", live_server.port), timeout=ANSWER_TIMEOUT,
                                         source_address=("127.0.0.2", 0))
        with contextlib.closing(other):
            other.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            head, _ = read_answer(other)
        assert head.startswith(b"HTTP/1.1 200"), head
        for sock in sockets:
            head, _ = read_answer(sock)  # each body's time runs out
            assert head.startswith(b"HTTP/1.1 408"), head
    assert requests.get(live_server.url + "/api/health", timeout=ANSWER_TIMEOUT).status_code == 200


def test_an_address_holds_at_most_its_share_of_socket_connections(tmp_path):
    server = LiveServer(tmp_path / "instance", env={**GENEROUS_CONNECTIONS, "ARENA_SOCKETS_PER_ADDRESS": "3"}).start()
    try:
        with held([]) as sockets:
            open_websockets(server, 3, sockets)
            polling = requests.get(server.url + "/socket.io/?EIO=4&transport=polling", timeout=ANSWER_TIMEOUT)
            assert polling.status_code == 429 and polling.json()["error"] == "rate_limited"
            assert polling.headers["Retry-After"] == "30"
            other = http.client.HTTPConnection("127.0.0.1", server.port, timeout=ANSWER_TIMEOUT,
                                               source_address=("127.0.0.2", 0))
            with contextlib.closing(other):
                other.request("GET", "/socket.io/?EIO=4&transport=polling")
                assert other.getresponse().status == 200  # another address has its own share
            one_closes_and_another_is_accepted(server, sockets)
    finally:
        server.stop()
