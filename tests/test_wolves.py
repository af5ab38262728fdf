"""Wolves & Rabbit: the rules, the notation, the outcomes and their reasons, and clear errors for bad input."""

from __future__ import annotations

import pickle
import random

import pytest

from engine.game import IllegalMoveError, InvalidSetupError, play_moves
from engine.games import game_class, new_game
from engine.games.wolves import SQUARE_BY_NAME, Wolves, escape_distance, rabbit_score

pytestmark = pytest.mark.engine


def texts(state: Wolves) -> list[str]:
    return sorted(state.move_text(m) for m in state.legal_moves())


def test_registry_and_start() -> None:
    assert game_class("wolves") is Wolves
    start = new_game("wolves")
    assert start.setup() == "R:c1 W:b8,d8,f8,h8 r"
    assert start.to_move == 0 and start.players == ("Rabbit", "Wolves")
    assert texts(start) == ["c1-b2", "c1-d2"]
    assert start.outcome() is None


@pytest.mark.parametrize(("square", "moves"), [
    ("a1", ["a1-b2"]), ("e1", ["e1-d2", "e1-f2"]), ("g1", ["g1-f2", "g1-h2"]),
])
def test_rabbit_option(square: str, moves: list[str]) -> None:
    state = Wolves.initial(rabbit=square)
    assert state.setup() == f"R:{square} W:b8,d8,f8,h8 r"
    assert texts(state) == moves


@pytest.mark.parametrize(("options", "message"), [
    ({"rabbit": "b1"}, "the rabbit starts on a1, c1, e1, g1"),
    ({"rabbit": "c3"}, "the rabbit starts on"),
    ({"rabbit": 3}, "the rabbit starts on"),
    ({"wolves": 3}, "unknown Wolves & Rabbit options: wolves"),
])
def test_bad_options(options: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidSetupError, match=message):
        Wolves.initial(**options)


def test_wolves_move_down_only_and_stay_on_the_board() -> None:
    state = Wolves.from_setup("R:c1 W:b8,d8,f8,h8 w")
    assert texts(state) == ["b8-a7", "b8-c7", "d8-c7", "d8-e7", "f8-e7", "f8-g7", "h8-g7"]
    low = Wolves.from_setup("R:e5 W:a1,c1,e1,g1 w")
    assert low.legal_moves() == [] and low.outcome().winner == 0
    assert low.outcome().reason == "the wolves cannot move"


def test_rabbit_moves_both_ways_and_is_blocked_by_wolves() -> None:
    state = Wolves.from_setup("R:d4 W:c5,b8,d8,f8 r")
    assert texts(state) == ["d4-c3", "d4-e3", "d4-e5"]
    edge = Wolves.from_setup("R:h4 W:b8,d8,f8,h8 r")
    assert texts(edge) == ["h4-g3", "h4-g5"]


def test_wolf_cannot_step_onto_the_rabbit() -> None:
    state = Wolves.from_setup("R:c7 W:b8,d8,f8,h8 w")
    assert texts(state) == ["b8-a7", "d8-e7", "f8-e7", "f8-g7", "h8-g7"]


def test_outcomes_with_reasons() -> None:
    reached = Wolves.from_setup("R:c7 W:a1,c1,e1,g1 r").play((SQUARE_BY_NAME["c7"], SQUARE_BY_NAME["d8"]))
    assert reached.outcome().winner == 0 and reached.outcome().reason == "the rabbit reached the top row"
    assert reached.legal_moves() == []
    trapped = Wolves.from_setup("R:a1 W:b2,d8,f8,h8 r")
    assert trapped.outcome().winner == 1 and trapped.outcome().reason == "the rabbit cannot move"
    surrounded = Wolves.from_setup("R:d4 W:c5,e5,c3,e3 r")
    assert surrounded.outcome().winner == 1 and surrounded.legal_moves() == []
    assert Wolves.from_setup("R:d4 W:c5,e5,c3,e3 w").outcome() is None


def test_play_returns_a_new_state_and_keeps_the_last_move() -> None:
    start = Wolves.initial()
    after = start.play(start.parse_move("c1-d2"))
    assert start.setup() == "R:c1 W:b8,d8,f8,h8 r"
    assert after.setup() == "R:d2 W:b8,d8,f8,h8 w"
    assert after.view()["last"] == {"from": "c1", "to": "d2"}
    assert after == Wolves.from_setup(after.setup()) and after.key == Wolves.from_setup(after.setup()).key
    assert pickle.loads(pickle.dumps(after)) == after


@pytest.mark.parametrize(("text", "message"), [
    ("c1-c2", "c2 is a light square"),
    ("c1-e3", "the rabbit moves one square diagonally"),
    ("b8-a7", "the rabbit is to move and stands on c1"),
    ("c1", "not a move; write FROM-TO"),
    ("c1-z9", "is not a square a1-h8"),
])
def test_bad_moves_are_explained(text: str, message: str) -> None:
    with pytest.raises(IllegalMoveError, match=message):
        Wolves.initial().parse_move(text)


def test_bad_wolf_moves_are_explained() -> None:
    state = Wolves.from_setup("R:c7 W:b8,d8,f8,h8 w")
    with pytest.raises(IllegalMoveError, match="a wolf moves one square diagonally downward"):
        state.parse_move("d8-b6")
    with pytest.raises(IllegalMoveError, match="no wolf on b6"):
        state.parse_move("b6-a5")
    with pytest.raises(IllegalMoveError, match="d8-c7: c7 is occupied"):
        state.parse_move("d8-c7")
    with pytest.raises(IllegalMoveError, match="not a move"):
        state.play((31, "g7"))
    over = Wolves.from_setup("R:a1 W:b2,d8,f8,h8 r")
    with pytest.raises(IllegalMoveError, match="the game is over"):
        over.play((0, 5))


@pytest.mark.parametrize(("text", "message"), [
    ("", "expected 'R:<square>"),
    ("R:c1 W:b8,d8,f8 r", "there are 4 wolves, the position lists 3"),
    ("R:c1 W:b8,d8,f8,f8 r", "two wolves on the same square"),
    ("R:b8 W:b8,d8,f8,h8 r", "the rabbit and a wolf are both on b8"),
    ("R:c2 W:b8,d8,f8,h8 r", "rabbit square c2 is a light square"),
    ("R:c1 W:b8,d8,f8,h8 x", "the side to move is 'r'"),
    ("W:b8,d8,f8,h8 R:c1 r", "the position starts with the rabbit"),
])
def test_bad_setups_are_explained(text: str, message: str) -> None:
    with pytest.raises(InvalidSetupError, match=message):
        Wolves.from_setup(text)


def test_setup_round_trip_over_random_games() -> None:
    rng = random.Random(5)
    for _ in range(200):
        state = Wolves.initial(rabbit=rng.choice(["a1", "c1", "e1", "g1"]))
        while state.outcome() is None:
            again = Wolves.from_setup(state.setup())
            assert again == state and again.key == state.key and again.to_move == state.to_move
            state = state.play(rng.choice(state.legal_moves()))
        assert state.outcome().winner in (0, 1)


def test_view_gives_targets_per_piece() -> None:
    view = Wolves.from_setup("R:c7 W:b8,d8,f8,h8 w").view()
    assert view["pieces"] == {"b8": "wolf", "d8": "wolf", "f8": "wolf", "h8": "wolf", "c7": "rabbit"}
    assert view["targets"] == {"b8": ["a7"], "d8": ["e7"], "f8": ["e7", "g7"], "h8": ["g7"]}
    assert view["to_move"] == 1 and view["last"] is None
    assert sorted(view["legal"]) == ["b8-a7", "d8-e7", "f8-e7", "f8-g7", "h8-g7"]


def test_evaluation() -> None:
    assert escape_distance(SQUARE_BY_NAME["c1"], 0) == 7
    assert escape_distance(SQUARE_BY_NAME["a1"], 1 << SQUARE_BY_NAME["b2"]) is None
    start = Wolves.initial()
    assert escape_distance(start.rabbit, start.wolves) is None
    assert start.evaluate() == rabbit_score(start.rabbit, start.wolves) == -1000
    assert start.play(start.legal_moves()[0]).evaluate() == 1000
    free = Wolves.from_setup("R:e5 W:a1,c1,e1,g1 r")
    assert free.evaluate() == -30 + 4 * 20
    ragged = Wolves.from_setup("R:c1 W:b8,d8,f6,h8 r")
    assert ragged.evaluate() == rabbit_score(ragged.rabbit, ragged.wolves, refined=False) + 2 * 10 == -50
    assert play_moves(start, ["c1-d2"]).to_move == 1
