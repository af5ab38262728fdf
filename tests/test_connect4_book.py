"""Connect Four's opening book: its values equal the solver's, and with it positions from the empty board are exact.

The tests that solve positions to the end without the book run on the build installed only (marked ``engine``
are those cheap enough to run again interpreted); the equality of both builds with the book is in
tests/test_compiled_build.py."""

from __future__ import annotations

import io
import random
import subprocess
import sys
from pathlib import Path

import pytest

from engine.commands.solve import solve_stream
from engine.games.connect4 import Connect4
from engine.games.connect4_bits import BOARD, BOTTOM, winning_cells
from engine.solve.connect4 import Solver
from engine.solve.connect4_book import BOOK_STONES, OpeningBook, book_to_pons, opening_book, position_code
from engine.solve.connect4_oracle import move_scores

ROOT = Path(__file__).parent.parent


@pytest.fixture(scope="module")
def book() -> OpeningBook:
    loaded = opening_book()
    assert loaded is not None, "bitbully-databases is a dependency: the book must be installed"
    return loaded


def random_positions(count: int, stones: int, seed: int) -> list[Connect4]:
    """``count`` positions reached by random play with ``stones`` stones, none of them finished."""
    rng = random.Random(seed)
    found: list[Connect4] = []
    while len(found) < count:
        state = Connect4.from_setup("")
        for _ in range(stones):
            state = state.play(rng.choice(state.legal_moves()))
            if state.outcome() is not None:
                break
        else:
            found.append(state)
    return found


@pytest.mark.engine
def test_a_documented_position_and_its_mirror_image(book: OpeningBook) -> None:
    """The position of the book's own documentation, where the first player wins in 29 plies (value 71: the
    winner's 21st stone decides, Pons' 1); the book stores one of a position and its mirror image, and both read."""
    state = Connect4.from_setup("422442244666")
    mirrored = Connect4.from_setup("466446644222")
    assert position_code(state.position, state.mask, True) == position_code(mirrored.position, mirrored.mask, False)
    assert book.value(state.position, state.mask) == book.value(mirrored.position, mirrored.mask) == 1
    assert book_to_pons(71) == 1 and book_to_pons(-88) == -10 and book_to_pons(0) == 0 and book_to_pons(97) == 14


def test_book_values_equal_the_solver_and_only_immediate_wins_are_missing(book: OpeningBook) -> None:
    solver = Solver()
    for state in random_positions(16, BOOK_STONES, seed=3):
        value = book.value(state.position, state.mask)
        if value is None:
            assert winning_cells(state.position, state.mask) & ((state.mask + BOTTOM) & BOARD), state.history
            continue
        solver.reset()
        assert value == solver.solve(state), state.history


@pytest.mark.engine
def test_the_empty_board_is_exact_with_the_book(book: OpeningBook) -> None:
    """The empty board's known column values (Pons, "Solving Connect 4")."""
    scores = {column: score for score, column, _ in move_scores(Connect4.from_setup(""), Solver(book=book))}
    assert [scores[column] for column in range(7)] == [-2, -1, 0, 1, 0, -1, -2]


def test_positions_before_the_book_equal_the_solver_without_it(book: OpeningBook) -> None:
    """Positions with 11 stones, searched one ply down to the book, equal the solver searching to the end."""
    solver, plain = Solver(book=book), Solver()
    nodes = [0, 0]
    for state in random_positions(4, BOOK_STONES - 1, seed=11):
        solver.reset()
        plain.reset()
        assert solver.solve(state) == plain.solve(state), state.history
        nodes[0] += solver.nodes
        nodes[1] += plain.nodes
    assert nodes[0] < nodes[1]


def test_a_position_just_past_the_book_starts_from_the_books_floor(book: OpeningBook) -> None:
    """A position with 13 stones scores at least minus the book's score of each 12-stone position it follows from
    (``book_floor``), often exactly that; solved from that floor, its score equals the solver's without the book."""
    solver, plain = Solver(book=book), Solver()
    exact = 0
    for state in random_positions(12, BOOK_STONES + 1, seed=13):
        floor = solver.book_floor(state.position, state.mask)
        solver.reset()
        plain.reset()
        score = plain.solve(state)
        assert solver.solve(state) == score >= floor, state.history
        exact += score == floor
    assert exact > 0


def test_solve_command_uses_the_book_unless_told_not_to() -> None:
    sequence = "111111777777"
    with_book = subprocess.run([sys.executable, "-m", "engine", "solve", "connect4"], input=f"{sequence}\n",
                               capture_output=True, text=True, cwd=ROOT, timeout=120, check=True).stdout.split()
    without = subprocess.run([sys.executable, "-m", "engine", "solve", "connect4", "--no-book"],
                             input=f"{sequence}\n", capture_output=True, text=True, cwd=ROOT, timeout=120,
                             check=True).stdout.split()
    assert with_book[:2] == without[:2] == [sequence, "3"]
    assert int(with_book[2]) < 10 < int(without[2])


@pytest.mark.engine
def test_analyse_from_the_empty_board_with_the_book(book: OpeningBook) -> None:
    out = io.StringIO()
    assert solve_stream(io.StringIO("4\n"), out, Solver(book=book), analyse=True) == 0
    assert out.getvalue().split()[:8] == ["4", "-4", "-2", "-2", "-1", "-2", "-2", "-4"]
