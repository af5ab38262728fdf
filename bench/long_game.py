"""What one very long chess game costs a node: creating it from its setup, then reading it while it is not cached.

    .venv/bin/python -m bench.long_game [--plies 1590] [--reads 20] [--hold 200] [--seed 1]

Builds a legal game of about ``--plies`` plies that no rule ends (random quiet moves, a pawn move whenever the
fifty-move counter gets high, no position three times), whose setup ``startpos moves ...`` fits the API's 8,000
characters. Starts ``gunicorn -w 1 "webapp:create_app()"``, times ``POST /api/games`` with that setup
(a finished game is refused, so the friend game stays open), then ``--reads`` parallel ``GET /api/games/<id>`` of a
finished copy of it (resigned, so it leaves the cache after each read) and ``GET /api/health`` meanwhile, then
``--reads`` reads of its PGN and of its position at ply 0, one after the other (the first makes them, the others
find them). Last, it creates ``--hold`` more such games (open, so the node holds each in memory until it is
untouched for 600 s) and prints the gunicorn worker's resident memory (``VmRSS``) before and after, per game held.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from pathlib import Path

import requests

from bench.many_games import rss_mib, worker_pid
from tests.support.long_games import long_game
from tests.support.servers import GENEROUS_CONNECTIONS, LiveServer


def timed(call):  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    result = call()
    return time.perf_counter() - started, result


def hold(server: LiveServer, body: dict[str, object], games: int) -> None:
    """Create ``games`` games from ``body`` and print the worker's memory per game held."""
    worker = worker_pid(server)
    before = rss_mib(worker)
    for _ in range(games):
        assert server.post("/api/games", body).status_code == 201
    held = server.get("/api/health").json()["games_in_memory"]
    after = rss_mib(worker)
    print(f"{games} more games held ({held} in memory): worker RSS {before:.0f} -> {after:.0f} MiB, "
          f"{(after - before) * 1024 / games:.1f} KiB a game")


def repeated(server: LiveServer, game_id: str, reads: int) -> None:
    """Read the game's PGN and its position at ply 0 ``reads`` times each, one after the other; print the first
    read's time and the median of the others."""
    for path in ("pgn", "positions/0"):
        times = []
        for _ in range(reads):
            took, answer = timed(lambda path=path: requests.get(f"{server.url}/api/games/{game_id}/{path}",
                                                                timeout=600))
            assert answer.status_code == 200, answer.text
            times.append(took)
        print(f"{reads} reads of /{path} one after the other: the first {times[0] * 1000:.1f} ms, the others' "
              f"median {statistics.median(times[1:]) * 1000:.1f} ms")


def run(plies: int, reads: int, games: int, seed: int) -> None:
    moves = long_game(plies, seed)
    setup = "startpos moves " + " ".join(moves)
    print(f"game of {len(moves)} plies, setup of {len(setup)} characters")
    with tempfile.TemporaryDirectory() as folder:
        server = LiveServer(Path(folder) / "instance", env=GENEROUS_CONNECTIONS).start()
        try:
            body = {"game": "chess", "setup": setup, "opponent": {"type": "friend"}, "side": 0}
            took, created = timed(lambda: server.post("/api/games", body))
            assert created.status_code == 201, created.text
            print(f"create: {took * 1000:.0f} ms")
            game = created.json()
            server.post(f"/api/games/{game['id']}/resign", {"token": game["token"]})
            read_times: list[float] = []
            health_times: list[float] = []
            done = threading.Event()

            def read() -> None:
                took, answer = timed(lambda: requests.get(f"{server.url}/api/games/{game['id']}", timeout=600))
                assert answer.status_code == 200
                read_times.append(took)

            def health() -> None:
                while not done.is_set():
                    took, _ = timed(lambda: requests.get(f"{server.url}/api/health", timeout=600))
                    health_times.append(took)

            watcher = threading.Thread(target=health)
            watcher.start()
            readers = [threading.Thread(target=read) for _ in range(reads)]
            took, _ = timed(lambda: ([t.start() for t in readers], [t.join() for t in readers]))
            done.set()
            watcher.join()
            print(f"{reads} parallel reads: all done in {took * 1000:.0f} ms; each median "
                  f"{statistics.median(read_times) * 1000:.0f} ms, max {max(read_times) * 1000:.0f} ms")
            print(f"/api/health meanwhile: median {statistics.median(health_times) * 1000:.0f} ms, "
                  f"max {max(health_times) * 1000:.0f} ms over {len(health_times)} requests")
            repeated(server, game["id"], reads)
            if games:
                hold(server, body, games)
        finally:
            server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plies", type=int, default=1590)
    parser.add_argument("--reads", type=int, default=20)
    parser.add_argument("--hold", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    run(args.plies, args.reads, args.hold, args.seed)


if __name__ == "__main__":
    main()
