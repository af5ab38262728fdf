"""How early in a Connect Four game the solver proves every move: time to score all legal moves, by ply.

    .venv/bin/python -m bench.connect4_exact_by_ply [--per-ply N] [--budget S] [--plies A-B] [--random GAMES]

The positions are the prefixes of Pons' Begin-Medium and Middle-Medium lines (positions of real length), N per
ply; with ``--random GAMES``, every prefix of that many random games instead (moves drawn uniformly, seed 41,
each game played to its end), every one measured: the analysis board's visitor, who may reach any position.
Each is scored move by move as the truth column, hints and reviews do (``connect4_oracle.move_scores`` on a
borrowed solver, its table emptied first), with a deadline of ``--budget`` seconds. Per ply: how many were proven
within the budget, the median, 95th percentile and maximum of the time (a timeout counts as the budget), and the
median nodes. The budgets in ``engine.truth`` and ``engine.solve.connect4_oracle`` are chosen from this table.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

from engine import BUILD
from engine.clock import Deadline
from engine.games.connect4 import Connect4
from engine.solve.connect4 import SolveTimeout
from engine.solve.connect4_oracle import move_scores
from engine.solve.solver_pool import SOLVERS

SETS = Path(__file__).resolve().parent.parent / "tests" / "data" / "connect4"


def positions_by_ply(per_ply: int) -> dict[int, list[Connect4]]:
    """Up to ``per_ply`` distinct unfinished positions per ply, from the prefixes of the sets' lines."""
    found: dict[int, dict[str, Connect4]] = {}
    for name in ("begin_medium", "middle_medium"):
        for line in (SETS / f"{name}.txt").read_text().splitlines():
            sequence = line.split()[0]
            for ply in range(len(sequence) + 1):
                bucket = found.setdefault(ply, {})
                if len(bucket) < per_ply and sequence[:ply] not in bucket:
                    state = Connect4.from_setup(sequence[:ply])
                    if state.outcome() is None:
                        bucket[sequence[:ply]] = state
    return {ply: list(bucket.values()) for ply, bucket in sorted(found.items())}


def random_positions_by_ply(games: int) -> dict[int, list[Connect4]]:
    """Every unfinished prefix of ``games`` random games (uniform moves, seed 41), by ply."""
    rng = random.Random(41)
    found: dict[int, list[Connect4]] = {}
    for _ in range(games):
        state = Connect4.initial()
        while state.outcome() is None:
            found.setdefault(state.moves, []).append(state)
            state = state.play(rng.choice(state.legal_moves()))
    return dict(sorted(found.items()))


def percentile(times: list[float], share: float) -> float:
    """The ``share`` quantile (nearest rank) of the sorted ``times``."""
    return times[min(len(times) - 1, max(0, round(share * len(times)) - 1))]


def main() -> int:
    """Print one line per ply."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--per-ply", type=int, default=20, help="positions per ply (default 20)")
    parser.add_argument("--budget", type=float, default=0.5, help="seconds per position (default 0.5)")
    parser.add_argument("--plies", default="4-30", help="the plies measured, A-B (default 4-30)")
    parser.add_argument("--random", type=int, metavar="GAMES", help="every prefix of this many random games")
    args = parser.parse_args()
    first, _, last = args.plies.partition("-")
    print(f"engine build: {BUILD.describe()}; budget {args.budget:g} s per position (every move scored)")
    print(f"{'ply':>3} {'empty':>5} {'proven':>9} {'median ms':>10} {'p95 ms':>8} {'max ms':>8} {'median nodes':>13}",
          flush=True)
    every: list[float] = []
    chosen = random_positions_by_ply(args.random) if args.random else positions_by_ply(args.per_ply)
    for ply, states in chosen.items():
        if not int(first) <= ply <= int(last):
            continue
        times, nodes, proven = [], [], 0
        for state in states:
            started = time.perf_counter()
            try:
                with SOLVERS.borrow() as solver:
                    scored = move_scores(state, solver, Deadline(started + args.budget, time.perf_counter))
                proven += 1
                nodes.append(sum(entry[2] for entry in scored))
                times.append(time.perf_counter() - started)
            except SolveTimeout:
                times.append(args.budget)
        times.sort()
        every += times
        p95 = percentile(times, 0.95)
        median_nodes = f"{statistics.median(nodes):>13.0f}" if nodes else f"{'-':>13}"
        print(f"{ply:>3} {42 - ply:>5} {proven:>4}/{len(states):<4} {statistics.median(times) * 1e3:>10.1f} "
              f"{p95 * 1e3:>8.1f} {times[-1] * 1e3:>8.1f} {median_nodes}", flush=True)
    every.sort()
    print(f"all {len(every)} positions: median {statistics.median(every) * 1e3:.1f} ms, p95 "
          f"{percentile(every, 0.95) * 1e3:.1f} ms, p99 {percentile(every, 0.99) * 1e3:.1f} ms, max "
          f"{every[-1] * 1e3:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
