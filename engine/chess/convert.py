"""Between python-chess and the search's internal board (``engine.chess.board``): positions, squares and moves.

Kept apart from the board, which is compiled (mypyc type-checks what it compiles without python-chess at hand).
"""

from __future__ import annotations

import chess

from engine.chess.board import (
    CASTLING_AT,
    EMPTY_BOARD,
    EN_PASSANT_AT,
    FIRST_RANK_ROW,
    OURS_A1,
    OURS_H1,
    THEIRS_A8,
    THEIRS_H8,
    Position,
    Tables,
    encode_move,
    kings_of,
    score_board,
    turned,
)


def square_index(square: chess.Square, white_to_move: bool) -> int:
    """The board index of a python-chess square, seen from White (``True``) or from Black."""
    index = 91 - 10 * chess.square_rank(square) + chess.square_file(square)
    return index if white_to_move else 119 - index


def _index_square(index: int) -> chess.Square:
    row, col = divmod(index, 10)
    return chess.square(col - 1, 9 - row)


def from_board(board: chess.Board, tables: Tables) -> Position:
    """The internal position of a python-chess board (its side to move becomes upper case)."""
    white = board.turn == chess.WHITE
    cells = bytearray(EMPTY_BOARD)
    for square, piece in board.piece_map().items():
        cells[91 - 10 * chess.square_rank(square) + chess.square_file(square)] = ord(piece.symbol())
    # The rights as White sees the board: White's rooks on a1 (91) and h1 (98), Black's on a8 (21) and h8 (28).
    rights = (OURS_A1 * board.has_queenside_castling_rights(chess.WHITE)
              | OURS_H1 * board.has_kingside_castling_rights(chess.WHITE)
              | THEIRS_A8 * board.has_queenside_castling_rights(chess.BLACK)
              | THEIRS_H8 * board.has_kingside_castling_rights(chess.BLACK))
    ep = 0
    if board.ep_square is not None and board.has_pseudo_legal_en_passant():
        ep = square_index(board.ep_square, white)
    if white:
        cells[CASTLING_AT] = rights
        cells[EN_PASSANT_AT] = ep - FIRST_RANK_ROW if ep else 0
        text = bytes(cells)
    else:
        text = turned(cells, rights, ep)
    return Position(text, score_board(text, tables), kings_of(text))


def move_uci(move: int, white_to_move: bool) -> str:
    """UCI text of an internal move made by White (``True``) or Black."""
    i = move & 127
    j = (move >> 7) & 127
    if not white_to_move:
        i, j = 119 - i, 119 - j
    text = chess.SQUARE_NAMES[_index_square(i)] + chess.SQUARE_NAMES[_index_square(j)]
    promotion = move >> 14
    return text + chr(promotion).lower() if promotion else text


def move_from_chess(move: chess.Move, white_to_move: bool) -> int:
    """The internal move of a python-chess move made by White (``True``) or Black."""
    promotion = ord(chess.piece_symbol(move.promotion).upper()) if move.promotion else 0
    return encode_move(square_index(move.from_square, white_to_move), square_index(move.to_square, white_to_move),
                       promotion)
