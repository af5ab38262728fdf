"""Chess search speed: nodes per second and the time to complete depths 5 and 6 on four standard positions.

    .venv/bin/python -m bench.chess_speed [--depth 6] [--generic SECONDS] [--repeat N]

For each position the chess searcher runs to ``--depth``; the table shows the elapsed time when each of depths 5
and 6 completed, the nodes (quiescence included) and nodes per second. With ``--repeat`` the search is run N
times and medians are printed. With ``--generic`` the shared alpha-beta core (``engine.search.alphabeta``) searches
the same positions through the python-chess game state for that many seconds, for comparison.
"""

from __future__ import annotations

import argparse
import statistics

from engine.chess.search import ChessSearcher
from engine.games.chess import ChessState
from engine.search.info import Limits, SearchOptions

POSITIONS = {
    "start": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "kiwipete": "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "cpw3": "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "cpw4": "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
}


def run_chess(fen: str, depth: int) -> tuple[dict[int, float], int, int]:
    """Times (s) at which each depth completed, total nodes and nodes/s of one search to ``depth``."""
    times = {}
    final = None
    for event in ChessSearcher(ChessState.from_setup(fen), Limits(depth=depth)).search():
        if event.kind == "depth" or (event.final and event.depth not in times):
            times[event.depth] = event.time_ms / 1000
        final = event
    assert final is not None
    return times, final.nodes, final.nps


def run_generic(fen: str, seconds: float) -> tuple[int, int, int]:
    """Depth reached, nodes and nodes/s of the shared alpha-beta core in ``seconds``."""
    from engine.search.alphabeta import Searcher

    final = None
    for event in Searcher(ChessState.from_setup(fen), Limits(time=seconds), SearchOptions()).search():
        final = event
    assert final is not None
    return final.depth, final.nodes, final.nps


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--generic", type=float, default=0.0, help="also time the shared core for this many seconds")
    args = parser.parse_args()
    print(f"{'position':10} {'depth 5 s':>10} {'depth 6 s':>10} {'nodes':>9} {'nodes/s':>9}")
    for name, fen in POSITIONS.items():
        runs = [run_chess(fen, args.depth) for _ in range(args.repeat)]
        d5 = statistics.median(r[0].get(5, float("nan")) for r in runs)
        d6 = statistics.median(r[0].get(6, float("nan")) for r in runs)
        nodes = int(statistics.median(r[1] for r in runs))
        nps = int(statistics.median(r[2] for r in runs))
        print(f"{name:10} {d5:10.2f} {d6:10.2f} {nodes:9d} {nps:9d}")
    if args.generic:
        print(f"\nshared alpha-beta core on the python-chess state, {args.generic} s per position:")
        print(f"{'position':10} {'depth':>6} {'nodes':>9} {'nodes/s':>9}")
        for name, fen in POSITIONS.items():
            depth, nodes, nps = run_generic(fen, args.generic)
            print(f"{name:10} {depth:6d} {nodes:9d} {nps:9d}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
