"""The WebSockets held by the node's event loop (``webapp.transport.loop_websockets``), over real sockets to a real
gunicorn: frames in pieces make one packet, WebSocket pings and closing frames are answered, a client that ends its
connection leaves the game's watchers, an oversized message closes the connection, and an upgrade from long polling
still works (Engine.IO's own WebSocket)."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import Callable
from typing import Any

import pytest
import socketio
import websocket
from support.long_games import long_game
from support.servers import GENEROUS_CONNECTIONS, WEBSOCKET_UPGRADE, LiveServer, masked_frame
from support.waiting import eventually

from webapp.config import MAX_BODY_BYTES
from webapp.transport.loop_websockets import UNSENT_LIMIT

pytestmark = pytest.mark.servers


def connected(server: LiveServer) -> websocket.WebSocket:
    """A WebSocket opened directly to the Engine.IO endpoint, joined to the Socket.IO namespace."""
    ws = websocket.create_connection(f"ws://127.0.0.1:{server.port}/socket.io/?EIO=4&transport=websocket",
                                     timeout=10)
    assert str(ws.recv()).startswith("0{")
    ws.send("40")
    assert str(ws.recv()).startswith("40{")
    return ws


def next_event(ws: websocket.WebSocket, name: str, predicate: Callable[[Any], bool] = lambda _: True) -> Any:
    """The data of the next Socket.IO event ``name`` on ``ws`` for which ``predicate`` holds (Engine.IO pings
    answered, other events skipped)."""
    while True:
        frame = str(ws.recv())
        if frame == "2":
            ws.send("3")
        elif frame.startswith("42"):
            event, data = json.loads(frame[2:])
            if event == name and predicate(data):
                return data


def friend_game(server: LiveServer) -> str:
    return server.post("/api/games", {"game": "tictactoe", "opponent": {"type": "friend"}}).json()["id"]


def test_a_message_sent_in_pieces_is_one_packet_and_websocket_pings_are_answered(module_server):
    game_id = friend_game(module_server)
    ws = connected(module_server)
    ws.ping(b"still there?")
    assert ws.recv_data_frame(control_frame=True)[1].data == b"still there?"  # the pong, with the ping's data
    packet = "42" + json.dumps(["join", {"game_id": game_id}])
    ws.send_frame(websocket.ABNF.create_frame(packet[:10], websocket.ABNF.OPCODE_TEXT, fin=0))
    ws.send_frame(websocket.ABNF.create_frame(packet[10:20], websocket.ABNF.OPCODE_CONT, fin=0))
    ws.send_frame(websocket.ABNF.create_frame(packet[20:], websocket.ABNF.OPCODE_CONT, fin=1))
    state = next_event(ws, "state")
    assert isinstance(state, dict) and state["id"] == game_id
    ws.close()


def test_a_client_that_closes_is_answered_and_leaves_the_games_watchers(module_server):
    game_id = friend_game(module_server)
    first, second = connected(module_server), connected(module_server)
    for ws in (first, second):
        ws.send("42" + json.dumps(["join", {"game_id": game_id}]))
        next_event(ws, "state")
    next_event(first, "watchers", lambda watchers: watchers["count"] == 2)
    second.send_close()
    while (answer := second.recv_data_frame(control_frame=True))[0] != websocket.ABNF.OPCODE_CLOSE:
        pass  # what was sent before the server read the close
    assert answer[1].data[:2] == (1000).to_bytes(2)  # the server's closing frame
    assert second.sock is not None and second.sock.recv(1) == b""  # and then the end of the connection
    assert next_event(first, "watchers") == {"game_id": game_id, "count": 1}
    first.close()


def test_a_message_over_the_size_limit_closes_the_connection_and_only_it(module_server):
    game_id = friend_game(module_server)
    other, ws = connected(module_server), connected(module_server)
    piece = "x" * 4096
    ws.send_frame(websocket.ABNF.create_frame("42" + piece, websocket.ABNF.OPCODE_TEXT, fin=0))
    with pytest.raises((websocket.WebSocketConnectionClosedException, ConnectionError)):
        for _ in range(MAX_BODY_BYTES // len(piece) + 1):
            ws.send_frame(websocket.ABNF.create_frame(piece, websocket.ABNF.OPCODE_CONT, fin=0))
        while ws.recv_data_frame(control_frame=True)[0] != websocket.ABNF.OPCODE_CLOSE:
            pass
        ws.recv()
    other.send("42" + json.dumps(["join", {"game_id": game_id}]))
    assert next_event(other, "state")["id"] == game_id
    other.close()


def test_an_upgrade_from_long_polling_still_carries_events(module_server):
    game_id = friend_game(module_server)
    client = socketio.Client(reconnection=False)
    states: list[dict] = []
    client.on("state", states.append)
    client.connect(module_server.url, transports=["polling", "websocket"], wait_timeout=10)
    try:
        client.sleep(0.5)  # the upgrade's probe and switch
        assert client.transport() == "websocket"
        client.emit("join", {"game_id": game_id})
        for _ in range(100):
            if states:
                break
            client.sleep(0.1)
        assert states and states[0]["id"] == game_id
    finally:
        client.disconnect()


def test_a_client_that_does_not_read_is_disconnected_once_too_much_waits_for_it(tmp_path):
    env = {**GENEROUS_CONNECTIONS, "ARENA_EVENT_RATE": "10000", "ARENA_EVENT_BURST": "100000"}
    server = LiveServer(tmp_path / "instance", env=env).start()
    try:
        setup = "startpos moves " + " ".join(long_game(2000, seed=1))
        body = {"game": "chess", "setup": setup, "opponent": {"type": "friend"}}
        game_id = server.post("/api/games", body).json()["id"]
        state_size = len(server.get(f"/api/games/{game_id}").content)
        observer = connected(server)
        observer.send("42" + json.dumps(["join", {"game_id": game_id}]))
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # the client's system takes little
        sock.connect(("127.0.0.1", server.port))
        sock.sendall(WEBSOCKET_UPGRADE.format(host=f"127.0.0.1:{server.port}").encode())
        assert sock.recv(4096).startswith(b"HTTP/1.1 101")  # frames only after the answer, as RFC 6455 says
        sock.sendall(masked_frame(0x1, b"40"))
        joins = 2 * (UNSENT_LIMIT + 8 * 1024 * 1024) // state_size  # past the limit and any system's buffers
        join = masked_frame(0x1, ("42" + json.dumps(["join", {"game_id": game_id}])).encode())
        sock.sendall(join * joins)  # and read nothing while the server answers each with the game's state
        eventually(lambda: "the client does not read, closing connection" in server.log.read_text(),
                   "the silent client's disconnection")
        sock.settimeout(10)
        received = 0
        with contextlib.suppress(ConnectionResetError):  # cut off: what it had not read yet may be dropped
            while chunk := sock.recv(1 << 20):
                received += len(chunk)
        assert received < joins * state_size / 2  # ended long before everything was sent
        observer.send("42" + json.dumps(["join", {"game_id": game_id}]))
        assert next_event(observer, "state")["id"] == game_id  # everybody else is served as before
        observer.close()
    finally:
        server.stop()


def silent_watcher(server: LiveServer, game_id: str) -> socket.socket:
    """A raw WebSocket that joins ``game_id`` and then reads nothing and answers no ping (its system takes
    little)."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", server.port))
    sock.sendall(WEBSOCKET_UPGRADE.format(host=f"127.0.0.1:{server.port}").encode())
    assert sock.recv(4096).startswith(b"HTTP/1.1 101")
    sock.sendall(masked_frame(0x1, b"40") + masked_frame(0x1, ("42" + json.dumps(["join", {"game_id": game_id}]))
                                                         .encode()))
    return sock


def test_clients_that_stop_answering_pings_are_closed_within_the_ping_timeout_even_together_in_one_room(tmp_path):
    """Twenty watchers of a long game go silent together (as a crowd of dead clients would), with the game's state
    unsent to each: each is closed once Engine.IO's ping interval and timeout (25 + 20 s) have passed, and their
    leaving (a watcher count sent to a room of dying connections) stops neither the pings of the others nor the
    closing of a client that goes silent afterwards."""
    server = LiveServer(tmp_path / "instance", env=GENEROUS_CONNECTIONS).start()
    try:
        setup = "startpos moves " + " ".join(long_game(2000, seed=1))
        long_id = server.post("/api/games", {"game": "chess", "setup": setup, "opponent": {"type": "friend"}})
        game_id = long_id.json()["id"]
        with contextlib.ExitStack() as closing:
            for _ in range(20):
                closing.callback(silent_watcher(server, game_id).close)
            eventually(lambda: server.get(f"/api/games/{game_id}").json()["watchers"] == 20, "twenty watchers")
            late = connected(server)  # answers pings while the others die, then goes silent too
            closing.callback(late.close)
            late.send("42" + json.dumps(["join", {"game_id": game_id}]))
            next_event(late, "state")
            answering = threading.Event()
            answering.set()

            def read_late() -> None:
                late.settimeout(None)
                with contextlib.suppress(websocket.WebSocketException, OSError):
                    while (frame := str(late.recv())) not in ("1", ""):
                        if frame == "2" and answering.is_set():
                            late.send("3")

            reader = threading.Thread(target=read_late, daemon=True)
            reader.start()
            eventually(lambda: server.get(f"/api/games/{game_id}").json()["watchers"] == 1, "the silent closed",
                       timeout=75)
            answering.clear()
            eventually(lambda: server.get(f"/api/games/{game_id}").json()["watchers"] == 0, "the late one closed",
                       timeout=75)
            reader.join(timeout=10)
            assert not reader.is_alive()  # the server ended its connection
    finally:
        server.stop()
