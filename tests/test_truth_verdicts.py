"""The truth column's rule (``engine.truth.judge``): a move is a horizon error only when what the search proved of it
excludes its exact value; a bound that holds the value is consistent; a heuristic score beside a result beyond the
search's depth is "not decided at this depth". Checked case by case, then on real searches of every game with a
truth, where each verdict occurs, and through ``python -m engine analyse --truth``."""

from __future__ import annotations

import json

import pytest

from engine.cli import main
from engine.game import WIN
from engine.games import new_game
from engine.search import make_searcher
from engine.search.info import Limits, SearchInfo, SearchOptions
from engine.truth import Exact, judge, judged, move_values

WIN_IN_2, LOSS_IN_3 = Exact("win", 3), Exact("loss", 6)


@pytest.mark.parametrize(("score", "bound", "exact", "depth", "verdict"), [
    (WIN - 3, "exact", WIN_IN_2, 4, "consistent"),
    (WIN - 3, "upper", WIN_IN_2, 4, "consistent"),  # "≤ win in 2" beside a win in 2
    (WIN - 5, "lower", WIN_IN_2, 6, "consistent"),  # at least a win in 3: a win in 2 is better still
    (-2, "upper", LOSS_IN_3, 2, "consistent"),  # "≤ −2" beside a loss: the bound allows it
    (5, "lower", WIN_IN_2, 2, "consistent"),
    (0, "exact", Exact("draw"), 9, "consistent"),
    (0, "upper", Exact("win"), 4, "undecided"),  # a distance unknown (Nim's theory): beyond any horizon
    (-1, "exact", Exact("draw"), 9, "undecided"),  # an evaluation is no proof of anything
    (-1, "exact", LOSS_IN_3, 5, "undecided"),  # the loss comes at ply 6, beyond a depth of 5
    (3, "upper", WIN_IN_2, 2, "undecided"),
    (-1, "exact", LOSS_IN_3, 6, "error"),  # at depth 6 the search saw every line to the loss, and missed it
    (-2, "lower", LOSS_IN_3, 6, "error"),
    (WIN - 5, "exact", WIN_IN_2, 6, "error"),  # a proven win in 3 where there is a win in 2
    (WIN - 3, "lower", Exact("draw"), 4, "error"),  # a proven win the truth refutes
    (-(WIN - 2), "upper", Exact("win"), 4, "error"),
    (None, None, WIN_IN_2, 4, None),  # no score (MCTS, a book): no verdict
])
def test_each_case_of_the_rule(score, bound, exact, depth, verdict) -> None:
    assert judge(score, bound, exact, depth) == verdict


def final_event(game: str, position: str | None, depth: int) -> SearchInfo:
    state = new_game(game, position)
    *_, final = make_searcher(state, Limits(depth=depth), SearchOptions()).search()
    return final


@pytest.mark.parametrize(("game", "position", "depth", "expected"), [
    # X took an edge; at depth 2 O's moves that lose in 3 are refuted (consistent bounds), the drawn ones are not
    # decided: the search scored them by its evaluation
    ("tictactoe", "2", 2, {"7": "consistent", "9": "consistent", "4": "consistent", "6": "consistent",
                           "5": "undecided", "1": "undecided", "3": "undecided", "8": "undecided"}),
    # 1:2, the only winning move and the search's choice (Nim tries its theory's moves first), wins beyond a depth of
    # 2; the others, searched after it, are refuted to at most its score: consistent with their losses
    ("nim", "3,4,5", 2, {"1:2": "undecided", "1:3": "consistent", "2:1": "consistent", "3:1": "consistent"}),
    ("nim", "3,4,5", 12, {"1:2": "consistent", "1:1": "consistent", "3:5": "consistent"}),  # decided bounds
    ("connect4", "4444", 4, {"4": "undecided", "3": "undecided", "5": "consistent", "1": "consistent"}),
    ("wolves", None, 3, {"c1-b2": "undecided", "c1-d2": "consistent"}),
])
def test_real_searches_are_judged_move_by_move(game: str, position: str | None, depth: int, expected: dict) -> None:
    final = final_event(game, position, depth)
    values = move_values(new_game(game, position))
    assert values is not None
    verdicts = {move: entry["verdict"] for move, entry in judged(values, final.to_dict()["root_moves"], depth).items()}
    assert {move: verdicts[move] for move in expected} == expected
    assert "error" not in verdicts.values()  # this engine's alpha-beta proves nothing false


@pytest.mark.parametrize("game", ["tictactoe", "nim", "connect4"])
def test_no_search_of_the_engine_is_refuted_by_the_truth(game: str) -> None:
    """Every root move of searches at depths 1 to 5 from positions a few plies into the game: never an error."""
    counts: dict[str, int] = {}
    for first in new_game(game).legal_moves()[:4]:
        state = new_game(game).play(first)
        values = move_values(state)
        assert values is not None
        for depth in range(1, 6):
            *_, final = make_searcher(state, Limits(depth=depth), SearchOptions()).search()
            for entry in judged(values, final.to_dict()["root_moves"], depth).values():
                counts[entry["verdict"]] = counts.get(entry["verdict"], 0) + 1
    assert "error" not in counts and counts["consistent"] > 0


def test_the_command_line_prints_the_same_verdicts(capsys) -> None:
    assert main(["analyse", "tictactoe", "--position", "2", "--depth", "2", "--json", "--truth"]) == 0
    final = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert final["truth"]["7"] == {"result": "loss", "plies": 6, "score": -(WIN - 6), "text": "loss in 3",
                                   "verdict": "consistent"}
    assert final["truth"]["5"]["verdict"] == "undecided"
    assert main(["analyse", "tictactoe", "--position", "2", "--depth", "2", "--truth"]) == 0
    assert "truth loss in 3 (consistent)" in capsys.readouterr().out
