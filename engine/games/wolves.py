"""Wolves & Rabbit: four wolves try to trap a rabbit on the dark squares of an 8x8 board.

Squares are written algebraically, "a1" to "h8"; only the dark squares are used (those where file and rank are
both odd or both even: a1, c1, ..., b8, d8, f8, h8). Rank 8 is the wolves' top row, where they start on b8, d8,
f8 and h8; the rabbit starts on a dark square of rank 1 (option ``rabbit``: "a1", "c1", "e1" or "g1"; default
"c1").

Rules: the rabbit moves first, one square diagonally in any direction; a wolf moves one square diagonally
downward (towards rank 1). No captures, no jumps, one piece moves per turn. The rabbit wins on reaching rank 8;
the wolves win when the rabbit cannot move on its turn; if the wolves cannot move on their turn, the rabbit wins.
Every game ends: the wolves only move down, so they run out of moves after at most 28 of them.

Player 0 is the rabbit, player 1 the wolves.

Move notation: "FROM-TO", e.g. "e1-d2" (the hyphen may be left out: "e1d2").
Position notation: ``R:<square> W:<square>,<square>,<square>,<square> <side>`` where side is ``r`` (rabbit to
move) or ``w`` (wolves to move), e.g. the start "R:c1 W:b8,d8,f8,h8 r".

Squares are numbered 0-31 inside: ``index = 4 * rank + file // 2`` with rank and file counted from 0, so a1 = 0,
c1 = 1, ..., b8 = 29, h8 = 31. The wolves are a 32-bit mask of those indices.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.game import IllegalMoveError, InvalidSetupError, Outcome

SQUARE_COUNT = 32
WOLF_COUNT = 4
TOP_RANK = 7
FILES = "abcdefgh"
START_WOLVES = (28, 29, 30, 31)
START_RABBIT_SQUARES = ("a1", "c1", "e1", "g1")
DEFAULT_RABBIT = "c1"

RABBIT, WOLVES = 0, 1


def square_rank(square: int) -> int:
    """Rank 0-7 (0 = rank 1, the rabbit's home row; 7 = rank 8, the rabbit's goal)."""
    return square >> 2


def square_file(square: int) -> int:
    """File 0-7 (0 = the a-file)."""
    rank = square >> 2
    return 2 * (square & 3) + (rank & 1)


def square_name(square: int) -> str:
    """Algebraic name of a dark-square index, e.g. 0 -> "a1"."""
    return f"{FILES[square_file(square)]}{square_rank(square) + 1}"


def _square_at(file: int, rank: int) -> int | None:
    if 0 <= file < 8 and 0 <= rank < 8 and (file + rank) % 2 == 0:
        return 4 * rank + file // 2
    return None


SQUARE_NAMES = tuple(square_name(s) for s in range(SQUARE_COUNT))
SQUARE_BY_NAME = {name: s for s, name in enumerate(SQUARE_NAMES)}


def _neighbours(rank_step: int) -> tuple[tuple[int, ...], ...]:
    table = []
    for square in range(SQUARE_COUNT):
        file, rank = square_file(square), square_rank(square)
        targets = (_square_at(file + df, rank + rank_step) for df in (-1, 1))
        table.append(tuple(t for t in targets if t is not None))
    return tuple(table)


UP = _neighbours(1)
"""``UP[s]``: the dark squares one step diagonally towards rank 8 from ``s``."""
DOWN = _neighbours(-1)
"""``DOWN[s]``: the dark squares one step diagonally towards rank 1 from ``s`` (the wolves' moves)."""
ALL_STEPS = tuple(UP[s] + DOWN[s] for s in range(SQUARE_COUNT))
"""``ALL_STEPS[s]``: every diagonal neighbour of ``s``, upward ones first (the rabbit's moves)."""

UNREACHABLE_PENALTY = 1000
"""Score the rabbit loses when the wolves, standing still, already cut it off from rank 8."""
DISTANCE_WEIGHT = 10
"""Score per rabbit move still needed to reach rank 8 with the wolves standing still."""
PASSED_WOLF_WEIGHT = 20
"""Score per wolf standing below the rabbit: wolves only move down, so that wolf can never block it again."""
SPREAD_WEIGHT = 10
"""Score per rank between the highest and the lowest wolf: a ragged line leaves gaps for the rabbit."""


def squares_of(mask: int) -> list[int]:
    """The square indices set in ``mask``, lowest first."""
    squares = []
    while mask:
        low = mask & -mask
        squares.append(low.bit_length() - 1)
        mask ^= low
    return squares


def escape_distance(rabbit: int, wolves: int) -> int | None:
    """The fewest rabbit moves to reach rank 8 with the wolves frozen (breadth-first search); None when the
    wolves' squares cut the rabbit off."""
    if square_rank(rabbit) == TOP_RANK:
        return 0
    seen = wolves | 1 << rabbit
    frontier = [rabbit]
    distance = 0
    while frontier:
        distance += 1
        following = []
        for square in frontier:
            for target in ALL_STEPS[square]:
                if not seen >> target & 1:
                    if target >> 2 == TOP_RANK:
                        return distance
                    seen |= 1 << target
                    following.append(target)
        frontier = following
    return None


def rabbit_score(rabbit: int, wolves: int, *, refined: bool = True) -> int:
    """Heuristic value of a position for the rabbit.

    Base: minus ``DISTANCE_WEIGHT`` per move of the rabbit's escape route with the wolves frozen, or minus
    ``UNREACHABLE_PENALTY`` when there is none. ``refined`` adds what measured better against the solved table
    (``python -m bench.tablebase --eval``): wolves already below the rabbit (``PASSED_WOLF_WEIGHT`` each) and the
    ranks between the highest and lowest wolf (``SPREAD_WEIGHT`` each).
    """
    distance = escape_distance(rabbit, wolves)
    score = -UNREACHABLE_PENALTY if distance is None else -DISTANCE_WEIGHT * distance
    if refined:
        ranks = [square >> 2 for square in squares_of(wolves)]
        rabbit_rank = rabbit >> 2
        score += PASSED_WOLF_WEIGHT * sum(1 for rank in ranks if rank < rabbit_rank)
        score += SPREAD_WEIGHT * (max(ranks) - min(ranks))
    return score


def _parse_square(text: str, what: str) -> int:
    name = text.strip().lower()
    if len(name) != 2 or name[0] not in FILES or name[1] not in "12345678":
        raise InvalidSetupError(f"{what} {text!r} is not a square a1-h8")
    if name not in SQUARE_BY_NAME:
        raise InvalidSetupError(f"{what} {name} is a light square; pieces stand on dark squares only")
    return SQUARE_BY_NAME[name]


@dataclass(frozen=True, slots=True)
class Wolves:
    """A Wolves & Rabbit position: the rabbit's square, the wolves' mask, the side to move and the last move.

    The last move (``(from, to)`` square indices) is only shown by ``view``; it is not part of equality or key.
    """

    rabbit: int = SQUARE_BY_NAME[DEFAULT_RABBIT]
    wolves: int = sum(1 << s for s in START_WOLVES)
    player: int = RABBIT
    last: tuple[int, int] | None = field(default=None, compare=False)

    name: ClassVar[str] = "wolves"
    title: ClassVar[str] = "Wolves & Rabbit"
    move_notation: ClassVar[str] = (
        "from-to squares of the piece moved, files a-h from the left and ranks 1-8 from the bottom: c1-b2")
    """How its moves are written, in words (the move list says it)."""
    order_hint_label: ClassVar[str] = "rabbit: upward step; wolves: rearmost, towards the rabbit"
    """What ``order_hint`` rates, in a few words (the search stepper names each move's place by it)."""
    score_unit: ClassVar[str] = (
        "points of a heuristic for the rabbit's escape: 10 for each move of its shortest way to the top row "
        "with the wolves standing still (1000 when it has none), 20 for each wolf already below it and 10 for"
        " each rank between the highest and the lowest wolf")
    """What a heuristic score counts, in words (decided scores read "win in N" / "loss in N")."""
    score_axis: ClassVar[str] = "points"
    """The unit of a chart's value axis, in one word ("" for none: no heuristic scores)."""
    players: ClassVar[tuple[str, str]] = ("Rabbit", "Wolves")

    @classmethod
    def initial(cls, rabbit: Any = DEFAULT_RABBIT, **unknown: Any) -> Wolves:
        """The start: wolves on b8, d8, f8, h8; the rabbit on ``rabbit`` (a1, c1, e1 or g1) and to move."""
        if unknown:
            raise InvalidSetupError(f"unknown Wolves & Rabbit options: {', '.join(sorted(unknown))}; "
                                    "the only option is rabbit")
        if not isinstance(rabbit, str) or rabbit.strip().lower() not in START_RABBIT_SQUARES:
            raise InvalidSetupError(f"the rabbit starts on {', '.join(START_RABBIT_SQUARES)}, not {rabbit!r}")
        return cls(SQUARE_BY_NAME[rabbit.strip().lower()])

    @classmethod
    def from_setup(cls, text: str) -> Wolves:
        """Parse "R:<square> W:<four squares, comma-separated> <r|w>" (see the module docstring)."""
        words = text.split()
        if len(words) != 3:
            raise InvalidSetupError(f"expected 'R:<square> W:<s1>,<s2>,<s3>,<s4> <r|w>', got {text!r}")
        rabbit_word, wolves_word, side_word = words
        if not rabbit_word[:2].upper() == "R:":
            raise InvalidSetupError(f"the position starts with the rabbit, 'R:<square>', not {rabbit_word!r}")
        if not wolves_word[:2].upper() == "W:":
            raise InvalidSetupError(f"the wolves come second, 'W:<s1>,<s2>,<s3>,<s4>', not {wolves_word!r}")
        if side_word.lower() not in ("r", "w"):
            raise InvalidSetupError(f"the side to move is 'r' (rabbit) or 'w' (wolves), not {side_word!r}")
        rabbit = _parse_square(rabbit_word[2:], "rabbit square")
        wolf_squares = [_parse_square(w, "wolf square") for w in wolves_word[2:].split(",")]
        if len(wolf_squares) != WOLF_COUNT:
            raise InvalidSetupError(f"there are {WOLF_COUNT} wolves, the position lists {len(wolf_squares)}")
        wolves = sum(1 << s for s in set(wolf_squares))
        if wolves.bit_count() != WOLF_COUNT:
            raise InvalidSetupError("two wolves on the same square")
        if wolves >> rabbit & 1:
            raise InvalidSetupError(f"the rabbit and a wolf are both on {SQUARE_NAMES[rabbit]}")
        return cls(rabbit, wolves, RABBIT if side_word.lower() == "r" else WOLVES)

    def setup(self) -> str:
        """This position in the notation ``from_setup`` reads."""
        wolves = ",".join(SQUARE_NAMES[s] for s in sorted(squares_of(self.wolves), key=lambda s: SQUARE_NAMES[s]))
        return f"R:{SQUARE_NAMES[self.rabbit]} W:{wolves} {'rw'[self.player]}"

    @property
    def to_move(self) -> int:
        """0 when the rabbit is to move, 1 for the wolves."""
        return self.player

    @property
    def key(self) -> int:
        """Exact key: the rabbit's square in bits 0-4, the wolves' mask in bits 5-36, the side to move in bit 37."""
        return self.rabbit | self.wolves << 5 | self.player << 37

    def _moves(self) -> list[tuple[int, int]]:
        """The moves the rules allow the side to move, ignoring whether the game is already over."""
        wolves = self.wolves
        if self.player == RABBIT:
            rabbit = self.rabbit
            return [(rabbit, t) for t in ALL_STEPS[rabbit] if not wolves >> t & 1]
        occupied = wolves | 1 << self.rabbit
        return [(w, t) for w in squares_of(wolves) for t in DOWN[w] if not occupied >> t & 1]

    def legal_moves(self) -> list[tuple[int, int]]:
        """Moves as ``(from, to)`` square indices: the rabbit's upward steps first; none once the game is over."""
        if square_rank(self.rabbit) == TOP_RANK:
            return []
        return self._moves()

    def play(self, move: tuple[int, int]) -> Wolves:
        """The position after ``move``, a ``(from, to)`` pair of square indices."""
        if not (isinstance(move, tuple) and len(move) == 2
                and all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s < SQUARE_COUNT for s in move)):
            raise IllegalMoveError(f"{move!r} is not a move; a move is a pair of dark-square indices 0-31")
        if move not in self.legal_moves():
            raise IllegalMoveError(self._why_illegal(*move))
        start, target = move
        if self.player == RABBIT:
            return Wolves(target, self.wolves, WOLVES, move)
        return Wolves(self.rabbit, self.wolves ^ (1 << start | 1 << target), RABBIT, move)

    def _why_illegal(self, start: int, target: int) -> str:
        text = f"{SQUARE_NAMES[start]}-{SQUARE_NAMES[target]}"
        outcome = self.outcome()
        if outcome is not None:
            return f"{text}: the game is over ({outcome.reason})"
        if self.player == RABBIT and start != self.rabbit:
            return f"{text}: the rabbit is to move and stands on {SQUARE_NAMES[self.rabbit]}"
        if self.player == WOLVES and not self.wolves >> start & 1:
            return f"{text}: the wolves are to move and there is no wolf on {SQUARE_NAMES[start]}"
        if self.player == RABBIT and target not in ALL_STEPS[start]:
            return f"{text}: the rabbit moves one square diagonally"
        if self.player == WOLVES and target not in DOWN[start]:
            return f"{text}: a wolf moves one square diagonally downward"
        return f"{text}: {SQUARE_NAMES[target]} is occupied"

    def outcome(self) -> Outcome | None:
        """The rabbit wins on rank 8 or when the wolves cannot move; the wolves win when the rabbit cannot move."""
        if square_rank(self.rabbit) == TOP_RANK:
            return Outcome(RABBIT, "the rabbit reached the top row")
        if self._moves():
            return None
        if self.player == RABBIT:
            return Outcome(WOLVES, "the rabbit cannot move")
        return Outcome(RABBIT, "the wolves cannot move")

    def evaluate(self) -> int:
        """``rabbit_score`` (escape distance with the wolves frozen, refined) for the side to move."""
        score = rabbit_score(self.rabbit, self.wolves)
        return score if self.player == RABBIT else -score

    def order_hint(self, move: tuple[int, int]) -> int:
        """Rabbit: upward steps first. Wolves: the rearmost wolf first, then steps towards the rabbit's file."""
        start, target = move
        if self.player == RABBIT:
            return square_rank(target) - square_rank(start)
        rabbit_file = square_file(self.rabbit)
        toward = abs(square_file(start) - rabbit_file) - abs(square_file(target) - rabbit_file)
        return 4 * square_rank(start) + toward

    def parse_move(self, text: str) -> tuple[int, int]:
        """"FROM-TO" (or "FROMTO") to a move, checked for legality."""
        cleaned = text.strip().lower().replace("-", "")
        if len(cleaned) != 4:
            raise IllegalMoveError(f"{text!r} is not a move; write FROM-TO, e.g. 'e1-d2'")
        try:
            start = _parse_square(cleaned[:2], "from square")
            target = _parse_square(cleaned[2:], "to square")
        except InvalidSetupError as error:
            raise IllegalMoveError(f"{text!r}: {error}") from None
        if (start, target) not in self.legal_moves():
            raise IllegalMoveError(self._why_illegal(start, target))
        return start, target

    def move_text(self, move: tuple[int, int]) -> str:
        """"FROM-TO", e.g. "e1-d2"."""
        return f"{SQUARE_NAMES[move[0]]}-{SQUARE_NAMES[move[1]]}"

    def view(self) -> dict[str, Any]:
        """What the browser draws.

        ``pieces``: square name -> "rabbit" | "wolf"; ``rabbit``: its square; ``wolves``: their squares;
        ``last``: ``{"from", "to"}`` or None; ``legal``: moves as text; ``targets``: for each square holding a
        piece that can move, the squares it can move to; ``to_move``; ``goal_rank``: 8.
        """
        targets: dict[str, list[str]] = {}
        moves = self.legal_moves()
        for start, target in moves:
            targets.setdefault(SQUARE_NAMES[start], []).append(SQUARE_NAMES[target])
        wolves = [SQUARE_NAMES[s] for s in squares_of(self.wolves)]
        pieces = {square: "wolf" for square in wolves}
        pieces[SQUARE_NAMES[self.rabbit]] = "rabbit"
        return {
            "pieces": pieces,
            "rabbit": SQUARE_NAMES[self.rabbit],
            "wolves": wolves,
            "last": {"from": SQUARE_NAMES[self.last[0]], "to": SQUARE_NAMES[self.last[1]]} if self.last else None,
            "legal": [self.move_text(m) for m in moves],
            "targets": targets,
            "to_move": self.player,
            "goal_rank": TOP_RANK + 1,
        }


GAME_STATE = Wolves
