"""Between two people: a game that waits for the friend, abort, takeback requests, draw offers and rematch offers,
each answered by the other player; every refusal changes nothing."""

from __future__ import annotations

from support.helpers import assert_error, create, friend_game


def offer(client, game_id: str, token: str, kind: str):
    return client.post(f"/api/games/{game_id}/offers", json={"kind": kind, "token": token})


def test_a_friend_game_waits_for_the_friend_unless_played_alone(app, client):
    created = create(client, alone=False)
    game_id = created["id"]
    state = client.get(f"/api/games/{game_id}").json
    assert state["waiting_for_opponent"] is True
    assert_error(client.post(f"/api/games/{game_id}/moves", json={"move": "5"}), 409, "waiting_for_opponent")
    assert client.get(f"/api/games/{game_id}").json["version"] == state["version"]
    alone = client.post(f"/api/games/{game_id}/alone", json={}).json
    assert alone["waiting_for_opponent"] is False and alone["options"]["alone"] is True
    assert client.post(f"/api/games/{game_id}/moves", json={"move": "5"}).status_code == 200
    assert_error(client.post(f"/api/games/{game_id}/alone", json={}), 409, "not_allowed")
    waiting = create(client, alone=False)
    friend = app.test_client().post(f"/api/games/{waiting['id']}/seats", json={"invite": waiting["invite"]})
    assert friend.status_code == 200
    assert client.get(f"/api/games/{waiting['id']}").json["waiting_for_opponent"] is False


def test_abort_while_neither_side_has_moved_twice(app, client):
    game_id, first, second = friend_game(app)
    for move, token in (("5", first), ("1", second)):
        client.post(f"/api/games/{game_id}/moves", json={"move": move, "token": token})
    aborted = client.post(f"/api/games/{game_id}/abort", json={"token": second}).json
    assert aborted["status"] == "finished" and aborted["result"] == {"winner": None, "reason": "aborted"}
    game_id, first, second = friend_game(app)
    for move, token in (("5", first), ("1", second), ("9", first)):
        client.post(f"/api/games/{game_id}/moves", json={"move": move, "token": token})
    assert_error(client.post(f"/api/games/{game_id}/abort", json={"token": second}), 409, "not_allowed")
    assert_error(app.test_client().post(f"/api/games/{game_id}/abort", json={}), 403, "bad_token")


def test_a_takeback_request_is_declined_then_accepted(app, client):
    game_id, first, second = friend_game(app)
    assert_error(offer(client, game_id, first, "takeback"), 409, "not_allowed")  # nothing to take back yet
    for move, token in (("5", first), ("1", second), ("9", first)):
        client.post(f"/api/games/{game_id}/moves", json={"move": move, "token": token})
    asked = offer(client, game_id, second, "takeback").json  # O asks to take back 1 (X has replied since)
    assert asked["offers"]["takeback"] == 1
    assert_error(client.post(f"/api/games/{game_id}/offers/decline", json={"kind": "draw", "token": first}), 409,
                 "not_allowed")
    declined = client.post(f"/api/games/{game_id}/offers/decline", json={"kind": "takeback", "token": first}).json
    assert declined["offers"]["takeback"] is None and declined["ply"] == 3
    offer(client, game_id, second, "takeback")
    accepted = offer(client, game_id, first, "takeback").json  # the other player accepts by answering in kind
    assert accepted["ply"] == 1 and accepted["to_move"] == 1 and accepted["offers"]["takeback"] is None
    assert accepted["moves"] == ["5"]


def test_a_draw_offer_is_declined_by_a_move_and_accepted(app, client):
    game_id, first, second = friend_game(app)
    client.post(f"/api/games/{game_id}/moves", json={"move": "5", "token": first})
    assert offer(client, game_id, first, "draw").json["offers"]["draw"] == 0
    moved = client.post(f"/api/games/{game_id}/moves", json={"move": "1", "token": second}).json
    assert moved["offers"]["draw"] is None  # moving on declines it
    offer(client, game_id, second, "draw")
    drawn = offer(client, game_id, first, "draw").json
    assert drawn["status"] == "finished" and drawn["result"] == {"winner": None, "reason": "agreed draw"}
    assert_error(offer(client, game_id, first, "draw"), 409, "not_allowed")
    assert_error(offer(client, game_id, first, "resign"), 400, "bad_request")


def test_offers_are_between_two_players(app, client):
    created = create(client, {"game": "nim", "options": {"piles": [5]}, "side": 0,
                              "opponent": {"type": "engine", "level": 1}})
    assert_error(offer(client, created["id"], created["token"], "draw"), 409, "not_allowed")
    game_id, first, _ = friend_game(app)
    assert_error(app.test_client().post(f"/api/games/{game_id}/offers", json={"kind": "draw"}), 403, "bad_token")
    assert_error(offer(client, game_id, first, "rematch"), 409, "not_allowed")  # the game is still on
