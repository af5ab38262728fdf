"""Solved tables: build time, size on disk, load time and probe speed; and how well Wolves & Rabbit's evaluation
predicts the solved result.

    .venv/bin/python -m bench.tablebase [--games wolves tictactoe] [--builds 3] [--loads 20] [--eval 30000]

Tables are built into a temporary folder (the cache is left alone). Build, load and probe times are medians of
``--builds`` / ``--loads`` runs; a load reads and checks the file (no in-process cache). With ``--eval N`` it
samples N distinct positions from Wolves & Rabbit games (each move perfect with probability 0.7, else random)
and prints the AUC of ``rabbit_score`` against the solved winner: the chance that a position the rabbit wins
scores higher for the rabbit than one it loses (1.0 = perfect ranking, 0.5 = none), for the plain escape
distance and for the refined evaluation.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from engine.games import game_class
from engine.games.wolves import START_RABBIT_SQUARES, Wolves, rabbit_score
from engine.solve import tables
from engine.solve.tablebase import Table


def bench_game(game: str, builds: int, loads: int) -> None:
    """Print build, size, load and probe figures of one game's table."""
    space = tables.space(game)
    with tempfile.TemporaryDirectory() as folder:
        directory = Path(folder)
        build_times = []
        for _ in range(builds):
            started = time.perf_counter()
            built = tables.build(game, directory)
            build_times.append(time.perf_counter() - started)
        path = tables.table_path(game, directory)
        size = path.stat().st_size
        load_times = []
        for _ in range(loads):
            started = time.perf_counter()
            Table.load(path, game, space.version, space.size)
            load_times.append(time.perf_counter() - started)
        index_of = space.index_of
        state = game_class(game).initial()
        started = time.perf_counter()
        probes = 0
        while time.perf_counter() - started < 0.5:
            built.entry(index_of(state))
            probes += 1
        probe_us = (time.perf_counter() - started) / probes * 1e6
        verdict = tables.verdict(state, directory)
    counts = built.counts()
    print(f"{game}: {counts['positions']} positions ({space.size} indices), longest {built.longest()} plies")
    print(f"  build  median {statistics.median(build_times):.2f} s over {builds} "
          f"(min {min(build_times):.2f}, max {max(build_times):.2f})")
    print(f"  disk   {size} bytes ({size / space.size:.3f} bytes per index)")
    print(f"  load   median {statistics.median(load_times) * 1000:.2f} ms over {loads}")
    print(f"  probe  {probe_us:.1f} us (index + lookup)")
    print(f"  start  {verdict['text']} ({verdict['plies']} plies)")


def sample_positions(count: int, directory: Path, seed: int = 0) -> list[tuple[Wolves, bool]]:
    """``count`` distinct unfinished positions from semi-perfect games, each with "the rabbit wins" from the
    table in ``directory``."""
    rng = random.Random(seed)
    positions: dict[int, tuple[Wolves, bool]] = {}
    while len(positions) < count:
        state = Wolves.initial(rabbit=rng.choice(START_RABBIT_SQUARES))
        while state.outcome() is None and len(positions) < count:
            verdict = tables.verdict(state, directory)
            positions[state.key] = (state, verdict["winner"] == 0)
            best = state.parse_move(verdict["moves"][0]["move"])
            state = state.play(rng.choice(state.legal_moves()) if rng.random() < 0.3 else best)
    return list(positions.values())


def auc(samples: list[tuple[Wolves, bool]], score: Callable[[Wolves], int]) -> float:
    """Area under the ROC curve of ``score`` separating rabbit wins from rabbit losses (ties count half)."""
    scored = sorted((score(state), won) for state, won in samples)
    wins = sum(won for _, won in scored)
    losses = len(scored) - wins
    rank_sum = 0.0
    low = 0
    while low < len(scored):
        high = low
        while high < len(scored) and scored[high][0] == scored[low][0]:
            high += 1
        rank_sum += (low + high + 1) / 2 * sum(won for _, won in scored[low:high])
        low = high
    return (rank_sum - wins * (wins + 1) / 2) / (wins * losses)


def bench_eval(count: int) -> None:
    """Print the AUC of the plain and the refined Wolves & Rabbit evaluation."""
    with tempfile.TemporaryDirectory() as folder:
        tables.build("wolves", Path(folder))
        samples = sample_positions(count, Path(folder))
    share = sum(won for _, won in samples) / len(samples)
    print(f"wolves evaluation over {len(samples)} positions from games (rabbit wins {share:.1%}):")
    plain = auc(samples, lambda s: rabbit_score(s.rabbit, s.wolves, refined=False))
    refined = auc(samples, lambda s: rabbit_score(s.rabbit, s.wolves))
    print(f"  AUC escape distance only  {plain:.4f}")
    print(f"  AUC refined (evaluate)    {refined:.4f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", default=["wolves", "tictactoe"], choices=sorted(tables.SPACES))
    parser.add_argument("--builds", type=int, default=3)
    parser.add_argument("--loads", type=int, default=20)
    parser.add_argument("--eval", type=int, default=0, metavar="N", help="measure the evaluation on N positions")
    args = parser.parse_args()
    for game in args.games:
        bench_game(game, args.builds, args.loads)
    if args.eval:
        bench_eval(args.eval)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
