"""Whether one address can starve everybody else's engine: other addresses' engine moves while one address keeps
the heaviest searches the API accepts busy.

    .venv/bin/python -m bench.engine_share [--seconds 120] [--hogs 12] [--duels 4] [--labs 4] [--workers 2]

Starts ``gunicorn -w 1 "webapp:create_app()"`` with ``--workers`` engine processes. The attacker,
from 127.0.0.1, keeps alive for ``--seconds``: ``--hogs`` chess games against a minimax engine of depth 64 (it
moves first; the attacker answers each engine move at once, so a new 60 s search starts), ``--duels`` chess
games of engine level 8 against level 8 (the attacker watches them so they never pause), and ``--labs`` lab runs
of four minimax depth-64 chess searches (started again as each run ends): 20 in all by default, each re-created as
it ends. Meanwhile two victims, from 127.0.0.2 and 127.0.0.3, play level-3 tic-tac-toe and level-4 Connect Four
over HTTP, one move after another: the figure is the time from posting a move to the engine's reply being in the
game (``GET`` polled every 20 ms, which adds up to 20 ms), per engine move; a reply not there after 30 s counts as
a 30 s wait and the victim starts a new game.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from tests.support.servers import GENEROUS_CONNECTIONS, EventClient, LiveServer

POLL = 0.02
GIVE_UP = 30.0
HOG = {"game": "chess", "side": 1, "opponent": {"type": "engine", "depth": 64, "algorithm": "minimax"}}
DUEL = {"game": "chess", "opponent": {"type": "engines", "levels": [8, 8]}}
LAB = {"game": "chess", "setup": "", "moves": [], "configs": [{"preset": "minimax", "depth": 64}] * 4}
VICTIMS = {"127.0.0.2": ("tictactoe", 3), "127.0.0.3": ("connect4", 4)}


class Http:
    """JSON requests to the server from the loopback address ``source``, with ``headers`` (a proxy's
    ``X-Forwarded-For``, for a server that trusts one) on each."""

    def __init__(self, port: int, source: str, headers: dict[str, str] | None = None) -> None:
        self.port = port
        self.source = source
        self.headers = headers or {}

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60, source_address=(self.source, 0))
        try:
            headers = {**self.headers, **({"Content-Type": "application/json"} if body is not None else {})}
            connection.request(method, path, json.dumps(body) if body is not None else None, headers)
            response = connection.getresponse()
            return response.status, json.loads(response.read() or b"null")
        finally:
            connection.close()


def play_victim(http: Http, game: str, level: int, stop: threading.Event, waits: list[float]) -> None:
    """Play games against the engine at ``level``, one human move at a time, recording each engine reply's wait."""
    while not stop.is_set():
        status, created = http.call("POST", "/api/games", {"game": game, "side": 0,
                                                           "opponent": {"type": "engine", "level": level}})
        if status != 201:
            waits.append(GIVE_UP)
            time.sleep(1)
            continue
        game_id, token = created["id"], created["token"]
        _, state = http.call("GET", f"/api/games/{game_id}")
        while state["status"] == "active" and not stop.is_set():
            ply = state["ply"]
            posted = time.perf_counter()
            status, state = http.call("POST", f"/api/games/{game_id}/moves",
                                      {"move": state["legal_moves"][0], "token": token})
            if status != 200:
                break
            while state["status"] == "active" and state["ply"] == ply + 1:
                if time.perf_counter() - posted > GIVE_UP:
                    break
                time.sleep(POLL)
                _, state = http.call("GET", f"/api/games/{game_id}")
            if state["ply"] < ply + 2 and state["status"] == "active":
                waits.append(GIVE_UP)
                break
            if state["ply"] >= ply + 2:
                waits.append(time.perf_counter() - posted)


class Attacker:
    """The games and lab runs of 127.0.0.1, each re-created when it ends."""

    def __init__(self, server: LiveServer, hogs: int, duels: int, labs: int) -> None:
        self.server = server
        self.http = Http(server.port, "127.0.0.1")
        self.hogs: list[tuple[str, str]] = [self._hog() for _ in range(hogs)]
        self.watcher = EventClient(server.url)
        self.duels = [self._duel() for _ in range(duels)]
        self.lab = EventClient(server.url)
        self.runs = 0
        for _ in range(labs):
            self._start_lab()
        self.refused = 0

    def _hog(self) -> tuple[str, str]:
        status, created = self.http.call("POST", "/api/games", HOG)
        if status != 201:
            raise RuntimeError(f"the attacker's game was refused: {status} {created}")
        return created["id"], created["token"]

    def _duel(self) -> str:
        status, created = self.http.call("POST", "/api/games", DUEL)
        if status != 201:
            raise RuntimeError(f"the attacker's game was refused: {status} {created}")
        self.watcher.emit("join", {"game_id": created["id"]})
        return created["id"]

    def _start_lab(self) -> None:
        self.lab.emit("lab_start", LAB)
        self.runs += 1

    def keep_busy(self, stop: threading.Event) -> None:
        """Answer the engine in every hog game, re-create ended games and lab runs, until ``stop``."""
        ended_runs = 0
        while not stop.wait(0.5):
            for index, (game_id, token) in enumerate(self.hogs):
                _, state = self.http.call("GET", f"/api/games/{game_id}")
                if state["status"] != "active":
                    self.hogs[index] = self._hog()
                elif state["to_move"] == 0:
                    status, _ = self.http.call("POST", f"/api/games/{game_id}/moves",
                                               {"move": state["legal_moves"][0], "token": token})
                    self.refused += status != 200
            for index, game_id in enumerate(self.duels):
                _, state = self.http.call("GET", f"/api/games/{game_id}")
                if state["status"] != "active":
                    self.duels[index] = self._duel()
            finals = sum(1 for event in self.lab.received("lab") if event["info"]["kind"] in ("final", "failed"))
            while finals >= 4 * (ended_runs + 1):
                ended_runs += 1
                self._start_lab()


def percentile(values: list[float], share: float) -> float:
    """The ``share`` quantile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=120)
    parser.add_argument("--hogs", type=int, default=12)
    parser.add_argument("--duels", type=int, default=4)
    parser.add_argument("--labs", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        env = {"ARENA_WORKERS": str(args.workers), **GENEROUS_CONNECTIONS}
        server = LiveServer(Path(folder) / "instance", env=env).start()
        try:
            attacker = Attacker(server, args.hogs, args.duels, args.labs)
            stop = threading.Event()
            threads = [threading.Thread(target=attacker.keep_busy, args=(stop,), daemon=True)]
            waits: dict[str, list[float]] = {source: [] for source in VICTIMS}
            time.sleep(3)  # the attack is under way before the first victim move
            for source, (game, level) in VICTIMS.items():
                threads.append(threading.Thread(target=play_victim, daemon=True, args=(
                    Http(server.port, source), game, level, stop, waits[source])))
            for thread in threads:
                thread.start()
            time.sleep(args.seconds)
            stop.set()
            for thread in threads:
                thread.join(timeout=GIVE_UP + 5)
            print(f"attack: {args.hogs} depth-64 minimax chess games, {args.duels} level-8 duels, {args.labs} lab "
                  f"runs of 4 x minimax depth 64 ({attacker.runs} runs started), {args.workers} engine workers, "
                  f"{args.seconds:g} s")
            for source, (game, level) in VICTIMS.items():
                values = waits[source]
                if not values:
                    print(f"{source} {game} level {level}: no engine move at all")
                    continue
                timeouts = sum(1 for value in values if value >= GIVE_UP)
                print(f"{source} {game} level {level}: {len(values)} engine moves, wait p50 "
                      f"{statistics.median(values) * 1000:,.0f} ms, p99 {percentile(values, 0.99) * 1000:,.0f} ms, "
                      f"max {max(values) * 1000:,.0f} ms, {timeouts} gave up after {GIVE_UP:g} s")
        finally:
            server.stop()


if __name__ == "__main__":
    main()
