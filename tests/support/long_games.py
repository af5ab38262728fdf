"""Long chess games for tests and benchmarks: a legal game of many plies that no rule ends, whose setup fits the
API's 8,000 characters (the longest setup a client can make a node hold)."""

from __future__ import annotations

import random
from collections import Counter

import chess

MAX_SETUP = 8000


def long_game(plies: int, seed: int) -> list[str]:
    """UCI moves of a legal game of at most ``plies`` plies that is still going on."""
    rng = random.Random(seed)
    board = chess.Board()
    seen: Counter[str] = Counter({board.board_fen(): 1})
    moves: list[str] = []
    while len(moves) < plies and len("startpos moves " + " ".join(moves)) < MAX_SETUP - 6:
        legal = list(board.legal_moves)
        rng.shuffle(legal)
        pawns = [m for m in legal if board.piece_type_at(m.from_square) == chess.PAWN and not m.promotion
                 and not board.is_capture(m)]
        quiet = [m for m in legal if m not in pawns and not m.promotion and not board.is_capture(m)]
        rest = [m for m in legal if m not in pawns and m not in quiet]
        first, second = (pawns, quiet) if board.halfmove_clock > 80 else (quiet, pawns)
        for move in first + second + rest:
            board.push(move)
            if seen[board.board_fen()] < 2 and board.outcome(claim_draw=True) is None:
                seen[board.board_fen()] += 1
                moves.append(move.uci())
                break
            board.pop()
        else:
            break
    return moves
