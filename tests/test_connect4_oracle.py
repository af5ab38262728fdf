"""The Connect Four oracle: exact endgame play through ``engine.player``."""

from __future__ import annotations

import pytest
from support.clocks import TickingClock

from engine.clock import Deadline
from engine.game import WIN
from engine.games.connect4 import Connect4
from engine.oracles import consult
from engine.player import think_at_level
from engine.search.info import SearchInfo
from engine.solve.connect4 import Solver, SolveTimeout, pons_to_engine
from engine.solve.connect4_book import opening_book
from engine.solve.connect4_oracle import ATTEMPT_LEVEL, SOLVER_EMPTY, SOLVER_LEVEL, connect4_answers, scored_moves

pytestmark = pytest.mark.engine

def answer(state: Connect4, level: int | None, **options: object) -> SearchInfo | None:
    """The solver's final event on ``state`` at ``level`` (after its progress events), or None when it has none."""
    events = list(connect4_answers(state, level, **options))  # type: ignore[arg-type]
    return events[-1] if events and events[-1].final else None


WON_IN_SIX = "5554224333234511764415115"
"""Pons' middle_easy line 1: the side to move wins with its 6th stone (Pons score 4)."""


def test_oracle_plays_the_exact_win_with_every_move_scored() -> None:
    state = Connect4.from_setup(WON_IN_SIX)
    events = list(consult(state, 8))
    info = events[-1]
    assert info.final and info.source == "solver"
    assert info.score == WIN - 11 and info.score_text == "win in 6"
    assert info.best == "6" and info.pv[0] == "6" and len(info.pv) == 11
    assert {root.move for root in info.root_moves} == {state.move_text(m) for m in state.legal_moves()}
    assert all(root.bound == "exact" for root in info.root_moves)
    assert info.root_moves[0].score == info.score
    line = state
    for text in info.pv:
        line = line.play(line.parse_move(text))
    outcome = line.outcome()
    assert outcome is not None and outcome.winner == state.to_move


def test_oracle_declines_early_positions_below_the_top_level_low_levels_and_finished_games() -> None:
    middle = Connect4.from_setup("1234567" * 2)
    assert 42 - middle.moves > SOLVER_EMPTY and answer(middle, ATTEMPT_LEVEL - 1) is None
    assert answer(Connect4.from_setup(WON_IN_SIX), SOLVER_LEVEL - 1) is None
    assert answer(Connect4.from_setup("1122334"), 8) is None
    end = Connect4.from_setup("2252576253462244111563365343671351441")
    assert answer(end, None) is None, "a custom search (no level) always searches"


def test_oracle_scores_losses_by_their_length() -> None:
    state = Connect4.from_setup("2252576253462244111563365343671351441")  # Pons' end_easy line 1: score -1
    info = answer(state, 8)
    assert info is not None
    # Pons -1 with 37 stones played: the opponent (19 stones so far) wins with its 21st stone, 4 plies from now.
    assert info.score == -(WIN - 4) and info.score_text == "loss in 2" and len(info.pv) == 4


def test_attempt_gives_up_in_time_and_solver_deadline_raises() -> None:
    state = Connect4.from_setup("44")  # without the book, far too many nodes to look at the clock only once
    solver = Solver()
    with pytest.raises(SolveTimeout):
        solver.solve(state, deadline=Deadline(0.0, clock=lambda: 1.0))  # passed at the first look
    assert solver.nodes == 8192  # it looks at the deadline every 8,192 nodes
    # On a clock 10 s further at each look, the top level's attempt (ATTEMPT_SECONDS) is over at its first look.
    assert answer(Connect4.initial(), ATTEMPT_LEVEL, clock=TickingClock(10.0)) is None


def test_attempt_solves_a_middle_game_position_at_the_top_level() -> None:
    # Pons' begin_easy: 14 stones played (28 empty), the side to move wins with score 10 (about 130 nodes).
    state = Connect4.from_setup("13116246361136")
    info = answer(state, ATTEMPT_LEVEL)
    assert info is not None and info.source == "solver"
    assert info.score == pons_to_engine(10, state.moves) and info.score_text == "win in 5"
    assert answer(state, ATTEMPT_LEVEL - 1) is None  # 28 empty cells: only the top level tries


def test_the_top_level_is_perfect_from_the_first_move() -> None:
    """From the empty board the top level plays the centre, the only winning move, with every column's exact
    score (Pons' -2 -1 0 1 0 -1 -2, turned into plies to the end), down the opening book."""
    state = Connect4.from_setup("")
    # all the time the proof takes (the interpreted engine on a loaded machine can need more than the attempt's)
    info = answer(state, ATTEMPT_LEVEL, attempt_seconds=None)
    assert info is not None and info.source == "solver" and info.best == "4"
    scores = {root.move: root.score for root in info.root_moves}
    assert scores == {str(column + 1): pons_to_engine(pons, 0) for column, pons in enumerate((-2, -1, 0, 1, 0, -1, -2))}
    assert info.score == pons_to_engine(1, 0) and info.score_text == "win in 21"
    assert info.book_hits > 0  # its proof went down to 12 stones, where the book answers
    assert answer(Connect4.from_setup(WON_IN_SIX), 8).book_hits == 0  # type: ignore[union-attr]  # past the book
    early = Connect4.from_setup("12345671")
    assert answer(early, ATTEMPT_LEVEL, attempt_seconds=None) is not None
    assert answer(early, SOLVER_LEVEL) is None


def test_player_plays_the_solver_move_at_the_top_level() -> None:
    *_, final = think_at_level(Connect4.from_setup(WON_IN_SIX), 8)
    assert final.final and final.source == "solver" and final.best == "6"


def test_the_solver_shows_each_move_as_it_is_proven() -> None:
    """A progress event after each proven move but the last: the proven ones exact, the rest not scored yet, the
    nodes growing; then the final with every move exact."""
    state = Connect4.from_setup(WON_IN_SIX)
    events = list(consult(state, 8))
    legal = len(state.legal_moves())
    progress, final = events[:-1], events[-1]
    assert len(progress) == legal - 1
    for count, event in enumerate(progress, 1):
        assert event.kind == "progress" and not event.final and event.source == "solver" and event.best is None
        assert sum(root.bound == "exact" for root in event.root_moves) == count
        assert sum(root.score is None for root in event.root_moves) == legal - count
    assert [event.nodes for event in progress] == sorted(event.nodes for event in progress)
    assert final.nodes >= progress[-1].nodes
    exact = {root.move: root.score for root in final.root_moves}
    for event in progress:
        assert all(exact[root.move] == root.score for root in event.root_moves if root.score is not None)


@pytest.mark.parametrize("moves", ["", "44", "4444"])
def test_a_symmetric_position_solves_one_move_of_each_mirrored_pair(moves: str) -> None:
    """On a board that is its own mirror image, column 7's score is column 1's, and so on: the second of each pair
    is not searched, and every score equals a solve of that move alone."""
    state = Connect4.from_setup(moves)
    scored = {move: (score, nodes) for score, move, nodes in scored_moves(state, Solver(book=opening_book()))}
    assert all(scored[move][0] == scored[6 - move][0] for move in scored)
    assert [move for move in scored if scored[move][1] == 0] == [4, 5, 6]  # searched: 3, then 2 (4 mirrored), ...
    plain = Solver(book=opening_book())
    for move, (score, _) in scored.items():
        plain.reset()
        assert score == -plain.solve(state.play(move))
