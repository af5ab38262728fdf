"""What many created games cost one node: memory of its worker, games it holds in memory, size of its database.

    .venv/bin/python -m bench.many_games [--games 10000] [--untouched 5] [--clients 8] [--every 1000]

Starts ``gunicorn -w 1 "webapp:create_app()"`` with a new SQLite database in a temporary folder and
``ARENA_UNTOUCHED_GAME_SECONDS=--untouched`` (0: games stay in memory until they finish, as before that setting
existed), then ``--clients`` threads create ``--games`` games through the HTTP API, a mix that cycles through:

- tic-tac-toe between two people (second seat taken with the invitation), 3 moves;
- Connect Four between two people, 4 moves;
- chess between two people, 4 moves;
- tic-tac-toe against the level-1 engine, the person's first move (the engine answers);
- an open chess game nobody joins and nobody moves in (the cheapest game to create, the one an abuser makes).

None of them finishes, so the finished games' cache (``ARENA_IDLE_GAMES``) plays no part. Every ``--every`` games
and at the end it prints the worker's resident memory (``VmRSS``), ``games_in_memory`` from ``GET /api/health`` and
the size of the SQLite file (with its ``-wal``). After the last game it waits ``2 × --untouched`` seconds and prints
them once more. Each game comes from its own ``X-Forwarded-For`` address (``ARENA_PROXY_HOPS=1``), so per-address
request limits do not shape the run.
"""

from __future__ import annotations

import argparse
import itertools
import tempfile
import threading
import time
from http.cookiejar import DefaultCookiePolicy
from pathlib import Path
from typing import Any

import requests

from tests.support.servers import LiveServer

FRIEND_GAMES = [("tictactoe", ["5", "1", "9"]), ("connect4", ["4", "4", "3", "5"]),
                ("chess", ["e2e4", "e7e5", "g1f3", "b8c6"])]
KINDS = len(FRIEND_GAMES) + 2


def worker_pid(server: LiveServer) -> int:
    """The pid of gunicorn's (single) worker process."""
    assert server.process is not None
    children = Path(f"/proc/{server.process.pid}/task/{server.process.pid}/children").read_text().split()
    return int(children[0])


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for pid {pid}")


def database_mib(database: Path) -> float:
    files = [database, database.with_name(database.name + "-wal")]
    return sum(path.stat().st_size for path in files if path.exists()) / 2**20


class Creator:
    """Creates game number ``n`` of the mix through the API, from address ``10.x.y.z`` derived from ``n``, keeping
    no cookie: each seat is played with its token, as a script would."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.local = threading.local()

    def _session(self) -> requests.Session:
        if not hasattr(self.local, "session"):
            self.local.session = requests.Session()
            self.local.session.cookies.set_policy(DefaultCookiePolicy(allowed_domains=[]))  # no browser identity
        session: requests.Session = self.local.session
        return session

    def _post(self, n: int, path: str, body: dict[str, Any]) -> dict[str, Any]:
        address = f"10.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}"
        response = self._session().post(self.url + path, json=body, timeout=30,
                                        headers={"X-Forwarded-For": address})
        if response.status_code >= 400:
            raise RuntimeError(f"{path}: {response.status_code} {response.text}")
        answer: dict[str, Any] = response.json()
        return answer

    def create(self, n: int) -> None:
        kind = n % KINDS
        if kind < len(FRIEND_GAMES):
            game, moves = FRIEND_GAMES[kind]
            created = self._post(n, "/api/games", {"game": game, "side": 0, "opponent": {"type": "friend"}})
            game_id = created["id"]
            second = self._post(n, f"/api/games/{game_id}/seats", {"invite": created["invite"]})
            tokens = itertools.cycle([created["token"], second["token"]])
            for move, token in zip(moves, tokens, strict=False):
                self._post(n, f"/api/games/{game_id}/moves", {"move": move, "token": token})
        elif kind == len(FRIEND_GAMES):
            created = self._post(n, "/api/games", {"game": "tictactoe", "side": 0,
                                                   "opponent": {"type": "engine", "level": 1}})
            self._post(n, f"/api/games/{created['id']}/moves", {"move": "5", "token": created["token"]})
        else:
            self._post(n, "/api/games", {"game": "chess", "side": 0, "opponent": {"type": "friend", "open": True}})


def report(label: str, games: int, pid: int, server: LiveServer, database: Path, started: float) -> None:
    health = requests.get(server.url + "/api/health", timeout=30).json()
    print(f"{label:>10} {games:>7} {time.monotonic() - started:>7.1f} {rss_mib(pid):>9.1f} "
          f"{health['games_in_memory']:>9} {database_mib(database):>10.2f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--untouched", type=float, default=5.0, help="ARENA_UNTOUCHED_GAME_SECONDS (0: never)")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--every", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        instance = Path(folder) / "instance"
        env = {"ARENA_UNTOUCHED_GAME_SECONDS": f"{args.untouched:g}", "ARENA_PROXY_HOPS": "1"}
        server = LiveServer(instance, env=env).start()
        try:
            pid = worker_pid(server)
            database = instance / "arena.sqlite3"
            creator = Creator(server.url)
            print(f"ARENA_UNTOUCHED_GAME_SECONDS={args.untouched:g}, {args.clients} clients")
            print(f"{'':>10} {'games':>7} {'seconds':>7} {'RSS MiB':>9} {'in memory':>9} {'DB+WAL MiB':>10}")
            started = time.monotonic()
            report("start", 0, pid, server, database, started)
            numbers = iter(range(args.games))
            lock = threading.Lock()
            done = 0
            failures: list[BaseException] = []

            def client() -> None:
                nonlocal done
                while not failures:
                    with lock:
                        n = next(numbers, None)
                    if n is None:
                        return
                    try:
                        creator.create(n)
                    except BaseException as error:
                        failures.append(error)
                        return
                    with lock:
                        done += 1
                        if done % args.every == 0:
                            report("created", done, pid, server, database, started)

            threads = [threading.Thread(target=client) for _ in range(args.clients)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            if failures:
                raise failures[0]
            if args.untouched:
                time.sleep(2 * args.untouched)
                report("idle", done, pid, server, database, started)
        finally:
            server.stop()


if __name__ == "__main__":
    main()
