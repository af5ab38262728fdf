"""The search's internal board: a 120-character padded string, always seen from the side to move.

The board is 12 rows of 10 characters: two padding rows above and below, one padding column each side, and the
eight ranks in between (index 21 is a8 and 98 is h1 when White is to move). The side to move's pieces are
upper case, the opponent's lower case, empty squares ``.``, padding `` ``. After every move the board is turned
half a turn (``board[::-1]`` with the cases swapped) so that the side to move always plays "up" the board; index
``i`` becomes ``119 - i``. This is the representation popularised by the sunfish engine; the code here is our own.

A position also carries its material + piece-square score for the side to move (updated incrementally from the
tables passed in), the castling rights of both sides by rook corner, and the en-passant square. Moves are
``(from, to, promotion)`` triples with promotion ``""`` or one of ``"NBRQ"``.

Move generation is pseudo-legal; ``needs_legality_test`` (with ``pinned``) and ``left_in_check`` decide
legality, and ``perft`` counts only legal move paths (cross-checked against published perft counts in the tests).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import NamedTuple

import chess

A1, H1, A8, H8 = 91, 98, 21, 28
N, E, S, W = -10, 1, 10, -1
KNIGHT_STEPS = (N + N + E, N + N + W, S + S + E, S + S + W, E + E + N, E + E + S, W + W + N, W + W + S)
ORTHOGONAL = (N, E, S, W)
DIAGONAL = (N + E, N + W, S + E, S + W)
ALL_DIRECTIONS = ORTHOGONAL + DIAGONAL
DIRECTIONS = {
    "P": (N, N + N, N + W, N + E),
    "N": KNIGHT_STEPS,
    "B": DIAGONAL,
    "R": ORTHOGONAL,
    "Q": ALL_DIRECTIONS,
    "K": ALL_DIRECTIONS,
}
SLIDERS = frozenset("BRQ")
PROMOTIONS = ("Q", "N", "R", "B")

Move = tuple[int, int, str]
PieceTables = Mapping[str, tuple[int, ...]]

EMPTY_BOARD = (" " * 9 + "\n") * 2 + (" " + "." * 8 + "\n") * 8 + (" " * 9 + "\n") * 2
SWAP_SIDES = str.maketrans("PNBRQKpnbrqk", "pnbrqkPNBRQK")
"""With ``board[::-1]``, turns the board to the other side's view (faster than ``str.swapcase``)."""


def square_index(square: chess.Square, white_to_move: bool) -> int:
    """The board index of a python-chess square, seen from White (``True``) or from Black."""
    index = 91 - 10 * chess.square_rank(square) + chess.square_file(square)
    return index if white_to_move else 119 - index


def _index_square(index: int) -> chess.Square:
    row, col = divmod(index, 10)
    return chess.square(col - 1, 9 - row)


class Position(NamedTuple):
    """A position seen from the side to move (see the module docstring). Hashable: it is its own TT key."""

    board: str
    score: int
    castling: tuple[bool, bool]
    """Our rights to castle with the rook on index 91 and on index 98."""
    their_castling: tuple[bool, bool]
    """The opponent's rights with its rook on index 21 and on index 28 (our view)."""
    ep: int
    """The square a pawn just skipped (capturable en passant), or 0."""

    def rotate(self) -> Position:
        """The same position with the other side to move and no en-passant square (a null move)."""
        return Position(self.board[::-1].translate(SWAP_SIDES), -self.score, self.their_castling[::-1],
                        self.castling[::-1], 0)


def gen_moves(board: str, castling: tuple[bool, bool], ep: int) -> list[Move]:
    """Every pseudo-legal move of the side to move (castling is generated only when fully legal)."""
    moves: list[Move] = []
    append = moves.append
    for i, p in enumerate(board):
        if not p.isupper():
            continue
        if p == "P":
            j = i + N
            if board[j] == ".":
                if j < 29:
                    for promo in PROMOTIONS:
                        append((i, j, promo))
                else:
                    append((i, j, ""))
                    if i > 80 and board[j + N] == ".":
                        append((i, j + N, ""))
            for j in (i + N + W, i + N + E):
                if board[j].islower() or j == ep:
                    if j < 29:
                        for promo in PROMOTIONS:
                            append((i, j, promo))
                    else:
                        append((i, j, ""))
            continue
        slider = p in SLIDERS
        for d in DIRECTIONS[p]:
            j = i + d
            while True:
                q = board[j]
                if q == "." or q.islower():
                    append((i, j, ""))
                    if q != "." or not slider:
                        break
                    j += d
                else:
                    break
    if castling[0] or castling[1]:
        k = board.find("K")
        for allowed, corner in ((castling[0], A1), (castling[1], H1)):
            if not allowed or board[corner] != "R":
                continue
            step = 1 if corner > k else -1
            if all(board[s] == "." for s in range(k + step, corner, step)) and not any(
                attacked(board, s) for s in (k, k + step, k + 2 * step)
            ):
                append((k, k + 2 * step, ""))
    return moves


def gen_noisy(board: str, ep: int) -> list[Move]:
    """Captures (en passant included) and queen promotions of the side to move, pseudo-legal."""
    moves: list[Move] = []
    append = moves.append
    for i, p in enumerate(board):
        if not p.isupper():
            continue
        if p == "P":
            if i < 39 and board[i + N] == ".":
                append((i, i + N, "Q"))
            for j in (i + N + W, i + N + E):
                if board[j].islower() or j == ep:
                    append((i, j, "Q" if j < 29 else ""))
            continue
        slider = p in SLIDERS
        for d in DIRECTIONS[p]:
            j = i + d
            q = board[j]
            if slider:
                while q == ".":
                    j += d
                    q = board[j]
            if q.islower():
                append((i, j, ""))
    return moves


def attacked(board: str, square: int) -> bool:
    """True when the opponent (lower-case pieces) attacks ``square``."""
    if board[square + N + W] == "p" or board[square + N + E] == "p":
        return True
    for d in KNIGHT_STEPS:
        if board[square + d] == "n":
            return True
    for d in ORTHOGONAL:
        j = square + d
        q = board[j]
        if q == "k":
            return True
        while q == ".":
            j += d
            q = board[j]
        if q == "r" or q == "q":
            return True
    for d in DIAGONAL:
        j = square + d
        q = board[j]
        if q == "k":
            return True
        while q == ".":
            j += d
            q = board[j]
        if q == "b" or q == "q":
            return True
    return False


def attacked_by_us(board: str, square: int) -> bool:
    """True when the side to move (upper-case pieces) attacks ``square``."""
    if board[square + S + W] == "P" or board[square + S + E] == "P":
        return True
    for d in KNIGHT_STEPS:
        if board[square + d] == "N":
            return True
    for d in ORTHOGONAL:
        j = square + d
        q = board[j]
        if q == "K":
            return True
        while q == ".":
            j += d
            q = board[j]
        if q == "R" or q == "Q":
            return True
    for d in DIAGONAL:
        j = square + d
        q = board[j]
        if q == "K":
            return True
        while q == ".":
            j += d
            q = board[j]
        if q == "B" or q == "Q":
            return True
    return False


def in_check(board: str) -> bool:
    """True when the side to move's king is attacked."""
    return attacked(board, board.find("K"))


def left_in_check(child: Position) -> bool:
    """True when the move that produced ``child`` left the mover's king (now lower case) attacked."""
    board = child.board
    return attacked_by_us(board, board.find("k"))


def pinned(board: str, king: int) -> set[int]:
    """Squares of our pieces that stand between our king (index ``king``) and an enemy slider on the same line."""
    pins = set()
    for directions, sliders in ((ORTHOGONAL, "rq"), (DIAGONAL, "bq")):
        for d in directions:
            j = king + d
            while board[j] == ".":
                j += d
            if board[j].isupper():
                k = j + d
                while board[k] == ".":
                    k += d
                if board[k] in sliders:
                    pins.add(j)
    return pins


def needs_legality_test(board: str, move: Move, king: int, ep: int, pins: set[int]) -> bool:
    """False when a pseudo-legal ``move`` is certainly legal while not in check: not a king move, not en
    passant, and not by a pinned piece. ``king`` is our king's index, ``pins`` is ``pinned(board, king)``."""
    i = move[0]
    return i == king or i in pins or (move[1] == ep and board[i] == "P")


def make_move(pos: Position, move: Move, tables: PieceTables) -> Position:
    """The position after ``move`` (pseudo-legal), seen from the opponent, with its score updated."""
    board, score, castling, their_castling, ep = pos
    i, j, promo = move
    p = board[i]
    q = board[j]
    score += tables[p][j] - tables[p][i]
    if q != ".":
        score += tables[q.upper()][119 - j]
    cells = list(board)
    cells[j] = p
    cells[i] = "."
    new_ep = 0
    if i == A1 or j == A1:
        castling = (False, castling[1])
    if i == H1 or j == H1:
        castling = (castling[0], False)
    if j == A8:
        their_castling = (False, their_castling[1])
    elif j == H8:
        their_castling = (their_castling[0], False)
    if p == "K":
        castling = (False, False)
        if abs(j - i) == 2:
            corner = A1 if j < i else H1
            rook_to = (i + j) // 2
            cells[corner] = "."
            cells[rook_to] = "R"
            rook = tables["R"]
            score += rook[rook_to] - rook[corner]
    elif p == "P":
        if promo:
            cells[j] = promo
            score += tables[promo][j] - tables["P"][j]
        elif j - i == 2 * N:
            if board[j + W] == "p" or board[j + E] == "p":
                new_ep = 119 - (i + N)
        elif j == ep:
            cells[j + S] = "."
            score += tables["P"][119 - (j + S)]
    board = "".join(cells)
    return Position(board[::-1].translate(SWAP_SIDES), -score, their_castling[::-1], castling[::-1], new_ep)


def from_board(board: chess.Board, tables: PieceTables) -> Position:
    """The internal position of a python-chess board (its side to move becomes upper case)."""
    white = board.turn == chess.WHITE
    cells = list(EMPTY_BOARD)
    for square, piece in board.piece_map().items():
        symbol = piece.symbol()
        cells[91 - 10 * chess.square_rank(square) + chess.square_file(square)] = symbol
    text = "".join(cells)
    ours_k = board.has_kingside_castling_rights(board.turn)
    ours_q = board.has_queenside_castling_rights(board.turn)
    theirs_k = board.has_kingside_castling_rights(not board.turn)
    theirs_q = board.has_queenside_castling_rights(not board.turn)
    if white:
        castling, their_castling = (ours_q, ours_k), (theirs_q, theirs_k)
    else:
        text = text[::-1].swapcase()
        castling, their_castling = (ours_k, ours_q), (theirs_k, theirs_q)
    ep = 0
    if board.ep_square is not None and board.has_legal_en_passant():
        ep = square_index(board.ep_square, white)
    return Position(text, score_board(text, tables), castling, their_castling, ep)


def score_board(board: str, tables: PieceTables) -> int:
    """Material + piece-square score of ``board`` for the side to move, computed from scratch."""
    total = 0
    for i, p in enumerate(board):
        if p.isupper():
            total += tables[p][i]
        elif p.islower():
            total -= tables[p.upper()][119 - i]
    return total


def move_uci(move: Move, white_to_move: bool) -> str:
    """UCI text of an internal move made by White (``True``) or Black."""
    i, j, promo = move
    if not white_to_move:
        i, j = 119 - i, 119 - j
    text = chess.SQUARE_NAMES[_index_square(i)] + chess.SQUARE_NAMES[_index_square(j)]
    return text + promo.lower()


def move_from_chess(move: chess.Move, white_to_move: bool) -> Move:
    """The internal move of a python-chess move made by White (``True``) or Black."""
    promo = chess.piece_symbol(move.promotion).upper() if move.promotion else ""
    return (square_index(move.from_square, white_to_move), square_index(move.to_square, white_to_move), promo)


def legal_moves(pos: Position, tables: PieceTables) -> Iterator[tuple[Move, Position]]:
    """Each legal move of ``pos`` with the position it leads to."""
    board = pos.board
    king = board.find("K")
    check = in_check(board)
    pins = pinned(board, king)
    for move in gen_moves(board, pos.castling, pos.ep):
        child = make_move(pos, move, tables)
        if (check or needs_legality_test(board, move, king, pos.ep, pins)) and left_in_check(child):
            continue
        yield move, child


def perft(pos: Position, depth: int, tables: PieceTables) -> int:
    """The number of legal move paths of length ``depth`` from ``pos``."""
    if depth == 0:
        return 1
    if depth == 1:
        return sum(1 for _ in legal_moves(pos, tables))
    return sum(perft(child, depth - 1, tables) for _, child in legal_moves(pos, tables))
