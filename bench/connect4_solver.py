"""Connect Four solver benchmark on Pons' test sets (``tests/data/connect4``), as in his test protocol.

    .venv/bin/python -m bench.connect4_solver [SET ...] [--limit N] [--oracle]

For each set: positions solved, wrong scores (must be 0), mean nodes per position and its ratio to Pons'
published mean, mean and median microseconds per position, and thousands of nodes per second. The table is reset
before each position. ``--oracle`` also times the endgame oracle (every move solved, plus the line of perfect
play) by number of empty cells, on the positions of the middle sets.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from engine.games.connect4 import CELLS, Connect4
from engine.solve import connect4_oracle as oracle
from engine.solve.connect4 import Solver

SETS = Path(__file__).resolve().parent.parent / "tests" / "data" / "connect4"
PONS_NODES = {"end_easy": 51, "middle_easy": 450, "middle_medium": 39_900, "begin_easy": 3_298,
              "begin_medium": 1_201_000}
DEFAULT_SETS = ("end_easy", "middle_easy", "middle_medium", "begin_easy")


def read_set(name: str, limit: int | None) -> list[tuple[str, int]]:
    """(sequence, expected score) pairs of one set, the first ``limit`` only when given."""
    pairs = [(seq, int(score)) for seq, score in (line.split()[:2] for line in (SETS / f"{name}.txt").open())]
    return pairs[:limit] if limit else pairs


def bench_set(name: str, limit: int | None) -> str:
    """One result line for the set ``name``."""
    solver = Solver()
    wrong, nodes, times = 0, 0, []
    pairs = read_set(name, limit)
    for sequence, expected in pairs:
        state = Connect4.from_setup(sequence)
        solver.reset()
        started = time.perf_counter()
        score = solver.solve(state)
        times.append(time.perf_counter() - started)
        nodes += solver.nodes
        wrong += score != expected
    count = len(pairs)
    mean_nodes = nodes / count
    return (
        f"{name:14s} {count:4d} positions, {wrong} wrong; nodes mean {mean_nodes:10.1f} "
        f"({mean_nodes / PONS_NODES[name]:.2f}x Pons); us mean {statistics.fmean(times) * 1e6:10.1f} "
        f"median {statistics.median(times) * 1e6:10.1f}; {nodes / sum(times) / 1000:.0f} knodes/s"
    )


def bench_oracle(limit: int) -> list[str]:
    """Oracle milliseconds (median, max) by empty cells at the top level (which solves every position), on up to
    ``limit`` positions per count."""
    by_empty: dict[int, list[Connect4]] = {}
    for name in ("middle_easy", "middle_medium"):
        for sequence, _ in read_set(name, None):
            state = Connect4.from_setup(sequence)
            by_empty.setdefault(CELLS - state.moves, []).append(state)
    lines = []
    for empty in sorted(by_empty):
        times = []
        for state in by_empty[empty][:limit]:
            started = time.perf_counter()
            oracle.connect4_oracle(state, oracle.ATTEMPT_LEVEL)
            times.append(time.perf_counter() - started)
        lines.append(f"oracle {empty:2d} empty: {len(times):3d} positions, ms median "
                     f"{statistics.median(times) * 1e3:7.1f} max {max(times) * 1e3:7.1f}")
    return lines


def main() -> int:
    """Run the chosen sets (and the oracle timing) and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sets", nargs="*", metavar="SET", help=f"sets among {', '.join(PONS_NODES)} "
                        f"(default: {' '.join(DEFAULT_SETS)})")
    parser.add_argument("--limit", type=int, help="only the first N positions of each set")
    parser.add_argument("--oracle", action="store_true", help="also time the endgame oracle by empty cells")
    args = parser.parse_args()
    unknown = [name for name in args.sets if name not in PONS_NODES]
    if unknown:
        parser.error(f"unknown set {unknown[0]!r}; sets: {', '.join(PONS_NODES)}")
    print(f"Python {sys.version.split()[0]}", flush=True)
    for name in args.sets or DEFAULT_SETS:
        print(bench_set(name, args.limit), flush=True)
    if args.oracle:
        for line in bench_oracle(args.limit or 10):
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
