"""Connect Four solver: exact scores on Pons' benchmark sets, his node counts, conventions and edge cases."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.game import WIN, InvalidSetupError
from engine.games.connect4 import BOARD, BOTTOM, Connect4
from engine.solve.connect4 import TABLE_SIZE, Solver, pons_to_engine

pytestmark = pytest.mark.engine

SETS = Path(__file__).parent / "data" / "connect4"

PONS_MEAN_NODES = {"end_easy": 51, "middle_easy": 450}
"""Pons' published mean nodes per position (his final solver, table reset before each position)."""


def read_set(name: str, every: int = 1) -> list[tuple[str, int]]:
    """Lines of one benchmark set as (sequence, score); every ``every``-th line only."""
    lines = (SETS / f"{name}.txt").read_text().split("\n")
    pairs = [(seq, int(score)) for seq, score in (line.split() for line in lines if line.strip())]
    return pairs[::every]


def solve_set(pairs: list[tuple[str, int]]) -> tuple[list[tuple[str, int, int]], float]:
    """Wrong answers as (sequence, expected, got) and the mean nodes per position."""
    solver = Solver()
    wrong, nodes = [], 0
    for sequence, expected in pairs:
        solver.reset()
        got = solver.solve(Connect4.from_setup(sequence))
        nodes += solver.nodes
        if got != expected:
            wrong.append((sequence, expected, got))
    return wrong, nodes / len(pairs)


@pytest.mark.parametrize("name", ["end_easy", "middle_easy"])
def test_every_line_exact_with_pons_node_counts(name: str) -> None:
    pairs = read_set(name)
    assert len(pairs) == 500
    wrong, mean_nodes = solve_set(pairs)
    assert wrong == []
    assert mean_nodes <= 1.1 * PONS_MEAN_NODES[name]


@pytest.mark.parametrize(("name", "every"), [("middle_medium", 20), ("begin_easy", 2)])
def test_sample_exact(name: str, every: int) -> None:
    wrong, _ = solve_set(read_set(name, every))
    assert wrong == []


def test_inlined_constants_match_the_layout() -> None:
    assert (BOTTOM, BOARD) == (4432676798593, 279258638311359)


def test_immediate_win_full_board_and_finished_game() -> None:
    solver = Solver()
    assert solver.solve(Connect4.from_setup("112233")) == (42 + 1 - 6) // 2
    assert solver.nodes == 0
    assert solver.solve(Connect4.from_setup("156366643422365415735125444215362321717777")) == 0
    with pytest.raises(InvalidSetupError, match="the game is over"):
        solver.solve(Connect4.from_setup("1122334"))


def test_weak_mode_gives_the_sign() -> None:
    solver = Solver()
    for sequence, expected in read_set("middle_easy", 50):
        solver.reset()
        assert solver.solve(Connect4.from_setup(sequence), weak=True) == (expected > 0) - (expected < 0)


def test_table_kept_between_solves_until_reset() -> None:
    solver = Solver()
    sequence, expected = read_set("middle_easy")[2]
    state = Connect4.from_setup(sequence)
    assert solver.solve(state) == expected
    first = solver.nodes
    assert solver.solve(state) == expected and solver.nodes < first
    solver.reset()
    assert solver.solve(state) == expected and solver.nodes == first


@pytest.mark.parametrize(
    ("score", "moves", "engine_score"),
    [
        (18, 6, WIN - 1),  # wins with its next stone: 22 - 3 - 1
        (17, 6, WIN - 3),  # with its second stone
        (-18, 6, -(WIN - 2)),  # the opponent wins with its next stone
        (-17, 7, -(WIN - 2)),
        (0, 20, 0),
        (1, 41, WIN - 1),
    ],
)
def test_pons_scores_in_engine_convention(score: int, moves: int, engine_score: int) -> None:
    assert pons_to_engine(score, moves) == engine_score


@pytest.mark.parametrize("remembered", [1 << 20, 100])
def test_reset_empties_every_slot_written(remembered: int) -> None:
    """Both ways of resetting: the remembered slots only, and the whole table once more were written."""
    state = Connect4.from_setup("24617524315172127")  # Pons' middle_medium: score 2, about 26,000 nodes
    solver = Solver(remembered=remembered)
    assert solver.solve(state) == 2
    first = solver.nodes
    assert bytes(memoryview(solver.table)).count(0) < 16 * TABLE_SIZE  # two slots of 8 bytes a bucket
    solver.reset()
    assert bytes(memoryview(solver.table)).count(0) == 16 * TABLE_SIZE
    assert solver.solve(state) == 2 and solver.nodes == first
