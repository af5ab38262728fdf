"""Static exchange evaluation: what a capture wins or loses once both sides have captured on its square in turn,
each with its cheapest piece and each free to stop, without searching (the swap algorithm, as the Chess Programming
Wiki's "SEE - The Swap Algorithm" describes it). Pieces that capture are taken off the board, so a slider behind
one joins in (x-rays); pins and checks are not looked at.

It works on the search's internal board (``engine.chess.board``: the side to move upper case, playing up the
board). Compiled by mypyc (see docs/compiled.md).
"""

from __future__ import annotations

from typing import Final

from engine.chess.board import (
    BISHOP,
    DIAGONAL,
    EMPTY,
    KING,
    KNIGHT,
    KNIGHT_STEPS,
    ORTHOGONAL,
    PAWN,
    QUEEN,
    ROOK,
    THEIRS,
)

PIECE_VALUES: Final = {"p": 100, "n": 320, "b": 330, "r": 500, "q": 950}
"""Centipawns each piece but the king is worth in material, by its lower-case letter: in exchanges here and in the
search's move ordering and pruning margins (``engine.chess.tree``)."""
_WITH_KING: Final = {**PIECE_VALUES, "k": 20000}
EXCHANGE_VALUE: Final = tuple(_WITH_KING.get(chr(byte).lower(), 0) for byte in range(128))
"""A piece's worth in an exchange, by its byte (either case); a king's is more than any exchange can win, so
capturing with it into an attacked square always loses."""


def cheapest_attacker(cells: bytearray, square: int, theirs: bool) -> int:
    """The index of the cheapest piece attacking ``square`` on ``cells`` of the opponent (lower case) when
    ``theirs``, else of the side to move; 0 when none does."""
    add = THEIRS if theirs else 0
    if theirs:
        if cells[square - 11] == PAWN + THEIRS:
            return square - 11
        if cells[square - 9] == PAWN + THEIRS:
            return square - 9
    else:
        if cells[square + 9] == PAWN:
            return square + 9
        if cells[square + 11] == PAWN:
            return square + 11
    knight = KNIGHT + add
    for d in KNIGHT_STEPS:
        if cells[square + d] == knight:
            return square + d
    king = 0
    queen = 0
    for d in DIAGONAL:
        j = square + d
        q = cells[j]
        if q == KING + add:
            king = j
            continue
        while q == EMPTY:
            j += d
            q = cells[j]
        if q == BISHOP + add:
            return j
        if q == QUEEN + add:
            queen = j
    rook = 0
    for d in ORTHOGONAL:
        j = square + d
        q = cells[j]
        if q == KING + add:
            king = j
            continue
        while q == EMPTY:
            j += d
            q = cells[j]
        if q == ROOK + add:
            rook = j
        elif q == QUEEN + add:
            queen = j
    if rook:
        return rook
    if queen:
        return queen
    return king


def exchange(board: bytes, move: int) -> int:
    """The material (centipawns) the side to move ends up winning, negative when losing, if it plays the capture
    ``move`` on ``board`` and both sides then go on capturing on that square with their cheapest piece while it pays
    them (each may stop instead)."""
    start = move & 127
    target = (move >> 7) & 127
    cells = bytearray(board)
    victim = cells[target]
    if victim == EMPTY:  # en passant: the pawn taken stands behind the square
        victim = cells[target + 10]
        cells[target + 10] = EMPTY
    gains = [EXCHANGE_VALUE[victim]]
    on_target = EXCHANGE_VALUE[cells[start]]
    attacker = start
    theirs = False
    while True:
        gains.append(on_target - gains[-1])  # what the other side gains if it takes the piece now on the square
        cells[target] = cells[attacker]
        cells[attacker] = EMPTY
        theirs = not theirs
        attacker = cheapest_attacker(cells, target, theirs)
        if attacker == 0:
            break
        on_target = EXCHANGE_VALUE[cells[attacker]]
    # The last gain is the capture nobody made; each earlier side takes the better of stopping and capturing.
    depth = len(gains) - 2
    while depth >= 1:
        gains[depth - 1] = -max(-gains[depth - 1], gains[depth])
        depth -= 1
    return gains[0]
