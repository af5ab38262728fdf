"""A match between our chess engine and Stockfish limited to a given Elo, or another UCI engine, through
python-chess.

    .venv/bin/python -m bench.match [--games 20] [--elo 1350] [--time 0.5] [--personality balanced]
                                    [--stockfish /usr/games/stockfish] [--seed 1] [--pgn games.pgn]
                                    [--opponent "COMMAND" [--opponent-dir DIR]]

``--opponent`` plays another UCI engine instead of Stockfish, at full strength: an earlier build of ours, for an
A/B match of one change (``git worktree add /tmp/base <commit>``, build it there, then ``--opponent ".venv/bin/python
-m engine uci" --opponent-dir /tmp/base``; the command is split like a shell's and run in ``--opponent-dir``).

Openings: random named lines from the opening tables (4 to 8 plies), each played twice with colours swapped, so
colours alternate game by game. Both sides get ``--time`` seconds per move. Our side is chess's searcher with the
endgame tables it finds in the engine's cache (``make tables`` for the four-piece ones). Games end by the rules
(checkmate, stalemate, insufficient material, threefold repetition, fifty moves) or are drawn after 300 plies.
Prints each result, then the score and the Elo difference with its 95% error bar.
"""

from __future__ import annotations

import argparse
import csv
import math
import random
import shlex
import time
from pathlib import Path

import chess
import chess.engine
import chess.pgn

from engine.chess.openings import openings_dir
from engine.games.chess import ChessState
from engine.search.info import Limits, SearchOptions
from engine.solve.chess_endgames import TableChessSearcher

MAX_PLIES = 300


def opening_lines(rng: random.Random, count: int) -> list[list[str]]:
    """``count`` random opening lines (SAN), each cut to 4-8 plies."""
    rows = []
    for path in sorted(openings_dir().glob("*.tsv")):
        with path.open(encoding="utf-8") as handle:
            rows.extend(csv.DictReader(handle, delimiter="\t"))
    lines = []
    while len(lines) < count:
        row = rng.choice(rows)
        sans = [token for token in row["pgn"].split() if not token.endswith(".")]
        if len(sans) >= 4:
            lines.append(sans[: min(len(sans), rng.randint(4, 8))])
    return lines


def our_move(board: chess.Board, seconds: float, personality: str) -> chess.Move:
    final = None
    options = SearchOptions(personality=personality)
    for event in TableChessSearcher(ChessState(board.copy()), Limits(time=seconds), options).search():
        final = event
    assert final is not None and final.best is not None
    return chess.Move.from_uci(final.best)


def play_game(opening: list[str], we_are_white: bool, opponent: chess.engine.SimpleEngine, seconds: float,
              personality: str) -> tuple[float, chess.Board, str]:
    """Play one game; returns our score (1, 0.5, 0), the final board and the reason it ended."""
    board = chess.Board()
    for san in opening:
        board.push_san(san)
    while True:
        state = ChessState(board)
        outcome = state.outcome()
        if outcome is not None:
            if outcome.winner is None:
                return 0.5, board, outcome.reason
            we_won = (outcome.winner == 0) == we_are_white
            return (1.0 if we_won else 0.0), board, outcome.reason
        if len(board.move_stack) >= MAX_PLIES:
            return 0.5, board, "adjudicated after 300 plies"
        if (board.turn == chess.WHITE) == we_are_white:
            move = our_move(board, seconds, personality)
        else:
            move = opponent.play(board, chess.engine.Limit(time=seconds)).move
        board.push(move)


def elo_difference(score: float, games: int, variance: float) -> tuple[float, float, float]:
    """Elo difference for a mean score, with the 95% interval from the per-game variance (infinite when the
    score or an end of the interval reaches 0% or 100%)."""
    def elo(p: float) -> float:
        if p <= 0:
            return -math.inf
        if p >= 1:
            return math.inf
        return -400 * math.log10(1 / p - 1)

    margin = 1.96 * math.sqrt(variance / games) if games > 1 else 0.5
    return elo(score), elo(score - margin), elo(score + margin)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--elo", type=int, default=1350)
    parser.add_argument("--time", type=float, default=0.5, help="seconds per move for both sides")
    parser.add_argument("--personality", default="balanced")
    parser.add_argument("--stockfish", default="/usr/games/stockfish")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pgn", type=Path, help="append the games to this PGN file")
    parser.add_argument("--opponent", help="a UCI engine's command to play instead of Stockfish")
    parser.add_argument("--opponent-dir", type=Path, help="the directory to run --opponent in")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    openings = opening_lines(rng, (args.games + 1) // 2)
    if args.opponent:
        opponent = chess.engine.SimpleEngine.popen_uci(shlex.split(args.opponent), cwd=args.opponent_dir)
        name = f"{args.opponent} in {args.opponent_dir or '.'}"
    else:
        opponent = chess.engine.SimpleEngine.popen_uci(args.stockfish)
        opponent.configure({"UCI_LimitStrength": True, "UCI_Elo": args.elo, "Threads": 1, "Hash": 16})
        name = f"Stockfish UCI_Elo {args.elo}"
    scores: list[float] = []
    started = time.monotonic()
    try:
        for number in range(args.games):
            opening = openings[number // 2]
            we_are_white = number % 2 == 0
            score, board, reason = play_game(opening, we_are_white, opponent, args.time, args.personality)
            scores.append(score)
            colour = "white" if we_are_white else "black"
            print(f"game {number + 1:3d} as {colour}: {score:.1f} ({reason}, {len(board.move_stack)} plies) "
                  f"opening {' '.join(opening)}; total {sum(scores):.1f}/{len(scores)}", flush=True)
            if args.pgn:
                game = chess.pgn.Game.from_board(board)
                game.headers["White"] = "Alpha-Beta Arena" if we_are_white else name
                game.headers["Black"] = name if we_are_white else "Alpha-Beta Arena"
                game.headers["Termination"] = reason
                white_score = score if we_are_white else 1 - score
                game.headers["Result"] = {1.0: "1-0", 0.5: "1/2-1/2", 0.0: "0-1"}[white_score]
                with args.pgn.open("a", encoding="utf-8") as handle:
                    print(game, file=handle, end="\n\n")
    finally:
        opponent.quit()
    games = len(scores)
    mean = sum(scores) / games
    variance = sum((s - mean) ** 2 for s in scores) / max(games - 1, 1)
    elo, low, high = elo_difference(mean, games, variance)
    wins, draws, losses = scores.count(1.0), scores.count(0.5), scores.count(0.0)
    print(f"\nvs {name} at {args.time} s/move: +{wins} ={draws} -{losses}, "
          f"score {100 * mean:.1f}% over {games} games; Elo difference {elo:+.0f} "
          f"(95% interval {low:+.0f} to {high:+.0f}); {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
