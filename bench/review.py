"""How long the review of a 40-move chess game takes on the engine workers, and what it costs a game being played
meanwhile.

    .venv/bin/python -m bench.review [--baseline 30] [--workers 2]

Starts ``gunicorn -w 1 "webapp:create_app()"`` with ``--workers`` engine processes. From 127.0.0.1 it
plays the first 40 moves (80 plies) of a Ruy Lopez between two people and resigns, then asks for the review of the
game (``POST /api/games/<id>/review``, default settings: docs/review.md) and polls it until done: the figure is the
time from asking to the stored review. Meanwhile a victim from 127.0.0.2 plays level-4 Connect Four against the
engine over HTTP, one move after another (``bench/engine_share.py``'s ``play_victim``): its engine reply waits are
reported for ``--baseline`` seconds before the review and for the review's duration.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench.engine_share import Http, play_victim
from tests.support.servers import GENEROUS_CONNECTIONS, LiveServer

GAME_TEXT = """e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8 d4 Nbd7 c4 c6 cxb5 axb5 Nc3 Bb7
Bg5 b4 Nb1 h6 Bh4 c5 dxe5 Nxe4 Bxe7 Qxe7 exd6 Qf6 Nbd2 Nxd6 Nc4 Nxc4 Bxc4 Nb6 Ne5 Rae8 Bxf7+ Rxf7 Nxf7 Rxe1+ Qxe1 Kxf7
Qe3 Qg5 Qxg5 hxg5 b3 Ke6 a3 Kd6 axb4 cxb4 Ra5 Nd5 f3 Bc8 Kf2 Bf5 Ra7 g6 Ra6+ Kc5 Ke1 Nf4 g3 Nxh3 Kd2 Kb5 Rd6 Kc5"""
GAME = GAME_TEXT.split()
"""80 plies: a Ruy Lopez (Breyer variation) played into an endgame."""


def finished_game(http: Http) -> str:
    """Play ``GAME`` between two seats from one address and resign; the game's id."""
    _, created = http.call("POST", "/api/games", {"game": "chess", "side": 0, "opponent": {"type": "friend",
                                                                                          "open": True}})
    _, seat = http.call("POST", f"/api/games/{created['id']}/seats", {})
    tokens = (created["token"], seat["token"])
    for index, move in enumerate(GAME):
        status, answer = http.call("POST", f"/api/games/{created['id']}/moves", {"move": move,
                                                                                "token": tokens[index % 2]})
        if status != 200:
            raise RuntimeError(f"move {index + 1} {move} refused: {answer}")
    http.call("POST", f"/api/games/{created['id']}/resign", {"token": tokens[0]})
    return created["id"]


def summary(waits: list[float]) -> str:
    if not waits:
        return "no engine move"
    ordered = sorted(waits)
    return (f"{len(waits)} engine moves, median {statistics.median(ordered) * 1000:.0f} ms, "
            f"p90 {ordered[int(0.9 * (len(ordered) - 1))] * 1000:.0f} ms, max {ordered[-1] * 1000:.0f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", type=float, default=30.0, help="seconds of the victim's play before the review")
    parser.add_argument("--workers", type=int, default=2, help="engine processes of the node")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        server = LiveServer(Path(folder) / "instance", env={**GENEROUS_CONNECTIONS, "ARENA_WORKERS": str(args.workers)})
        server.start()
        try:
            http = Http(server.port, "127.0.0.1")
            game_id = finished_game(http)
            waits: list[float] = []
            stop = threading.Event()
            victim = threading.Thread(target=play_victim, args=(Http(server.port, "127.0.0.2"), "connect4", 4,
                                                                stop, waits), daemon=True)
            victim.start()
            time.sleep(args.baseline)
            baseline = list(waits)
            asked = time.perf_counter()
            status, review = http.call("POST", f"/api/games/{game_id}/review", {})
            if status != 202:
                raise RuntimeError(f"the review was refused: {status} {review}")
            while review["status"] == "running":
                time.sleep(0.2)
                _, review = http.call("GET", f"/api/games/{game_id}/review")
            took = time.perf_counter() - asked
            during = waits[len(baseline):]
            stop.set()
            victim.join(timeout=60)
        finally:
            server.stop()
    print(f"review of {len(GAME)} plies ({len(GAME) // 2} moves): {review['status']} in {took:.1f} s "
          f"({review.get('settings', {}).get('text', '')})")
    print(f"averages (centipawns): {review.get('averages')}")
    print(f"victim before the review: {summary(baseline)}")
    print(f"victim during the review: {summary(during)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
