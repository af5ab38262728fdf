"""What keeping a search record costs the commit of an engine move: ``encode_record`` plus ``Store.add_move`` with
the record, against ``add_move`` alone, on a real SQLite file (or ``--url``).

    .venv/bin/python -m bench.search_records [--moves 300] [--rounds 3] [--url postgresql://...]

The records are real final events: tic-tac-toe (alpha-beta depth 9 with its tree), Nim 5-6-7 (minimax depth 5,
whose 3,000-node tree the engine process cut to the cap), Connect Four level 8 and chess level 8. Each round
commits ``--moves`` moves of a fresh game per kind, with and without records, alternating; the figures are the
per-move p50 and p99 in ms, median over the rounds, and the extra cost of the record.
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from engine.games import new_game
from webapp.clock import SYSTEM_CLOCK
from webapp.search.execution import run_job
from webapp.search.jobs import SearchJob
from webapp.search.records import encode_record
from webapp.store import Store, StoredGame, StoredMove, StoredSeat

KINDS = {
    "tictactoe": ({}, {"depth": 9, "time": None, "algorithm": "alphabeta"}, 3000),
    "nim": ({"piles": [5, 6, 7]}, {"depth": 5, "time": None, "algorithm": "minimax"}, 3000),
    "connect4": ({}, {"level": 8}, 0),
    "chess": ({}, {"level": 8}, 0),
}


class _Collected:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def send(self, message: tuple[int, dict[str, Any]]) -> None:
        self.sent.append(message[1])


def final_event(game: str) -> dict[str, Any]:
    """The final ``search`` event of a real search of ``game``'s start position."""
    options, engine, tree = KINDS[game]
    state = new_game(game, **options)
    results = _Collected()
    job = SearchJob(1, "g", 0, state.to_move, state, engine, record_tree=tree)
    run_job(job, results, threading.Event(), SYSTEM_CLOCK)
    return {"game_id": "g", "ply": 0, "seat": 0, "info": results.sent[-1]}


def new_stored_game(store: Store, game_id: str) -> None:
    now = dt.datetime.now(dt.UTC)
    store.create_game(StoredGame(
        id=game_id, game="tictactoe", start_setup="", game_options={}, options={}, opponent={"type": "friend"},
        status="active", winner=None, reason=None, rematch_id=None, created_at=now, updated_at=now,
        seats=[StoredSeat(0, None, True), StoredSeat(1, None, True)]), to_move=0)


def commit_times(store: Store, game_id: str, moves: int, message: dict[str, Any] | None) -> list[float]:
    """Milliseconds of each of ``moves`` commits (encoding the record included when ``message`` is given)."""
    new_stored_game(store, game_id)
    times = []
    for ply in range(1, moves + 1):
        started = time.perf_counter()
        record = encode_record(message) if message is not None else None
        store.add_move(game_id, StoredMove(ply, "1", (ply - 1) % 2, 0, "0"), to_move=ply % 2, record=record)
        times.append((time.perf_counter() - started) * 1000)
    return times


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--url", help="a database URL (default: a temporary SQLite file)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        store = Store(args.url or f"sqlite:///{Path(folder) / 'bench.sqlite3'}")
        for game in KINDS:
            message = final_event(game)
            size = len(encode_record(message))
            rows: dict[str, list[tuple[float, float]]] = {"without": [], "with": []}
            for round_number in range(args.rounds):
                for label, record in (("without", None), ("with", message)):
                    times = commit_times(store, f"{game}-{label}-{round_number}", args.moves, record)
                    rows[label].append((statistics.median(times), percentile(times, 0.99)))
            p50 = {label: statistics.median(r[0] for r in runs) for label, runs in rows.items()}
            p99 = {label: statistics.median(r[1] for r in runs) for label, runs in rows.items()}
            print(f"{game:10} record {size:>6,} B: commit p50 {p50['without']:.2f} -> {p50['with']:.2f} ms, "
                  f"p99 {p99['without']:.2f} -> {p99['with']:.2f} ms (+{p99['with'] - p99['without']:.2f} ms p99)")
        store.close()


if __name__ == "__main__":
    main()
