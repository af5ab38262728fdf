"""What a crowd leaving at once costs a node: ``--watchers`` WebSockets join one game, then all close together,
while ``GET /api/health`` is asked every 20 ms.

    .venv/bin/python -m bench.crowd_leaves [--watchers 4000] [--runs 3]

Printed per run: how long until the game's watcher count reached 0, and the health checks' p50, p99 and longest
wait during the leaving (from 0.5 s before it until 0.5 s after).
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import tempfile
import threading
import time
from pathlib import Path

import requests

from bench.web_latency import percentile
from tests.support.servers import GENEROUS_CONNECTIONS, WEBSOCKET_UPGRADE, LiveServer, masked_frame


def watcher(port: int, game_id: str) -> socket.socket:
    """A raw WebSocket in the Socket.IO namespace that has joined ``game_id``."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(WEBSOCKET_UPGRADE.format(host=f"127.0.0.1:{port}").encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += sock.recv(4096)
    sock.sendall(masked_frame(0x1, b"40")
                 + masked_frame(0x1, ("42" + json.dumps(["join", {"game_id": game_id}])).encode()))
    return sock


def run(watchers: int) -> tuple[float, list[float]]:
    """One run: seconds until every watcher had left, and each health check's seconds."""
    with tempfile.TemporaryDirectory() as folder:
        server = LiveServer(Path(folder) / "node", env=GENEROUS_CONNECTIONS).start()
        try:
            game_id = server.post("/api/games", {"game": "tictactoe", "opponent": {"type": "friend"}}).json()["id"]
            crowd = [watcher(server.port, game_id) for _ in range(watchers)]

            def count() -> int:
                return int(requests.get(f"{server.url}/api/games/{game_id}", timeout=30).json()["watchers"])

            while count() < watchers:
                time.sleep(0.2)
            times: list[float] = []
            stop = threading.Event()

            def probe() -> None:
                with requests.Session() as session:
                    while not stop.is_set():
                        started = time.perf_counter()
                        session.get(server.url + "/api/health", timeout=30)
                        times.append(time.perf_counter() - started)
                        stop.wait(0.02)

            prober = threading.Thread(target=probe)
            prober.start()
            time.sleep(0.5)
            started = time.perf_counter()
            for sock in crowd:
                sock.close()
            while count():
                time.sleep(0.05)
            left = time.perf_counter() - started
            time.sleep(0.5)
            stop.set()
            prober.join()
            return left, times
        finally:
            server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--watchers", type=int, default=4000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    for number in range(1, args.runs + 1):
        left, times = run(args.watchers)
        print(f"run {number}: {args.watchers} watchers left in {left:.2f} s; /api/health meanwhile (n={len(times)}): "
              f"p50 {statistics.median(times) * 1000:.1f} ms, p99 {percentile(times, 0.99) * 1000:.1f} ms, "
              f"longest {max(times) * 1000:.1f} ms", flush=True)


if __name__ == "__main__":
    main()
