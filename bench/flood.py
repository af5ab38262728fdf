"""What a client flooding the server with events costs everybody else: the move -> ``moved`` latency at the other
clients (the opponent and the spectators of each game), with and without a flooder, against a real gunicorn.

    .venv/bin/python -m bench.flood [--games 4] [--spectators 2] [--plies 40] [--runs 3] [--rate 1000] [--reconnect]
                                    [--nginx]

Starts ``gunicorn -w 1 "webapp:create_app()"`` (default event limit: 10/s, bursts of 20) in a
temporary folder and ``--games`` Nim games between two people, each with ``--spectators`` spectators. A run plays
``--plies`` moves in every game (one counter at a time, a ply every 0.06 s so each player stays under the limit)
and records, for every move, the time from the mover's ``emit`` to the ``moved`` arriving at each other client of
that game. Runs alternate between quiet and flooded (a separate process, joined to the first game, sending
``move`` events at ``--rate`` a second; the server closes its connection once it is far over its limit, and with
``--reconnect`` it connects again at once and goes on, for the whole run); the figures are the median over
``--runs`` of each kind, with the ratio flooded / quiet, and the gunicorn worker's CPU use. With ``--nginx`` the
flooder goes through a real nginx (deploy/nginx-single.conf as committed but for its ports, gunicorn
with ``ARENA_PROXY_HOPS=1``), as a deployed client would; the measured clients still connect to gunicorn directly.
The server's per-address limits are set far above the measured games' moves (``GENEROUS_CONNECTIONS``): the clients
all share one loopback address.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from tests.support.servers import GENEROUS_CONNECTIONS, EventClient, LiveServer
from tests.support.services import NGINX_SINGLE_CONF, Nginx

INTERVAL = 0.06
PILES = [99] * 8


def cpu_seconds(pid: int) -> float:
    """User + system CPU time used so far by process ``pid`` (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def server_worker_pid(server: LiveServer) -> int:
    """The pid of gunicorn's (single) worker process."""
    assert server.process is not None
    children = Path(f"/proc/{server.process.pid}/task/{server.process.pid}/children").read_text().split()
    return int(children[0])


def percentile(values: list[float], share: float) -> float:
    """The ``share`` quantile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def nim_move(ply: int) -> str:
    """Ply ``ply`` of a game that takes one counter at a time from the first pile that has any."""
    return f"{(ply - 1) // PILES[0] + 1}:1"


def flooder(url: str, game_id: str, rate: float, reconnect: bool, ready: Any, stop: Any, results: Any) -> None:
    """(In its own process.) Join ``game_id``, signal ``ready``, send ``move`` events at ``rate`` a second until
    ``stop``. When the server closes the connection: stop sending, or with ``reconnect`` connect again at once and
    go on; a refused connection is counted as the code "connection refused" and tried again at once. Puts
    ``(events sent, Counter of error codes received, connections made)`` on ``results``."""
    import socketio

    codes: Counter[str] = Counter()
    sent = connections = 0
    due = time.perf_counter()
    while not stop.is_set():
        client = socketio.Client(reconnection=False)
        client.on("error", lambda data: codes.update([data["code"]]))
        try:
            client.connect(url, transports=["websocket"], wait_timeout=10)
        except socketio.exceptions.ConnectionError:
            codes.update(["connection refused"])  # by nginx's limit on handshakes: try again at once
            continue
        connections += 1
        client.emit("join", {"game_id": game_id})
        ready.set()
        while not stop.is_set():
            try:
                client.emit("move", {"game_id": game_id, "move": "1:1"})
            except socketio.exceptions.SocketIOError:
                break
            sent += 1
            due += 1 / rate
            time.sleep(max(0.0, due - time.perf_counter()))
        if client.connected:
            time.sleep(0.5)
            client.disconnect()
        if not reconnect:
            stop.wait()
        due = time.perf_counter()
    results.put((sent, codes, connections))


class Table:
    """The games of the benchmark: two players and some spectators each, all joined."""

    def __init__(self, server: LiveServer, games: int, spectators: int) -> None:
        self.players: dict[str, list[EventClient]] = {}
        self.watchers: dict[str, list[EventClient]] = {}
        for _ in range(games):
            created = server.post("/api/games", {"game": "nim", "options": {"piles": PILES, "max_take": 1},
                                                  "opponent": {"type": "friend"}}).json()
            game_id = created["id"]
            second = server.post(f"/api/games/{game_id}/seats", {"invite": created["invite"]}).json()
            self.players[game_id] = [EventClient(server.url, created["token"]),
                                     EventClient(server.url, second["token"])]
            self.watchers[game_id] = [EventClient(server.url) for _ in range(spectators)]
            for client in (*self.players[game_id], *self.watchers[game_id]):
                client.emit("join", {"game_id": game_id})
                client.wait_for("state")
        self.ply = 0

    def play(self, plies: int) -> dict[str, list[float]]:
        """Play ``plies`` moves in every game; the seconds from each ``emit`` to each other client's ``moved``."""
        latencies: dict[str, list[float]] = {game_id: [] for game_id in self.players}
        for _ in range(plies):
            self.ply += 1
            ply = self.ply
            sent_at = {}
            for game_id, seats in self.players.items():
                sent_at[game_id] = time.perf_counter()
                seats[(ply - 1) % 2].emit("move", {"game_id": game_id, "move": nim_move(ply)})
            for game_id, seats in self.players.items():
                for client in (seats[ply % 2], *self.watchers[game_id]):
                    _, arrived = client.wait_arrival("moved", lambda moved, g=game_id, p=ply: (moved["game_id"],
                                                                                           moved["ply"]) == (g, p))
                    latencies[game_id].append(arrived - sent_at[game_id])
            time.sleep(INTERVAL)
        return latencies

    def errors(self) -> int:
        return sum(len(client.received("error")) for clients in (*self.players.values(), *self.watchers.values())
                   for client in clients)

    def close(self) -> None:
        for clients in (*self.players.values(), *self.watchers.values()):
            for client in clients:
                client.close()


def run_flooded(table: Table, url: str, plies: int, rate: float,
                reconnect: bool) -> tuple[dict[str, list[float]], tuple[int, Counter[str], int]]:
    context = multiprocessing.get_context("spawn")
    ready, stop, results = context.Event(), context.Event(), context.Queue()
    flooded_game = next(iter(table.players))
    process = context.Process(target=flooder, args=(url, flooded_game, rate, reconnect, ready, stop, results))
    process.start()
    if not ready.wait(30):
        raise RuntimeError("the flooder did not connect")
    time.sleep(0.2)
    try:
        latencies = table.play(plies)
    finally:
        stop.set()
    outcome = results.get(timeout=30)
    process.join(timeout=30)
    return latencies, outcome


def p99_ms(latencies: dict[str, list[float]], games: list[str]) -> float:
    return percentile([s for g in games for s in latencies[g]], 0.99) * 1000


def p50_ms(latencies: dict[str, list[float]], games: list[str]) -> float:
    return statistics.median([s for g in games for s in latencies[g]]) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--spectators", type=int, default=2, help="spectators per game")
    parser.add_argument("--plies", type=int, default=40, help="moves per game in each run")
    parser.add_argument("--runs", type=int, default=3, help="runs of each kind (quiet, flooded)")
    parser.add_argument("--rate", type=float, default=1000, help="flood events per second")
    parser.add_argument("--reconnect", action="store_true",
                        help="the flooder connects again at once each time the server closes its connection")
    parser.add_argument("--nginx", action="store_true", help="the flooder goes through nginx")
    args = parser.parse_args()
    if 2 * args.runs * args.plies > len(PILES) * PILES[0]:
        parser.error("too many plies for one Nim game; lower --runs or --plies")
    rows: dict[str, list[dict[str, float]]] = {"quiet": [], "flooded": []}
    floods = []
    with tempfile.TemporaryDirectory() as folder:
        nginx = None
        if args.nginx:
            server = LiveServer(Path(folder) / "instance",
                                env={**GENEROUS_CONNECTIONS, "ARENA_PROXY_HOPS": "1"}).start()
            nginx = Nginx(Path(folder) / "nginx", NGINX_SINGLE_CONF, node_ports=(server.port,)).start()
        else:
            server = LiveServer(Path(folder) / "instance", env=GENEROUS_CONNECTIONS).start()
        flood_url = nginx.url if nginx else server.url
        table = Table(server, args.games, args.spectators)
        try:
            table.play(4)
            worker = server_worker_pid(server)
            games = list(table.players)
            same, others = games[:1], games[1:] or games[:1]
            for run in range(2 * args.runs):
                kind = ("quiet", "flooded")[(run + run // 2) % 2]
                cpu_before, wall_before = cpu_seconds(worker), time.perf_counter()
                if kind == "quiet":
                    latencies = table.play(args.plies)
                else:
                    latencies, flood = run_flooded(table, flood_url, args.plies, args.rate, args.reconnect)
                    floods.append(flood)
                rows[kind].append({"all p50": p50_ms(latencies, games), "all p99": p99_ms(latencies, games),
                                   "same-game p99": p99_ms(latencies, same),
                                   "other-games p99": p99_ms(latencies, others),
                                   "server CPU %": 100 * (cpu_seconds(worker) - cpu_before)
                                   / (time.perf_counter() - wall_before)})
                print(f"run {run + 1} {kind:<8}" + "  ".join(f"{k}={v:6.2f}" for k, v in rows[kind][-1].items()),
                      flush=True)
            errors = table.errors()
        finally:
            table.close()
            if nginx:
                nginx.stop()
            server.stop()
    moves = args.games * args.plies
    print(f"\n{args.games} games x ({2} players + {args.spectators} spectators); {moves} moves per run, "
          f"{moves * (1 + args.spectators)} arrivals measured per run; errors at the measured clients: {errors}")
    for sent, codes, connections in floods:
        print(f"flooder: {sent} events sent over {connections} connection(s), errors back: {dict(codes)}")
    print(f"median over {args.runs} runs of each kind (latencies in ms; server CPU: the gunicorn worker's share of one "
          "core during the run):")
    for name in rows["quiet"][0]:
        quiet = statistics.median(row[name] for row in rows["quiet"])
        flooded = statistics.median(row[name] for row in rows["flooded"])
        print(f"  {name:<16} quiet {quiet:7.2f}   flooded {flooded:7.2f}   ratio {flooded / quiet:5.2f}")


if __name__ == "__main__":
    main()
