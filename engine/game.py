"""The contract every game's state follows, the outcome of a finished game, and the errors games raise.

A game is a module under ``engine.games`` with one state class. A state is an immutable value: it is hashable,
picklable and safe to hand to another process; ``play`` returns a new state and never changes ``self``.

Scores are from the point of view of the side to move (negamax convention). A won position is worth
``WIN - plies_to_win`` and a lost one ``-(WIN - plies_to_loss)``, so the engine wins as fast as it can and, when
lost, resists as long as it can. Heuristic scores from ``evaluate()`` must stay well inside ``±MAX_HEURISTIC``.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, Self, TypeVar, runtime_checkable

WIN = 1_000_000
"""Score of a win on the spot (0 plies); a win in ``n`` plies scores ``WIN - n``."""

MAX_PLIES = 10_000
"""No game here lasts longer; scores beyond ``WIN - MAX_PLIES`` are decided results, not heuristics."""

MAX_HEURISTIC = WIN - MAX_PLIES - 1
"""Largest magnitude a heuristic evaluation may take."""

Move = Hashable
"""A game's own move value (an int, a tuple, a ``chess.Move``...): hashable and picklable."""


class GameError(ValueError):
    """Base class of the errors a game raises for bad input."""


class IllegalMoveError(GameError):
    """A move that is malformed or not legal in the position; the message says which and why."""


class InvalidSetupError(GameError):
    """A position text (or game options) that does not describe a reachable, well-formed position."""


class UnknownGameError(GameError):
    """A game name that is not in the registry."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game ended: ``winner`` is 0 or 1 (the player index), or None for a draw."""

    winner: int | None
    reason: str

    @property
    def is_draw(self) -> bool:
        """True when nobody won."""
        return self.winner is None

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form: ``{"winner": 0 | 1 | None, "reason": str}``."""
        return {"winner": self.winner, "reason": self.reason}


@runtime_checkable
class State(Protocol):
    """A position of some game, with the side to move. Implementations are immutable dataclasses or similar.

    Required members (names follow python-chess and OpenSpiel so they read as verbs):

    - ``name`` / ``title``: the registry name ("connect4") and the display title ("Connect Four").
    - ``score_unit``: what the game's heuristic scores count, in words ("pawns ..."); ``score_axis``: that unit in
      one word for a chart's axis ("pawns"; "" when the game has no heuristic).
    - ``move_notation``: how its moves are written, in words ("the column ... 1 (left) to 7").
    - ``players``: display names of player 0 and player 1 ("X", "O"; "White", "Black"...).
    - ``initial(**options)``: the start position; unknown or bad options raise ``InvalidSetupError``.
    - ``from_setup(text)``: a position in the game's own notation; bad text raises ``InvalidSetupError``.
    - ``setup()``: the notation of this position, so that ``from_setup(s.setup()) == s``.
    - ``to_move``: 0 or 1. ``key``: an int identifying the position for the transposition table.
    - ``legal_moves()``: the legal moves (empty once the game is over).
    - ``play(move)``: the position after ``move``; an illegal move raises ``IllegalMoveError``.
    - ``outcome()``: None while the game goes on, else the ``Outcome``.
    - ``evaluate()``: heuristic score for the side to move, within ``±MAX_HEURISTIC``.
    - ``parse_move(text)`` / ``move_text(move)``: the wire and command-line notation of moves.
    - ``view()``: a JSON-able dict the browser draws from (cells, last move, legal moves as text, whose turn).

    Optional hints the search uses when present: ``order_hint(move) -> int`` (higher is searched first),
    ``refutations_transfer`` (a class attribute, True when absent: whether a move that refuted one position is worth
    trying first in its siblings, as killers and history assume; Nim says False),
    ``noisy_moves()`` (for quiescence), ``score_bounds() -> (low, high)`` (exact bounds from the rules on the
    value for the side to move, decided scores counted in plies from this position), ``non_losing_moves()``
    (the legal moves after which the opponent cannot win at once; empty when none), ``symmetric_key`` (the same
    for positions equal up to a symmetry), ``play_null()`` and ``in_check()`` (null-move pruning).
    Optional for the web clocks: ``can_win(seat) -> bool``, False when ``seat`` has no way left to win (a fallen
    clock of its opponent is then a draw); without it, either side can always win.
    Optional for speed: ``play_texts(texts)``, what ``play_moves`` does, in time linear in the number of moves where
    one ``play`` per move would copy a growing history (chess).
    """

    name: ClassVar[str]
    title: ClassVar[str]
    score_unit: ClassVar[str]
    score_axis: ClassVar[str]
    move_notation: ClassVar[str]
    players: ClassVar[tuple[str, str]]

    @classmethod
    def initial(cls, **options: Any) -> Self: ...

    @classmethod
    def from_setup(cls, text: str) -> Self: ...

    def setup(self) -> str: ...

    @property
    def to_move(self) -> int: ...

    @property
    def key(self) -> int: ...

    def legal_moves(self) -> list[Move]: ...

    def play(self, move: Move) -> Self: ...

    def outcome(self) -> Outcome | None: ...

    def evaluate(self) -> int: ...

    def parse_move(self, text: str) -> Move: ...

    def move_text(self, move: Move) -> str: ...

    def view(self) -> dict[str, Any]: ...


class HintedState(State, Protocol):
    """A state with the optional search hints of ``State`` spelled out. A game has any subset of them, so a search
    types its positions as this only after checking (once per search) which ones the game has, and calls only
    those."""

    @property
    def symmetric_key(self) -> int: ...

    def order_hint(self, move: Move, /) -> int: ...

    def noisy_moves(self) -> list[Move]: ...

    def score_bounds(self) -> tuple[int, int]: ...

    def non_losing_moves(self) -> list[Move]: ...

    def play_null(self) -> Self: ...

    def in_check(self) -> bool: ...


@runtime_checkable
class PgnState(Protocol):
    """A state that writes its game as PGN (chess)."""

    @staticmethod
    def eval_comment(white_score: int, depth: int | None = None) -> str | None:
        """The PGN comment for an engine move scored ``white_score`` from White's side, None for none."""

    def pgn(self, comments: dict[int, str] | None = None) -> str:
        """The game so far as PGN text, ``comments`` written after the plies they map from."""


class DigitMoves(Protocol):
    """A state whose moves are the ints 0, 1, ... (a cell, a column), as ``play_digits`` plays them."""

    def play(self, move: int, /) -> Self: ...


D = TypeVar("D", bound=DigitMoves)


def play_moves(state: State, moves: Iterable[str]) -> State:
    """Play moves given in the game's move notation, in order; the first bad one raises ``IllegalMoveError``
    naming its number (from 1). Uses the state's ``play_texts`` when it has one."""
    fast = getattr(state, "play_texts", None)
    if fast is not None:
        return fast(moves)
    for number, text in enumerate(moves, 1):
        try:
            state = state.play(state.parse_move(text))
        except IllegalMoveError as error:
            raise IllegalMoveError(f"move {number}: {error}") from None
    return state


def play_digits(start: D, text: object, count: int, noun: str) -> D:
    """The position after the moves written in ``text`` are played in order from ``start``.

    Each move is one digit 1..``count`` naming the 0-based move ``digit - 1`` (a cell, a column); ``noun`` names
    what a digit stands for in error messages. Text that is not a string, a character that is not such a digit,
    or an illegal move raises ``InvalidSetupError`` saying which character and why.
    """
    if not isinstance(text, str):
        raise InvalidSetupError(f"a position is a string of {noun}s 1-{count}, got {text!r}")
    state = start
    for index, char in enumerate(text.strip()):
        if not "1" <= char <= str(count):
            raise InvalidSetupError(f"character {index + 1} of {text!r} is {char!r}, not a {noun} 1-{count}")
        try:
            state = state.play(int(char) - 1)
        except IllegalMoveError as error:
            raise InvalidSetupError(f"move {index + 1} of {text!r}: {error}") from None
    return state


def is_decided(score: int) -> bool:
    """True when ``score`` is a proven win or loss rather than a heuristic value."""
    return abs(score) > WIN - MAX_PLIES


def plies_to_end(score: int) -> int:
    """For a decided score, the number of plies until the game ends under best play."""
    return WIN - abs(score)


def score_scale(state: object) -> int:
    """Score units per point of ``state``'s game: its class's ``score_scale`` (chess: 100, centipawns), else 1."""
    scale: int = getattr(type(state), "score_scale", 1)
    return scale


def describe_score(score: int, units_per_point: int = 100) -> str:
    """Human text for a score: "win in 3" / "loss in 2" (in moves of the side to move) or "+0.35".

    ``units_per_point`` scales heuristic values (100 for centipawns, 1 for games counting whole points).
    """
    if is_decided(score):
        plies = plies_to_end(score)
        return f"win in {(plies + 1) // 2}" if score > 0 else f"loss in {plies // 2}"
    if units_per_point == 1:
        return f"{score:+d}"
    return f"{score / units_per_point:+.2f}"
