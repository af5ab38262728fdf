"""Difficulty levels as data, and ``think``: oracles first, then search, then the level's random margin."""

from __future__ import annotations

import random

import pytest

from engine.game import WIN
from engine.games import game_names
from engine.games.nim import Nim
from engine.games.tictactoe import TicTacToe
from engine.levels import LEVELS, Level, game_levels, level_for
from engine.oracles import consult
from engine.player import candidate_moves, think, think_at_level
from engine.search import analyse, final_event
from engine.search.info import Limits, RootMove, SearchOptions

pytestmark = pytest.mark.engine


@pytest.mark.parametrize("game", ["tictactoe", "nim", "connect4", "wolves", "chess"])
def test_every_game_has_eight_levels_and_level_eight_plays_its_best(game: str) -> None:
    levels = game_levels(game)
    assert [level.number for level in levels] == list(LEVELS)
    assert all(isinstance(level, Level) and level.margin >= 0 for level in levels)
    assert levels[-1].margin == 0
    margins = [level.margin for level in levels]
    assert margins == sorted(margins, reverse=True)


def test_registry_games_all_have_levels() -> None:
    for game in game_names():
        assert level_for(game, 8).number == 8


@pytest.mark.parametrize(("game", "number", "message"), [
    ("checkers", 3, "no levels for game 'checkers'"), ("nim", 0, "from 1 to 8"), ("nim", 9, "from 1 to 8"),
    ("nim", "3", "from 1 to 8"), ("nim", True, "from 1 to 8")])
def test_bad_levels_raise_value_error(game: str, number: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        level_for(game, number)


def test_candidates_keep_near_best_exact_scores_and_never_a_needless_loss() -> None:
    roots = [RootMove("a", 10, bound="exact"), RootMove("b", 8, bound="exact"), RootMove("c", 4, bound="exact"),
             RootMove("d", 9, bound="upper"), RootMove("e", None)]
    assert candidate_moves(roots, 0) == ["a"]
    assert candidate_moves(roots, 2) == ["a", "b"]
    losing = [RootMove("draw", 0, bound="exact"), RootMove("lost", -(WIN - 3), bound="exact")]
    assert candidate_moves(losing, 2 * WIN) == ["draw"]
    winning = [RootMove("mate", WIN - 1, bound="exact"), RootMove("slower", WIN - 5, bound="exact"),
               RootMove("quiet", 5, bound="exact")]
    assert candidate_moves(winning, 2 * WIN) == ["mate", "slower"]


def test_think_with_no_margin_plays_the_search_best_move() -> None:
    state = TicTacToe.from_setup("1")
    final = final_event(think(state, Limits(), SearchOptions()))
    assert final.best == analyse(state).best == "5"


def test_think_with_a_margin_is_random_among_candidates_and_reproducible_with_a_seed() -> None:
    state = TicTacToe()
    options = SearchOptions(root_margin=0)
    picks = [final_event(think(state, Limits(depth=1), options, margin=3, rng=random.Random(seed))).best
             for seed in range(12)]
    again = [final_event(think(state, Limits(depth=1), options, margin=3, rng=random.Random(seed))).best
             for seed in range(12)]
    assert picks == again and len(set(picks)) > 1
    final = final_event(think(state, Limits(depth=1), options, margin=3, rng=random.Random(0)))
    assert set(picks) <= set(candidate_moves(final.root_moves, 3))


def test_level_eight_never_loses_at_tictactoe() -> None:
    rng = random.Random(3)
    for engine_side in (0, 1):
        state = TicTacToe()
        while state.outcome() is None:
            if state.to_move == engine_side:
                move = final_event(think_at_level(state, 8, rng=rng)).best
            else:
                move = state.move_text(rng.choice(state.legal_moves()))
            state = state.play(state.parse_move(move))
        assert state.outcome().winner in (None, engine_side)


@pytest.mark.parametrize("number", LEVELS)
def test_every_tictactoe_level_answers_a_legal_move(number: int) -> None:
    state = TicTacToe.from_setup("15")
    final = final_event(think_at_level(state, number, rng=random.Random(number)))
    assert state.parse_move(final.best) in state.legal_moves()


def test_think_rejects_a_negative_margin() -> None:
    with pytest.raises(ValueError, match="margin must be"):
        final_event(think(TicTacToe(), margin=-1))


def test_games_without_an_oracle_are_searched() -> None:
    state = Nim.from_setup("3,4,5")
    assert list(consult(state, 8)) == []
    assert final_event(think_at_level(state, 8)).source == "search"


def test_a_level_that_plays_a_weaker_move_on_purpose_describes_the_move_it_plays():
    """Connect Four level 4 draws among moves within 2 points of the best: when it plays another than the search's
    best, the final event says so (``search_best``) and gives the played move's own exact score and a line."""
    import random

    from engine.games import new_game
    from engine.player import think

    state = new_game("connect4")
    chosen_elsewhere = 0
    for seed in range(40):
        final = list(think(state, rng=random.Random(seed), level=4))[-1]
        scores = {root.move: root.score for root in final.root_moves}
        if final.search_best is None:
            assert final.score == max(scores[move] for move in scores if scores[move] is not None)
            continue
        chosen_elsewhere += 1
        assert final.best != final.search_best and final.pv[0] == final.best and len(final.pv) >= 2
        assert final.score == scores[final.best] and final.score_text == f"{final.score:+d}"
        assert scores[final.search_best] - 2 <= final.score <= scores[final.search_best]
    assert chosen_elsewhere > 0, "level 4 never played another move than its search's best in 40 games"
