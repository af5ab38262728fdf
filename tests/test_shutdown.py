"""SIGTERM to a node with open WebSockets and running searches: it is gone within 2 s every time, leaves no process
behind, and the engine turn it interrupted is played after the restart."""

from __future__ import annotations

import os
import signal
import time

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
