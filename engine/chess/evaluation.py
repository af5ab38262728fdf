"""Evaluation: material and piece-square tables tapered between middlegame and endgame, and personalities.

The search keeps the score incrementally (see ``engine.chess.board.make_move``), so the tables it uses are fixed
for one search: ``build_tables`` blends the middlegame and endgame tables by the game phase of the root position
(phase 24 = all minor and major pieces on the board, 0 = kings and pawns) and adds the personality's weights.
Every move the engine plays starts a new search, so the blend follows the game.

The tables (``TABLES``, material included: a knight's entry is what a knight on that square is worth) are data,
``engine/chess/data/piece_square.json``, whose ``about`` says where they come from: Texel's method
(``engine.chess.tuning``, ``python -m engine tune``) on positions of the engine's own games. They are left-right
symmetric so that they read the same for both colours on the half-turned board.

The terms added at the leaves of the search (pawn structure, bishop pair, mop-up against a bare king) are in
``engine.chess.leaf_terms``; ``lone_king_side`` here says, once per search, whether mop-up applies.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import chess

from engine.chess.board import EMPTY, EMPTY_BOARD, Tables, flat_tables

CENTIPAWNS = 100
"""Score units per pawn: the evaluation counts hundredths of a pawn."""

PHASE_WEIGHT = {chess.KNIGHT: 1, chess.BISHOP: 1, chess.ROOK: 2, chess.QUEEN: 4}
FULL_PHASE = 24
PIECES = "PNBRQK"
TABLES_FILE = Path(__file__).with_name("data") / "piece_square.json"


@dataclass(frozen=True, slots=True)
class PieceSquareTables:
    """What each piece is worth on each square, material included, in the middlegame and in the endgame: per piece
    letter (``PIECES``) 64 centipawns, rank 8 of White's side first, files a to h (Black reads them mirrored);
    ``about`` says where they come from."""

    middlegame: dict[str, tuple[int, ...]]
    endgame: dict[str, tuple[int, ...]]
    about: str

    def to_json(self) -> str:
        """The tables as the JSON of ``TABLES_FILE``: one row of eight entries per line."""
        def rows(table: tuple[int, ...]) -> str:
            return ",\n      ".join(json.dumps(list(table[start:start + 8])) for start in range(0, 64, 8))

        def tables(of: dict[str, tuple[int, ...]]) -> str:
            return ",\n".join(f'    "{piece}": [\n      {rows(of[piece])}\n    ]' for piece in PIECES)

        return (f'{{\n  "about": {json.dumps(self.about)},\n  "middlegame": {{\n{tables(self.middlegame)}\n  }},\n'
                f'  "endgame": {{\n{tables(self.endgame)}\n  }}\n}}\n')


def read_tables(path: Path = TABLES_FILE) -> PieceSquareTables:
    """The tables stored at ``path``; ``ValueError`` when a table is missing, not 64 entries or not left-right
    symmetric."""
    data = json.loads(path.read_text(encoding="utf-8"))
    phases = []
    for phase in ("middlegame", "endgame"):
        tables = {}
        for piece in PIECES:
            rows = data[phase][piece]
            if len(rows) != 8 or any(len(row) != 8 or row != row[::-1] for row in rows):
                raise ValueError(f"{path}: the {phase} table of {piece} is not 8 symmetric rows of 8")
            tables[piece] = tuple(int(value) for row in rows for value in row)
        phases.append(tables)
    return PieceSquareTables(phases[0], phases[1], str(data["about"]))


TABLES = read_tables()


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


def build_tables(phase: int, personality: Personality, tables: PieceSquareTables = TABLES) -> Tables:
    """Material + piece-square value of each piece type on each board index, blended at ``phase`` (the flat
    tables of ``engine.chess.board``), with ``personality``'s weights."""
    mg, eg = phase, FULL_PHASE - phase
    raw = {}
    for piece in PIECES:
        middlegame = tables.middlegame[piece]
        if piece == "K":
            middlegame = tuple(v * personality.king_shelter // 100 for v in middlegame)
        raw[piece] = [(a * mg + b * eg) // FULL_PHASE
                      for a, b in zip(middlegame, tables.endgame[piece], strict=True)]
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
