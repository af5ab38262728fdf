"""``python -m engine solve connect4``: solve Connect Four positions read from stdin, in Pons' format.

Each input line is a Pons column sequence ("4453"), optionally followed by whitespace and anything else (ignored,
so his benchmark files with their expected scores can be piped in as they are). Each line gets one output line,
flushed at once: ``<sequence> <score> <nodes> <microseconds>`` with the exact score in Pons' convention (see
``engine.solve.connect4``), or ``<line> error <reason>`` for a line that is not a playable position; the next lines
go on. The transposition table is cleared before each position, as in Pons' benchmark. Positions with at most 12
stones are searched down to the opening book (``engine.solve.connect4_book``) unless ``--no-book`` is given (Pons'
benchmark solver has no book: compare node counts with his without it).

With ``--analyse`` each line gets the exact score of every column instead, as Pons' ``-a`` prints them:
``<sequence> <score of column 1> ... <score of column 7> <microseconds>``, ``-1000`` for a full column, a move that
wins at once scored as Pons does (his ``analyze``). A finished game is an error line.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import TextIO

from engine.game import GameError, InvalidSetupError
from engine.games.connect4 import WIDTH, Connect4
from engine.solve.connect4 import Solver
from engine.solve.connect4_book import opening_book
from engine.solve.connect4_oracle import move_scores

GAMES = ("connect4",)
FULL_COLUMN = -1000
"""The score ``--analyse`` gives a column that cannot be played (Pons' ``Solver::INVALID_MOVE``)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The game to solve and the options."""
    parser.add_argument("game", choices=GAMES, help="the game whose positions are read from stdin")
    parser.add_argument("--weak", action="store_true", help="only the sign of the score: 1 win, 0 draw, -1 loss")
    parser.add_argument("--analyse", action="store_true",
                        help="the score of every column (-1000 for a full one) instead of the position's")
    parser.add_argument("--no-book", action="store_true", help="search early positions to the end, not to the book")


def _score(solver: Solver, state: Connect4, weak: bool) -> list[int]:
    """``[score, nodes]``: the position's exact score and the nodes it took."""
    return [solver.solve(state, weak=weak), solver.nodes]


def _column_scores(solver: Solver, state: Connect4, weak: bool) -> list[int]:
    """The seven columns' exact scores, ``FULL_COLUMN`` for a full one; a finished game is an error."""
    outcome = state.outcome()
    if outcome is not None:
        raise InvalidSetupError(f"the game is over: {outcome.reason}")
    scores = [FULL_COLUMN] * WIDTH
    for score, column, _ in move_scores(state, solver, weak=weak):
        scores[column] = score
    return scores


def answer_line(solver: Solver, line: str, weak: bool = False, analyse: bool = False) -> str:
    """The output line for one input line (without the newline): ``<sequence> <result> <microseconds>``, the
    result being ``<score> <nodes>`` or, with ``analyse``, every column's score; or ``<line> error <reason>``."""
    fields = line.split(maxsplit=1)
    if not fields:
        return f"{line} error empty line: expected a column sequence such as 4453"
    sequence = fields[0]
    try:
        state = Connect4.from_setup(sequence)
        solver.reset()
        start = time.perf_counter()
        result = (_column_scores if analyse else _score)(solver, state, weak)
        micros = round((time.perf_counter() - start) * 1e6)  # the solve alone, as Pons' program times it
    except GameError as error:
        return f"{line} error {error}"
    return f"{sequence} {' '.join(map(str, result))} {micros}"


def solve_stream(lines: TextIO, out: TextIO, solver: Solver, weak: bool = False, analyse: bool = False) -> int:
    """Answer every line of ``lines`` on ``out`` with ``solver`` (each column's score with ``analyse``), flushing
    after each; returns how many lines were errors."""
    errors = 0
    for raw in lines:
        line = raw.rstrip("\r\n")
        answer = answer_line(solver, line, weak, analyse)
        errors += answer.startswith(f"{line} error ")
        out.write(answer + "\n")
        out.flush()
    return errors


def run(args: argparse.Namespace) -> int:
    """Solve stdin line by line; the exit status is 0 when every line was solved, 1 when some were errors."""
    solver = Solver(book=None if args.no_book else opening_book())
    return 1 if solve_stream(sys.stdin, sys.stdout, solver, weak=args.weak, analyse=args.analyse) else 0
