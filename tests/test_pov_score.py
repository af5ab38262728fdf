"""``PovScore``: a score said for one seat, said for either."""

from __future__ import annotations

import pytest

from engine.game import WIN
from engine.pov_score import PovScore

pytestmark = pytest.mark.engine


def test_a_score_is_the_same_for_its_seat_and_negated_for_the_other() -> None:
    assert PovScore(35, 1).pov(1) == 35
    assert PovScore(35, 1).pov(0) == -35
    assert PovScore(-120, 0).pov(0) == -120


def test_a_win_for_one_seat_reads_as_the_same_loss_for_the_other() -> None:
    win_in_two_moves = PovScore(WIN - 3, 0)
    assert win_in_two_moves.describe(0, 1) == "win in 2"
    assert win_in_two_moves.describe(1, 1) == "loss in 1"
    assert PovScore(35, 1).describe(0, 100) == "-0.35"
