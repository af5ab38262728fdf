"""Chess positions pasted by people: a FEN, the setup notation (``FEN moves e2e4 ...``) or a PGN, turned into the
setup notation that ``ChessState.from_setup`` reads. A PGN becomes its start position (its FEN header, or the
initial position) followed by ``moves`` and the UCI moves of its main line."""

from __future__ import annotations

import io
import re

import chess
import chess.pgn

from engine.game import InvalidSetupError

PLACEMENT = re.compile(r"[pnbrqkPNBRQK1-8]+(/[pnbrqkPNBRQK1-8]+){7}")


def is_pgn(text: str) -> bool:
    """Whether ``text`` reads as a PGN rather than a FEN, ``startpos`` or the setup notation: its first word is
    neither ``startpos`` nor a FEN's piece placement."""
    words = text.split(maxsplit=1)
    return bool(words) and words[0] != "startpos" and not PLACEMENT.fullmatch(words[0])


def setup_from_pgn(text: str) -> str:
    """The setup notation of the main line of the first game in the PGN ``text``: the start FEN, then ``moves``
    and the UCI moves (just the FEN when it has no moves). Raises ``InvalidSetupError`` naming the problem: the
    first one python-chess found (an illegal or unreadable move, a bad FEN header), a variant other than standard
    chess, or neither moves nor a FEN header."""
    try:
        game = chess.pgn.read_game(io.StringIO(text))
    except ValueError as error:
        raise InvalidSetupError(f"the PGN could not be read: {error}") from None
    except IndexError:  # python-chess 1.11, on a move after a ")" that closed more variations than were open
        raise InvalidSetupError("the PGN could not be read: its parentheses (variations) do not match") from None
    if game is None:
        raise InvalidSetupError("the PGN holds no game")
    if game.errors:
        raise InvalidSetupError(f"the PGN could not be read: {game.errors[0]}")
    board = game.board()
    if board.uci_variant != "chess" or board.chess960:
        raise InvalidSetupError("only standard chess can be imported")
    moves = [move.uci() for move in game.mainline_moves()]
    if not moves and "FEN" not in game.headers:
        raise InvalidSetupError("that is neither a FEN nor a PGN with moves")
    start = board.fen()
    return f"{start} moves {' '.join(moves)}" if moves else start


def chess_setup(text: str) -> str:
    """``text`` in the setup notation: a PGN is converted (see ``setup_from_pgn``), anything else is returned as
    it is, for ``ChessState.from_setup`` to judge."""
    return setup_from_pgn(text) if is_pgn(text) else text
