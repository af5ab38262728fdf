"""Nim: piles of counters; a move takes one or more counters from one pile.

Options: ``piles`` (a list of pile sizes, default ``[4]``), ``max_take`` (the most counters one move may take,
None for no limit) and ``misere`` (False: taking the last counter wins; True: taking the last counter loses).

Move notation: "PILE:COUNT", 1-based pile, e.g. "2:3" takes 3 counters from the second pile.
Position notation: the pile sizes separated by commas, then optional words: ``max=K``, ``misere``, and
``next=2`` when the second player is to move. Examples: "4", "10 max=3", "3,4,5 misere".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.game import IllegalMoveError, InvalidSetupError, Outcome

MAX_PILES = 8
MAX_PILE = 99


@dataclass(frozen=True, slots=True)
class Nim:
    """A Nim position: pile sizes, the rules (``max_take``, ``misere``) and the side to move."""

    piles: tuple[int, ...] = (4,)
    max_take: int | None = None
    misere: bool = False
    player: int = 0
    last: tuple[int, int] | None = field(default=None, compare=False)

    name: ClassVar[str] = "nim"
    title: ClassVar[str] = "Nim"
    move_notation: ClassVar[str] = (
        "pile:count, the pile as labelled on the board and how many counters are taken: 2:3 takes three "
        "counters from pile 2")
    """How its moves are written, in words (the move list says it)."""
    order_hint_label: ClassVar[str] = "leaves the opponent a lost position (1 yes, 0 no)"
    """What ``order_hint`` rates, in a few words (the search stepper names each move's place by it)."""
    score_unit: ClassVar[str] = (
        "none: the engine knows no heuristic for Nim, so an unsolved position scores 0 and only proven wins "
        "and losses count")
    """What a heuristic score counts, in words (decided scores read "win in N" / "loss in N")."""
    score_axis: ClassVar[str] = ""
    """The unit of a chart's value axis, in one word ("" for none: no heuristic scores)."""
    players: ClassVar[tuple[str, str]] = ("First", "Second")
    refutations_transfer: ClassVar[bool] = False
    """A move that refuted one position says nothing of its siblings ("2:1" wins or loses by the piles' nim-sum,
    not by itself): the search keeps no killers or history for Nim and orders by ``order_hint`` alone."""

    def __post_init__(self) -> None:
        if not 1 <= len(self.piles) <= MAX_PILES:
            raise InvalidSetupError(f"Nim needs 1 to {MAX_PILES} piles, got {len(self.piles)}")
        for size in self.piles:
            if not isinstance(size, int) or isinstance(size, bool) or not 0 <= size <= MAX_PILE:
                raise InvalidSetupError(f"a pile holds 0 to {MAX_PILE} counters, got {size!r}")
        if self.max_take is not None and (
            not isinstance(self.max_take, int) or isinstance(self.max_take, bool) or not 1 <= self.max_take <= MAX_PILE
        ):
            raise InvalidSetupError(f"max_take must be 1 to {MAX_PILE} or None, got {self.max_take!r}")
        if not isinstance(self.misere, bool):
            raise InvalidSetupError(f"misere must be true or false, got {self.misere!r}")

    @classmethod
    def initial(cls, piles: Any = (4,), max_take: Any = None, misere: Any = False, **unknown: Any) -> Nim:
        """The start position with the given piles and rules; bad or unknown options raise ``InvalidSetupError``."""
        if unknown:
            raise InvalidSetupError(f"unknown Nim options: {', '.join(sorted(unknown))}")
        if not isinstance(piles, list | tuple):
            raise InvalidSetupError(f"piles must be a list of pile sizes, got {piles!r}")
        return cls(tuple(piles), max_take, misere)

    @classmethod
    def from_setup(cls, text: str) -> Nim:
        """Parse the position notation described in the module docstring."""
        words = text.split()
        if not words:
            raise InvalidSetupError("empty Nim position; expected pile sizes such as '3,4,5'")
        try:
            piles = tuple(int(p) for p in words[0].split(","))
        except ValueError:
            raise InvalidSetupError(f"{words[0]!r} is not a comma-separated list of pile sizes") from None
        max_take, misere, player = None, False, 0
        for word in words[1:]:
            if word == "misere":
                misere = True
            elif word.startswith("max=") and word[4:].isdigit():
                max_take = int(word[4:])
            elif word in ("next=1", "next=2"):
                player = int(word[5:]) - 1
            else:
                raise InvalidSetupError(f"unknown word {word!r} in Nim position; expected max=K, misere or next=2")
        return cls(piles, max_take, misere, player)

    def setup(self) -> str:
        """This position in the notation ``from_setup`` reads."""
        words = [",".join(map(str, self.piles))]
        if self.max_take is not None:
            words.append(f"max={self.max_take}")
        if self.misere:
            words.append("misere")
        if self.player:
            words.append("next=2")
        return " ".join(words)

    @property
    def to_move(self) -> int:
        """0 or 1."""
        return self.player

    @property
    def key(self) -> int:
        """Exact key of the piles (base 128); the rules are fixed within one game, so they are left out."""
        key = 0
        for size in self.piles:
            key = key * 128 + size
        return key

    @property
    def symmetric_key(self) -> int:
        """The key of the piles sorted: the order of piles does not change the value."""
        key = 0
        for size in sorted(self.piles):
            key = key * 128 + size
        return key

    def legal_moves(self) -> list[tuple[int, int]]:
        """Every (pile index, count) allowed by the rules, larger takes first; none once all piles are empty."""
        moves: list[tuple[int, int]] = []
        for index, size in enumerate(self.piles):
            most = size if self.max_take is None else min(size, self.max_take)
            moves.extend((index, count) for count in range(most, 0, -1))
        return moves

    def order_hint(self, move: tuple[int, int]) -> int:
        """1 for a move that leaves the opponent a position the theory loses (``theory_loss``), else 0 (also where
        the theory has no rule): the search tries the winning moves first. Only an order: the search still proves
        every value."""
        index, count = move
        piles = [*self.piles]
        piles[index] -= count
        return 1 if theory_loss(piles, self.max_take, self.misere) else 0

    def play(self, move: tuple[int, int]) -> Nim:
        """The position after taking ``count`` counters from pile ``index``."""
        if not (isinstance(move, tuple) and len(move) == 2 and all(isinstance(v, int) for v in move)):
            raise IllegalMoveError(f"{move!r} is not a Nim move (pile, count)")
        index, count = move
        if not 0 <= index < len(self.piles):
            raise IllegalMoveError(f"there is no pile {index + 1}; piles are 1-{len(self.piles)}")
        if count < 1:
            raise IllegalMoveError("a move takes at least one counter")
        if count > self.piles[index]:
            raise IllegalMoveError(f"pile {index + 1} holds only {self.piles[index]} counters, cannot take {count}")
        if self.max_take is not None and count > self.max_take:
            raise IllegalMoveError(f"a move takes at most {self.max_take} counters, not {count}")
        piles = (*self.piles[:index], self.piles[index] - count, *self.piles[index + 1:])
        return Nim(piles, self.max_take, self.misere, 1 - self.player, move)

    def outcome(self) -> Outcome | None:
        """Once every pile is empty: the player who took the last counter wins (loses under misère)."""
        if any(self.piles):
            return None
        if self.misere:
            return Outcome(self.player, "the opponent took the last counter (misère)")
        return Outcome(1 - self.player, "took the last counter")

    def evaluate(self) -> int:
        """No heuristic knowledge: every unfinished position scores 0."""
        return 0

    def parse_move(self, text: str) -> tuple[int, int]:
        """"PILE:COUNT" (1-based pile) to a move, checked for legality."""
        parts = text.strip().split(":")
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            raise IllegalMoveError(f"{text!r} is not a Nim move; write PILE:COUNT, e.g. '2:3'")
        move = (int(parts[0]) - 1, int(parts[1]))
        self.play(move)
        return move

    def move_text(self, move: tuple[int, int]) -> str:
        """"PILE:COUNT" with a 1-based pile."""
        return f"{move[0] + 1}:{move[1]}"

    def view(self) -> dict[str, Any]:
        """``piles``, ``max_take``, ``misere``, ``last`` (move text or None), ``legal`` and ``to_move``."""
        return {
            "piles": list(self.piles),
            "max_take": self.max_take,
            "misere": self.misere,
            "last": self.move_text(self.last) if self.last else None,
            "legal": [self.move_text(m) for m in self.legal_moves()],
            "to_move": self.player,
        }


def theory_loss(piles: list[int], max_take: int | None, misere: bool) -> bool | None:
    """Whether the player to move with ``piles`` loses with best play, by Nim's theory; None where it has no rule.

    Normal play is Bouton's theorem on Grundy values (a pile of ``n`` under "take at most ``k``" has Grundy value
    ``n mod (k + 1)``): the side to move loses exactly when their XOR is 0. Misère play without a limit is Bouton's
    misère rule: when every pile holds at most one counter, the side to move loses exactly when the number of
    non-empty piles is odd; otherwise as in normal play. Misère play with a limit ``k`` on one pile: the side to move
    loses exactly when the pile holds ``1 mod (k + 1)`` counters; on several piles there is no rule (None)."""
    grundy = 0
    for size in piles:
        grundy ^= size if max_take is None else size % (max_take + 1)
    if not misere:
        return grundy == 0
    if max_take is None:
        return sum(piles) % 2 == 1 if all(size <= 1 for size in piles) else grundy == 0
    nonempty = [size for size in piles if size]
    return nonempty[0] % (max_take + 1) == 1 if len(nonempty) == 1 else None


GAME_STATE = Nim
