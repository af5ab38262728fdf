"""``python -m engine bench``: nodes, time, nps and EBF per game and technique set; Connect Four solving times.

``--quick`` keeps to the small games and the first 20 positions of each Connect Four set; ``--games`` and
``--sets`` choose what runs (``--no-search`` / ``--no-solve`` skip a table), ``--limit`` how many positions of each
set, ``--max-nodes`` caps each search (a row that hit the cap is marked "stopped").
"""

from __future__ import annotations

import argparse
import sys

from engine import BUILD
from engine.bench import CONNECT4_DATA, CONNECT4_SETS, SearchRow, SolveRow, search_rows, solve_rows, stop_latencies


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options that keep the benchmark short when needed."""
    parser.add_argument("--quick", action="store_true", help="small games only; 20 positions per Connect Four set")
    parser.add_argument("--games", help="comma-separated games for the search table (default: all)")
    parser.add_argument("--sets", help=f"comma-separated Connect Four sets (default: {','.join(CONNECT4_SETS)})")
    parser.add_argument("--limit", type=int, help="positions per Connect Four set (default: all)")
    parser.add_argument("--max-nodes", type=int, default=2_000_000, help="node cap of each search")
    parser.add_argument("--no-solve", action="store_true", help="skip the Connect Four solver sets")
    parser.add_argument("--no-search", action="store_true", help="skip the search table")


def format_search_row(row: SearchRow) -> str:
    """One line of the search table."""
    depth = "end" if row.depth is None else str(row.depth)
    ebf = "" if row.ebf is None else f"{row.ebf:.2f}"
    note = " stopped" if row.stopped else ""
    return (f"{row.game:<10} {row.position or '(start)':<10} {depth:>5} {row.technique:<11} {row.nodes:>10} "
            f"{row.seconds * 1000:>10.1f} {row.nps:>8} {ebf:>6}  {row.score_text}{note}")


def format_solve_row(row: SolveRow) -> str:
    """One line of the Connect Four table."""
    return (f"{row.name:<14} {row.positions:>6} {row.mean_us:>12.0f} {row.median_us:>12.0f} {row.mean_nodes:>12.1f} "
            f"{row.wrong:>6}")


def run(args: argparse.Namespace) -> int:
    """Print both tables; exit status 2 for bad options, 1 if a solved score was wrong, else 0."""
    games = set(args.games.split(",")) if args.games else ({"tictactoe", "nim"} if args.quick else None)
    sets = tuple(args.sets.split(",")) if args.sets else CONNECT4_SETS
    unknown = [name for name in sets if name not in CONNECT4_SETS]
    if unknown or (args.limit is not None and args.limit < 1) or args.max_nodes < 1:
        print(f"error: unknown sets {unknown} (known: {', '.join(CONNECT4_SETS)}) or a limit below 1",
              file=sys.stderr)
        return 2
    limit = args.limit if args.limit is not None else (20 if args.quick else None)
    print(f"engine build: {BUILD.describe()}\n")
    if not args.no_search:
        print(f"{'game':<10} {'position':<10} {'depth':>5} {'technique':<11} {'nodes':>10} {'ms':>10} {'nps':>8} "
              f"{'ebf':>6}  value")
        for row in search_rows(games, args.max_nodes):
            print(format_search_row(row), flush=True)
        latencies = sorted(stop_latencies())
        if latencies:
            print(f"\nstop flag to final event (connect4, unlimited search, {len(latencies)} runs): median "
                  f"{latencies[len(latencies) // 2]:.1f} ms, max {latencies[-1]:.1f} ms")
        else:
            print("\nstop flag to final event: every search ended by itself before its stop")
    if args.no_solve:
        return 0
    if not CONNECT4_DATA.exists():
        print(f"\nno Connect Four sets in {CONNECT4_DATA}")
        return 0
    print(f"\n{'set':<14} {'lines':>6} {'mean us':>12} {'median us':>12} {'mean nodes':>12} {'wrong':>6}")
    wrong = 0
    for solved in solve_rows(sets, limit):
        print(format_solve_row(solved), flush=True)
        wrong += solved.wrong
    return 1 if wrong else 0
