"""SIGTERM to a node with open WebSockets and running searches: it is gone within 2 s every time, leaves no process
behind, and the engine turn it interrupted is played after the restart; a client that stopped reading does not hold
it until gunicorn's graceful timeout."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time

import websocket
from servers import EventClient, LiveServer
from services import alive, descendants

TRIES = 20
STOP_LIMIT = 2.0
WATCHERS = 8
LONG_ENGINE = {"type": "engine", "time": 60, "algorithm": "minimax"}


def thinking(server: LiveServer, game_id: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while server.get(f"/api/games/{game_id}").json()["search_state"] != "thinking":
        assert time.monotonic() < deadline, "the engine did not start searching"
        time.sleep(0.05)


def test_sigterm_stops_a_busy_node_within_two_seconds_every_time(tmp_path):
    instance = tmp_path / "instance"
    game_id = None
    stop_times = []
    for _ in range(TRIES):
        server = LiveServer(instance).start()
        clients: list[EventClient] = []
        try:
            if game_id is None:
                game_id = server.post("/api/games", {"game": "nim", "options": {"piles": [9, 9, 9, 9]},
                                                     "opponent": LONG_ENGINE, "side": 1}).json()["id"]
            thinking(server, game_id)  # started by this node itself on start-up, after the first try
            clients = [EventClient(server.url) for _ in range(WATCHERS)]
            for client in clients:
                client.emit("join", {"game_id": game_id})
            for client in clients:
                client.wait_for("state")
            assert server.process is not None
            node = descendants(server.process.pid)
            started = time.monotonic()
            os.kill(server.process.pid, signal.SIGTERM)
            server.process.wait(timeout=30)
            stop_times.append(time.monotonic() - started)
            deadline = time.monotonic() + 2
            while any(alive(pid) for pid in node) and time.monotonic() < deadline:
                time.sleep(0.02)
            assert not [pid for pid in node if alive(pid)], "processes of the node outlived it"
        finally:
            for client in clients:
                client.close()
            server.kill()
    assert max(stop_times) < STOP_LIMIT, [round(t, 2) for t in stop_times]

    server = LiveServer(instance, env={"ARENA_WORKERS": "2"}).start()
    try:
        thinking(server, game_id)  # the interrupted turn is searched again
        short = server.post("/api/games", {"game": "tictactoe", "opponent": {"type": "engine", "level": 2},
                                           "side": 1}).json()["id"]
        deadline = time.monotonic() + 30
        while server.get(f"/api/games/{short}").json()["ply"] == 0:
            assert time.monotonic() < deadline, "the engine did not move after the restarts"
            time.sleep(0.05)
    finally:
        server.stop()


def test_a_client_that_stops_reading_does_not_hold_the_stop(tmp_path):
    """A WebSocket whose client reads nothing while the server sends it game states: its writer thread blocks in a
    send, and before the stopping worker cut its socket the node stayed up until gunicorn's graceful timeout (here
    60 s, the 30 s default in the README's command)."""
    server = LiveServer(tmp_path / "instance", env={"ARENA_EVENT_RATE": "10000", "ARENA_EVENT_BURST": "100000"},
                        graceful_timeout=60).start()
    try:
        game_id = server.post("/api/games", {"game": "chess", "opponent": {"type": "friend"}, "side": 0}).json()["id"]
        silent = websocket.WebSocket(sockopt=[(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)])
        silent.connect(f"ws://127.0.0.1:{server.port}/socket.io/?EIO=4&transport=websocket", timeout=10)
        silent.recv()
        silent.send("40")
        silent.recv()
        for _ in range(3000):  # each join is answered with the game's state (3 KB), which the client never reads
            silent.send(f'42["join",{{"game_id":"{game_id}"}}]')
        assert server.process is not None
        os.kill(server.process.pid, signal.SIGTERM)
        try:
            server.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            raise AssertionError("the node waited for the client that stopped reading") from None
    finally:
        server.kill()
