"""The JSON API through Flask's test client: creating, reading and playing games, seats, and every error status."""

from __future__ import annotations

import pytest
from support.helpers import FRIEND, assert_error, create, friend_game
from support.waiting import eventually


def test_create_answers_id_url_seat_token_and_sets_the_seat_cookie(client):
    response = client.post("/api/games", json={**FRIEND, "side": 1})
    assert response.status_code == 201
    body = response.json
    assert set(body) == {"id", "url", "seat", "token", "invite", "invite_url", "stop_code"}
    assert body["url"] == f"/g/{body['id']}" and body["seat"] == 1 and body["stop_code"] is None
    assert body["invite_url"] == f"/g/{body['id']}?invite={body['invite']}"
    [cookie] = response.headers.getlist("Set-Cookie")
    assert cookie.startswith("arena_player=") and "HttpOnly" in cookie and "SameSite=Lax" in cookie


def test_state_has_the_documented_fields_and_never_shows_tokens(client):
    created = create(client, {"game": "nim", "options": {"piles": [2, 3]}, "opponent": {"type": "friend"}})
    state = client.get(f"/api/games/{created['id']}").json
    for key in ("id", "game", "setup", "moves", "status", "result", "to_move", "seats", "legal_moves", "view",
                "evals", "history", "watchers", "opponent", "options", "search_state", "you"):
        assert key in state
    assert state["game"] == "nim" and state["setup"] == "2,3" and state["moves"] == []
    assert state["you"] == 0 and state["status"] == "active" and state["to_move"] == 0
    assert state["seats"][0]["taken"] and not state["seats"][1]["taken"]
    assert created["token"] not in str(state)
    assert "2:3" in state["legal_moves"]


def test_moves_over_http_then_positions_and_the_live_list(app, client):
    game_id, first, second = friend_game(app)
    assert client.post(f"/api/games/{game_id}/moves", json={"move": "5", "token": first}).json["moves"] == ["5"]
    state = client.post(f"/api/games/{game_id}/moves", json={"move": "1", "token": second}).json
    assert state["moves"] == ["5", "1"] and state["to_move"] == 0 and state["you"] == 1
    position = client.get(f"/api/games/{game_id}/positions/1").json
    assert position["setup"] == "5" and position["move"] == "5" and position["by"] == 0
    assert client.get(f"/api/games/{game_id}/positions/0").json["move"] is None
    listed = client.get("/api/games").json["games"]
    assert [g["id"] for g in listed] == [game_id] and listed[0]["ply"] == 2 and not listed[0]["free_seat"]


def test_the_seat_cookie_is_enough_to_move(client):
    created = create(client)
    assert client.post(f"/api/games/{created['id']}/moves", json={"move": "5"}).status_code == 200


def test_taking_a_seat_is_idempotent_for_its_holder_and_the_last_seat_goes_once(app, client):
    created = create(client)
    visitor = app.test_client()
    invite = {"invite": created["invite"]}
    first = visitor.post(f"/api/games/{created['id']}/seats", json=invite).json
    assert visitor.post(f"/api/games/{created['id']}/seats", json={}).json == first
    assert_error(app.test_client().post(f"/api/games/{created['id']}/seats", json=invite), 409, "no_free_seat")
    restored = app.test_client().post(f"/api/games/{created['id']}/seats", json={"token": first["token"]})
    assert restored.json["seat"] == 1


@pytest.mark.parametrize(("body", "code"), [
    ({"game": "go", "opponent": {"type": "friend"}}, "bad_game"),
    ({"game": 5, "opponent": {"type": "friend"}}, "bad_game"),
    ({"game": "nim", "options": {"piles": "many"}, "opponent": {"type": "friend"}}, "bad_game"),
    ({"game": "nim", "options": {"colour": 3}, "opponent": {"type": "friend"}}, "bad_game"),
    ({"game": "nim", "options": {"piles": [1] * 40}, "opponent": {"type": "friend"}}, "bad_game"),
    ({"game": "tictactoe", "setup": "55", "opponent": {"type": "friend"}}, "bad_game"),
    ({"game": "tictactoe", "setup": "14253", "opponent": {"type": "friend"}}, "bad_game"),
    ({"game": "tictactoe", "options": {"takeback": "yes"}, "opponent": {"type": "friend"}}, "bad_game"),
    ({"game": "tictactoe", "opponent": {"type": "god"}}, "bad_opponent"),
    ({"game": "tictactoe", "opponent": {"type": "engine"}}, "bad_opponent"),
    ({"game": "tictactoe", "opponent": {"type": "engine", "level": 9}}, "bad_opponent"),
    ({"game": "tictactoe", "opponent": {"type": "engine", "level": True}}, "bad_opponent"),
    ({"game": "tictactoe", "opponent": {"type": "engine", "depth": 0}}, "bad_opponent"),
    ({"game": "tictactoe", "opponent": {"type": "engine", "time": 3600}}, "bad_opponent"),
    ({"game": "tictactoe", "opponent": {"type": "engine", "depth": 3, "algorithm": "magic"}}, "bad_opponent"),
    ({"game": "tictactoe", "opponent": {"type": "engines", "levels": [1]}}, "bad_opponent"),
    ({"game": "tictactoe", "opponent": {"type": "friend"}, "side": 2}, "bad_opponent"),
    ({"game": "tictactoe", "opponent": {"type": "friend"}, "side": True}, "bad_opponent"),
    ({"game": "tictactoe"}, "bad_request"),
    ({"game": "tictactoe", "opponent": {"type": "friend"}, "colour": "red"}, "bad_request"),
    ([1, 2], "bad_request"),
])
def test_bad_create_bodies_are_400_and_create_nothing(client, body, code):
    assert_error(client.post("/api/games", json=body), 400, code)
    assert client.get("/api/games").json["games"] == []


def test_a_json_body_that_is_not_an_object_is_400(client):
    response = client.post("/api/games", data="game=nim", content_type="application/json")
    assert_error(response, 400, "bad_request")


def test_a_body_over_16_kb_is_413(client):
    body = {"game": "tictactoe", "opponent": {"type": "friend"}, "setup": "x" * 20_000}
    assert_error(client.post("/api/games", json=body), 413, "too_large")


def test_unknown_games_and_plies_are_404(app, client):
    assert_error(client.get("/api/games/nope1234"), 404, "not_found")
    assert_error(client.get("/api/games/bad!id"), 404, "not_found")
    assert_error(client.post("/api/games/nope1234/moves", json={"move": "5", "token": "x"}), 404, "not_found")
    assert_error(client.post("/api/games/nope1234/seats", json={}), 404, "not_found")
    game_id, _, _ = friend_game(app)
    assert_error(client.get(f"/api/games/{game_id}/positions/1"), 404, "not_found")


def test_move_errors_change_nothing(app, client):
    game_id, first, second = friend_game(app)
    other = create(app.test_client())
    cases = [
        ({"move": "5"}, 403, "bad_token"),  # no token, no cookie
        ({"move": "5", "token": "forged.token"}, 403, "bad_token"),
        ({"move": "5", "token": other["token"]}, 403, "bad_token"),  # a token of another game
        ({"move": "5", "token": second}, 409, "not_your_turn"),
        ({"move": "0", "token": first}, 400, "illegal_move"),
        ({"move": "x" * 17, "token": first}, 400, "bad_request"),
        ({"move": 5, "token": first}, 400, "bad_request"),
        ({"token": first}, 400, "bad_request"),
    ]
    for body, status, code in cases:
        assert_error(client.post(f"/api/games/{game_id}/moves", json=body), status, code)
    assert client.get(f"/api/games/{game_id}").json["moves"] == []


def test_a_finished_game_refuses_moves_with_409(app, client):
    game_id, first, second = friend_game(app)
    for move, token in zip("14253", [first, second] * 3, strict=False):
        client.post(f"/api/games/{game_id}/moves", json={"move": move, "token": token})
    state = client.get(f"/api/games/{game_id}").json
    assert state["status"] == "finished" and state["result"] == {"winner": 0, "reason": "three in a row"}
    assert_error(client.post(f"/api/games/{game_id}/moves", json={"move": "9", "token": second}), 409, "game_over")
    assert client.get("/api/games").json["games"] == []


def test_resign_and_its_errors(app, client):
    game_id, first, second = friend_game(app)
    state = client.post(f"/api/games/{game_id}/resign", json={"token": second}).json
    assert state["result"] == {"winner": 0, "reason": "resigned"}
    assert_error(client.post(f"/api/games/{game_id}/resign", json={"token": first}), 409, "game_over")
    assert_error(client.post(f"/api/games/{game_id}/resign", json={"token": "bad"}), 403, "bad_token")


def test_takeback_is_refused_between_friends(app, client):
    game_id, first, _ = friend_game(app)
    client.post(f"/api/games/{game_id}/moves", json={"move": "5", "token": first})
    assert_error(client.post(f"/api/games/{game_id}/takeback", json={"token": first}), 409, "not_allowed")


def test_rematch_swaps_seats_and_is_made_once(app, client):
    game_id, first, second = friend_game(app)
    client.post(f"/api/games/{game_id}/resign", json={"token": second})
    offered = client.post(f"/api/games/{game_id}/rematch", json={"token": first})
    assert offered.status_code == 202 and offered.json["offers"]["rematch"] == 0 and offered.json["rematch_id"] is None
    made = client.post(f"/api/games/{game_id}/rematch", json={"token": second})
    assert made.status_code == 201 and made.json["seat"] == 0
    again = client.post(f"/api/games/{game_id}/rematch", json={"token": first}).json
    assert again["id"] == made.json["id"] and again["seat"] == 1
    new_state = client.get(f"/api/games/{made.json['id']}").json
    assert all(seat["taken"] for seat in new_state["seats"])
    assert client.get(f"/api/games/{game_id}").json["rematch_id"] == made.json["id"]


def test_a_rematch_waits_for_the_end_of_the_game(app, client):
    game_id, first, _ = friend_game(app)
    client.post(f"/api/games/{game_id}/moves", json={"move": "5", "token": first})
    assert_error(client.post(f"/api/games/{game_id}/rematch", json={"token": first}), 409, "not_allowed")
    state = client.get(f"/api/games/{game_id}").json
    assert state["rematch_id"] is None and state["status"] == "active"
    assert len(client.get("/api/games").json["games"]) == 1


def test_a_rematch_keeps_a_seat_nobody_took_free(app, client):
    created = create(client)
    client.post(f"/api/games/{created['id']}/resign", json={"token": created["token"]})
    made = client.post(f"/api/games/{created['id']}/rematch", json={"token": created["token"]}).json
    assert made["seat"] == 1
    seats = client.get(f"/api/games/{made['id']}").json["seats"]
    assert [seat["taken"] for seat in seats] == [False, True]
    friend = app.test_client().post(f"/api/games/{made['id']}/seats", json={"invite": made["invite"]})
    assert friend.status_code == 200 and friend.json["seat"] == 0


def test_a_game_that_went_on_to_a_rematch_cannot_be_taken_back(client):
    body = {"game": "nim", "opponent": {"type": "engine", "level": 1}, "side": 0,
            "options": {"piles": [2], "takeback": True}}
    created = create(client, body)
    game_id, token = created["id"], created["token"]
    won = client.post(f"/api/games/{game_id}/moves", json={"move": "1:2", "token": token}).json
    assert won["status"] == "finished" and won["result"]["winner"] == 0
    new_id = client.post(f"/api/games/{game_id}/rematch", json={"token": token}).json["id"]
    before = client.get(f"/api/games/{game_id}").json
    assert_error(client.post(f"/api/games/{game_id}/takeback", json={"token": token}), 409, "game_over")
    after = client.get(f"/api/games/{game_id}").json
    assert after == before and after["status"] == "finished" and after["rematch_id"] == new_id
    assert game_id not in [game["id"] for game in client.get("/api/games").json["games"]]


def test_configuration_from_the_environment(tmp_path):
    from webapp.config import ConfigError, load_config

    first = load_config(tmp_path, {})
    assert load_config(tmp_path, {})["SECRET_KEY"] == first["SECRET_KEY"]  # generated once, then kept
    assert (tmp_path / "secret_key").stat().st_mode & 0o777 == 0o600
    assert first["DATABASE_URL"] == f"sqlite:///{tmp_path / 'arena.sqlite3'}" and first["ARENA_WORKERS"] == 2
    chosen = load_config(tmp_path, {"SECRET_KEY": "s", "ARENA_WORKERS": "4", "DATABASE_URL": "postgresql://x/y"})
    assert (chosen["SECRET_KEY"], chosen["ARENA_WORKERS"], chosen["DATABASE_URL"]) == ("s", 4, "postgresql://x/y")
    for bad in ({"ARENA_WORKERS": "many"}, {"ARENA_WORKERS": "0"}, {"ARENA_PACE": "-1"},
                {"SOCKETIO_MESSAGE_QUEUE": "localhost:6379"}, {"ARENA_SEARCH_QUEUE": "amqp://x"}):
        with pytest.raises(ConfigError, match=next(iter(bad))):
            load_config(tmp_path, bad)


def test_a_position_and_a_pgn_read_again_after_a_takeback_show_the_game_as_it_is_now(client):
    body = {"game": "chess", "opponent": {"type": "engine", "level": 1}, "side": 0, "options": {"takeback": True}}
    created = create(client, body)
    game_id, token = created["id"], created["token"]
    client.post(f"/api/games/{game_id}/moves", json={"move": "e2e4", "token": token})
    eventually(lambda: client.get(f"/api/games/{game_id}").json["ply"] == 2, "the engine's answer")
    assert client.get(f"/api/games/{game_id}/positions/1").json["move"] == "e2e4"
    assert "1. e4" in client.get(f"/api/games/{game_id}/pgn").get_data(as_text=True)
    assert client.post(f"/api/games/{game_id}/takeback", json={"token": token}).status_code == 200
    eventually(lambda: client.get(f"/api/games/{game_id}").json["ply"] == 0, "the takeback")
    client.post(f"/api/games/{game_id}/moves", json={"move": "d2d4", "token": token})
    assert client.get(f"/api/games/{game_id}/positions/1").json["move"] == "d2d4"
    pgn = client.get(f"/api/games/{game_id}/pgn").get_data(as_text=True)
    assert "1. d4" in pgn and "e4" not in pgn


def test_a_chess_game_with_an_empty_setup_starts_from_the_starting_position(client):
    created = client.post("/api/games", json={"game": "chess", "setup": "", "opponent": {"type": "friend"}})
    assert created.status_code == 201, created.json
    state = client.get(f"/api/games/{created.json['id']}").json
    assert state["view"]["fen"] == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
