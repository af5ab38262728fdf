"""Many Socket.IO clients at once against a real gunicorn: ``--games`` games against the engine, each with one
player and ``--clients - 1`` spectators. Checks that every client receives every ``moved`` of its game and the
engine's ``search`` events (a "final" for each engine move), counts ``error`` events, and measures the time from
the engine's final event leaving its worker process (``info.sent_at``) to ``moved`` arriving at each client.

    .venv/bin/python -m bench.web_clients [--games 25] [--clients 4] [--moves 8] [--processes 4]

Games alternate tic-tac-toe (level 8) and Connect Four (level 3); each player plays a random legal move as soon
as it is its turn, for at most ``--moves`` moves, then resigns if the game is still on. ``ARENA_WORKERS=2``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench.web_latency import percentile
from tests.support.servers import GENEROUS_CONNECTIONS, EventClient, LiveServer

GAMES = [("tictactoe", 8), ("connect4", 3)]


def play_game(server: LiveServer, index: int, clients: int, moves: int, seed: int, out: dict,
              failures: list[str]) -> None:
    """Create one game, connect its clients, play it out; store the clients and the final state in ``out``, or
    what went wrong in ``failures``."""
    try:
        _play_game(server, index, clients, moves, seed, out)
    except Exception as error:  # a failed game is counted and reported, not fatal to the run
        failures.append(f"game {index}: {type(error).__name__}: {error}")


def _play_game(server: LiveServer, index: int, clients: int, moves: int, seed: int, out: dict) -> None:
    game, level = GAMES[index % len(GAMES)]
    rng = random.Random(seed)
    created = server.post("/api/games", {"game": game, "opponent": {"type": "engine", "level": level},
                                         "side": 0}).json()
    game_id = created["id"]
    player = EventClient(server.url, created["token"])
    spectators = [EventClient(server.url) for _ in range(clients - 1)]
    group = [player, *spectators]
    for client in group:
        client.emit("join", {"game_id": game_id})
        client.wait_for("state")
    state = player.wait_for("state")
    for _ in range(moves):
        if state["status"] != "active":
            break
        ply = state["ply"]
        player.emit("move", {"game_id": game_id, "move": rng.choice(state["legal_moves"])})
        state = player.wait_for("moved", lambda m, ply=ply: m["ply"] == ply + 1, timeout=120)["state"]
        if state["status"] == "active":
            state = player.wait_for("moved", lambda m, ply=ply: m["ply"] == ply + 2, timeout=120)["state"]
    if state["status"] == "active":
        player.emit("resign", {"game_id": game_id})
        state = player.wait_for("state", lambda s: s["status"] == "finished", timeout=60)
    for client in group:
        client.wait_for("moved", lambda m, total=state["ply"]: m["ply"] == total, timeout=60)
    out[game_id] = (group, state)


def check(results: dict) -> dict:
    """Per game and client: every ``moved`` in order, a final ``search`` per engine move. Returns counts
    (problems, error events, engine moves, events received...) and delays in seconds: engine final event to
    ``moved`` at the client (``delays``), split into final event to the server's broadcast (``server_delays``) and
    broadcast to arrival (``delivery_delays``)."""
    summary = {"problems": [], "errors": 0, "engine_moves": 0, "delays": [], "server_delays": [],
               "delivery_delays": [], "moved": 0, "search": 0, "queued": 0, "clients": 0}
    for game_id, (group, state) in results.items():
        engine_plies = [h["ply"] for h in state["history"] if h["by"] == 1]
        summary["engine_moves"] += len(engine_plies)
        summary["queued"] += sum(1 for s in group[0].received("search") if s["info"]["kind"] == "queued")
        for client in group:
            summary["clients"] += 1
            summary["errors"] += len(client.received("error"))
            summary["moved"] += len(client.received("moved"))
            summary["search"] += len(client.received("search"))
            plies = [m["ply"] for m in client.received("moved")]
            if plies != list(range(1, state["ply"] + 1)):
                summary["problems"].append(f"game {game_id}: a client saw plies {plies}")
            arrivals = {m["ply"]: t for (name, m), t in zip(client.events, client.wall_times, strict=True)
                        if name == "moved"}
            broadcasts = {m["ply"]: m["sent_at"] for m in client.received("moved")}
            finals = {s["ply"] + 1: s["info"] for s in client.received("search") if s["info"]["kind"] == "final"}
            for ply in engine_plies:
                if ply not in finals:
                    summary["problems"].append(f"game {game_id}: a client got no final search event for ply {ply}")
                    continue
                summary["delays"].append(arrivals[ply] - finals[ply]["sent_at"])
                summary["server_delays"].append(broadcasts[ply] - finals[ply]["sent_at"])
                summary["delivery_delays"].append(arrivals[ply] - broadcasts[ply])
    return summary


def run_games(url: str, indices: list[int], clients: int, moves: int, ready: Any) -> dict:
    """In one client process: play the games ``indices`` at once (a thread each); returns their ``check``."""
    server = LiveServer.__new__(LiveServer)
    server.url = url
    results: dict = {}
    failures: list[str] = []
    ready.wait()
    threads = [threading.Thread(target=play_game, args=(server, i, clients, moves, i, results, failures))
               for i in indices]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    summary = check(results)
    summary["problems"] += failures
    summary["games"] = len(results)
    for group, _ in results.values():
        for client in group:
            client.close()
    return summary


def run(games: int, clients: int, moves: int, processes: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        server = LiveServer(Path(folder) / "instance", env={"ARENA_WORKERS": "2", **GENEROUS_CONNECTIONS}).start()
        try:
            context = multiprocessing.get_context("spawn")
            with context.Manager() as manager, context.Pool(processes) as pool:
                ready = manager.Event()
                jobs = [pool.apply_async(run_games, (server.url, list(range(p, games, processes)), clients, moves,
                                                     ready)) for p in range(processes)]
                time.sleep(1.0)  # let the client processes start before the clock does
                started = time.perf_counter()
                ready.set()
                summaries = [job.get(timeout=600) for job in jobs]
            elapsed = time.perf_counter() - started
        finally:
            server.stop()
    total = {key: sum((s[key] for s in summaries), [] if isinstance(summaries[0][key], list) else 0)
             for key in summaries[0]}
    for problem in total["problems"]:
        print(problem)
    print(f"{processes} client processes: {total['games']}/{games} games "
          f"completed, {total['clients']} clients connected at once, {elapsed:.1f} s; {total['engine_moves']} engine "
          f"moves ({total['queued']} waited in the queue)")
    print(f"received: {total['moved']} moved, {total['search']} search events; error events: {total['errors']}; "
          f"problems: {len(total['problems'])}")
    for key, what in (("delays", "engine final event -> moved at a client"),
                      ("server_delays", "  of which: final event -> server broadcasts moved"),
                      ("delivery_delays", "  of which: broadcast -> moved at a client")):
        ms = [d * 1000 for d in total[key]]
        print(f"{what}: n={len(ms)}  p50={statistics.median(ms):.2f} ms  p99={percentile(ms, 0.99):.2f} ms  "
              f"max={max(ms):.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=25)
    parser.add_argument("--clients", type=int, default=4, help="clients per game (one player, the rest watch)")
    parser.add_argument("--moves", type=int, default=8, help="most moves the player makes before resigning")
    parser.add_argument("--processes", type=int, default=4, help="client processes sharing the clients")
    args = parser.parse_args()
    run(args.games, args.clients, args.moves, args.processes)


if __name__ == "__main__":
    main()
