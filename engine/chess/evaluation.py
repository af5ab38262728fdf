"""Evaluation: material and piece-square tables tapered between middlegame and endgame, and personalities.

The search keeps the score incrementally (see ``engine.chess.board.make_move``), so the tables it uses are fixed
for one search: ``build_tables`` blends the middlegame and endgame tables by the game phase of the root position
(phase 24 = all minor and major pieces on the board, 0 = kings and pawns) and adds the personality's weights.
Every move the engine plays starts a new search, so the blend follows the game.

The piece-square values start from Tomasz Michniewski's "Simplified Evaluation Function" (Chess Programming
Wiki), made left-right symmetric so that they read the same for both colours on the half-turned board, with an
endgame king table that prefers the centre and endgame pawn tables that reward passed-pawn-like advances.

The terms added at the leaves of the search (pawn structure, bishop pair, mop-up against a bare king) are in
``engine.chess.leaf_terms``; ``lone_king_side`` here says, once per search, whether mop-up applies.
"""

from __future__ import annotations

from dataclasses import dataclass

import chess

from engine.chess.board import EMPTY, EMPTY_BOARD, Tables, flat_tables

CENTIPAWNS = 100
"""Score units per pawn: the evaluation counts hundredths of a pawn."""

# Tables list rank 8 first, file a to h, from White's side; index 0 is a8.
PAWN_MG = (
    0, 0, 0, 0, 0, 0, 0, 0,
    50, 50, 50, 50, 50, 50, 50, 50,
    10, 10, 20, 30, 30, 20, 10, 10,
    5, 5, 10, 25, 25, 10, 5, 5,
    0, 0, 0, 20, 20, 0, 0, 0,
    5, -5, -10, 0, 0, -10, -5, 5,
    5, 10, 10, -20, -20, 10, 10, 5,
    0, 0, 0, 0, 0, 0, 0, 0,
)
PAWN_EG = (
    0, 0, 0, 0, 0, 0, 0, 0,
    90, 90, 90, 90, 90, 90, 90, 90,
    55, 55, 55, 55, 55, 55, 55, 55,
    30, 30, 30, 30, 30, 30, 30, 30,
    15, 15, 15, 15, 15, 15, 15, 15,
    5, 5, 5, 5, 5, 5, 5, 5,
    0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0,
)
KNIGHT = (
    -50, -40, -30, -30, -30, -30, -40, -50,
    -40, -20, 0, 0, 0, 0, -20, -40,
    -30, 0, 10, 15, 15, 10, 0, -30,
    -30, 5, 15, 20, 20, 15, 5, -30,
    -30, 0, 15, 20, 20, 15, 0, -30,
    -30, 5, 10, 15, 15, 10, 5, -30,
    -40, -20, 0, 5, 5, 0, -20, -40,
    -50, -40, -30, -30, -30, -30, -40, -50,
)
BISHOP = (
    -20, -10, -10, -10, -10, -10, -10, -20,
    -10, 0, 0, 0, 0, 0, 0, -10,
    -10, 0, 5, 10, 10, 5, 0, -10,
    -10, 5, 5, 10, 10, 5, 5, -10,
    -10, 0, 10, 10, 10, 10, 0, -10,
    -10, 10, 10, 10, 10, 10, 10, -10,
    -10, 5, 0, 0, 0, 0, 5, -10,
    -20, -10, -10, -10, -10, -10, -10, -20,
)
ROOK = (
    0, 0, 0, 0, 0, 0, 0, 0,
    5, 10, 10, 10, 10, 10, 10, 5,
    -5, 0, 0, 0, 0, 0, 0, -5,
    -5, 0, 0, 0, 0, 0, 0, -5,
    -5, 0, 0, 0, 0, 0, 0, -5,
    -5, 0, 0, 0, 0, 0, 0, -5,
    -5, 0, 0, 0, 0, 0, 0, -5,
    0, 0, 0, 5, 5, 0, 0, 0,
)
QUEEN = (
    -20, -10, -10, -5, -5, -10, -10, -20,
    -10, 0, 0, 0, 0, 0, 0, -10,
    -10, 0, 5, 5, 5, 5, 0, -10,
    -5, 0, 5, 5, 5, 5, 0, -5,
    -5, 0, 5, 5, 5, 5, 0, -5,
    -10, 0, 5, 5, 5, 5, 0, -10,
    -10, 0, 0, 0, 0, 0, 0, -10,
    -20, -10, -10, -5, -5, -10, -10, -20,
)
KING_MG = (
    -30, -40, -40, -50, -50, -40, -40, -30,
    -30, -40, -40, -50, -50, -40, -40, -30,
    -30, -40, -40, -50, -50, -40, -40, -30,
    -30, -40, -40, -50, -50, -40, -40, -30,
    -20, -30, -30, -40, -40, -30, -30, -20,
    -10, -20, -20, -20, -20, -20, -20, -10,
    20, 20, 0, 0, 0, 0, 20, 20,
    20, 30, 10, 0, 0, 10, 30, 20,
)
KING_EG = (
    -50, -40, -30, -20, -20, -30, -40, -50,
    -30, -20, -10, 0, 0, -10, -20, -30,
    -30, -10, 20, 30, 30, 20, -10, -30,
    -30, -10, 30, 40, 40, 30, -10, -30,
    -30, -10, 30, 40, 40, 30, -10, -30,
    -30, -10, 20, 30, 30, 20, -10, -30,
    -30, -30, 0, 0, 0, 0, -30, -30,
    -50, -30, -30, -30, -30, -30, -30, -50,
)

MATERIAL_MG = {"P": 100, "N": 320, "B": 330, "R": 480, "Q": 950, "K": 0}
MATERIAL_EG = {"P": 130, "N": 300, "B": 320, "R": 540, "Q": 1000, "K": 0}
PHASE_WEIGHT = {chess.KNIGHT: 1, chess.BISHOP: 1, chess.ROOK: 2, chess.QUEEN: 4}
FULL_PHASE = 24


@dataclass(frozen=True, slots=True)
class Personality:
    """Evaluation weights that give the engine a style.

    ``piece_advance``: centipawns per rank a knight, bishop, rook or queen stands beyond our own half.
    ``pawn_storm``: extra middlegame centipawns per rank for pawns beyond the third rank.
    ``king_shelter``: multiplier (in percent) on the middlegame king table (staying castled behind pawns).
    ``contempt``: centipawns a draw is worth less than zero to the engine (it avoids draws when positive).
    """

    name: str
    piece_advance: int
    pawn_storm: int
    king_shelter: int
    contempt: int


PERSONALITIES = {
    "balanced": Personality("balanced", piece_advance=2, pawn_storm=0, king_shelter=100, contempt=0),
    "aggressive": Personality("aggressive", piece_advance=6, pawn_storm=4, king_shelter=60, contempt=25),
    "solid": Personality("solid", piece_advance=0, pawn_storm=-2, king_shelter=150, contempt=0),
}
DEFAULT_PERSONALITY = "balanced"


def game_phase(board: chess.Board) -> int:
    """24 with all pieces on the board down to 0 with kings and pawns only (queen 4, rook 2, minor 1)."""
    phase = sum(weight * len(board.pieces(piece, color)) for piece, weight in PHASE_WEIGHT.items()
                for color in chess.COLORS)
    return min(phase, FULL_PHASE)


def _padded(table64: list[int]) -> tuple[int, ...]:
    """A 64-entry table (a8 first) laid out on the 120-square board, zero on padding."""
    cells = [0] * 120
    k = 0
    for index, byte in enumerate(EMPTY_BOARD):
        if byte == EMPTY:
            cells[index] = table64[k]
            k += 1
    return tuple(cells)


def build_tables(phase: int, personality: Personality) -> Tables:
    """Material + piece-square value of each piece type on each board index, blended at ``phase`` (the flat
    tables of ``engine.chess.board``)."""
    mg, eg = phase, FULL_PHASE - phase

    def blend(piece: str, mg_table: tuple[int, ...], eg_table: tuple[int, ...]) -> list[int]:
        return [(MATERIAL_MG[piece] * mg + MATERIAL_EG[piece] * eg + a * mg + b * eg) // FULL_PHASE
                for a, b in zip(mg_table, eg_table, strict=True)]

    half = tuple(v // 2 for v in KNIGHT)
    king_mg = tuple(v * personality.king_shelter // 100 for v in KING_MG)
    raw = {
        "P": blend("P", PAWN_MG, PAWN_EG),
        "N": blend("N", KNIGHT, half),
        "B": blend("B", BISHOP, tuple(v // 2 for v in BISHOP)),
        "R": blend("R", ROOK, (0,) * 64),
        "Q": blend("Q", QUEEN, QUEEN),
        "K": blend("K", king_mg, KING_EG),
    }
    for square in range(64):
        rank = 8 - square // 8  # 1..8 from White's side
        beyond = max(0, rank - 4)
        for piece in "NBRQ":
            raw[piece][square] += personality.piece_advance * beyond
        if rank > 3:
            raw["P"][square] += personality.pawn_storm * (rank - 3) * mg // FULL_PHASE
    return flat_tables({piece: _padded(values) for piece, values in raw.items()})


def lone_king_side(board: chess.Board) -> chess.Color | None:
    """The colour that has mating material against a bare king (no pawns anywhere), else None."""
    if board.pawns:
        return None
    for strong in chess.COLORS:
        weak_pieces = board.occupied_co[not strong] & ~board.kings
        if not weak_pieces and (board.queens | board.rooks) & board.occupied_co[strong]:
            return strong
    return None
