"""A score together with the side it is said for, as python-chess's ``PovScore`` keeps one: the engine reports
every score for the side to move, and a chart, a PGN comment or a game record says it for one chosen seat. In a
two-player zero-sum game the other seat's score is the negation."""

from __future__ import annotations

from dataclasses import dataclass

from engine.game import describe_score


@dataclass(frozen=True, slots=True)
class PovScore:
    """``relative``: a score in the engine's convention, said for ``seat`` (0 or 1)."""

    relative: int
    seat: int

    def pov(self, seat: int) -> int:
        """The score said for ``seat``."""
        return self.relative if seat == self.seat else -self.relative

    def describe(self, seat: int, units_per_point: int) -> str:
        """The text of the score said for ``seat`` (``engine.game.describe_score``: "win in 3", "+0.35")."""
        return describe_score(self.pov(seat), units_per_point)
