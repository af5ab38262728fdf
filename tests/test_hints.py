"""Hints: a game created with them gets, after every change, every legal move's value for the side to move, worked
out on the engine workers and sent to its room; exact where the truth is known, else a search scoring every move."""

from __future__ import annotations

import time

from test_api import assert_error, create, friend_game
from test_events import connect, named

from engine.games import new_game
from engine.hints import move_hints
from webapp.hints import job_key as hints_job_key

WAIT = 30.0


def hints_heard(watcher, ply: int) -> dict:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        for hints in named(watcher, "hints"):
            if hints["ply"] == ply:
                return hints
        time.sleep(0.05)
    raise AssertionError(f"no hints for ply {ply} within {WAIT} s")


def test_every_move_gets_its_exact_value_after_every_move(app, client):
    created = create(client, {"game": "tictactoe", "opponent": {"type": "friend", "open": True}, "side": 0,
                              "options": {"hints": True}})
    game_id = created["id"]
    assert client.get(f"/api/games/{game_id}").json["options"]["hints"] is True
    watcher = connect(app)
    watcher.emit("join", {"game_id": game_id})  # the latest hints come with the join, or once worked out
    first = hints_heard(watcher, 0)
    assert first["how"] == "exact" and first["seat"] == 0 and len(first["moves"]) == 9
    assert all(hint["value"] == "draw" for hint in first["moves"].values())
    client.post(f"/api/games/{game_id}/moves", json={"move": "5"})
    after = hints_heard(watcher, 1)
    expected = move_hints(new_game("tictactoe", "5"))["moves"]
    assert after["moves"] == expected and after["moves"]["2"]["value"] == "loss in 3"
    late = connect(app)
    late.emit("join", {"game_id": game_id})  # somebody joining now gets the latest hints at once
    assert [hints["ply"] for hints in named(late, "hints")] == [1]


def test_a_search_scores_every_move_where_no_truth_is_known():
    hints = move_hints(new_game("connect4"))
    assert hints["how"] == "search" and hints["depth"] >= 1 and sorted(hints["moves"]) == list("1234567")
    assert all(isinstance(hint["score"], int) for hint in hints["moves"].values())
    chess = move_hints(new_game("chess"))
    assert len(chess["moves"]) == 20 and chess["moves"]["g1f3"]["shown"] == "Nf3"


def test_hints_are_off_unless_asked_and_checked(app, client):
    game_id = create(client)["id"]
    assert client.get(f"/api/games/{game_id}").json["options"]["hints"] is False
    client.post(f"/api/games/{game_id}/moves", json={"move": "5"})
    assert app.extensions["arena"].runner.state_of(hints_job_key(game_id)) == "idle"  # nothing was asked of the workers
    answer = client.post("/api/games", json={"game": "nim", "opponent": {"type": "friend"}, "options": {"hints": 1}})
    assert_error(answer, 400, "bad_game")


def test_hints_come_on_later_when_both_people_ask(app, client):
    game_id, first, second = friend_game(app)
    asked = client.post(f"/api/games/{game_id}/hints", json={"on": True, "token": first}).json
    assert asked["options"]["hints"] is False and asked["options"]["hints_asked_by"] == 0
    again = client.post(f"/api/games/{game_id}/hints", json={"on": True, "token": first}).json
    assert again["version"] == asked["version"]  # asking twice changes nothing
    agreed = client.post(f"/api/games/{game_id}/hints", json={"on": True, "token": second}).json
    assert agreed["options"]["hints"] is True and agreed["options"]["hints_asked_by"] is None
    off = client.post(f"/api/games/{game_id}/hints", json={"on": False, "token": second}).json
    assert off["options"]["hints"] is False
    assert_error(app.test_client().post(f"/api/games/{game_id}/hints", json={"on": True}), 403, "bad_token")
    assert_error(client.post(f"/api/games/{game_id}/hints", json={"on": "yes", "token": first}), 400, "bad_request")


def test_against_the_engine_the_player_turns_hints_on_alone(app, client):
    created = create(client, {"game": "nim", "options": {"piles": [3, 4, 5]}, "side": 0,
                              "opponent": {"type": "engine", "level": 1}})
    watcher = connect(app)
    watcher.emit("join", {"game_id": created["id"]})
    state = client.post(f"/api/games/{created['id']}/hints", json={"on": True}).json
    assert state["options"]["hints"] is True
    assert hints_heard(watcher, 0)["how"] == "exact"
