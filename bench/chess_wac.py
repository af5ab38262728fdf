"""Tactics benchmark: how many "Win At Chess" positions the engine solves at a fixed time per position.

    .venv/bin/python -m bench.chess_wac [--time 0.5] [--file tests/data/chess/wac_001_100.epd] [--verbose]

A position counts as solved when the engine's chosen move is one of the EPD's ``bm`` moves.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import chess

from engine.chess.search import ChessSearcher
from engine.games.chess import ChessState
from engine.search.info import Limits

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time", type=float, default=0.5, help="seconds per position (default 0.5)")
    parser.add_argument("--file", type=Path, default=ROOT / "tests" / "data" / "chess" / "wac_001_100.epd")
    parser.add_argument("--verbose", action="store_true", help="print every position")
    args = parser.parse_args()
    solved = 0
    total = 0
    nps = []
    depths = []
    started = time.perf_counter()
    for line in args.file.read_text().splitlines():
        if not line.strip():
            continue
        board, ops = chess.Board.from_epd(line)
        expected = {move.uci() for move in ops["bm"]}
        final = None
        for event in ChessSearcher(ChessState(board), Limits(time=args.time)).search():
            final = event
        total += 1
        ok = final is not None and final.best in expected
        solved += ok
        nps.append(final.nps)
        depths.append(final.depth)
        if args.verbose or not ok:
            wanted = ", ".join(board.san(move) for move in ops["bm"])
            got = board.san(chess.Move.from_uci(final.best)) if final and final.best else None
            print(f"{ops.get('id', '?'):10} {'ok  ' if ok else 'MISS'} played {got:8} wanted {wanted:12} "
                  f"depth {final.depth} score {final.score_text}")
    elapsed = time.perf_counter() - started
    print(f"solved {solved}/{total} at {args.time} s per position; median depth {statistics.median(depths)}, "
          f"median {int(statistics.median(nps))} nodes/s; {elapsed:.0f} s in all")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
