"""``python -m engine review GAME --moves ...``: the verdict on every move of a game (``engine.review``), one line
a move, or with ``--json`` one JSON object a move. The web review stores the same verdicts (a test compares them).
An unknown game, a bad position or an illegal move prints a message on stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys

from engine.game import GameError
from engine.games import game_names, new_game
from engine.review import SearchSettings, SeatSummary, loss_unit, review_moves, summarise


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The game, its moves and start position, and the search settings of positions without a known truth."""
    parser.add_argument("game", help=f"one of: {', '.join(game_names())}")
    parser.add_argument("--moves", required=True,
                        help="the moves played, separated by spaces or commas, in the game's notation (5 1 9; e4 e5)")
    parser.add_argument("--position", help="the start position in the game's own notation (default: the start)")
    defaults = SearchSettings()
    parser.add_argument("--depth", type=int, default=defaults.depth,
                        help=f"search depth where no truth is known (default {defaults.depth})")
    parser.add_argument("--time", type=float, default=defaults.seconds,
                        help=f"most seconds a searched position gets (default {defaults.seconds:g})")
    parser.add_argument("--json", action="store_true", help="one JSON object per move instead of a table")


def run(args: argparse.Namespace) -> int:
    """Review the moves and print the verdicts; status 2 for a bad game, position or move."""
    moves = [move for move in args.moves.replace(",", " ").split() if move]
    try:
        start = new_game(args.game, args.position)
        verdicts = review_moves(start, moves, SearchSettings(args.depth, args.time))
    except (GameError, ValueError) as error:
        print(f"review: {error}", file=sys.stderr)
        return 2
    if args.json:
        for verdict in verdicts:
            print(json.dumps(verdict.to_dict()))
        return 0
    for verdict in verdicts:
        number = f"{(verdict.ply + 1) // 2}{'.' if verdict.ply % 2 else '...'}"
        change = f"{verdict.before} → {verdict.after}" if verdict.after is not None else (verdict.before or "")
        if verdict.win_before is not None and verdict.win_after is not None:
            change += f" (win chance {verdict.win_before:g} % → {verdict.win_after:g} %)"
        better = f"  (better: {verdict.best_shown})" if verdict.best_shown else ""
        loss = f"  loss {verdict.loss:g}" if verdict.loss is not None else ""
        print(f"{number:>5} {verdict.move_shown:<8} {verdict.verdict or 'unknown':<18} {change}{loss}{better}")
    for seat, summary in enumerate(summarise(verdicts, args.game)):
        print(f"{start.players[seat]}: {describe_summary(summary, loss_unit(args.game))}")
    return 0


def describe_summary(summary: SeatSummary, unit: str) -> str:
    """One player's figures in words: "accuracy 74.2 % (win chance, 21 moves) · average loss 3.1 win-chance
    points"."""
    parts = []
    if summary.accuracy is not None:
        parts.append(f"accuracy {summary.accuracy:g} % ({summary.method}, {summary.counted} of {summary.moves} moves)")
    if summary.plies_given:
        parts.append(f"{summary.plies_given} plies of distance given away")
    if summary.average_loss is not None:
        parts.append(f"average loss {summary.average_loss:g} {unit} (searched moves)")
    return " · ".join(parts) or f"{summary.moves} moves, none judged"
