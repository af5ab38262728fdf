"""What one client sending as fast as it can on one connection costs everybody else, against a real gunicorn.

    .venv/bin/python -m bench.fast_senders [--seconds 8] [--runs 3] [--kinds noop binary pipelined]

Starts ``gunicorn -w 1 "webapp:create_app()"`` in a temporary folder, with the per-address limits set far above
what the measurement sends (``GENEROUS_CONNECTIONS``: every client shares the loopback address). For each kind of
sender, and a quiet run, one run lasts ``--seconds``: a thread sends without pause on one connection

- ``noop``: a WebSocket carrying Engine.IO's empty packet (7 bytes a frame), which is no event and so costs nothing of
  the client's event limit;
- ``binary``: a WebSocket carrying 1,000-byte binary frames, each refused as unreadable (the server cuts the client
  off after about ten);
- ``pipelined``: HTTP ``GET /api/health`` requests back to back on one kept-alive connection, its answers read and
  dropped;

while the main thread times ``GET /api/health`` every 50 ms on its own connection (20 s at most each: a request
that takes that long counts as timed out) and a human move in a Nim game between two people every 0.5 s. Prints,
per kind, the median over ``--runs`` of the health and move p50 / p99 / max (ms), the timeouts, the bytes the
sender got into its socket, and the gunicorn worker's CPU (seconds per second; nan when gunicorn killed the worker
for not reporting within its 30 s timeout).
"""

from __future__ import annotations

import argparse
import contextlib
import socket
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import requests

from bench.flood import cpu_seconds, percentile, server_worker_pid
from tests.support.servers import GENEROUS_CONNECTIONS, Flood, LiveServer, flooding, masked_frame, open_websocket

PROBE_INTERVAL = 0.05
MOVE_INTERVAL = 0.5
PROBE_TIMEOUT = 20.0
def open_sender(port: int, kind: str) -> tuple[socket.socket, bytes]:
    """The sender's connection, set up, and the chunk it sends again and again."""
    if kind == "pipelined":
        return socket.create_connection(("127.0.0.1", port)), b"GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n" * 100
    sock, answer = open_websocket(port)
    assert answer.startswith(b"HTTP/1.1 101"), answer
    if kind == "noop":
        return sock, masked_frame(0x1, b"6") * 1000
    return sock, masked_frame(0x2, bytes(1000)) * 10


@contextlib.contextmanager
def sending(port: int, kind: str | None) -> Iterator[Flood]:
    """Run the sender of ``kind`` (none for a quiet run) for the block."""
    if kind is None:
        yield Flood()
        return
    sock, chunk = open_sender(port, kind)
    with flooding(sock, chunk) as flood:
        yield flood


def timed(call) -> float | None:
    """Milliseconds ``call()`` took, or None when it timed out or failed."""
    started = time.perf_counter()
    try:
        call()
    except requests.RequestException:
        return None
    return (time.perf_counter() - started) * 1000


def one_run(server: LiveServer, kind: str | None, seconds: float) -> dict[str, float]:
    created = server.post("/api/games", {"game": "nim", "options": {"piles": [99] * 8, "max_take": 1},
                                         "opponent": {"type": "friend"}, "side": 0}).json()
    second = server.post(f"/api/games/{created['id']}/seats", {"invite": created["invite"]}).json()
    tokens = [created["token"], second["token"]]
    moves_url = f"{server.url}/api/games/{created['id']}/moves"
    health, move, timeouts, ply = [], [], 0, 0
    session = requests.Session()
    worker = server_worker_pid(server)
    cpu_before = cpu_seconds(worker)
    with sending(server.port, kind) as flood:
        started = next_move = time.monotonic()
        while time.monotonic() < started + seconds:
            took = timed(lambda: session.get(server.url + "/api/health", timeout=PROBE_TIMEOUT).raise_for_status())
            if took is None:
                timeouts += 1
            else:
                health.append(took)
            if time.monotonic() >= next_move:
                body = {"move": f"{ply // 99 + 1}:1", "token": tokens[ply % 2]}
                took = timed(lambda body=body: session.post(moves_url, json=body,
                                                            timeout=PROBE_TIMEOUT).raise_for_status())
                if took is None:
                    timeouts += 1
                else:
                    move.append(took)
                    ply += 1
                next_move += MOVE_INTERVAL
            time.sleep(PROBE_INTERVAL)
        elapsed = time.monotonic() - started
    try:
        cpu = (cpu_seconds(worker) - cpu_before) / elapsed
    except FileNotFoundError:  # gunicorn's arbiter killed a worker that did not report for its timeout (30 s)
        cpu = float("nan")

    def quantiles(values: list[float]) -> list[float]:
        if not values:
            return [PROBE_TIMEOUT * 1000] * 3
        return [percentile(values, 0.5), percentile(values, 0.99), max(values)]

    return dict(zip(("health p50", "health p99", "health max", "move p50", "move p99", "move max"),
                    quantiles(health) + quantiles(move), strict=True)) | {
        "timeouts": timeouts, "MB sent": flood.sent / 1e6, "worker CPU s/s": cpu}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=8)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--kinds", nargs="+", default=["noop", "binary", "pipelined"],
                        choices=["noop", "binary", "pipelined"])
    args = parser.parse_args()
    server = LiveServer(Path(tempfile.mkdtemp()) / "instance", env=GENEROUS_CONNECTIONS).start()
    try:
        kinds: list[str | None] = [None, *args.kinds]
        results: dict[str | None, list[dict[str, float]]] = {kind: [] for kind in kinds}
        for _ in range(args.runs):
            for kind in kinds:
                results[kind].append(one_run(server, kind, args.seconds))
        columns = list(results[None][0])
        print("| sender | " + " | ".join(columns) + " |")
        print("|" + " --- |" * (len(columns) + 1))
        for kind, runs in results.items():
            medians = [statistics.median(run[column] for run in runs) for column in columns]
            print(f"| {kind or 'none (quiet)'} | " + " | ".join(f"{value:.1f}" if not 0 < value < 1
                                                                else f"{value:.3f}" for value in medians) + " |")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
