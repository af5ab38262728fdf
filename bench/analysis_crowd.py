"""Whether a crowd on the analysis board slows anyone's game: players' engine moves on a quiet node, then while
``--pages`` analysis boards from as many addresses step through openings, in alternating phases.

    .venv/bin/python -m bench.analysis_crowd [--pages 100] [--phase 60] [--rounds 2] [--step 1.0] [--workers 2]

Starts ``gunicorn -w 1 "webapp:create_app()"`` with ``--workers`` engine processes, trusting one proxy hop so that
each page and player may come from an address of its own (``X-Forwarded-For``, as nginx sends it). Two players,
from addresses of their own, play level-3 tic-tac-toe and level-4 Connect Four over HTTP, one move after another,
for every phase (``bench/engine_share.py``'s players: the figure is the time from posting a move to the engine's
reply being in the game, polled every 20 ms). Phases alternate, ``--rounds`` times: ``--phase`` seconds quiet, then
``--phase`` seconds with the crowd: each page (a Socket.IO connection) opens a node every ``--step`` seconds,
walking a random Connect Four or chess opening forward (then starting another), its engine on without limits (the
search runs until the next node, and a page sends ``analyse_stop`` when its phase ends): the analysis board as
people use it, clicking through a line. The crowd runs in a process of its own at the lowest CPU priority, as its
clients would be other machines. Prints each phase's waits (p50, p99, max) and, for the crowd, how many nodes were
opened, how many of the Connect Four ones got their exact values (chess has none) and how many nodes their first
search event, and the median time to those.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import random
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import socketio

from bench.engine_share import VICTIMS, Http, percentile, play_victim
from tests.support.servers import GENEROUS_CONNECTIONS, LiveServer

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
        self.connect4_opened = 0
        self.line: list[str] = []
        self.walked: list[str] = []
        self.game = ""

    def _on_truth(self, payload: dict[str, Any]) -> None:
        if payload["how"] == "exact":  # chess has none: it is told so at once
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
        if self.game == "connect4":
            self.connect4_opened += 1
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


def crowd_main(url: str, count: int, step: float, stepping: Any, quit_: Any, report: Any) -> None:
    """The crowd, in a process of its own at the lowest CPU priority (its clients would be other people's machines;
    here they share the node's cores, and must not take them from the node): ``count`` pages, stepping while
    ``stepping`` is set, each sending ``analyse_stop`` when it stops; ``report`` gets "ready", the nodes opened after
    each phase, then every page's timings once ``quit_`` is set."""
    with contextlib.suppress(OSError):
        os.nice(19)
    rng = random.Random(41)
    pages = [Page(url, f"10.9.{index // 250}.{index % 250 + 1}", rng) for index in range(count)]
    report.put(("ready", None))
    try:
        while not quit_.is_set():
            if not stepping.wait(0.2):
                continue
            stop = threading.Event()
            thread = threading.Thread(target=crowd_steps, args=(pages, step, stop), daemon=True)
            opened_before = sum(page.count for page in pages)
            thread.start()
            while stepping.is_set() and not quit_.is_set():
                time.sleep(0.05)
            stop.set()
            thread.join()
            for page in pages:  # leave the page: nothing of the crowd runs in the quiet phase
                page.client.emit("analyse_stop", {})
            report.put(("phase", sum(page.count for page in pages) - opened_before))
        truth = [page.truth[node] - page.opened[node] for page in pages for node in page.truth]
        searched = [page.searched[node] - page.opened[node] for page in pages for node in page.searched]
        report.put(("done", (sum(len(page.opened) for page in pages), sum(page.connect4_opened for page in pages),
                             truth, searched, sum(page.errors for page in pages))))
    finally:
        for page in pages:
            page.close()


def run_phase(server: LiveServer, seconds: float, stepping: Any | None) -> dict[str, list[float]]:
    """The players' waits over one phase, with the crowd stepping when ``stepping`` (its event) is given."""
    stop = threading.Event()
    waits: dict[str, list[float]] = {source: [] for source in VICTIMS}
    threads = [threading.Thread(target=play_victim, daemon=True, args=(
        Http(server.port, "127.0.0.1", {"X-Forwarded-For": source}), game, level, stop, waits[source]))
        for source, (game, level) in VICTIMS.items()]
    if stepping is not None:
        stepping.set()
    for thread in threads:
        thread.start()
    time.sleep(seconds)
    stop.set()
    if stepping is not None:
        stepping.clear()
    for thread in threads:
        thread.join(timeout=40)
    return waits


def describe(waits: list[float]) -> str:
    if not waits:
        return "no engine move"
    return (f"{len(waits)} engine moves, p50 {statistics.median(waits) * 1000:,.0f} ms, "
            f"p99 {percentile(waits, 0.99) * 1000:,.0f} ms, max {max(waits) * 1000:,.0f} ms")


def median_ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:,.0f} ms" if values else "none"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=100)
    parser.add_argument("--phase", type=float, default=60)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--step", type=float, default=1.0)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    context = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory() as folder:
        env = {"ARENA_WORKERS": str(args.workers), "ARENA_PROXY_HOPS": "1", **GENEROUS_CONNECTIONS,
               "ARENA_ANALYSIS_LIMIT": "100000/minute"}
        server = LiveServer(Path(folder) / "instance", env=env).start()
        stepping, quit_, report = context.Event(), context.Event(), context.Queue()
        crowd = context.Process(target=crowd_main, args=(server.url, args.pages, args.step, stepping, quit_, report))
        crowd.start()
        try:
            if report.get(timeout=120)[0] != "ready":
                raise RuntimeError("the crowd did not start")
            print(f"{args.pages} analysis pages stepping every {args.step:g} s, {args.workers} engine workers, "
                  f"phases of {args.phase:g} s")
            summary: dict[str, dict[str, list[float]]] = {"quiet": {s: [] for s in VICTIMS},
                                                          "crowd": {s: [] for s in VICTIMS}}
            for round_number in range(1, args.rounds + 1):
                for name, crowd_stepping in (("quiet", None), ("crowd", stepping)):
                    waits = run_phase(server, args.phase, crowd_stepping)
                    for source, values in waits.items():
                        summary[name][source] += values
                    line = "; ".join(f"{VICTIMS[s][0]} level {VICTIMS[s][1]}: {describe(v)}" for s, v in waits.items())
                    print(f"round {round_number} {name}: {line}", flush=True)
                    if crowd_stepping is not None:
                        print(f"    nodes opened: {report.get(timeout=60)[1]}", flush=True)
            for name, by_source in summary.items():
                for source, values in by_source.items():
                    print(f"all {name}: {VICTIMS[source][0]} level {VICTIMS[source][1]}: {describe(values)}")
            quit_.set()
            opened, connect4, truth, searched, errors = report.get(timeout=60)[1]
            print(f"crowd: {opened} nodes opened, {len(truth)} of the {connect4} Connect Four ones got their exact "
                  f"values (median {median_ms(truth)}), "
                  f"{len(searched)} a search event (median {median_ms(searched)}), {errors} errors")
        finally:
            quit_.set()
            crowd.join(timeout=30)
            server.stop()


if __name__ == "__main__":
    main()
