"""Evaluation: symmetry between the colours, pawn structure, mobility, mop-up, personalities."""

from __future__ import annotations

import random

import chess
import pytest

from engine.chess import board as cb
from engine.chess import convert
from engine.chess.evaluation import PERSONALITIES, build_tables, game_phase, lone_king_side
from engine.chess.leaf_terms import (
    FULL_PHASE,
    mobility,
    mobility_weights,
    mopup_score,
    pawn_structure,
    pawns_only,
)
from engine.chess.search import ChessSearcher
from engine.games.chess import ChessState

pytestmark = pytest.mark.engine


def static_eval(board: chess.Board) -> int:
    searcher = ChessSearcher(ChessState(board))
    return searcher.core.evaluate(searcher.root.board, searcher.root.score, 0)


def test_evaluation_is_the_same_for_the_mirrored_position() -> None:
    rng = random.Random(5)
    for _ in range(20):
        board = chess.Board()
        for _ in range(rng.randint(10, 60)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        mirrored = board.mirror()
        assert static_eval(board) == static_eval(mirrored), board.fen()


@pytest.mark.parametrize(("fen", "expected"), [
    ("4k3/8/8/3P4/8/8/8/4K3 w - - 0 1", 60 - 10),
    ("4k3/8/8/3P4/8/8/8/4K3 b - - 0 1", -(60 - 10)),
    ("4k3/3p4/8/3P4/8/8/8/4K3 w - - 0 1", 0),
    ("4k3/8/8/8/8/3p4/8/4K3 w - - 0 1", -(100 - 10)),
    ("4k3/8/8/8/8/3P4/3P4/4K3 w - - 0 1", 20 + 10 - 12 - 20),
])
def test_pawn_structure_in_the_endgame(fen: str, expected: int) -> None:
    tables = build_tables(0, PERSONALITIES["balanced"])
    position = convert.from_board(chess.Board(fen), tables)
    assert pawn_structure(pawns_only(position.board), 0) == expected


def python_chess_mobility(board: chess.Board, phase: int) -> int:
    """``mobility`` for the side to move, counted with python-chess: the squares each knight, bishop, rook and queen
    attacks that do not hold a piece of its own colour."""
    weights = {chess.KNIGHT: (4, 4), chess.BISHOP: (5, 5), chess.ROOK: (2, 4), chess.QUEEN: (1, 2)}
    total = 0
    for square, piece in board.piece_map().items():
        if piece.piece_type in weights:
            middlegame, endgame = weights[piece.piece_type]
            count = len(board.attacks(square) & ~board.occupied_co[piece.color])
            weight = (middlegame * phase + endgame * (FULL_PHASE - phase)) * count
            total += weight if piece.color == board.turn else -weight
    return total // FULL_PHASE


def test_mobility_counts_the_squares_each_piece_could_move_to() -> None:
    rng = random.Random(9)
    for _ in range(30):
        board = chess.Board()
        for _ in range(rng.randint(0, 50)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        phase = game_phase(board)
        position = convert.from_board(board, build_tables(phase, PERSONALITIES["balanced"]))
        assert mobility(position.board, mobility_weights(phase)) == python_chess_mobility(board, phase), board.fen()
    assert mobility(convert.from_board(chess.Board(), build_tables(24, PERSONALITIES["balanced"])).board,
                    mobility_weights(24)) == 0


def test_mop_up_prefers_the_bare_king_on_the_edge_and_the_kings_close() -> None:
    board = chess.Board("8/8/8/4k3/8/8/8/4K2Q w - - 0 1")
    assert lone_king_side(board) == chess.WHITE and lone_king_side(chess.Board()) is None
    tables = build_tables(game_phase(board), PERSONALITIES["balanced"])
    centre = convert.from_board(board, tables).board
    edge = convert.from_board(chess.Board("4k3/8/8/8/8/8/8/4K2Q w - - 0 1"), tables).board
    near = convert.from_board(chess.Board("8/8/4k3/8/4K3/8/8/7Q w - - 0 1"), tables).board
    assert mopup_score(edge, True) > mopup_score(centre, True)
    assert mopup_score(near, True) > mopup_score(centre, True)


def test_personalities_change_the_tables() -> None:
    aggressive = build_tables(24, PERSONALITIES["aggressive"])
    solid = build_tables(24, PERSONALITIES["solid"])
    e6 = 91 - 10 * 5 + 4
    assert aggressive[cb.KNIGHT * 120 + e6] > solid[cb.KNIGHT * 120 + e6]
    g1 = 97
    assert solid[cb.KING * 120 + g1] > aggressive[cb.KING * 120 + g1]
    assert PERSONALITIES["aggressive"].contempt > 0 == PERSONALITIES["solid"].contempt
