"""A game's end is final: once a game is over, whatever ended it (the rules, a resignation, a flag, an agreed draw, an
abort), no take-back reopens it, against the engine (``POST .../takeback``, the ``takeback`` event) or between two
people (a takeback offer, or accepting one made before the end)."""

from __future__ import annotations

import pytest
from support.helpers import assert_error, connect, create, friend_game, wait_for_end, wait_for_turn

ENGINE_NIM = {"game": "nim", "opponent": {"type": "engine", "level": 1}, "side": 0,
              "options": {"piles": [5, 5, 5], "takeback": True}}


def finished(client, game_id: str) -> dict:
    """The state of ``game_id``, which must be over."""
    state = client.get(f"/api/games/{game_id}").json
    assert state["status"] == "finished", state
    return state


def assert_no_takeback_against_the_engine(app, client, game_id: str, token: str) -> None:
    before = finished(client, game_id)
    assert_error(client.post(f"/api/games/{game_id}/takeback", json={"token": token}), 409, "game_over")
    player = connect(app, token)
    player.emit("takeback", {"game_id": game_id})
    errors = player.take("error")
    assert errors and errors[-1]["code"] == "game_over", errors
    assert client.get(f"/api/games/{game_id}").json == before


def assert_no_takeback_between_people(client, game_id: str, tokens: list[str]) -> None:
    before = finished(client, game_id)
    for token in tokens:
        refused = client.post(f"/api/games/{game_id}/offers", json={"kind": "takeback", "token": token})
        assert_error(refused, 409, "game_over")
    assert client.get(f"/api/games/{game_id}").json == before


def engine_game(client, body: dict = ENGINE_NIM) -> tuple[str, str]:
    created = create(client, body)
    return created["id"], created["token"]


def play(client, game_id: str, token: str, move: str) -> dict:
    answer = client.post(f"/api/games/{game_id}/moves", json={"move": move, "token": token})
    assert answer.status_code == 200, answer.json
    return answer.json


def one_stone(state: dict) -> str:
    """A legal Nim move of ``state`` taking a single stone, whatever the engine did before (the game goes on)."""
    return next(move for move in state["legal_moves"] if move.endswith(":1"))


@pytest.mark.parametrize("ending", ["rules", "resignation", "abort"])
def test_against_the_engine_an_ended_game_cannot_be_taken_back(app, client, ending: str) -> None:
    if ending == "rules":
        game_id, token = engine_game(client, {**ENGINE_NIM, "options": {"piles": [2], "takeback": True}})
        assert play(client, game_id, token, "1:2")["result"]["reason"]
    else:
        game_id, token = engine_game(client)
        if ending == "resignation":
            for _ in range(2):
                play(client, game_id, token, one_stone(wait_for_turn(client, game_id, 0)))
            wait_for_turn(client, game_id, 0)
            assert client.post(f"/api/games/{game_id}/resign", json={"token": token}).status_code == 200
        else:
            assert client.post(f"/api/games/{game_id}/abort", json={"token": token}).status_code == 200
    assert_no_takeback_against_the_engine(app, client, game_id, token)


@pytest.mark.parametrize("ending", ["rules", "resignation", "agreement", "abort"])
def test_between_two_people_an_ended_game_cannot_be_taken_back(app, client, ending: str) -> None:
    game_id, first, second = friend_game(app)
    tokens = [first, second]
    moves = {"rules": "5 1 9 3 7 4 8", "resignation": "5 1 9 3", "agreement": "5 1 9 3", "abort": "5 1"}[ending]
    for ply, move in enumerate(moves.split()):
        play(client, game_id, tokens[ply % 2], move)
    offer = {"kind": "takeback", "token": second}
    if ending != "rules":
        assert client.post(f"/api/games/{game_id}/offers", json=offer).status_code == 200  # asked before the end
    if ending == "resignation":
        assert client.post(f"/api/games/{game_id}/resign", json={"token": first}).status_code == 200
    elif ending == "agreement":
        for token in (first, second):
            assert client.post(f"/api/games/{game_id}/offers", json={"kind": "draw", "token": token}).status_code == 200
    elif ending == "abort":
        assert client.post(f"/api/games/{game_id}/abort", json={"token": first}).status_code == 200
    assert_no_takeback_between_people(client, game_id, tokens)


def test_a_flag_fall_is_final_against_the_engine_and_between_two_people(app, client, clock) -> None:
    """Two games whose player on move lets a 15-second clock run out, side by side."""
    fifteen_seconds = {"minutes": 0.25, "increment": 0}
    # 15 counters: 4 plies cannot end it
    engine_id, token = engine_game(client, {**ENGINE_NIM, "clock": fifteen_seconds})
    for _ in range(2):  # the clocks run from each side's first move
        play(client, engine_id, token, one_stone(wait_for_turn(client, engine_id, 0)))
    friends_id, first, second = friend_game(app)
    client.post(f"/api/games/{friends_id}/abort", json={"token": first})  # that one is over: make another with a clock
    created = create(client, {"game": "tictactoe", "opponent": {"type": "friend"}, "side": 0, "clock": fifteen_seconds},
                     alone=False)
    friends_id, first = created["id"], created["token"]
    second = app.test_client().post(f"/api/games/{friends_id}/seats",
                                    json={"invite": created["invite"]}).json["token"]
    for ply, move in enumerate(["5", "1", "9"]):
        play(client, friends_id, [first, second][ply % 2], move)
    clock.advance(15.5)  # past both 15-second clocks
    assert wait_for_end(client, engine_id)["result"]["reason"] == "time out"
    assert wait_for_end(client, friends_id)["result"]["reason"] == "time out"
    assert_no_takeback_against_the_engine(app, client, engine_id, token)
    assert_no_takeback_between_people(client, friends_id, [first, second])
