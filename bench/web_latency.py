"""Round trip of a person's move while both engine workers search: emit ``move`` -> ``moved`` back at the mover
and at a spectator, over many moves on loopback, against a real gunicorn.

    .venv/bin/python -m bench.web_latency [--moves 200] [--interval 0.06] [--stalls 0.02]

Starts ``gunicorn -w 1 "webapp:create_app()"`` with ``ARENA_WORKERS=2`` in a temporary folder, gives
both workers a 60-second search (Nim, minimax, no pruning; two games created from two addresses, since one
client gets one worker at a time), then plays a Nim game between two people (taking one
counter at a time, one move every ``--interval`` seconds to stay under the per-connection rate limit) and prints
the latency percentiles. With ``--stalls S``, gevent's monitor thread watches the server's event loop and every
time one step kept it from the other connections for more than S seconds is counted, with where it ran.
"""

from __future__ import annotations

import argparse
import collections
import http.client
import json
import os
import re
import statistics
import tempfile
import time
from pathlib import Path

from tests.support.servers import GENEROUS_CONNECTIONS, EventClient, LiveServer

LONG_ENGINE = {"type": "engine", "time": 60, "algorithm": "minimax"}


def percentile(values: list[float], share: float) -> float:
    """The ``share`` quantile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def describe(name: str, seconds: list[float]) -> str:
    ms = [s * 1000 for s in seconds]
    return (f"{name:<10} n={len(ms)}  p50={statistics.median(ms):6.2f} ms  p90={percentile(ms, 0.9):6.2f} ms  "
            f"p99={percentile(ms, 0.99):6.2f} ms  max={max(ms):6.2f} ms")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time used so far by process ``pid`` (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def server_worker_pid(server: LiveServer) -> int:
    """The pid of gunicorn's (single) worker process."""
    assert server.process is not None
    children = Path(f"/proc/{server.process.pid}/task/{server.process.pid}/children").read_text().split()
    return int(children[0])


def create_from(server: LiveServer, source: str, body: dict) -> dict:
    """``POST /api/games`` with ``body`` from the loopback address ``source`` (each address is a client of its own
    for the engines' fair share)."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10, source_address=(source, 0))
    try:
        connection.request("POST", "/api/games", json.dumps(body), {"Content-Type": "application/json"})
        return json.loads(connection.getresponse().read())
    finally:
        connection.close()


def busy_engines(server: LiveServer, count: int) -> list[str]:
    """Start ``count`` long engine searches, each for another client address (127.0.0.10, .11, ...); returns
    their game ids once all are thinking."""
    game_ids = []
    for index in range(count):
        created = create_from(server, f"127.0.0.{10 + index}", {
            "game": "nim", "options": {"piles": [9, 9, 9, 9]}, "opponent": LONG_ENGINE, "side": 1})
        game_ids.append(created["id"])
    deadline = time.monotonic() + 30
    while any(server.get(f"/api/games/{g}").json()["search_state"] != "thinking" for g in game_ids):
        if time.monotonic() > deadline:
            raise RuntimeError("the engine searches did not start")
        time.sleep(0.1)
    return game_ids


BLOCKED_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')


def loop_stalls(log: str) -> collections.Counter[str]:
    """The event-loop stalls gevent's monitor reported in a gunicorn ``log``, counted by where each ran: the
    innermost frame of the project's code (``webapp/``, ``engine/``) in the blocked stack, or its last frame."""
    places: collections.Counter[str] = collections.Counter()
    for report in log.split("appears to be blocked")[1:]:
        if "Blocked Stack" not in report.split("appears to be blocked", 1)[0]:
            continue  # the monitor's report of its own reporting, which holds the interpreter while it prints
        stack = report.split("Blocked Stack", 1)[1].split("\n\n", 1)[0]
        frames = BLOCKED_FRAME.findall(stack)
        ours = [frame for frame in frames if "/webapp/" in frame[0] or "/engine/" in frame[0]]
        path, line, function = (ours or frames or [("?", "?", "?")])[-1]
        places[f"{'/'.join(Path(path).parts[-2:])}:{line} {function}"] += 1
    return places


def run(moves: int, interval: float, searches: int, stalls: float) -> None:
    monitor = ({"GEVENT_MONITOR_THREAD_ENABLE": "true", "GEVENT_MAX_BLOCKING_TIME": str(stalls)} if stalls else {})
    with tempfile.TemporaryDirectory() as folder:
        server = LiveServer(Path(folder) / "instance", env={"ARENA_WORKERS": "2", **GENEROUS_CONNECTIONS,
                                                            **monitor}).start()
        try:
            engines = busy_engines(server, searches)
            created = server.post("/api/games", {"game": "nim", "options": {"piles": [99] * 8, "max_take": 1},
                                                  "opponent": {"type": "friend"}, "side": 0}).json()
            game_id = created["id"]
            second = server.post(f"/api/games/{game_id}/seats", {"invite": created["invite"]}).json()
            players = [EventClient(server.url, created["token"]), EventClient(server.url, second["token"])]
            spectator = EventClient(server.url)
            for client in (*players, spectator):
                client.emit("join", {"game_id": game_id})
                client.wait_for("state")
            mover_times, spectator_times = [], []
            worker_pid = server_worker_pid(server)
            cpu_before = cpu_seconds(worker_pid)
            for ply in range(1, moves + 1):
                started = time.perf_counter()
                mover = players[(ply - 1) % 2]
                mover.emit("move", {"game_id": game_id, "move": f"{(ply - 1) % 8 + 1}:1"})
                _, at_mover = mover.wait_arrival("moved", lambda m, ply=ply: m["ply"] == ply)
                _, at_spectator = spectator.wait_arrival("moved", lambda m, ply=ply: m["ply"] == ply)
                mover_times.append(at_mover - started)
                spectator_times.append(at_spectator - started)
                time.sleep(max(0.0, interval - (time.perf_counter() - started)))
            cpu_per_move = (cpu_seconds(worker_pid) - cpu_before) / moves
            errors = sum(len(c.received("error")) for c in (*players, spectator))
            still = [server.get(f"/api/games/{g}").json()["search_state"] for g in engines]
            print(f"{moves} moves; engine searches during the run: {still}; error events: {errors}")
            print(describe("mover", mover_times))
            print(describe("spectator", spectator_times))
            print(f"server CPU per move (gunicorn worker, all threads): {cpu_per_move * 1000:.2f} ms; "
                  f"load average at the end: {os.getloadavg()[0]:.2f}")
            for client in (*players, spectator):
                client.close()
            if stalls:
                places = loop_stalls(server.log.read_text(errors="replace"))
                print(f"event-loop stalls over {stalls * 1000:.0f} ms (whole run, start-up included): "
                      f"{sum(places.values())}")
                for place, count in places.most_common():
                    print(f"  {count:4d}  {place}")
        finally:
            server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--interval", type=float, default=0.06, help="seconds between two moves")
    parser.add_argument("--searches", type=int, default=2, help="engine searches running meanwhile (0 = idle)")
    parser.add_argument("--stalls", type=float, default=0,
                        help="count the server's event-loop stalls longer than this many seconds (0: do not watch)")
    args = parser.parse_args()
    run(args.moves, args.interval, args.searches, args.stalls)


if __name__ == "__main__":
    main()
