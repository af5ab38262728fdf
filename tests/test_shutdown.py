"""SIGTERM to a node with open WebSockets and running searches: it stops by itself, long before gunicorn's graceful
timeout (60 s here), every time, leaves no process behind, and the engine turn it interrupted is played after the
restart; a client that stopped reading does not hold it until that timeout either. How fast it stops (under a second
on a quiet machine) is measured by ``bench/shutdown.py``, not here: a loaded machine must not fail the suite."""

from __future__ import annotations

import os
import signal
import socket
import subprocess

import pytest
import websocket
from support.servers import EventClient, LiveServer
from support.services import alive, descendants
from support.waiting import eventually

pytestmark = pytest.mark.servers

TRIES = 3
GRACEFUL_TIMEOUT = 60
"""gunicorn's graceful timeout for these nodes: a node still up after half of it has waited for its connections."""
WATCHERS = 8
LONG_ENGINE = {"type": "engine", "time": 60, "algorithm": "minimax"}


def stops_by_itself(server: LiveServer) -> None:
    """Wait for the signalled node to exit; fail if it is still up after half its graceful timeout (it waited for
    its connections instead of closing them)."""
    assert server.process is not None
    try:
        server.process.wait(timeout=GRACEFUL_TIMEOUT / 2)
    except subprocess.TimeoutExpired:
        raise AssertionError("the node waited for its connections instead of closing them") from None


def thinking(server: LiveServer, game_id: str, timeout: float = 30) -> None:
    eventually(lambda: server.get(f"/api/games/{game_id}").json()["search_state"] == "thinking",
               "the engine's search", timeout)


def test_sigterm_stops_a_busy_node_by_itself_every_time(tmp_path):
    instance = tmp_path / "instance"
    game_id = None
    for _ in range(TRIES):
        server = LiveServer(instance, graceful_timeout=GRACEFUL_TIMEOUT).start()
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
            os.kill(server.process.pid, signal.SIGTERM)
            stops_by_itself(server)
            eventually(lambda node=node: not any(alive(pid) for pid in node), "the end of every process of the node",
                       interval=0.02)
        finally:
            for client in clients:
                client.close()
            server.kill()

    server = LiveServer(instance, env={"ARENA_WORKERS": "2"}).start()
    try:
        thinking(server, game_id)  # the interrupted turn is searched again
        short = server.post("/api/games", {"game": "tictactoe", "opponent": {"type": "engine", "level": 2},
                                           "side": 1}).json()["id"]
        eventually(lambda: server.get(f"/api/games/{short}").json()["ply"] > 0, "the engine's move after the restarts")
    finally:
        server.stop()


def test_a_client_that_stops_reading_does_not_hold_the_stop(tmp_path):
    """A WebSocket whose client reads nothing while the server sends it game states: its writer thread blocks in a
    send, and before the stopping worker cut its socket the node stayed up until gunicorn's graceful timeout (here
    60 s, the 30 s default in the README's command)."""
    server = LiveServer(tmp_path / "instance", env={"ARENA_EVENT_RATE": "10000", "ARENA_EVENT_BURST": "100000"},
                        graceful_timeout=GRACEFUL_TIMEOUT).start()
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
        stops_by_itself(server)
    finally:
        server.kill()
