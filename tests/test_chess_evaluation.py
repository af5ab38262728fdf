"""Evaluation: symmetry between the colours, pawn structure, piece activity (mobility, king attack), mop-up,
personalities."""

from __future__ import annotations

import random

import chess
import pytest

from engine.chess import board as cb
from engine.chess import convert
from engine.chess.evaluation import PERSONALITIES, build_tables, game_phase, lone_king_side
from engine.chess.leaf_terms import (
    FULL_PHASE,
    activity,
    king_danger,
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


def random_board(rng: random.Random, least: int, most: int) -> chess.Board:
    """The position after ``least`` to ``most`` random legal moves from the start (fewer if the game ends)."""
    board = chess.Board()
    for _ in range(rng.randint(least, most)):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
    return board


def test_evaluation_is_the_same_for_the_mirrored_position() -> None:
    rng = random.Random(5)
    for _ in range(20):
        board = random_board(rng, 10, 60)
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


def python_chess_activity(board: chess.Board, phase: int) -> tuple[int, int]:
    """``activity``'s two parts for the side to move, counted with python-chess: mobility (the squares each knight,
    bishop, rook and queen attacks that do not hold a piece of its own colour) and king danger (from those next to
    the enemy king or on its square), in 24ths of a centipawn."""
    weights = {chess.KNIGHT: (4, 4), chess.BISHOP: (5, 5), chess.ROOK: (2, 4), chess.QUEEN: (1, 2)}
    units_per_square = {chess.KNIGHT: 2, chess.BISHOP: 2, chess.ROOK: 3, chess.QUEEN: 5}
    mobility = 0
    units = {chess.WHITE: 0, chess.BLACK: 0}
    attackers = {chess.WHITE: 0, chess.BLACK: 0}
    for square, piece in board.piece_map().items():
        if piece.piece_type in weights:
            middlegame, endgame = weights[piece.piece_type]
            reach = board.attacks(square) & ~board.occupied_co[piece.color]
            weight = (middlegame * phase + endgame * (FULL_PHASE - phase)) * len(reach)
            mobility += weight if piece.color == board.turn else -weight
            king = board.king(not piece.color)
            assert king is not None
            near = len(reach & (chess.BB_KING_ATTACKS[king] | chess.BB_SQUARES[king]))
            if near:
                units[piece.color] += near * units_per_square[piece.piece_type]
                attackers[piece.color] += 1
    danger = sum((king_danger(units[colour]) if attackers[colour] >= 2 else 0) * (1 if colour == board.turn else -1)
                 for colour in chess.COLORS)
    return mobility, danger * phase


def internal_activity(board: chess.Board) -> int:
    """``activity`` of ``board`` on the search's board, at its own phase."""
    phase = game_phase(board)
    position = convert.from_board(board, build_tables(phase, PERSONALITIES["balanced"]))
    return activity(position.board, mobility_weights(phase), phase)


def test_activity_counts_the_squares_each_piece_could_move_to_and_those_near_the_enemy_king() -> None:
    rng = random.Random(9)
    for _ in range(60):
        board = random_board(rng, 0, 60)
        mobility, danger = python_chess_activity(board, game_phase(board))
        assert internal_activity(board) == mobility // FULL_PHASE + danger // FULL_PHASE, board.fen()
    assert internal_activity(chess.Board()) == 0
    assert king_danger(10) == 25 and king_danger(1000) == 500


def test_a_king_attack_needs_two_pieces_and_fades_with_the_pieces() -> None:
    attack = chess.Board("r1b2rk1/ppp2ppp/8/6NQ/8/8/PPP2PPP/R1B1R1K1 w - - 0 1")  # queen and knight near g8
    lone = chess.Board("r1b2rk1/ppp2ppp/8/7Q/8/8/PPP2PPP/R1BNR1K1 w - - 0 1")  # the queen alone
    assert python_chess_activity(attack, game_phase(attack))[1] > 0
    assert python_chess_activity(lone, game_phase(lone))[1] == 0
    assert python_chess_activity(attack, 0)[1] == 0  # a middlegame term


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
