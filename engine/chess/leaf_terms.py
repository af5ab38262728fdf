"""Evaluation terms the chess search adds at its leaves, computed on the internal board (``engine.chess.board``).

Pawn structure (``pawn_structure``): passed pawns by rank, blended between middlegame and endgame by the game
phase, doubled and isolated pawns; it depends only on where the pawns stand (``pawns_only``), so the searcher
caches it. The bishop pair (``BISHOP_PAIR``). Piece activity (``activity``): each knight, bishop, rook and queen
earns ``MOBILITY_MG`` / ``MOBILITY_EG`` centipawns (blended by the phase, ``mobility_weights``) per square it could
move to, empty or holding an enemy piece, and those squares next to the enemy king make a king attack
(``king_danger``). Mop-up (``mopup_score``): with a lone enemy king and mating material,
drive that king to the edge and bring our king close, so K+Q v K and K+R v K are won without tablebases.

Compiled by mypyc with the board and the search (see docs/compiled.md).
"""

from __future__ import annotations

from typing import Final

from engine.chess.board import (
    ALL_DIRECTIONS,
    BISHOP,
    DIAGONAL,
    EMPTY,
    EMPTY_BOARD,
    KNIGHT,
    KNIGHT_STEPS,
    ORTHOGONAL,
    PAWN,
    QUEEN,
    ROOK,
    THEIRS,
)

FULL_PHASE: Final = 24
"""The game phase with every piece on the board (``engine.chess.evaluation.game_phase``)."""
PASSED_MG: Final = (0, 0, 5, 10, 15, 25, 40, 0, 0)
PASSED_EG: Final = (0, 0, 10, 20, 35, 60, 100, 0, 0)
"""Bonus of a passed pawn by its rank from its owner's side (index 2 = on the 2nd rank ... 7 = on the 7th)."""
DOUBLED: Final = 12
ISOLATED: Final = 10
BISHOP_PAIR: Final = 30
MOBILITY_MG: Final = {KNIGHT: 4, BISHOP: 5, ROOK: 2, QUEEN: 1}
MOBILITY_EG: Final = {KNIGHT: 4, BISHOP: 5, ROOK: 4, QUEEN: 2}
"""Centipawns per square a piece could move to, in the middlegame and the endgame, by the piece's byte."""
KING_ATTACK_UNITS: Final = tuple(
    {KNIGHT: 2, BISHOP: 2, ROOK: 3, QUEEN: 5}.get(byte if byte < 91 else byte - THEIRS, 0) for byte in range(128))
"""King-attack units per square next to the enemy king a piece could move to, by the piece's byte (either side)."""
KING_DANGER_CAP: Final = 500
ZONE: Final = tuple(offset in (-11, -10, -9, -1, 0, 1, 9, 10, 11) for offset in range(-11, 12))
"""Whether a board-index difference ``d`` (at ``d + 11``) joins a square to one next to it or itself."""

PAWNS_ONLY: Final = bytes(byte if byte in b"Pp. " else (46 if 64 < byte < 123 else 32) for byte in range(256))
"""``board.translate(PAWNS_ONLY)`` keeps the pawns and turns every other piece into an empty square and the
castling and en-passant bytes into padding: the key of the pawn-structure cache."""


def _center_distance(index: int) -> int:
    row, col = divmod(index, 10)
    return max(3 - min(row - 2, 9 - row), 3 - min(col - 1, 8 - col))


CENTER_DISTANCE: Final = tuple(_center_distance(i) if EMPTY_BOARD[i] == EMPTY else 0 for i in range(120))
"""How many rings from the four centre squares each board index is (0 in the centre, 3 on the edge)."""


def mobility_weights(phase: int) -> tuple[int, ...]:
    """The weight ``activity`` gives each piece byte's mobility at ``phase``, in 24ths of a centipawn: positive for
    the side to move's pieces, negative for the opponent's, zero for pawns, kings and empty squares."""
    weights = [0] * 128
    for piece, middlegame in MOBILITY_MG.items():
        weight = middlegame * phase + MOBILITY_EG[piece] * (FULL_PHASE - phase)
        weights[piece] = weight
        weights[piece + THEIRS] = -weight
    return tuple(weights)


def activity(board: bytes, weights: tuple[int, ...], phase: int) -> int:
    """The side to move's piece activity minus the opponent's, in centipawns: mobility and king attack.

    Mobility: every knight, bishop, rook and queen counts the squares it could move to (empty, or an enemy piece),
    weighted by ``weights`` (``mobility_weights``). King attack: each of those squares next to the enemy king (or
    its own square) adds ``KING_ATTACK_UNITS`` of the piece; with at least two pieces attacking, the side earns
    ``king_danger`` of its units, scaled by ``phase`` (a middlegame term). One pass over the board for both, as the
    search evaluates every leaf."""
    total = 0
    our_king = board.find(b"K")
    their_king = board.find(b"k")
    our_units = our_attackers = their_units = their_attackers = 0
    for i in range(21, 99):
        p = board[i]
        weight = weights[p]
        if weight == 0:
            continue
        upper = p < 91
        target = their_king if upper else our_king
        count = 0
        near = 0
        if p == KNIGHT or p == KNIGHT + THEIRS:
            for d in KNIGHT_STEPS:
                j = i + d
                q = board[j]
                if q == EMPTY or (q > 96 if upper else 64 < q < 91):
                    count += 1
                    if -12 < j - target < 12 and ZONE[j - target + 11]:
                        near += 1
        else:
            kind = p if upper else p - THEIRS
            directions = ORTHOGONAL if kind == ROOK else DIAGONAL if kind == BISHOP else ALL_DIRECTIONS
            for d in directions:
                j = i + d
                q = board[j]
                while q == EMPTY:
                    count += 1
                    if -12 < j - target < 12 and ZONE[j - target + 11]:
                        near += 1
                    j += d
                    q = board[j]
                if q > 96 if upper else 64 < q < 91:
                    count += 1
                    if -12 < j - target < 12 and ZONE[j - target + 11]:
                        near += 1
        total += weight * count
        if near:
            units = near * KING_ATTACK_UNITS[p]
            if upper:
                our_units += units
                our_attackers += 1
            else:
                their_units += units
                their_attackers += 1
    danger = 0
    if our_attackers >= 2:
        danger += king_danger(our_units)
    if their_attackers >= 2:
        danger -= king_danger(their_units)
    return total // FULL_PHASE + danger * phase // FULL_PHASE


def king_danger(units: int) -> int:
    """Centipawns a side's king attack is worth in the middlegame: growing with the square of its ``units``, at
    most ``KING_DANGER_CAP``."""
    return min(units * units // 4, KING_DANGER_CAP)


def pawns_only(board: bytes) -> bytes:
    """The board with only its pawns: the argument of ``pawn_structure`` and the key to cache it by."""
    return board.translate(PAWNS_ONLY)


def mopup_score(board: bytes, strong_to_move: bool) -> int:
    """Bonus for the side to move in a won ending against a bare king: enemy king near the edge and kings close."""
    ours = board.find(b"K")
    theirs = board.find(b"k")
    strong, weak = (ours, theirs) if strong_to_move else (theirs, ours)
    strong_row, strong_col = divmod(strong, 10)
    weak_row, weak_col = divmod(weak, 10)
    distance = abs(strong_row - weak_row) + abs(strong_col - weak_col)
    bonus = 40 * CENTER_DISTANCE[weak] + 10 * (14 - distance)
    return bonus if strong_to_move else -bonus


def pawn_structure(pawns: bytes, phase: int) -> int:
    """Passed, doubled and isolated pawns for the side to move (upper case) minus the opponent, on a board
    holding only pawns (``pawns_only``), with passed-pawn bonuses blended at ``phase``.

    Our pawn is passed when no enemy pawn stands ahead of it (a smaller row) on its file or a neighbouring one;
    theirs when none of ours stands ahead of it the other way."""
    our_count = [0] * 10
    their_count = [0] * 10
    their_front = [12] * 10  # per file, the smallest row of an enemy pawn (12: none)
    our_back = [-1] * 10  # per file, the largest row of one of our pawns (-1: none)
    for index in range(21, 99):
        byte = pawns[index]
        row, col = divmod(index, 10)
        if byte == PAWN:
            our_count[col] += 1
            if row > our_back[col]:
                our_back[col] = row
        elif byte == PAWN + THEIRS:
            their_count[col] += 1
            if row < their_front[col]:
                their_front[col] = row
    mg, eg = phase, FULL_PHASE - phase
    total = 0
    for col in range(1, 9):
        for count, sign in ((our_count[col], 1), (their_count[col], -1)):
            if count == 0:
                continue
            side = our_count if sign > 0 else their_count
            score = 0
            if count > 1:
                score -= DOUBLED * (count - 1)
            if side[col - 1] == 0 and side[col + 1] == 0:
                score -= ISOLATED * count
            total += sign * score
    for index in range(21, 99):
        byte = pawns[index]
        if byte != PAWN and byte != PAWN + THEIRS:
            continue
        row, col = divmod(index, 10)
        if byte == PAWN:
            front = min(their_front[col - 1], their_front[col], their_front[col + 1])
            if front >= row:
                rank = 10 - row
                total += (PASSED_MG[rank] * mg + PASSED_EG[rank] * eg) // FULL_PHASE
        else:
            back = max(our_back[col - 1], our_back[col], our_back[col + 1])
            if back <= row:
                rank = row - 1
                total -= (PASSED_MG[rank] * mg + PASSED_EG[rank] * eg) // FULL_PHASE
    return total
