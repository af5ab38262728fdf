"""The search's internal board: 120 bytes, always seen from the side to move, that are the whole position.

The board is 12 rows of 10 bytes: two padding rows above and below, one padding column each side, and the eight
ranks in between (index 21 is a8 and 98 is h1 when White is to move). The side to move's pieces are the upper-case
letters ``PNBRQK``, the opponent's lower case, empty squares ``.``, padding a space. After every move the board is
turned half a turn (reversed, the cases swapped) so that the side to move always plays "up" the board; index ``i``
becomes ``119 - i``. This is the representation popularised by the sunfish engine; the code here is our own.

Two padding bytes carry the rest of the position, so the 120 bytes are the whole position and its own key (for the
transposition table and the repetition set): byte ``CASTLING_AT`` holds the castling rights as four bits (ours with
the rook on index 91 and 98, theirs with the rook on 21 and 28), byte ``EN_PASSANT_AT`` the file (1-8) of the square
a pawn just skipped, when an enemy pawn stands beside it, or 0. Both are below 32, so they read as padding.

A move is an ``int``: from-index, to-index << 7 and the promotion piece (``Q``, ``N``, ``R`` or ``B`` as a byte,
or 0) << 14; move lists are ``librt.vecs.vec[i64]`` (machine integers when compiled). A position's material +
piece-square score for the side to move is kept beside the board and updated by ``make_move`` from flat tables
(``Tables``: index ``piece byte * 120 + board index``).

Move generation is pseudo-legal; ``needs_legality_test`` (with ``pinned``) and ``left_in_check`` decide legality,
and ``perft`` counts only legal move paths (cross-checked against published perft counts in the tests).

Compiled by mypyc (see docs/compiled.md): the pieces are byte values and every loop runs on C integers.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Final, NamedTuple

from librt.vecs import append, vec
from mypy_extensions import i64

A1: Final = 91
H1: Final = 98
A8: Final = 21
H8: Final = 28
KNIGHT_STEPS: Final[tuple[int, ...]] = (-19, -21, 21, 19, -8, 12, -12, 8)
"""N+N+E, N+N+W, S+S+E, S+S+W, E+E+N, E+E+S, W+W+N, W+W+S, a step north being -10 and a step east +1."""
ORTHOGONAL: Final[tuple[int, ...]] = (-10, 1, 10, -1)
DIAGONAL: Final[tuple[int, ...]] = (-9, -11, 11, 9)
ALL_DIRECTIONS: Final[tuple[int, ...]] = (-10, 1, 10, -1, -9, -11, 11, 9)

PAWN: Final = 80
KNIGHT: Final = 78
BISHOP: Final = 66
ROOK: Final = 82
QUEEN: Final = 81
KING: Final = 75
"""Our pieces: the bytes of ``P N B R Q K``."""
THEIRS: Final = 32
"""Added to one of our pieces gives the opponent's (lower case)."""
EMPTY: Final = 46
PADDING: Final = 32
PROMOTIONS: Final[tuple[int, ...]] = (81, 78, 82, 66)
"""Queen, knight, rook, bishop: the order promotions are generated in."""

CASTLING_AT: Final = 0
EN_PASSANT_AT: Final = 1
OURS_A1: Final = 1
OURS_H1: Final = 2
THEIRS_A8: Final = 4
THEIRS_H8: Final = 8
FIRST_RANK_ROW: Final = 40
"""An en-passant square is on the row of indices 41-48: its byte holds ``square - FIRST_RANK_ROW``."""

Tables = tuple[int, ...]
"""Material + piece-square value of each of our pieces on each index: ``tables[piece * 120 + index]``."""

EMPTY_BOARD: Final = (b" " * 10) * 2 + (b" " + b"." * 8 + b" ") * 8 + (b" " * 10) * 2
SWAP_SIDES: Final = bytes.maketrans(b"PNBRQKpnbrqk", b"pnbrqkPNBRQK")
"""Turns each piece into the other side's (used with the board reversed)."""
TURNED_CASTLING: Final = tuple(((bits >> 3) & 1) | ((bits >> 2) & 1) << 1 | ((bits >> 1) & 1) << 2 | (bits & 1) << 3
                               for bits in range(16))
"""The castling bits of a position turned half a turn (ours become theirs, a1 becomes h8)."""


class Position(NamedTuple):
    """A board, its score for the side to move and its kings (``kings_of``); the board is the position's
    identity, the rest follows from it."""

    board: bytes
    score: int
    kings: int


def flat_tables(tables: Mapping[str, tuple[int, ...]]) -> Tables:
    """The flat ``Tables`` of per-piece tables (``{"P": 120 values, ...}``, see ``engine.chess.evaluation``)."""
    flat = [0] * (ROOK * 120 + 120)
    for piece, values in tables.items():
        start = ord(piece) * 120
        flat[start:start + 120] = values
    return tuple(flat)


def en_passant(board: bytes) -> int:
    """The index of the square a pawn just skipped (capturable en passant), or 0."""
    file = board[EN_PASSANT_AT]
    return FIRST_RANK_ROW + file if file else 0


def move_from(move: int) -> int:
    """The index a move starts from."""
    return move & 127


def move_to(move: int) -> int:
    """The index a move goes to."""
    return (move >> 7) & 127


def move_promotion(move: int) -> int:
    """The piece a pawn move promotes to (a byte of ``QNRB``), or 0."""
    return move >> 14


def encode_move(start: int, end: int, promotion: int) -> int:
    """A move from its from-index, to-index and promotion piece (0 for none)."""
    return start | end << 7 | promotion << 14


def _add_pawn_moves(moves: vec[i64], start: int, end: int) -> vec[i64]:
    """``moves`` with a pawn's move to ``end`` added: four moves (one per promotion) onto the last rank."""
    if end >= 29:
        return append(moves, start | end << 7)
    for promotion in PROMOTIONS:
        moves = append(moves, start | end << 7 | promotion << 14)
    return moves


def kings_of(board: bytes) -> int:
    """Where the kings stand: our king's index | the opponent's king's index << 7."""
    return board.find(b"K") | board.find(b"k") << 7


def moved_kings(kings: int, move: int) -> int:
    """The kings (``kings_of``) after ``move``, in the view of the side that moves next."""
    ours = kings & 127
    if move & 127 == ours:
        ours = (move >> 7) & 127
    return (119 - (kings >> 7)) | (119 - ours) << 7


def turned_kings(kings: int) -> int:
    """The kings (``kings_of``) of the board turned by ``turn`` (a null move)."""
    return (119 - (kings >> 7)) | (119 - (kings & 127)) << 7


def gen_moves(board: bytes, king: int) -> vec[i64]:
    """Every pseudo-legal move of the side to move, whose king stands on ``king`` (castling is generated only
    when fully legal)."""
    moves = vec[i64]()
    ep = en_passant(board)
    for i in range(21, 99):
        p = board[i]
        if p < 65 or p > 90:
            continue
        if p == PAWN:
            j = i - 10
            if board[j] == EMPTY:
                moves = _add_pawn_moves(moves, i, j)
                if i > 80 and board[j - 10] == EMPTY:
                    moves = append(moves, i | (j - 10) << 7)
            if board[i - 11] > 96 or i - 11 == ep:
                moves = _add_pawn_moves(moves, i, i - 11)
            if board[i - 9] > 96 or i - 9 == ep:
                moves = _add_pawn_moves(moves, i, i - 9)
            continue
        if p == KNIGHT:
            for d in KNIGHT_STEPS:
                q = board[i + d]
                if q == EMPTY or q > 96:
                    moves = append(moves, i | (i + d) << 7)
            continue
        if p == KING:
            for d in ALL_DIRECTIONS:
                q = board[i + d]
                if q == EMPTY or q > 96:
                    moves = append(moves, i | (i + d) << 7)
            continue
        directions = ORTHOGONAL if p == ROOK else DIAGONAL if p == BISHOP else ALL_DIRECTIONS
        for d in directions:
            j = i + d
            q = board[j]
            while q == EMPTY:
                moves = append(moves, i | j << 7)
                j += d
                q = board[j]
            if q > 96:
                moves = append(moves, i | j << 7)
    rights = board[CASTLING_AT]
    if rights & (OURS_A1 | OURS_H1):
        if rights & OURS_A1 and _can_castle(board, king, A1):
            moves = append(moves, king | (king - 2) << 7)
        if rights & OURS_H1 and _can_castle(board, king, H1):
            moves = append(moves, king | (king + 2) << 7)
    return moves


def _can_castle(board: bytes, king: int, corner: int) -> bool:
    """True when our rook stands on ``corner``, the squares between are empty and the king's path is safe."""
    if board[corner] != ROOK:
        return False
    step = 1 if corner > king else -1
    for square in range(king + step, corner, step):
        if board[square] != EMPTY:
            return False
    return not (attacked(board, king) or attacked(board, king + step) or attacked(board, king + 2 * step))


def gen_noisy(board: bytes) -> vec[i64]:
    """Captures (en passant included) and queen promotions of the side to move, pseudo-legal."""
    moves = vec[i64]()
    ep = en_passant(board)
    for i in range(21, 99):
        p = board[i]
        if p < 65 or p > 90:
            continue
        if p == PAWN:
            if i < 39 and board[i - 10] == EMPTY:
                moves = append(moves, i | (i - 10) << 7 | QUEEN << 14)
            if board[i - 11] > 96 or i - 11 == ep:
                moves = append(moves, i | (i - 11) << 7 | (QUEEN << 14 if i < 40 else 0))
            if board[i - 9] > 96 or i - 9 == ep:
                moves = append(moves, i | (i - 9) << 7 | (QUEEN << 14 if i < 38 else 0))
            continue
        slider = p in (BISHOP, ROOK, QUEEN)
        directions = (KNIGHT_STEPS if p == KNIGHT else ORTHOGONAL if p == ROOK else DIAGONAL if p == BISHOP
                      else ALL_DIRECTIONS)
        for d in directions:
            j = i + d
            q = board[j]
            if slider:
                while q == EMPTY:
                    j += d
                    q = board[j]
            if q > 96:
                moves = append(moves, i | j << 7)
    return moves


def attacked(board: bytes, square: int) -> bool:
    """True when the opponent (lower-case pieces) attacks ``square``."""
    if board[square - 11] == PAWN + THEIRS or board[square - 9] == PAWN + THEIRS:
        return True
    for d in KNIGHT_STEPS:
        if board[square + d] == KNIGHT + THEIRS:
            return True
    for d in ORTHOGONAL:
        j = square + d
        q = board[j]
        if q == KING + THEIRS:
            return True
        while q == EMPTY:
            j += d
            q = board[j]
        if q == ROOK + THEIRS or q == QUEEN + THEIRS:
            return True
    for d in DIAGONAL:
        j = square + d
        q = board[j]
        if q == KING + THEIRS:
            return True
        while q == EMPTY:
            j += d
            q = board[j]
        if q == BISHOP + THEIRS or q == QUEEN + THEIRS:
            return True
    return False


def attacked_by_us(board: bytes, square: int) -> bool:
    """True when the side to move (upper-case pieces) attacks ``square``."""
    if board[square + 9] == PAWN or board[square + 11] == PAWN:
        return True
    for d in KNIGHT_STEPS:
        if board[square + d] == KNIGHT:
            return True
    for d in ORTHOGONAL:
        j = square + d
        q = board[j]
        if q == KING:
            return True
        while q == EMPTY:
            j += d
            q = board[j]
        if q in (ROOK, QUEEN):
            return True
    for d in DIAGONAL:
        j = square + d
        q = board[j]
        if q == KING:
            return True
        while q == EMPTY:
            j += d
            q = board[j]
        if q in (BISHOP, QUEEN):
            return True
    return False


def in_check(board: bytes) -> bool:
    """True when the side to move's king is attacked."""
    return attacked(board, board.find(b"K"))


def left_in_check(child: bytes, child_kings: int) -> bool:
    """True when the move that produced the board ``child`` (with its kings ``child_kings``) left the mover's king
    (now lower case) attacked."""
    return attacked_by_us(child, child_kings >> 7)


def pinned(board: bytes, king: int) -> list[int]:
    """Squares of our pieces that stand between our king (index ``king``) and an enemy slider on the same line."""
    pins: list[int] = []
    for d in ALL_DIRECTIONS:
        j = king + d
        while board[j] == EMPTY:
            j += d
        if 64 < board[j] < 91:
            k = j + d
            while board[k] == EMPTY:
                k += d
            q = board[k]
            if q == QUEEN + THEIRS or q == (ROOK + THEIRS if d == 10 or d == -10 or d == 1 or d == -1
                                             else BISHOP + THEIRS):
                pins.append(j)
    return pins


def needs_legality_test(board: bytes, move: int, king: int, pins: list[int]) -> bool:
    """False when a pseudo-legal ``move`` is certainly legal while not in check: not a king move, not en
    passant, and not by a pinned piece. ``king`` is our king's index, ``pins`` is ``pinned(board, king)``."""
    i = move & 127
    return i == king or i in pins or ((move >> 7) & 127 == en_passant(board) and board[i] == PAWN)


def turned(cells: bytearray, rights: int, ep: int) -> bytes:
    """The board ``cells`` (seen by the side that just moved, whose castling bits are ``rights``) turned half a
    turn to the other side's view, with the en-passant index ``ep`` (already in the other side's view, or 0)."""
    cells[CASTLING_AT] = PADDING
    cells[EN_PASSANT_AT] = PADDING
    cells[119 - CASTLING_AT] = TURNED_CASTLING[rights]
    cells[119 - EN_PASSANT_AT] = ep - FIRST_RANK_ROW if ep else 0
    cells.reverse()
    return bytes(cells).translate(SWAP_SIDES)


def make_move(board: bytes, score: int, move: int, tables: Tables) -> tuple[bytes, int]:
    """The board after ``move`` (pseudo-legal), seen from the opponent, and its score for the opponent."""
    i = move & 127
    j = (move >> 7) & 127
    promotion = move >> 14
    p = board[i]
    q = board[j]
    score += tables[p * 120 + j] - tables[p * 120 + i]
    if q != EMPTY:
        score += tables[(q - THEIRS) * 120 + 119 - j]
    cells = bytearray(board)
    cells[j] = p
    cells[i] = EMPTY
    rights = board[CASTLING_AT]
    new_ep = 0
    if i == A1 or j == A1:
        rights &= ~OURS_A1
    if i == H1 or j == H1:
        rights &= ~OURS_H1
    if j == A8:
        rights &= ~THEIRS_A8
    elif j == H8:
        rights &= ~THEIRS_H8
    if p == KING:
        rights &= ~(OURS_A1 | OURS_H1)
        if j - i == 2 or i - j == 2:
            corner = A1 if j < i else H1
            rook_to = (i + j) // 2
            cells[corner] = EMPTY
            cells[rook_to] = ROOK
            score += tables[ROOK * 120 + rook_to] - tables[ROOK * 120 + corner]
    elif p == PAWN:
        if promotion:
            cells[j] = promotion
            score += tables[promotion * 120 + j] - tables[PAWN * 120 + j]
        elif j - i == -20:
            if board[j - 1] == PAWN + THEIRS or board[j + 1] == PAWN + THEIRS:
                new_ep = 119 - (i - 10)
        elif j == en_passant(board):
            cells[j + 10] = EMPTY
            score += tables[PAWN * 120 + 119 - (j + 10)]
    return turned(cells, rights, new_ep), -score


def turn(board: bytes) -> bytes:
    """The same position with the other side to move and no en-passant square (a null move)."""
    return turned(bytearray(board), board[CASTLING_AT], 0)


def score_board(board: bytes, tables: Tables) -> int:
    """Material + piece-square score of ``board`` for the side to move, computed from scratch."""
    total = 0
    for i in range(21, 99):
        p = board[i]
        if 64 < p < 91:
            total += tables[p * 120 + i]
        elif p > 96:
            total -= tables[(p - THEIRS) * 120 + 119 - i]
    return total


def legal_moves(position: Position, tables: Tables) -> Iterator[tuple[int, Position]]:
    """Each legal move of ``position`` with the position it leads to."""
    board, kings = position.board, position.kings
    king = kings & 127
    check = attacked(board, king)
    pins = pinned(board, king)
    for move in gen_moves(board, king):
        child, score = make_move(board, position.score, move, tables)
        child_kings = moved_kings(kings, move)
        if (check or needs_legality_test(board, move, king, pins)) and left_in_check(child, child_kings):
            continue
        yield move, Position(child, score, child_kings)


def perft(position: Position, depth: int, tables: Tables) -> int:
    """The number of legal move paths of length ``depth`` from ``position``."""
    if depth == 0:
        return 1
    total = 0
    for _, child in legal_moves(position, tables):
        total += 1 if depth == 1 else perft(child, depth - 1, tables)
    return total
