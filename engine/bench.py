"""Benchmarks behind ``python -m engine bench``: each game under each technique set, and Connect Four solving.

Technique sets, each adding to the one before: plain minimax (one pass); alpha-beta (one pass, no ordering, no
TT, no PVS); + ordering (killers, history, the game's hints); + TT (and the TT move first); everything (the
defaults: PVS, iterative deepening, aspiration, and the rest). Alpha-beta always uses the mate-distance bounds
and the game's own ``score_bounds`` / ``non_losing_moves`` hints, part of the algorithm here, not a switch.
"""

from __future__ import annotations

import dataclasses
import statistics
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from engine.game import State
from engine.games import game_class
from engine.games.connect4 import Connect4
from engine.search import final_event, make_searcher
from engine.search.info import Limits, SearchOptions
from engine.solve.connect4 import Solver

_ONE_PASS = SearchOptions(iterative=False, aspiration=False, lmr=False, null_move=False, pvs=False)
TECHNIQUE_SETS: dict[str, SearchOptions] = {
    "minimax": SearchOptions(algorithm="minimax", iterative=False),
    "alpha-beta": dataclasses.replace(_ONE_PASS, ordering=False, tt=False),
    "+ ordering": dataclasses.replace(_ONE_PASS, tt=False),
    "+ TT": _ONE_PASS,
    "everything": SearchOptions(),
}

POSITIONS: tuple[tuple[str, str, int | None], ...] = (
    ("tictactoe", "", None),
    ("nim", "4", None),
    ("nim", "10 max=3", None),
    ("nim", "2,3,4", None),
    ("nim", "1,3,5,7", None),
    ("connect4", "", 6),
    ("connect4", "4453", 8),
)
"""(game, position, depth): depth None means search to the end of the game (the exact value)."""

CONNECT4_SETS = ("end_easy", "middle_easy", "middle_medium", "begin_easy", "begin_medium")
CONNECT4_DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "connect4"


@dataclass(frozen=True, slots=True)
class SearchRow:
    """One search measured: ``stopped`` when the node cap ended it before the value was found."""

    game: str
    position: str
    depth: int | None
    technique: str
    nodes: int
    seconds: float
    ebf: float | None
    score_text: str
    stopped: bool

    @property
    def nps(self) -> int:
        """Nodes per second."""
        return int(self.nodes / self.seconds) if self.seconds > 0 else 0


@dataclass(frozen=True, slots=True)
class SolveRow:
    """One Connect Four set solved: mean microseconds and nodes per position, and how many scores were wrong."""

    name: str
    positions: int
    mean_us: float
    median_us: float
    mean_nodes: float
    wrong: int


def measure_search(state: State, depth: int | None, technique: str, options: SearchOptions,
                   max_nodes: int) -> SearchRow:
    """Search ``state`` once with ``options``, at most ``max_nodes`` nodes, and time it."""
    limits = Limits(depth=depth, nodes=max_nodes)
    start = time.perf_counter()
    info = final_event(make_searcher(state, limits, options).search())
    seconds = time.perf_counter() - start
    return SearchRow(type(state).name, state.setup(), depth, technique, info.nodes, seconds, info.ebf,
                     info.score_text, info.nodes >= max_nodes)


def search_rows(games: set[str] | None, max_nodes: int) -> Iterator[SearchRow]:
    """Every position of ``POSITIONS`` (of ``games`` if given) under every technique set."""
    for game, position, depth in POSITIONS:
        if games is not None and game not in games:
            continue
        try:
            cls = game_class(game)
        except ValueError:
            continue
        state = cls.from_setup(position) if position else cls.initial()
        for technique, options in TECHNIQUE_SETS.items():
            yield measure_search(state, depth, technique, options, max_nodes)


def stop_latencies(game: str = "connect4", after: float = 0.3, runs: int = 5) -> list[float]:
    """Milliseconds from setting the stop flag of an unlimited search (set once ``after`` seconds have passed,
    on the next event) to the arrival of its final event, for ``runs`` searches; a search that ends by itself before
    the stop (a game solved in less than ``after`` seconds) has no latency to measure and adds none."""
    latencies = []
    for _ in range(runs):
        stop = threading.Event()
        started, stopped_at = time.perf_counter(), None
        for info in make_searcher(game_class(game).initial(), Limits(), SearchOptions(), stop).search():
            if stopped_at is None and time.perf_counter() - started >= after:
                stop.set()
                stopped_at = time.perf_counter()
            if info.final and stopped_at is not None:
                latencies.append((time.perf_counter() - stopped_at) * 1000)
    return latencies


def solve_rows(sets: tuple[str, ...], limit: int | None) -> Iterator[SolveRow]:
    """Solve the first ``limit`` lines of each Connect Four set with ``engine.solve.connect4.Solver``, the table
    cleared before each position as in Pons' benchmark."""
    solver = Solver()
    for name in sets:
        path = CONNECT4_DATA / f"{name}.txt"
        if not path.exists():
            continue
        lines = [line.split() for line in path.read_text().splitlines() if line.strip()][:limit]
        if lines:  # one untimed solve first, so the table's first allocation is not charged to the set
            solver.reset()
            solver.solve(Connect4.from_setup(lines[0][0]))
        micros, nodes, wrong = [], [], 0
        for sequence, expected in lines:
            state = Connect4.from_setup(sequence)
            solver.reset()
            start = time.perf_counter()
            score = solver.solve(state)
            micros.append((time.perf_counter() - start) * 1e6)
            nodes.append(int(solver.nodes))
            wrong += score != int(expected)
        yield SolveRow(name, len(lines), statistics.fmean(micros), statistics.median(micros),
                       statistics.fmean(nodes), wrong)
