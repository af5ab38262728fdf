"""Evaluation personalities chosen through ``SearchOptions.personality``: the search, level play, the CLI."""

from __future__ import annotations

import json

import pytest

from engine.cli import main
from engine.games import new_game
from engine.player import think
from engine.search import final_event, make_searcher
from engine.search.info import Limits, SearchOptions

# White's king has walked to e2 and a knight stands on e5: king shelter and piece advance both count here.
EXPOSED_KING = "r1bqkb1r/pppp1ppp/2n5/4N3/3nP3/8/PPPPKPPP/RNBQ1B1R w kq - 0 5"


def depth_one_score(personality: str | None) -> int:
    state = new_game("chess", EXPOSED_KING)
    return final_event(make_searcher(state, Limits(depth=1), SearchOptions(personality=personality)).search()).score


def test_the_personality_option_reaches_the_evaluation() -> None:
    balanced, aggressive, solid = (depth_one_score(name) for name in ("balanced", "aggressive", "solid"))
    assert depth_one_score(None) == balanced
    assert aggressive > balanced > solid


def test_level_play_keeps_the_callers_personality() -> None:
    state = new_game("chess", EXPOSED_KING)
    scores = {}
    for name in ("balanced", "aggressive", "solid"):
        final = list(think(state, options=SearchOptions(personality=name), level=1))[-1]
        searched = final.search_best or final.best  # level 1 may play another move on purpose
        scores[name] = next(root.score for root in final.root_moves if root.move == searched)
    assert scores == {name: depth_one_score(name) for name in scores}


@pytest.mark.parametrize(("game", "options", "message"), [
    ("chess", SearchOptions(personality="reckless"), "expected one of balanced, aggressive, solid"),
    ("chess", SearchOptions(personality="solid", algorithm="mcts"), "applies to the alphabeta search"),
    ("tictactoe", SearchOptions(personality="solid"), "tictactoe has no personalities"),
])
def test_a_personality_the_search_cannot_use_is_refused(game: str, options: SearchOptions, message: str) -> None:
    state = new_game(game)
    with pytest.raises(ValueError, match=message):
        make_searcher(state, Limits(depth=1), options)
    with pytest.raises(ValueError, match=message):
        next(think(state, Limits(depth=1), options))


def test_analyse_takes_a_personality(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["analyse", "chess", "--position", EXPOSED_KING, "--depth", "1", "--json"]
    assert main([*argv, "--personality", "aggressive"]) == 0
    final = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert final["score"] == depth_one_score("aggressive")
    assert main([*argv, "--personality", "wild"]) == 2
    assert "unknown personality 'wild'" in capsys.readouterr().err
