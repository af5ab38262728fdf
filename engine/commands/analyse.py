"""``python -m engine analyse GAME``: search a position and print every ``SearchInfo`` event, the final one last.

Output is a readable table (one row per event) or, with ``--json``, one JSON object per line. With ``--truth`` the
final event also gives each move's exact value where it is known (``engine.truth.move_values``) and its verdict on
the search's score (``engine.truth.judged``: the panel's truth column). An unknown game, a bad position or bad
limits print a message on stderr and exit with status 2.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Callable, Iterable
from typing import Any, TextIO

from engine.game import GameError, State, describe_score
from engine.games import game_class, game_names
from engine.search import make_searcher
from engine.search.every_move import every_move_options
from engine.search.info import Limits, SearchInfo, SearchOptions
from engine.truth import judged, move_values

TOGGLES = ("alphabeta", "pvs", "iterative", "tt", "ordering", "killers", "history", "aspiration", "quiescence",
           "null_move", "lmr", "bounds")

COLUMNS = (("kind", 8), ("depth", 5), ("seld", 4), ("nodes", 10), ("cutoffs", 8), ("pruned", 8), ("tt_hits", 8),
           ("ms", 9), ("nps", 8), ("ebf", 6), ("score", 12), ("best", 6))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The fixed options of the command, plus ``--nodes``, ``--personality``, ``--seed``, ``--tree`` and
    ``--option NAME=on|off``."""
    parser.add_argument("game", help=f"one of: {', '.join(game_names())}")
    parser.add_argument("--position", help="a position in the game's own notation (default: the start)")
    parser.add_argument("--depth", type=int, help="depth limit in plies")
    parser.add_argument("--time", type=float, help="time limit in seconds")
    parser.add_argument("--nodes", type=int, help="node limit (MCTS: playouts)")
    parser.add_argument("--algorithm", choices=("alphabeta", "minimax", "mcts"), default="alphabeta")
    parser.add_argument("--no-tt", action="store_true", help="no transposition table")
    parser.add_argument("--no-ordering", action="store_true", help="moves in the game's generation order")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=on|off",
                        help=f"switch a technique: {', '.join(TOGGLES)}")
    parser.add_argument("--personality", metavar="NAME", help="evaluation style of games that have them (chess: "
                        "balanced, aggressive, solid)")
    parser.add_argument("--seed", type=int, help="random seed (MCTS)")
    parser.add_argument("--tree", type=int, default=0, metavar="N", help="record the search tree (at most N nodes)")
    parser.add_argument("--json", action="store_true", help="one JSON object per event instead of a table")
    parser.add_argument("--every-move", action="store_true", help="score every root move exactly (a full window "
                        "for each, as the panel's \"score every move\" does; alpha-beta only)")
    parser.add_argument("--truth", action="store_true", help="each move's exact value and its verdict on the "
                        "search's score, after the final event (where the value is known)")


def build_options(args: argparse.Namespace) -> SearchOptions:
    """The ``SearchOptions`` the arguments ask for; a bad ``--option`` raises ``ValueError``."""
    # field name -> value; each field has its own type, so a value is any (``check_options`` vets the result)
    changes: dict[str, Any] = {"algorithm": args.algorithm, "record_tree": args.tree, "seed": args.seed,
                                  "personality": args.personality}
    if args.no_tt:
        changes["tt"] = False
    if args.no_ordering:
        changes["ordering"] = False
    for toggle in args.option:
        name, _, value = toggle.partition("=")
        name = name.replace("-", "_")
        if name not in TOGGLES or value not in ("on", "off"):
            raise ValueError(f"bad --option {toggle!r}: expected NAME=on or NAME=off, NAME one of {', '.join(TOGGLES)}")
        changes[name] = value == "on"
    options = dataclasses.replace(SearchOptions(), **changes)
    return every_move_options(options) if args.every_move else options


def format_row(info: SearchInfo) -> str:
    """One table row for an event."""
    values = (info.kind, info.depth, info.seldepth, info.nodes, info.cutoffs, info.pruned, info.tt_hits,
              f"{info.time_ms:.1f}", info.nps, "" if info.ebf is None else f"{info.ebf:.2f}", info.score_text,
              info.best or "-")
    row = " ".join(f"{value!s:>{width}}" for value, (_, width) in zip(values, COLUMNS, strict=True))
    return f"{row}  pv {' '.join(info.pv)}"


def format_root_moves(info: SearchInfo, truth: dict[str, dict[str, Any]] | None = None) -> str:
    """The final event's root moves, one per line (with ``truth``: each one's exact value and verdict)."""
    lines = []
    for root in info.root_moves:
        if root.visits is not None:
            value = "-" if root.value is None else root.value
            line = f"  {root.move:>6} visits {root.visits:>7} value {value}"
        else:
            score = "-" if root.score is None else describe_score(root.score, info.score_scale)
            bound = f"{root.bound} bound" if root.bound in ("upper", "lower") else root.bound or "not searched"
            line = f"  {root.move:>6} score {score:>12} ({bound}) nodes {root.nodes}"
        exact = (truth or {}).get(root.move)
        lines.append(line + (f"  truth {exact['text']} ({exact['verdict'] or 'no verdict'})" if exact else ""))
    return "\n".join(lines)


def print_events(events: Iterable[SearchInfo], out: TextIO, as_json: bool,
                 truth_of: Callable[[SearchInfo], dict[str, dict[str, Any]] | None] | None = None) -> None:
    """Print each event as it comes (a table, or JSON lines); ``truth_of`` gives the final event's ``truth``."""
    if not as_json:
        out.write(" ".join(f"{name:>{width}}" for name, width in COLUMNS) + "\n")
    for info in events:
        truth = truth_of(info) if truth_of and info.final else None
        if as_json:
            out.write(json.dumps({**info.to_dict(), **({"truth": truth} if truth_of and info.final else {})}) + "\n")
        else:
            out.write(format_row(info) + "\n")
            if info.final:
                out.write("root moves:\n" + format_root_moves(info, truth) + "\n")
        out.flush()


def truth_beside(state: State) -> Callable[[SearchInfo], dict[str, dict[str, Any]] | None]:
    """The ``truth`` of a final event on ``state``: each move's exact value with its verdict, None where unknown."""
    def truth_of(info: SearchInfo) -> dict[str, dict[str, Any]] | None:
        values = move_values(state)
        return None if values is None else judged(values, info.to_dict()["root_moves"], info.depth)
    return truth_of


def run(args: argparse.Namespace) -> int:
    """Search and print; exit status 0, or 2 with a message for bad input."""
    try:
        cls = game_class(args.game)
        state = cls.from_setup(args.position) if args.position is not None else cls.initial()
        limits = Limits(depth=args.depth, time=args.time, nodes=args.nodes)
        searcher = make_searcher(state, limits, build_options(args))
    except (GameError, ValueError, TypeError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print_events(searcher.search(), sys.stdout, args.json, truth_beside(state) if args.truth else None)
    return 0
