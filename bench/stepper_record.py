"""What a search recorded for the stepper costs: its time beside the same search unrecorded, its memory, its JSON.

    .venv/bin/python -m bench.stepper_record [--rounds N]

For searches of about 2,000 to 50,000 nodes in three games (depth-limited, every technique, as the stepper runs
them), each round runs the search without a recorder, then with one (``engine.stepper.record_search``), in turn;
the table gives the medians. Then, once per search: the peak Python memory while recording (``tracemalloc``), the
size of the stepper's JSON answer (``SteppedSearch.to_dict``), plain and gzipped (what a proxy that compresses
sends). Without a recorder the searcher pays one ``is None`` test per hook: ``python -m engine bench`` measures that.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import time
import tracemalloc

from engine import BUILD
from engine.games import game_class
from engine.search import analyse
from engine.search.info import Limits, SearchOptions
from engine.stepper import record_search

SEARCHES = [
    ("tictactoe", "", 9),
    ("connect4", "4 4 3", 8),
    ("connect4", "", 10),
    ("chess", "e2e4 e7e5 g1f3 b8c6", 4),
    ("chess", "e2e4 e7e5 g1f3 b8c6", 5),
    ("chess", "e2e4 e7e5 g1f3 b8c6", 6),
]
"""(game, moves, depth): the stepper's searches measured, small to about its limit of 50,000 nodes."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="alternating runs of each search (default 5)")
    args = parser.parse_args()
    print(f"engine build: {BUILD.describe()}\n")
    print(f"{'game':10} {'moves':22} {'depth':>5} {'nodes':>7} {'plain ms':>9} {'recorded ms':>12} {'ratio':>6} "
          f"{'peak MiB':>9} {'JSON KiB':>9} {'gzip KiB':>9} {'B/node':>7}")
    for game, moves, depth in SEARCHES:
        state = game_class(game).initial()
        for text in moves.split():
            state = state.play(state.parse_move(text))
        plain, recorded = [], []
        for _ in range(args.rounds):
            started = time.perf_counter()
            analyse(state, Limits(depth=depth), SearchOptions())
            plain.append(time.perf_counter() - started)
            started = time.perf_counter()
            stepped = record_search(state, depth, SearchOptions())
            recorded.append(time.perf_counter() - started)
        tracemalloc.start()
        stepped = record_search(state, depth, SearchOptions())
        answer = json.dumps(stepped.to_dict(), separators=(",", ":")).encode()
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        nodes = stepped.info.nodes
        note = " (too large)" if stepped.too_large else ""
        plain_ms, recorded_ms = statistics.median(plain) * 1000, statistics.median(recorded) * 1000
        print(f"{game:10} {moves or '(start)':22} {depth:>5} {nodes:>7,} {plain_ms:>9.1f} "
              f"{recorded_ms:>12.1f} {recorded_ms / plain_ms:>6.2f} "
              f"{peak / 2**20:>9.1f} {len(answer) / 1024:>9.0f} {len(gzip.compress(answer)) / 1024:>9.0f} "
              f"{len(answer) / nodes:>7.0f}{note}")


if __name__ == "__main__":
    main()
