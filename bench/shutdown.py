"""How long a node takes to stop on SIGTERM while it serves open WebSockets and its engine workers search.

    .venv/bin/python -m bench.shutdown [--tries 20] [--watchers 20] [--searches 1] [--silent 0]

Each try starts ``gunicorn -w 1 "webapp:create_app()"`` (``ARENA_WORKERS=2``) on one instance folder,
connects ``--watchers`` Socket.IO clients to a game, waits until ``--searches`` long engine searches run (Nim,
minimax, 60 s), sends SIGTERM to the gunicorn master only (as ``kill PID`` or a process manager would), and times
until the master has exited. It then checks that no process of the node is left (engine workers included) and
prints the distribution. The games stay in the folder; each restart resumes their engine turns. ``--silent``
WebSockets stop reading first: each asks for the game's state 3,000 times and reads none of the answers, so the
server's sends to it block (gunicorn runs with its default graceful timeout, 30 s, as the README's command does).
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import tempfile
import time
from pathlib import Path

import websocket

from tests.support.servers import GENEROUS_CONNECTIONS, EventClient, LiveServer
from tests.support.services import alive, descendants

LONG_ENGINE = {"type": "engine", "time": 60, "algorithm": "minimax"}


def searches_running(server: LiveServer, game_ids: list[str], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while any(server.get(f"/api/games/{g}").json()["search_state"] != "thinking" for g in game_ids):
        if time.monotonic() > deadline:
            raise RuntimeError("the engine searches did not start")
        time.sleep(0.05)


def stop_reading(server: LiveServer, game_id: str) -> websocket.WebSocket:
    """A WebSocket that asks for ``game_id``'s state 3,000 times and reads none of the answers."""
    silent = websocket.WebSocket(sockopt=[(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)])
    silent.connect(f"ws://127.0.0.1:{server.port}/socket.io/?EIO=4&transport=websocket", timeout=10)
    silent.recv()
    silent.send("40")
    silent.recv()
    for _ in range(3000):
        silent.send(f'42["join",{{"game_id":"{game_id}"}}]')
    return silent


def stop_once(server: LiveServer) -> tuple[float, set[int]]:
    """SIGTERM to the master; seconds until it exited, and the node's processes still alive then."""
    assert server.process is not None
    master = server.process.pid
    node = descendants(master)
    started = time.perf_counter()
    os.kill(master, signal.SIGTERM)
    server.process.wait(timeout=60)
    took = time.perf_counter() - started
    time.sleep(0.2)
    return took, {pid for pid in node if alive(pid)}


def run(tries: int, watchers: int, searches: int, silent: int) -> list[float]:
    """The stop times of ``tries`` runs, in seconds."""
    times: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        instance = Path(folder) / "instance"
        game_ids: list[str] = []
        for attempt in range(1, tries + 1):
            server = LiveServer(instance, env={"ARENA_WORKERS": str(searches), "ARENA_EVENT_RATE": "10000",
                                               "ARENA_EVENT_BURST": "100000", **GENEROUS_CONNECTIONS},
                                graceful_timeout=30).start()
            clients: list[EventClient] = []
            silent_sockets: list[websocket.WebSocket] = []
            try:
                if not game_ids:
                    for _ in range(searches):
                        created = server.post("/api/games", {"game": "nim", "options": {"piles": [9, 9, 9, 9]},
                                                              "opponent": LONG_ENGINE, "side": 1}).json()
                        game_ids.append(created["id"])
                searches_running(server, game_ids)
                for _ in range(watchers):
                    client = EventClient(server.url)
                    client.emit("join", {"game_id": game_ids[0]})
                    clients.append(client)
                for client in clients:
                    client.wait_for("state")
                silent_sockets = [stop_reading(server, game_ids[0]) for _ in range(silent)]
                took, left = stop_once(server)
            finally:
                for client in clients:
                    client.close()
                for sock in silent_sockets:
                    sock.close()
                server.kill()
            times.append(took)
            print(f"try {attempt:2d}: stopped in {took * 1000:7.1f} ms; processes left: {sorted(left) or 'none'}",
                  flush=True)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tries", type=int, default=20)
    parser.add_argument("--watchers", type=int, default=20)
    parser.add_argument("--searches", type=int, default=1)
    parser.add_argument("--silent", type=int, default=0)
    args = parser.parse_args()
    times = sorted(t * 1000 for t in run(args.tries, args.watchers, args.searches, args.silent))
    p95 = times[min(len(times) - 1, round(0.95 * len(times)) - 1)]
    print(f"SIGTERM -> exit over {len(times)} tries: min {times[0]:.1f} ms, median {statistics.median(times):.1f} ms, "
          f"p95 {p95:.1f} ms, max {times[-1]:.1f} ms")


if __name__ == "__main__":
    main()
