"""What idle WebSockets and slow clients cost everybody else: the latency of ``GET /api/health`` and of a human move
(``POST /api/games/<id>/moves`` in a game between two people) from another address, while a holder keeps
``--sockets`` idle Socket.IO WebSockets and ``--slow`` slow TCP connections (half trickle their headers, half a
body, a byte every ``--trickle`` seconds) from ``--addresses`` source addresses, against a real gunicorn (``-w 1``,
gunicorn.conf.py's worker) reached directly (``--front none``) or through a real nginx (``--front nginx``:
deploy/nginx-single.conf as committed but for its ports, gunicorn with ``ARENA_PROXY_HOPS=1``).

    .venv/bin/python -m bench.connections [--front both|none|nginx] [--sockets 1000] [--slow 100] [--addresses 1]
                                          [--requests 200] [--interval 0.3]

The holder connects from 127.0.0.1 (or 127.1.0.1 and on), the measured client from 127.0.0.2 (Linux routes all of
127/8 to lo). Each measured request has ``--timeout`` seconds; one that times out counts as that long. Also
reported: how many of the holder's WebSockets the server accepted, and the gunicorn worker's resident memory and
threads before and while they are held, and per held WebSocket (slow connections included: run with ``--slow 0``
for the WebSockets' own cost). The server runs with per-address limits far above the measured moves
(``GENEROUS_CONNECTIONS``): this measures connections, not rate limits.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import multiprocessing
import os
import resource
import selectors
import socket
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.support.servers import GENEROUS_CONNECTIONS, WEBSOCKET_UPGRADE, LiveServer, masked_frame
from tests.support.services import NGINX_SINGLE_CONF, Nginx

HOLDER = "127.0.0.1"
MEASURED = "127.0.0.2"
PILES = [99] * 8
def holder_addresses(count: int) -> list[str]:
    """The source addresses of the holder: ``HOLDER`` alone, or ``count`` addresses from 127.1.0.1 on."""
    if count == 1:
        return [HOLDER]
    return [f"127.1.{index // 250}.{index % 250 + 1}" for index in range(count)]


def hold(port: int, sockets: int, slow: int, trickle: float, addresses: int, ready: Any, stop: Any,
         results: Any) -> None:
    """(In its own process.) From ``addresses`` source addresses in turn (``holder_addresses``), open ``sockets``
    WebSockets to ``port`` and connect each to the Socket.IO namespace (answering the server's pings, sending
    nothing else), and ``slow`` slow connections; signal ``ready`` and keep them until ``stop``. Puts the number
    of WebSockets the server accepted on ``results``."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    selector = selectors.DefaultSelector()
    accepted = 0
    host = f"127.0.0.1:{port}"
    sources = holder_addresses(addresses)
    for index in range(sockets):
        sock = socket.create_connection(("127.0.0.1", port), source_address=(sources[index % len(sources)], 0))
        sock.setblocking(False)
        sock.sendall(WEBSOCKET_UPGRADE.format(host=host).encode())
        selector.register(sock, selectors.EVENT_READ, {"opened": False})
    trickled = []
    for index in range(slow):
        sock = socket.create_connection(("127.0.0.1", port), source_address=(sources[index % len(sources)], 0))
        if index % 2:
            sock.sendall(f"POST /api/games HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
                         f"Content-Length: 1000\r\n\r\n{{".encode())
        else:
            sock.sendall(b"GET /api/health HTTP/1.1\r\n")
        trickled.append(sock)
    deadline = time.monotonic() + 30
    next_trickle = time.monotonic() + trickle
    signalled = False
    while not stop.is_set():
        for key, _ in selector.select(timeout=0.2):
            sock, state = key.fileobj, key.data
            try:
                data = sock.recv(65536)
            except OSError:
                data = b""
            if not data:
                selector.unregister(sock)
                sock.close()
                continue
            if not state["opened"] and data.startswith(b"HTTP/1.1 101"):
                state["opened"] = True
                accepted += 1
                sock.sendall(masked_frame(0x1, b"40"))
            if b"\x81\x012" in data:
                sock.sendall(masked_frame(0x1, b"3"))
        if time.monotonic() >= next_trickle:
            next_trickle += trickle
            for sock in trickled:
                with contextlib.suppress(OSError):
                    sock.send(b"X")
        if not signalled and (accepted == sockets or time.monotonic() > deadline):
            signalled = True
            results.put(accepted)
            ready.set()
    for key in list(selector.get_map().values()):
        key.fileobj.close()
    for sock in trickled:
        sock.close()


def request(port: int, method: str, path: str, body: dict[str, Any] | None, timeout: float) -> tuple[int, Any]:
    """One request from ``MEASURED`` on a new connection: ``(status, JSON answer)``."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout, source_address=(MEASURED, 0))
    try:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        connection.request(method, path, json.dumps(body) if body is not None else None, headers)
        answer = connection.getresponse()
        return answer.status, json.loads(answer.read() or b"null")
    finally:
        connection.close()


def timed(port: int, method: str, path: str, body: dict[str, Any] | None, timeout: float) -> tuple[float, bool]:
    """Seconds taken by one request and whether it was answered 200 within ``timeout``."""
    started = time.perf_counter()
    try:
        status, _ = request(port, method, path, body, timeout)
    except OSError:
        return timeout, False
    return time.perf_counter() - started, status == 200


def friend_game(port: int) -> tuple[str, list[str]]:
    """A Nim game between two people created from ``MEASURED``: its id and both seats' tokens."""
    status, created = request(port, "POST", "/api/games", {"game": "nim", "options": {"piles": PILES, "max_take": 1},
                                                            "opponent": {"type": "friend"}}, 10)
    assert status == 201, created
    status, second = request(port, "POST", f"/api/games/{created['id']}/seats", {"invite": created["invite"]}, 10)
    assert status == 200, second
    return created["id"], [created["token"], second["token"]]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def measure(port: int, game: tuple[str, list[str]], count: int, timeout: float, interval: float) -> dict[str, Any]:
    """``count`` health checks and ``count`` moves in ``game``, alternating, a move every ``interval`` seconds at
    most: p50/p99 (ms) and failures of each."""
    game_id, tokens = game
    health, moves, failed = [], [], {"health": 0, "move": 0}
    due = time.monotonic()
    for ply in range(1, count + 1):
        time.sleep(max(0.0, due - time.monotonic()))
        due += interval
        seconds, ok = timed(port, "GET", "/api/health", None, timeout)
        health.append(seconds)
        failed["health"] += not ok
        move = f"{(ply - 1) // PILES[0] + 1}:1"
        seconds, ok = timed(port, "POST", f"/api/games/{game_id}/moves",
                            {"move": move, "token": tokens[(ply - 1) % 2]}, timeout)
        moves.append(seconds)
        failed["move"] += not ok
        if not ok and failed["move"] >= 5 and failed["move"] == ply:
            break  # nothing gets through: the figures so far say it all
    return {name: {"p50": statistics.median(values) * 1000, "p99": percentile(values, 0.99) * 1000,
                   "failed": failed[name], "count": len(values)}
            for name, values in (("health", health), ("move", moves))}


def worker_stats(server: LiveServer) -> tuple[float, int]:
    """The gunicorn worker's resident memory (MiB) and thread count."""
    assert server.process is not None
    children = Path(f"/proc/{server.process.pid}/task/{server.process.pid}/children").read_text().split()
    status = dict(line.split(":", 1) for line in Path(f"/proc/{children[0]}/status").read_text().splitlines())
    return int(status["VmRSS"].split()[0]) / 1024, int(status["Threads"])


def run(front: str, args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        env = {**GENEROUS_CONNECTIONS, "ARENA_PROXY_HOPS": "1" if front == "nginx" else "0"}
        server = LiveServer(Path(folder) / "node", env=env).start()
        nginx = (Nginx(Path(folder) / "nginx", NGINX_SINGLE_CONF, node_ports=(server.port,)).start()
                 if front == "nginx" else None)
        port = nginx.port if nginx else server.port
        context = multiprocessing.get_context("spawn")
        ready, stop, results = context.Event(), context.Event(), context.Queue()
        holder = context.Process(target=hold, args=(port, args.sockets, args.slow, args.trickle, args.addresses,
                                                    ready, stop, results))
        try:
            games = [friend_game(port) for _ in range(2)]
            quiet = measure(port, games[0], args.requests, args.timeout, args.interval)
            memory_before, threads_before = worker_stats(server)
            holder.start()
            if not ready.wait(60):
                raise RuntimeError("the holder did not finish connecting")
            accepted = results.get(timeout=10)
            time.sleep(2)
            memory_held, threads_held = worker_stats(server)
            held = measure(port, games[1], args.requests, args.timeout, args.interval)
        finally:
            stop.set()
            holder.join(timeout=30)
            if nginx:
                nginx.stop()
            server.stop()
    return {"front": front, "accepted": accepted, "quiet": quiet, "held": held,
            "memory": (memory_before, memory_held), "threads": (threads_before, threads_held)}


def report(outcome: dict[str, Any], args: argparse.Namespace) -> None:
    accepted = outcome["accepted"]
    (memory_before, memory_held), (threads_before, threads_held) = outcome["memory"], outcome["threads"]
    print(f"\n== front: {outcome['front']}; holder: {args.sockets} WebSockets ({accepted} accepted), "
          f"{args.slow} slow connections, from {args.addresses} address(es)")
    print(f"worker RSS {memory_before:.1f} -> {memory_held:.1f} MiB, threads {threads_before} -> {threads_held}"
          + (f"; per accepted WebSocket {(memory_held - memory_before) * 1024 / accepted:.0f} KiB, "
             f"{(threads_held - threads_before) / accepted:.2f} threads" if accepted else ""))
    for phase in ("quiet", "held"):
        for name, figures in outcome[phase].items():
            print(f"{phase:>5} {name:>6}: p50 {figures['p50']:8.1f} ms  p99 {figures['p99']:8.1f} ms  "
                  f"failed {figures['failed']}/{figures['count']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--front", choices=("both", "none", "nginx"), default="both")
    parser.add_argument("--sockets", type=int, default=1000, help="idle WebSockets held")
    parser.add_argument("--slow", type=int, default=100, help="slow connections held")
    parser.add_argument("--addresses", type=int, default=1,
                        help="source addresses the holder spreads them over (1: 127.0.0.1; more: 127.1.0.1 on)")
    parser.add_argument("--trickle", type=float, default=5.0, help="seconds between two bytes of a slow client")
    parser.add_argument("--requests", type=int, default=200, help="health checks and moves measured, each")
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds a measured request may take")
    parser.add_argument("--interval", type=float, default=0.3,
                        help="seconds between two measured moves (200 a minute: under nginx's 240 per address)")
    args = parser.parse_args()
    for front in (("none", "nginx") if args.front == "both" else (args.front,)):
        report(run(front, args), args)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
