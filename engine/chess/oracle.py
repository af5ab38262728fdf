"""Moves that need no search: the opening book (levels that use it) and Syzygy tablebases when configured.

``chess_oracle(state, level)`` returns a final ``SearchInfo`` with ``source="book"`` or ``source="table"``, or
None when the position needs a search. Tablebases are read from the directory named by the environment variable
``ARENA_SYZYGY`` through python-chess (``chess.syzygy``). Our own endgame tables answer first
(``engine.solve.chess_endgames.endgame_answer``, put before this oracle in ``engine.oracles``).
"""

from __future__ import annotations

import os
import random
from functools import lru_cache
from typing import Any

import chess
import chess.syzygy

from engine.chess.evaluation import CENTIPAWNS
from engine.chess.levels import LEVELS
from engine.chess.openings import book_moves, pick_book_move
from engine.search.info import RootMove, SearchInfo

TABLEBASE_WIN = 20_000
"""Score of a tablebase win before the distance to zeroing is subtracted (a heuristic, not a mate distance)."""


@lru_cache(maxsize=4)
def _tablebase(directory: str) -> chess.syzygy.Tablebase | None:
    if not os.path.isdir(directory):
        return None
    tablebase = chess.syzygy.open_tablebase(directory)
    return tablebase if tablebase.wdl else None


def tablebase_move(board: chess.Board, directory: str | None = None) -> tuple[str, int, str] | None:
    """The tablebase's best move as (UCI, score for the side to move, text), or None when not covered.

    Best = the highest win/draw/loss value, then the quickest distance to zeroing when winning and the longest
    when losing. ``directory`` defaults to ``$ARENA_SYZYGY``.
    """
    directory = directory or os.environ.get("ARENA_SYZYGY")
    if not directory or board.is_game_over() or chess.popcount(board.occupied) > 7:
        return None
    tablebase = _tablebase(directory)
    if tablebase is None:
        return None
    best: tuple[tuple[int, int], str, int] | None = None
    board = board.copy(stack=False)
    try:
        for move in board.legal_moves:
            board.push(move)
            if board.is_checkmate():
                board.pop()
                return move.uci(), TABLEBASE_WIN, "tablebase: mate"
            wdl = -tablebase.probe_wdl(board)
            dtz = abs(tablebase.probe_dtz(board))
            board.pop()
            rank = (wdl, -dtz if wdl > 0 else dtz)
            if best is None or rank > best[0]:
                best = (rank, move.uci(), wdl)
    except (KeyError, chess.syzygy.MissingTableError):
        return None
    if best is None:
        return None
    (wdl, distance), uci, _ = best
    if wdl > 0:
        return uci, TABLEBASE_WIN + distance, f"tablebase win (DTZ {-distance})"
    if wdl < 0:
        return uci, -TABLEBASE_WIN + distance, f"tablebase loss (DTZ {distance})"
    return uci, 0, "tablebase draw"


def _final(best: str, score: int | None, text: str, source: str,
           candidates: dict[str, int] | None = None) -> SearchInfo:
    root_moves = ([RootMove(move, None, visits=lines) for move, lines in candidates.items()] if candidates
                  else [RootMove(best, None)])
    return SearchInfo(
        kind="final", algorithm="alphabeta", depth=0, seldepth=0, nodes=0, qnodes=0, cutoffs=0, pruned=0,
        generated=0, tt_probes=0, tt_hits=0, time_ms=0.0, nps=0, score=score, score_text=text, pv=[best],
        best=best, root_moves=root_moves, ebf=None, final=True, source=source, score_scale=CENTIPAWNS,
    )


def _book_text(state: Any, move: str) -> str:
    """"opening book · C30 King's Gambit": the opening the book move leads to from ``state`` (a ``ChessState``),
    by name when it has one."""
    opening = state.play(chess.Move.from_uci(move)).opening()
    return f"opening book · {opening.eco} {opening.name}" if opening else "opening book"


def plays_tables(level: int | None) -> bool:
    """Whether an ending the endgame tables know is played from them at ``level`` (None, no level: the analysis,
    hints and reviews, always); below that the level searches it as any position."""
    row = None if level is None else LEVELS.get(level)
    return row is None or row.tables


def describe_level(level: int) -> str | None:
    """What the oracle does at ``level``, in words for the level picker, or None when the level only searches."""
    row = LEVELS.get(level)
    if row is not None and row.book:
        tables = ", and plays endings of up to four pieces perfectly from the endgame tables" if row.tables else ""
        return ("opens from the opening book (named openings, weighted by how often they are played), then "
                f"searches{tables}")
    return None


def chess_oracle(state: Any, level: int | None, rng: random.Random | None = None) -> SearchInfo | None:
    """A book move (at levels whose row says ``book``; no level: none) or a tablebase move (where ``plays_tables``),
    as a final event; else None."""
    board: chess.Board = state.board
    row = None if level is None else LEVELS.get(level)
    if row is not None and row.book:
        move = pick_book_move(board, rng or random.Random())
        if move is not None:
            return _final(move, None, _book_text(state, move), "book", book_moves(board))
    found = tablebase_move(board) if plays_tables(level) else None
    if found is not None:
        uci, score, text = found
        return _final(uci, score, text, "table")
    return None
