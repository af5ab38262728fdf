"""Static exchange evaluation (``engine.chess.exchange``) against the Chess Programming Wiki's examples and against
a plain minimax of the captures on the square, worked out with python-chess, along random games."""

from __future__ import annotations

import random

import chess
import pytest

from engine.chess import convert
from engine.chess.evaluation import PERSONALITIES, build_tables
from engine.chess.exchange import exchange

pytestmark = pytest.mark.engine

TABLES = build_tables(12, PERSONALITIES["balanced"])
VALUES = {chess.PAWN: 100, chess.KNIGHT: 320, chess.BISHOP: 330, chess.ROOK: 500, chess.QUEEN: 950,
          chess.KING: 20000}


def internal(board: chess.Board, move: chess.Move) -> tuple[bytes, int]:
    white = board.turn == chess.WHITE
    return convert.from_board(board, TABLES).board, convert.move_from_chess(move, white)


def cheapest(board: chess.Board, square: chess.Square) -> list[chess.Square]:
    """The side to move's cheapest pieces attacking ``square`` (pins ignored, as the swap algorithm ignores them)."""
    attackers = list(board.attackers(board.turn, square))
    least = min((VALUES[board.piece_type_at(s)] for s in attackers), default=None)
    return [s for s in attackers if VALUES[board.piece_type_at(s)] == least]


def worth_taking(board: chess.Board, square: chess.Square) -> set[int]:
    """What the side to move wins by taking on ``square`` with a cheapest piece when that pays, else 0: one value
    per choice among equally cheap pieces (which one goes first can open a line for a piece behind it)."""
    starts = cheapest(board, square)
    if not starts:
        return {0}
    taken = VALUES[board.piece_type_at(square)]
    outcomes = set()
    for start in starts:
        after = board.copy(stack=False)
        after.push(chess.Move(start, square))
        outcomes |= {max(0, taken - answer) for answer in worth_taking(after, square)}
    return outcomes


def reference(board: chess.Board, move: chess.Move) -> set[int]:
    """The values the exchange started by ``move`` can have, by plain minimax over the captures on its square."""
    taken = chess.PAWN if board.is_en_passant(move) else board.piece_type_at(move.to_square)
    after = board.copy(stack=False)
    after.push(move)
    return {VALUES[taken] - answer for answer in worth_taking(after, move.to_square)}


@pytest.mark.parametrize(("fen", "move", "value"), [
    ("1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1", "e1e5", 100),  # a pawn nobody defends
    ("1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1", "d3e5", -220),  # the x-ray queen behind f6 counts
    ("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5", 100),
    ("4k3/2p5/3p4/8/8/8/3Q4/3RK3 w - - 0 1", "d2d6", -750),  # the queen for two pawns: the rook behind takes back
])
def test_the_wiki_s_and_plain_exchanges_come_out_right(fen: str, move: str, value: int) -> None:
    board = chess.Board(fen)
    assert exchange(*internal(board, chess.Move.from_uci(move))) == value
    assert reference(board, chess.Move.from_uci(move)) == {value}


def test_every_capture_along_random_games_equals_the_minimax_of_its_square() -> None:
    rng = random.Random(7)
    checked = 0
    for _ in range(40):
        board = chess.Board()
        while not board.is_game_over() and board.ply() < 160:
            for move in board.legal_moves:
                if board.is_capture(move) and not move.promotion:
                    assert exchange(*internal(board, move)) in reference(board, move), (board.fen(), move.uci())
                    checked += 1
            board.push(rng.choice(list(board.legal_moves)))
    assert checked > 1000
