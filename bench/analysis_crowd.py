"""Whether a crowd on the analysis board slows anyone's game: players' engine moves on a quiet node, then while
``--pages`` analysis boards from as many addresses step through openings, in alternating phases.

    .venv/bin/python bench/analysis_crowd.py [--pages 100] [--phase 60] [--rounds 2] [--step 1.0] [--workers 2]

Starts ``gunicorn -w 1 "webapp:create_app()"`` with ``--workers`` engine processes, trusting one proxy hop so that
each page and player may come from an address of its own (``X-Forwarded-For``, as nginx sends it). Two players,
from addresses of their own, play level-3 tic-tac-toe and level-4 Connect Four over HTTP, one move after another,
for every phase (``bench/engine_share.py``'s players: the figure is the time from posting a move to the engine's
reply being in the game, polled every 20 ms). Phases alternate, ``--rounds`` times: ``--phase`` seconds quiet, then
``--phase`` seconds with the crowd: each page (a Socket.IO connection) opens a node every ``--step`` seconds,
walking a random Connect Four or chess opening forward (then starting another), its engine on without limits (the
search runs until the next node): the analysis board as people use it, clicking through a line. Prints each
phase's waits (p50, p99, max) and, for the crowd, how many nodes were opened, how many got their exact values and
their first search event, and the median time to those.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import socketio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine_share import VICTIMS, Http, percentile, play_victim
from servers import GENEROUS_CONNECTIONS, LiveServer

OPENINGS = {
    "connect4": [["4", "4", "4", "4", "3", "5", "2"], ["4", "3", "5", "4", "4", "6", "3"], ["3", "4", "4", "3", "5"],
                 ["4", "5", "4", "4", "3", "6", "6", "2"], ["1", "4", "7", "4", "4", "3"]],
    "chess": [["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"], ["d2d4", "d7d5", "c2c4", "e7e6", "b1c3", "g8f6"],
              ["e2e4", "c7c5", "g1f3", "d7d6", "d2d4", "c5d4", "f3d4"], ["c2c4", "e7e5", "b1c3", "g8f6", "g2g3"]],
}


class Page:
    """One analysis board: a Socket.IO connection from ``address`` stepping through openings."""

    def __init__(self, url: str, address: str, rng: random.Random) -> None:
        self.rng = rng
        self.opened: dict[str, float] = {}
        self.truth: dict[str, float] = {}
        self.searched: dict[str, float] = {}
        self.errors = 0
        self.client = socketio.Client(reconnection=False)
        self.client.on("analysis_truth", self._on_truth)
        self.client.on("analysis_search", self._on_search)
        self.client.on("error", self._on_error)
        self.client.connect(url, headers={"X-Forwarded-For": address}, transports=["websocket"], wait_timeout=20)
        self.count = 0
        self.line: list[str] = []
        self.walked: list[str] = []
        self.game = ""

    def _on_truth(self, payload: dict[str, Any]) -> None:
        self.truth.setdefault(payload["node"], time.perf_counter())

    def _on_search(self, payload: dict[str, Any]) -> None:
        if payload["info"]["kind"] not in ("queued", "started", "cancelled"):
            self.searched.setdefault(payload["node"], time.perf_counter())

    def _on_error(self, payload: dict[str, Any]) -> None:
        self.errors += 1

    def step(self) -> None:
        """Open the next node of the line walked, or the first of another opening."""
        if not self.line:
            self.game = self.rng.choice(sorted(OPENINGS))
            self.line = list(self.rng.choice(OPENINGS[self.game]))
            self.walked = []
        self.walked.append(self.line.pop(0))
        self.count += 1
        node = str(self.count)
        self.opened[node] = time.perf_counter()
        self.client.emit("analyse", {"node": node, "game": self.game, "setup": "", "moves": " ".join(self.walked),
                                     "engine": {"on": True, "preset": "everything"}})

    def close(self) -> None:
        self.client.disconnect()


def crowd_steps(pages: list[Page], step: float, stop: threading.Event) -> None:
    """Every page opens a node every ``step`` seconds (spread over the interval), until ``stop``."""
    offsets = [index * step / len(pages) for index in range(len(pages))]
    start = time.perf_counter()
    rounds = 0
    while not stop.is_set():
        for page, offset in zip(pages, offsets, strict=True):
            due = start + rounds * step + offset
            if stop.wait(max(0.0, due - time.perf_counter())):
                return
            page.step()
        rounds += 1


def run_phase(server: LiveServer, seconds: float, pages: list[Page] | None, step: float) -> dict[str, list[float]]:
    """The players' waits over one phase, with the crowd stepping when ``pages`` is given."""
    stop = threading.Event()
    waits: dict[str, list[float]] = {source: [] for source in VICTIMS}
    threads = [threading.Thread(target=play_victim, daemon=True, args=(
        Http(server.port, "127.0.0.1", {"X-Forwarded-For": source}), game, level, stop, waits[source]))
        for source, (game, level) in VICTIMS.items()]
    if pages:
        threads.append(threading.Thread(target=crowd_steps, args=(pages, step, stop), daemon=True))
    for thread in threads:
        thread.start()
    time.sleep(seconds)
    stop.set()
    for thread in threads:
        thread.join(timeout=40)
    return waits


def describe(waits: list[float]) -> str:
    if not waits:
        return "no engine move"
    return (f"{len(waits)} engine moves, p50 {statistics.median(waits) * 1000:,.0f} ms, "
            f"p99 {percentile(waits, 0.99) * 1000:,.0f} ms, max {max(waits) * 1000:,.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=100)
    parser.add_argument("--phase", type=float, default=60)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--step", type=float, default=1.0)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    rng = random.Random(41)
    with tempfile.TemporaryDirectory() as folder:
        env = {"ARENA_WORKERS": str(args.workers), "ARENA_PROXY_HOPS": "1", **GENEROUS_CONNECTIONS,
               "ARENA_ANALYSIS_LIMIT": "100000/minute"}
        server = LiveServer(Path(folder) / "instance", env=env).start()
        pages: list[Page] = []
        try:
            pages = [Page(server.url, f"10.9.{index // 250}.{index % 250 + 1}", rng) for index in range(args.pages)]
            print(f"{args.pages} analysis pages stepping every {args.step:g} s, {args.workers} engine workers, "
                  f"phases of {args.phase:g} s")
            summary: dict[str, dict[str, list[float]]] = {"quiet": {s: [] for s in VICTIMS},
                                                          "crowd": {s: [] for s in VICTIMS}}
            for round_number in range(1, args.rounds + 1):
                for name, crowd in (("quiet", None), ("crowd", pages)):
                    opened_before = sum(page.count for page in pages)
                    waits = run_phase(server, args.phase, crowd, args.step)
                    for source, values in waits.items():
                        summary[name][source] += values
                    line = "; ".join(f"{VICTIMS[s][0]} level {VICTIMS[s][1]}: {describe(v)}" for s, v in waits.items())
                    print(f"round {round_number} {name}: {line}")
                    if crowd:
                        print(f"    nodes opened: {sum(page.count for page in pages) - opened_before}")
            for name, by_source in summary.items():
                for source, values in by_source.items():
                    print(f"all {name}: {VICTIMS[source][0]} level {VICTIMS[source][1]}: {describe(values)}")
            truth_times = [page.truth[node] - page.opened[node] for page in pages for node in page.truth]
            search_times = [page.searched[node] - page.opened[node] for page in pages for node in page.searched]
            opened = sum(len(page.opened) for page in pages)
            print(f"crowd: {opened} nodes opened, {len(truth_times)} got their exact values (median "
                  f"{statistics.median(truth_times) * 1000 if truth_times else float('nan'):,.0f} ms), "
                  f"{len(search_times)} a search event (median "
                  f"{statistics.median(search_times) * 1000 if search_times else float('nan'):,.0f} ms), "
                  f"{sum(page.errors for page in pages)} errors")
        finally:
            for page in pages:
                page.close()
            server.stop()


if __name__ == "__main__":
    main()
