"""Chess, with python-chess as the rules authority.

Position notation (``from_setup``/``setup``): a FEN, optionally followed by ``moves`` and UCI moves
(``"<fen> moves e2e4 e7e5"``); ``"startpos"`` stands for the standard start. Moves travel as UCI (``e2e4``,
``e7e8q``); ``parse_move`` also accepts SAN (``Nf3``, ``O-O``). White is player 0.

The game ends by checkmate, stalemate, insufficient material, threefold repetition or the fifty-move rule (both
applied automatically once reached, as if claimed), or the fivefold / seventy-five-move rules.

Search uses the fast internal board of ``engine.chess`` (see ``searcher_class``); this class is the value the web
app stores and shows.
"""

from __future__ import annotations

import contextlib
import struct
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar, Literal

import chess
import chess.pgn
import chess.polyglot

from engine.chess import board as internal
from engine.chess import convert
from engine.chess.evaluation import CENTIPAWNS, DEFAULT_PERSONALITY, PERSONALITIES, build_tables, game_phase
from engine.chess.openings import Opening, named_opening
from engine.game import IllegalMoveError, InvalidSetupError, Outcome, is_decided, plies_to_end

REASONS = {
    chess.Termination.CHECKMATE: "checkmate",
    chess.Termination.STALEMATE: "stalemate",
    chess.Termination.INSUFFICIENT_MATERIAL: "insufficient material",
    chess.Termination.SEVENTYFIVE_MOVES: "seventy-five-move rule",
    chess.Termination.FIVEFOLD_REPETITION: "fivefold repetition",
    chess.Termination.FIFTY_MOVES: "fifty-move rule",
    chess.Termination.THREEFOLD_REPETITION: "threefold repetition",
}
PIECE_ORDER = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 0}


@lru_cache(maxsize=32)
def _tables(phase: int) -> internal.Tables:
    return build_tables(phase, PERSONALITIES[DEFAULT_PERSONALITY])


def _spellings(text: str) -> list[str]:
    """The SAN a person may have meant by ``text`` whatever its letter case: piece letters upper case, squares
    lower case, ``O-O``, ``=Q``; a leading ``b`` both as the b-pawn and as a bishop."""
    lowered = text.lower()
    if lowered.replace("0", "o").rstrip("+#") in ("o-o", "o-o-o"):
        return [lowered.replace("0", "o").upper()]
    body, _, promotion = lowered.partition("=")
    promote = f"={promotion.upper()}" if promotion else ""
    if body[:1] in ("n", "r", "q", "k"):
        return [body[0].upper() + body[1:] + promote]
    if body[:1] == "b":
        return [body + promote, "B" + body[1:] + promote]
    return [body + promote]


MOVE_CODE = struct.Struct("<H")
"""A move in a game's compact move list: from square | to square << 6 | promotion piece type << 12 (two bytes)."""


def _packed(move: chess.Move) -> bytes:
    return MOVE_CODE.pack(move.from_square | move.to_square << 6 | (move.promotion or 0) << 12)


def _unpacked(moves: bytes) -> Iterator[chess.Move]:
    for (code,) in MOVE_CODE.iter_unpack(moves):
        yield chess.Move(code & 63, code >> 6 & 63, code >> 12 or None)


@dataclass(frozen=True, slots=True)
class Notation:
    """What a game's move list shows, found once per position and extended move by move: the moves in SAN (one
    space between two) and the latest named opening the game passed through."""

    san: str
    opening: Opening | None


class ChessState:
    """A chess position with the game that led to it (for repetitions, the move list and the setup).

    Immutable: ``play`` copies the board. Equality and hashing follow the position (pieces, side to move,
    castling, en passant, move counters), as python-chess's ``Board.__eq__`` does.

    Memory stays small however long the game: the python-chess board keeps only the moves since the last capture
    or pawn move (all that repetitions need, about 0.5 KiB each, at most 100 of them before the fifty-move rule
    ends the game), the whole game is the start FEN and two bytes a move (``MOVE_CODE``), and the move list's SAN
    (``Notation``) is found when first shown and then extended by each ``play``.
    """

    __slots__ = ("_board", "_moves", "_notation", "_outcome", "_setup", "_start_fen")

    name: ClassVar[str] = "chess"
    title: ClassVar[str] = "Chess"
    move_notation: ClassVar[str] = (
        "standard algebraic notation (SAN: e4, Nf3, O-O, exd5, e8=Q); type moves in SAN or UCI (e2e4)")
    """How its moves are written, in words (the move list says it)."""
    order_hint_label: ClassVar[str] = "capture value"
    """What ``order_hint`` rates, in a few words (the search stepper names each move's place by it)."""
    score_unit: ClassVar[str] = (
        "pawns (the engine counts in hundredths of a pawn)")
    """What a heuristic score counts, in words (decided scores read "win in N" / "loss in N")."""
    score_axis: ClassVar[str] = "pawns"
    """The unit of a chart's value axis, in one word ("" for none: no heuristic scores)."""
    players: ClassVar[tuple[str, str]] = ("White", "Black")
    score_scale: ClassVar[int] = CENTIPAWNS
    searcher_class: ClassVar[str] = "engine.solve.chess_endgames:TableChessSearcher"
    personalities: ClassVar[tuple[str, ...]] = tuple(PERSONALITIES)
    """Evaluation styles a search can be given (``SearchOptions.personality``); the first is the default."""

    def __init__(self, board: chess.Board) -> None:
        """The position of ``board``, whose move stack holds the game from its start (the board is not kept)."""
        self._set(board.copy(stack=board.halfmove_clock), board.root().fen(),
                  b"".join(_packed(move) for move in board.move_stack), None)

    def _set(self, board: chess.Board, start_fen: str, moves: bytes, notation: Notation | None) -> None:
        self._board = board
        """The position, with the moves since the last capture or pawn move in its stack."""
        self._start_fen = start_fen
        self._moves = moves
        """Every move of the game since ``_start_fen``, two bytes each (``MOVE_CODE``)."""
        self._notation = notation
        """The move list's notation once found (None until then)."""
        self._outcome: Outcome | Literal[False] | None = False
        """The outcome once ``outcome()`` has found it; False until then."""
        self._setup: str | None = None
        """``setup()`` once made: a long game's state is read by every request for it, and its move lists are this
        text and ``_notation``'s split (in C), where they would otherwise be made move by move."""

    def _after(self, board: chess.Board, move: chess.Move, notation: Notation | None) -> ChessState:
        """The state of ``board``, which is this position with ``move`` played."""
        child = ChessState.__new__(ChessState)
        child._set(board, self._start_fen, self._moves + _packed(move), notation)
        return child

    @property
    def board(self) -> chess.Board:
        """The python-chess board, whose move stack holds the moves since the last capture or pawn move (enough for
        repetitions; ``setup`` has the whole game). Do not modify it: copy it first."""
        return self._board

    # -- setup -----------------------------------------------------------------------------------------------

    @classmethod
    def initial(cls, **options: Any) -> ChessState:
        """The standard start position; chess takes no options."""
        if options:
            raise InvalidSetupError(f"chess takes no options, got {', '.join(sorted(options))}")
        return cls(chess.Board())

    @classmethod
    def from_setup(cls, text: str) -> ChessState:
        """A FEN (or ``startpos``), optionally followed by ``moves`` and UCI moves; empty text is the starting
        position, as in every game. Bad text raises ``InvalidSetupError`` naming the problem."""
        if not isinstance(text, str):
            raise InvalidSetupError("a chess position is a FEN, optionally followed by 'moves' and UCI moves")
        fen, _, moves = (text.strip() or "startpos").partition(" moves")
        fen = fen.strip()
        if fen == "startpos":
            fen = chess.STARTING_FEN
        try:
            board = chess.Board(fen)
        except ValueError as error:
            raise InvalidSetupError(f"bad FEN {fen!r}: {error}") from None
        status = board.status()
        if status != chess.STATUS_VALID:
            problems = [flag.name.lower().replace("_", " ") for flag in chess.Status
                        if flag and flag in status and flag.name]
            raise InvalidSetupError(f"impossible position {fen!r}: {', '.join(problems)}")
        try:
            return cls(board).play_texts(moves.split())
        except IllegalMoveError as error:
            raise InvalidSetupError(f"{error} (in the setup)") from None

    def setup(self) -> str:
        """The starting FEN of the game followed by ``moves`` and the moves played (or just the FEN)."""
        if self._setup is None:
            moves = " ".join(move.uci() for move in _unpacked(self._moves))
            self._setup = f"{self._start_fen} moves {moves}" if moves else self._board.fen()
        return self._setup

    def game_board(self) -> chess.Board:
        """A new python-chess board of this position with the whole game in its move stack (linear in its length)."""
        board = chess.Board(self._start_fen)
        for move in _unpacked(self._moves):
            board.push(move)
        return board

    # -- rules -----------------------------------------------------------------------------------------------

    @property
    def to_move(self) -> int:
        """0 when White is to move, 1 for Black."""
        return 0 if self._board.turn == chess.WHITE else 1

    @property
    def key(self) -> int:
        """The Polyglot Zobrist hash of the position."""
        return chess.polyglot.zobrist_hash(self._board)

    def legal_moves(self) -> list[chess.Move]:
        """The legal moves; none once the game is over (including automatic draws)."""
        if self.outcome() is not None:
            return []
        return list(self._board.legal_moves)

    def play(self, move: chess.Move) -> ChessState:
        """The position after ``move``; an illegal move or a finished game raises ``IllegalMoveError``."""
        if not isinstance(move, chess.Move):
            raise IllegalMoveError(f"{move!r} is not a chess move")
        outcome = self.outcome()
        if outcome is not None:
            raise IllegalMoveError(f"the game is over ({outcome.reason})")
        board = self._board
        if not board.is_legal(move):
            raise IllegalMoveError(f"{move.uci()} is not legal in {board.fen()}")
        notation = self._notation
        after = board.copy(stack=board.halfmove_clock)
        san = after.san(move) if notation is not None else ""
        after.push(move)
        if notation is not None:
            notation = Notation(f"{notation.san} {san}" if notation.san else san,
                                named_opening(after) or notation.opening)
        return self._after(after, move, notation)

    def play_texts(self, texts: Iterable[str]) -> ChessState:
        """The position after the moves ``texts`` (UCI or SAN), each checked as ``parse_move`` and ``play`` do, on
        one board: linear in their number. The first bad move
        raises ``IllegalMoveError`` naming its number (from 1)."""
        board = self._board.copy()
        moves = [self._moves]
        reader = ChessState.__new__(ChessState)
        for number, text in enumerate(texts, 1):
            reader._set(board, self._start_fen, b"", None)  # the board itself, to parse its next move
            try:
                move = reader.parse_move(text)
            except IllegalMoveError as error:
                raise IllegalMoveError(f"move {number}: {error}") from None
            board.push(move)
            moves.append(_packed(move))
        state = ChessState.__new__(ChessState)
        state._set(board.copy(stack=board.halfmove_clock), self._start_fen, b"".join(moves), None)
        return state

    def play_null(self) -> ChessState:
        """The same position with the other side to move (for null-move pruning in generic searches)."""
        board = self._board.copy(stack=False)
        board.push(chess.Move.null())
        return self._after(board, chess.Move.null(), None)

    def outcome(self) -> Outcome | None:
        """None while the game goes on, else the winner (0 White, 1 Black, None draw) and the reason."""
        if self._outcome is False:
            board = self._board
            result = board.outcome()
            if result is not None:
                winner = None if result.winner is None else (0 if result.winner == chess.WHITE else 1)
                self._outcome = Outcome(winner, REASONS[result.termination])
            elif board.is_fifty_moves():
                self._outcome = Outcome(None, REASONS[chess.Termination.FIFTY_MOVES])
            elif board.is_repetition(3):
                self._outcome = Outcome(None, REASONS[chess.Termination.THREEFOLD_REPETITION])
            else:
                self._outcome = None
        return self._outcome

    def can_win(self, seat: int) -> bool:
        """Whether ``seat`` (0 White, 1 Black) still has the material to mate (python-chess's rule): a side that
        cannot draws when the opponent's clock falls."""
        return not self._board.has_insufficient_material(chess.WHITE if seat == 0 else chess.BLACK)

    def evaluate(self) -> int:
        """Material and tapered piece-square score in centipawns for the side to move."""
        tables = _tables(game_phase(self._board))
        return convert.from_board(self._board, tables).score

    def order_hint(self, move: chess.Move) -> int:
        """Captures and promotions first (most valuable victim, least valuable attacker), then the rest."""
        board = self._board
        hint = 0
        if move.promotion:
            hint += 10 * PIECE_ORDER[move.promotion]
        victim = board.piece_type_at(move.to_square)
        if victim is not None:
            attacker = board.piece_type_at(move.from_square) or chess.PAWN
            hint += 10 * PIECE_ORDER[victim] - PIECE_ORDER[attacker] + 10
        elif board.is_en_passant(move):
            hint += 10
        return hint

    def noisy_moves(self) -> list[chess.Move]:
        """Captures and promotions (for quiescence search)."""
        if self.outcome() is not None:
            return []
        board = self._board
        return [move for move in board.legal_moves if move.promotion or board.is_capture(move)]

    # -- notation --------------------------------------------------------------------------------------------

    def parse_move(self, text: str) -> chess.Move:
        """A move in UCI (``e2e4``, ``e7e8q``) or SAN (``Nf3``, ``O-O``), checked for legality. As on Lichess,
        the case of letters does not matter where the move stays unambiguous (``nf3``, ``E2E4``, ``o-o``,
        ``e8=q``): a text that is not SAN as typed is read with its letters' case set right, and a leading b as the
        b-pawn and as a bishop (``bxc3`` is the pawn's capture as SAN says, or the bishop's when only that is
        legal; ``BXC3`` with both legal is refused as ambiguous)."""
        if not isinstance(text, str) or not text.strip():
            raise IllegalMoveError("a move is UCI text like e2e4 or SAN like Nf3")
        text = text.strip()
        outcome = self.outcome()
        if outcome is not None:
            raise IllegalMoveError(f"the game is over ({outcome.reason})")
        board = self._board
        try:
            move = chess.Move.from_uci(text.lower())
        except chess.InvalidMoveError:
            move = None
        if move is not None:
            if not board.is_legal(move):
                raise IllegalMoveError(f"{text} is not legal here ({'White' if board.turn else 'Black'} to move)")
            return move
        with contextlib.suppress(ValueError):
            return board.parse_san(text)
        meant = set()
        for spelling in _spellings(text):
            with contextlib.suppress(ValueError):
                meant.add(board.parse_san(spelling))
        if len(meant) == 1:
            return meant.pop()
        if len(meant) > 1:
            raise IllegalMoveError(f"{text} could be the b-pawn's move or the bishop's: write bxc3-style lower case "
                                   "for the pawn, B for the bishop")
        try:
            return board.parse_san(_spellings(text)[0])  # not legal: parsed again for the reason
        except chess.IllegalMoveError:
            raise IllegalMoveError(f"{text} is not legal here ({'White' if board.turn else 'Black'} to move)") from None
        except chess.AmbiguousMoveError:
            raise IllegalMoveError(f"{text} is ambiguous: name the starting file or rank") from None
        except chess.InvalidMoveError:
            raise IllegalMoveError(f"{text!r} is not a move: use UCI like e2e4 or SAN like Nf3") from None

    def move_text(self, move: chess.Move) -> str:
        """UCI text of ``move``."""
        return move.uci()

    def san(self, move: chess.Move) -> str:
        """SAN text of ``move`` in this position (for display)."""
        return self._board.san(move)

    def readable_line(self, moves: list[str]) -> list[str]:
        """The SAN of each move of the line ``moves`` (UCI) played from this position; the result stops before
        the first move that is not legal where it comes."""
        board = self._board.copy(stack=False)
        result = []
        for text in moves:
            try:
                move = chess.Move.from_uci(text)
            except chess.InvalidMoveError:
                break
            if not board.is_legal(move):
                break
            result.append(board.san(move))
            board.push(move)
        return result

    def notation(self) -> Notation:
        """The game's moves in SAN and its opening (found once, in time linear in the game's length)."""
        if self._notation is None:
            board = chess.Board(self._start_fen)
            sans, opening = [], named_opening(board)
            for move in _unpacked(self._moves):
                sans.append(board.san(move))
                board.push(move)
                opening = named_opening(board) or opening
            self._notation = Notation(" ".join(sans), opening)
        return self._notation

    def san_moves(self) -> list[str]:
        """The game's moves so far in SAN."""
        san = self.notation().san
        return san.split(" ") if san else []

    def opening(self) -> Opening | None:
        """The latest named opening the game passed through (ECO code and name), or None."""
        return self.notation().opening

    @staticmethod
    def eval_comment(white_score: int, depth: int | None = None) -> str | None:
        """The PGN ``[%eval ...]`` command written after an engine move whose search scored it ``white_score``
        (from White's side; a decided score counts the plies from before the move), with the search depth when
        known: ``[%eval 0.35,12]``, ``[%eval #2,9]`` (White mates in 2 moves after this one), ``#-2`` (Black
        does). None for the mating move itself (the result says it)."""
        if is_decided(white_score):
            plies_left = plies_to_end(white_score) - 1
            if plies_left <= 0:
                return None
            moves = (plies_left + 1) // 2
            value = f"#{moves}" if white_score > 0 else f"#-{moves}"
        else:
            value = f"{white_score / 100:.2f}"
        return f"[%eval {value}{f',{depth}' if depth else ''}]"

    def pgn(self, comments: dict[int, str] | None = None) -> str:
        """The game so far as PGN text; ``comments`` maps a ply (1 for the first move) to the comment written
        after that move (say ``[%eval 0.35,12]``)."""
        game = chess.pgn.Game.from_board(self.game_board())
        for ply, node in enumerate(game.mainline(), start=1):
            if comments and ply in comments:
                node.comment = comments[ply]
        outcome = self.outcome()
        if outcome is not None:
            game.headers["Result"] = {0: "1-0", 1: "0-1", None: "1/2-1/2"}[outcome.winner]
        return str(game)

    def view(self) -> dict[str, Any]:
        """What the browser draws: ``fen``; ``pieces`` {square name: FEN letter}; ``last_move`` (UCI) or None;
        ``check``: the square of a king in check or None; ``legal`` (UCI); ``san`` (the move list); ``moves``
        (the same in UCI); ``to_move``; ``turn`` ("white"/"black"); ``opening`` {eco, name} or None;
        ``outcome``; ``start_fen``. (The PGN is ``GET /api/games/<id>/pgn``.)"""
        board = self._board
        king = board.king(board.turn) if board.is_check() else None
        outcome = self.outcome()
        opening = self.opening()
        moves = self.setup().partition(" moves ")[2].split()
        return {
            "fen": board.fen(),
            "start_fen": self._start_fen,
            "pieces": {chess.SQUARE_NAMES[sq]: piece.symbol() for sq, piece in board.piece_map().items()},
            "last_move": moves[-1] if moves else None,
            "check": chess.SQUARE_NAMES[king] if king is not None else None,
            "legal": [move.uci() for move in self.legal_moves()],
            "san": self.san_moves(),
            "moves": moves,
            "to_move": self.to_move,
            "turn": "white" if board.turn == chess.WHITE else "black",
            "opening": None if opening is None else {"eco": opening.eco, "name": opening.name},
            "outcome": None if outcome is None else outcome.to_dict(),
        }

    # -- value semantics -----------------------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ChessState) and self._board == other._board

    def __hash__(self) -> int:
        return hash((self.key, self._board.halfmove_clock, self._board.fullmove_number))

    def __repr__(self) -> str:
        return f"ChessState({self._board.fen()!r})"

    def __getstate__(self) -> tuple[str, bytes, str, int]:
        board = self._board
        return self._start_fen, self._moves, board.root().fen(), len(board.move_stack)

    def __setstate__(self, data: tuple[str, bytes, str, int]) -> None:
        start_fen, moves, recent_fen, recent = data
        board = chess.Board(recent_fen)
        for move in _unpacked(moves[len(moves) - recent * MOVE_CODE.size:] if recent else b""):
            board.push(move)
        self._set(board, start_fen, moves, None)


GAME_STATE = ChessState
