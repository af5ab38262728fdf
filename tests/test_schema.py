"""Requests checked against the API description (webapp/schema.py): each kind of fault gets its error code and a
message naming the field and what it expects; the limits are the description's; it ships with the package."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from engine.levels import LEVELS
from engine.search.base import ALGORITHMS
from webapp import schema
from webapp.arena import lab
from webapp.errors import ArenaError, ErrorCode
from webapp.validation import GAME_ID, check_body, check_event, check_new_game

ROOT = Path(__file__).resolve().parent.parent
FRIEND = {"type": "friend"}


def refusal(body: object) -> tuple[str, str]:
    with pytest.raises(ArenaError) as caught:
        check_new_game(body)
    return caught.value.code, caught.value.message


@pytest.mark.parametrize(("body", "code", "message"), [
    ({"game": "nim"}, "bad_request", "missing field 'opponent'"),
    ({"game": "nim", "opponent": FRIEND, "colour": "red"}, "bad_request", "unknown field(s): colour"),
    ({"game": "nim", "opponent": {"type": "friend", "x": 1}}, "bad_opponent", "opponent: unknown field(s): x"),
    ({"game": 5, "opponent": FRIEND}, "bad_game", "game must be a string of 1 to 32 characters, not 5"),
    ({"game": "nim", "opponent": {"type": "engine", "level": 9}}, "bad_opponent",
     "opponent.level must be a whole number from 1 to 8, not 9"),
    ({"game": "nim", "opponent": {"type": "engine", "depth": 65}}, "bad_opponent",
     "opponent.depth must be a whole number from 1 to 64 or null, not 65"),
    ({"game": "nim", "opponent": {"type": "engine", "depth": 2, "algorithm": "magic"}}, "bad_opponent",
     'opponent.algorithm must be one of "alphabeta", "minimax", "mcts", not "magic"'),
    ({"game": "nim", "opponent": {"type": "god"}}, "bad_opponent",
     'opponent.type must be one of "engine", "friend", "engines"'),
    ({"game": "nim", "opponent": {"type": "engine"}}, "bad_opponent", "opponent must be an engine of a level"),
    ({"game": "nim", "opponent": FRIEND, "side": 2}, "bad_opponent", 'side must be one of 0, 1 or "random", not 2'),
    ({"game": "nim", "opponent": {"type": "engines", "levels": [1, 9]}}, "bad_opponent",
     "opponent.levels[1] must be a whole number from 1 to 8"),
    ({"game": "nim", "opponent": {"type": "engine", "level": 1, "personality": 3}}, "bad_opponent",
     'opponent.personality must be the name of a style, e.g. "aggressive" or null, not 3'),
    ({"game": "nim", "options": {"piles": [1] * 17}, "opponent": FRIEND}, "bad_game",
     "options.piles must be a list of at most 16 items, each a whole number"),
    ({"game": "nim", "options": {"bad name": 1}, "opponent": FRIEND}, "bad_game",
     'options: the field name "bad name" must be a string matching'),
    ({"game": "nim", "opponent": FRIEND, "clock": {"minutes": 0, "increment": 0}}, "bad_game",
     "clock.minutes must be a number from 0.25 to 180, not 0"),
    ({"game": "nim", "opponent": FRIEND, "setup": "x" * 9000}, "bad_game",
     "setup must be a string of at most 8000 characters, not \"xxx"),
])
def test_each_kind_of_fault_names_the_field_and_what_it_expects(body, code, message):
    assert refusal(body)[0] == code
    assert refusal(body)[1].startswith(message)


@pytest.mark.parametrize(("opponent", "extra", "message"), [
    ({"type": "engine", "depth": 2, "algorithm": "mcts", "personality": "solid"}, {}, "needs the alphabeta"),
    ({"type": "engines", "levels": [1, 2]}, {"clock": {"minutes": 1, "increment": 0}}, "clocks are for games"),
    ({"type": "engine", "level": 2, "personality": "solid"}, {}, "nim has no engine personalities"),
])
def test_what_a_schema_cannot_say_is_checked_after_it(opponent, extra, message):
    code, text = refusal({"game": "nim", "opponent": opponent, **extra})
    assert message in text and code in ("bad_opponent", "bad_game")


def test_a_checked_new_game_is_normalised():
    request = check_new_game({"game": "nim", "options": {"piles": [3, 4], "hints": True},
                              "opponent": {"type": "engine", "depth": 3.0}, "clock": {"minutes": 3, "increment": 2}})
    assert request.game_options == {"piles": [3, 4]} and request.takeback is True and request.hints is True
    assert request.engines[1] == {"depth": 3, "time": None, "algorithm": "alphabeta"}
    assert isinstance(request.engines[1]["depth"], int) and request.clock.increment_ms == 2000


def test_bodies_are_checked_by_operation():
    assert check_body("playMove", {"move": "5"}) == {"move": "5"}
    for operation, body, message in [("playMove", {"move": "x" * 17}, "move must be a string of 1 to 16 characters"),
                                     ("startReview", {"depth": 3}, "the payload must be an empty object"),
                                     ("setHints", {"on": "yes"}, "on must be true or false")]:
        with pytest.raises(ArenaError, match=message) as caught:
            check_body(operation, body)
        assert caught.value.code == "bad_request"
    with pytest.raises(KeyError):
        schema.request_body("noSuchOperation")


def test_every_json_request_body_of_the_description_compiles():
    operations = [operation["operationId"] for item in schema.DOCUMENT["paths"].values()
                  for operation in item.values() if isinstance(operation, dict) and "requestBody" in operation]
    assert len(operations) >= 15
    for operation_id in operations:
        with pytest.raises(ArenaError):
            check_body(operation_id, [])


@pytest.mark.parametrize(("payload", "message"), [
    ({"game_id": "a b", "move": "5"}, "game_id must be a string matching"),
    ({"game_id": "abc", "move": ""}, "move must be a string of 1 to 16 characters"),
    ({"game_id": "abc", "move": "5", "more": 1}, "unknown field(s): more"),
    ({"move": "5"}, "missing field 'game_id'"),
    ({"game_id": "abc", "move": "x" * 5000}, "at most 4096 are accepted"),
])
def test_socketio_payloads_are_checked(payload, message):
    with pytest.raises(ArenaError, match=message.replace("(", r"\(").replace(")", r"\)")) as caught:
        check_event(payload, ("game_id", "move"))
    assert caught.value.code == "bad_request"


def test_deeply_nested_data_is_refused():
    deep: object = "5"
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(ArenaError, match="nested too deeply"):
        check_body("playMove", {"move": deep})


def test_lab_payloads_are_checked_against_the_description():
    good = {"game": "tictactoe", "setup": "", "moves": ["5"], "configs": [{"preset": "mcts", "playouts": 10.0}]}
    state, [config] = lab.parse_run(good)
    assert "5" not in state.legal_moves() and config.limits.nodes == 10 and isinstance(config.limits.nodes, int)
    for bad, code, message in [({**good, "game": 5}, "bad_game", "game must be a string"),
                               ({**good, "configs": [{"preset": "tt", "time": 31}]}, "bad_request",
                                "configs[0].time must be a number from 0.05 to 30 or null, not 31"),
                               ({**good, "moves": "5"}, "bad_request", "moves must be a list of at most 100 items")]:
        with pytest.raises(ArenaError, match=message.replace("[", r"\[").replace("]", r"\]")) as caught:
            lab.parse_run(bad)
        assert caught.value.code == code


def test_the_limits_are_the_descriptions_and_agree_with_the_engine():
    components = schema.DOCUMENT["components"]["schemas"]
    level = components["Level"]
    assert range(level["minimum"], level["maximum"] + 1) == LEVELS
    assert tuple(components["Algorithm"]["enum"]) == ALGORITHMS
    assert GAME_ID.pattern == components["GameId"]["pattern"]
    assert components["LabStart"]["properties"]["configs"]["maxItems"] == lab.MAX_CONFIGS


def test_the_description_is_one_file_shipped_in_the_package():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "openapi.yaml" in config["tool"]["setuptools"]["package-data"]["webapp"]
    shipped, documented = ROOT / "webapp" / "openapi.yaml", ROOT / "docs" / "openapi.yaml"
    assert shipped.is_file() and documented.is_symlink() and documented.resolve() == shipped.resolve()
    dependencies = config["project"]["dependencies"]
    assert any(name.startswith("jsonschema-rs==") for name in dependencies)
    assert any(name.startswith("pyyaml==") for name in dependencies)


def test_null_stands_for_absent_where_it_always_did():
    engine = {"type": "engine", "level": 3, "personality": None}
    request = check_new_game({"game": "chess", "opponent": engine, "options": None})
    assert request.engines == (None, {"level": 3}) and request.takeback and request.game_options == {}
    request = check_new_game({"game": "nim", "opponent": FRIEND, "options": {"takeback": None, "piles": [3]}})
    assert not request.takeback and request.game_options == {"piles": [3]}
    assert check_body("playMove", {"move": "5", "token": None}) == {"move": "5", "token": None}
    direct = {"stop_code": "x", "paused": None, "pace": None}
    assert check_body("directEngines", direct) == direct


def test_the_error_codes_are_those_the_description_lists():
    assert set(schema.component("Error")["properties"]["error"]["enum"]) == set(ErrorCode)
