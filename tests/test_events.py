"""Socket.IO handlers through Flask-SocketIO's test client: every event, and malformed, oversized, out-of-turn and
spectator payloads, each answered by an ``error`` that changes nothing."""

from __future__ import annotations

import os
import signal

import pytest
from support.helpers import connect, friend_game
from support.waiting import eventually

from webapp.arena.presence import COUNT_INTERVAL
from webapp.transport.sockets import socketio


@pytest.fixture
def friends(app):
    return friend_game(app)


def moves_of(app, game_id):
    return app.test_client().get(f"/api/games/{game_id}").json["moves"]


def test_join_sends_the_state_with_your_seat_and_the_watcher_count(app, friends, clock):
    game_id, first, _ = friends
    watcher = connect(app)
    watcher.emit("join", {"game_id": game_id})
    received = watcher.drain()
    assert [name for name, _ in received] == ["state", "watchers"]
    assert received[0][1]["you"] is None and received[1][1] == {"game_id": game_id, "count": 1}
    clock.advance(COUNT_INTERVAL)  # the room's next count goes at once
    player = connect(app, first)
    player.emit("join", {"game_id": game_id})
    state = player.take("state")[0]
    assert state["you"] == 0 and state["watchers"] == 2
    assert watcher.take("watchers") == [{"game_id": game_id, "count": 2}]
    clock.advance(COUNT_INTERVAL)
    player.disconnect()
    assert watcher.take("watchers") == [{"game_id": game_id, "count": 1}]


def test_a_crowd_arriving_together_is_sent_one_count_a_second(app, friends, clock):
    game_id, _, _ = friends
    first = connect(app, None, game_id)  # its count went at once: the next ones within the second wait
    crowd = [connect(app, None, game_id) for _ in range(5)]
    crowd[-1].disconnect()
    assert first.take("watchers") == []
    clock.advance(COUNT_INTERVAL)
    assert eventually(lambda: first.take("watchers"), "the count held back") == [{"game_id": game_id, "count": 5}]
    clock.advance(COUNT_INTERVAL)  # nothing changed meanwhile: the next change goes at once
    crowd[0].disconnect()
    assert first.take("watchers") == [{"game_id": game_id, "count": 4}]


def test_a_move_is_broadcast_to_the_room_as_moved(app, friends):
    game_id, first, second = friends
    player, opponent, watcher = connect(app, first, game_id), connect(app, second, game_id), connect(app, None, game_id)
    player.emit("move", {"game_id": game_id, "move": "5"})
    for client in (player, opponent, watcher):
        [moved] = client.take("moved")
        assert moved["move"] == "5" and moved["by"] == 0 and moved["ply"] == 1 and moved["game_id"] == game_id
        assert moved["state"]["moves"] == ["5"] and moved["state"]["to_move"] == 1
    opponent.emit("move", {"game_id": game_id, "move": "1"})
    assert watcher.take("moved")[0]["state"]["view"]["cells"][0] == "O"


def test_a_move_over_http_reaches_the_room_too(app, friends):
    game_id, first, _ = friends
    watcher = connect(app, None, game_id)
    answer = app.test_client().post(f"/api/games/{game_id}/moves", json={"move": "5", "token": first})
    assert answer.status_code == 200
    [moved] = watcher.take("moved")
    assert moved["move"] == "5" and moved["state"]["moves"] == ["5"]


@pytest.mark.parametrize("payload", [
    None, "5", 5, [1, 2], {"game_id": None, "move": "5"}, {"move": "5"}, {"game_id": "g"},
    {"game_id": "x" * 33, "move": "5"}, {"game_id": "bad id!", "move": "5"}, {"game_id": "GAME", "move": 5},
    {"game_id": "GAME", "move": ""}, {"game_id": "GAME", "move": "5" * 17},
    {"game_id": "GAME", "move": "5", "extra": 1}, {"game_id": "GAME", "move": "5", "pad": "x" * 5000},
])
def test_malformed_and_oversized_moves_get_bad_request(app, friends, payload):
    game_id, first, _ = friends
    player = connect(app, first, game_id)
    if isinstance(payload, dict) and payload.get("game_id") == "GAME":
        payload = {**payload, "game_id": game_id}
    player.emit("move", payload)
    [error] = player.take("error")
    assert error["code"] == "bad_request" and error["event"] == "move" and error["message"]
    assert moves_of(app, game_id) == []


def test_refused_moves_change_nothing(app, friends):
    game_id, first, second = friends
    player, opponent, watcher = connect(app, first, game_id), connect(app, second, game_id), connect(app, None, game_id)
    cases = [
        (watcher, "5", "forbidden"),  # a spectator
        (opponent, "5", "not_your_turn"),
        (player, "0", "illegal_move"),
    ]
    for client, move, code in cases:
        client.emit("move", {"game_id": game_id, "move": move})
        [error] = client.take("error")
        assert error["code"] == code
    assert moves_of(app, game_id) == []
    assert watcher.take("moved") == [] and player.take("moved") == []
    player.emit("move", {"game_id": "nope1234", "move": "5"})
    assert player.take("error")[0]["code"] == "not_found"


def test_a_token_of_another_game_is_a_spectator_here(app, friends):
    game_id, _, _ = friends
    other = app.test_client().post("/api/games", json={"game": "tictactoe", "opponent": {"type": "friend"}}).json
    stranger = connect(app, other["token"], game_id)
    stranger.emit("move", {"game_id": game_id, "move": "5"})
    assert stranger.take("error")[0]["code"] == "forbidden"
    assert moves_of(app, game_id) == []


@pytest.mark.parametrize("auth", [{"token": "forged.token"}, {"token": 42}, {"token": "x", "admin": True}, "token"])
def test_a_bad_auth_refuses_the_connection(app, auth):
    client = socketio.test_client(app, auth=auth)
    assert not client.is_connected()


def test_events_over_the_rate_limit_get_rate_limited(app, friends):
    game_id, first, _ = friends
    app.config.update(ARENA_EVENT_BURST=3, ARENA_EVENT_RATE=0.1)
    player = connect(app, first)
    for _ in range(5):
        player.emit("join", {"game_id": game_id})
    codes = [error["code"] for error in player.take("error")]
    assert codes == ["rate_limited", "rate_limited"]


def test_resign_ends_the_game_for_the_room(app, friends):
    game_id, first, _second = friends
    player, watcher = connect(app, first, game_id), connect(app, None, game_id)
    watcher.emit("resign", {"game_id": game_id})
    assert watcher.take("error")[0]["code"] == "forbidden"
    player.emit("resign", {"game_id": game_id})
    [state] = watcher.take("state")
    assert state["status"] == "finished" and state["result"] == {"winner": 1, "reason": "resigned"}
    player.emit("resign", {"game_id": game_id})
    assert player.take("error")[-1]["code"] == "game_over"
    player.emit("move", {"game_id": game_id, "move": "5"})
    assert player.take("error")[-1]["code"] == "game_over"


def test_takeback_between_friends_is_not_allowed(app, friends):
    game_id, first, _ = friends
    player = connect(app, first, game_id)
    player.emit("move", {"game_id": game_id, "move": "5"})
    player.emit("takeback", {"game_id": game_id})
    assert player.take("error")[0]["code"] == "not_allowed"
    assert moves_of(app, game_id) == ["5"]


def test_rematch_gives_each_player_the_swapped_seat_and_watchers_the_link(app, friends):
    game_id, first, second = friends
    player, opponent, watcher = connect(app, first, game_id), connect(app, second, game_id), connect(app, None, game_id)
    opponent.emit("rematch", {"game_id": game_id})
    assert opponent.take("error")[0]["code"] == "not_allowed"  # not before the game is over
    assert player.take("rematch") == [] and watcher.take("rematch") == []
    opponent.emit("resign", {"game_id": game_id})
    opponent.emit("rematch", {"game_id": game_id})  # offered: nobody moves yet
    heard = player.drain()
    assert [name for name, _ in heard].count("rematch") == 0
    assert [payload for name, payload in heard if name == "state"][-1]["offers"]["rematch"] == 1
    player.emit("rematch", {"game_id": game_id})  # accepted: both move to the rematch
    [to_player], [to_opponent], [to_watcher] = (c.take("rematch") for c in (player, opponent, watcher))
    assert to_player["seat"] == 1 and to_opponent["seat"] == 0
    assert set(to_watcher) == {"game_id", "new_id", "url"} and to_watcher["new_id"] == to_player["new_id"]
    new_id = to_player["new_id"]
    new_player = connect(app, to_player["token"], new_id)
    new_opponent = connect(app, to_opponent["token"], new_id)
    new_opponent.emit("move", {"game_id": new_id, "move": "5"})
    assert new_player.take("moved")[0]["by"] == 0
    watcher.emit("rematch", {"game_id": game_id})
    assert watcher.take("error")[0]["code"] == "forbidden"


def test_leave_and_unknown_payloads_for_every_event(app, friends):
    game_id, first, _ = friends
    player = connect(app, first, game_id)
    for event in ("join", "leave", "resign", "takeback", "rematch"):
        player.emit(event, {"game_id": game_id, "surprise": True})
        [error] = player.take("error")
        assert error["code"] == "bad_request" and error["event"] == event
    player.emit("leave", {"game_id": game_id})
    assert player.drain() == []
    assert moves_of(app, game_id) == []


def engine_game(app, opponent, game="tictactoe", options=None):
    body = {"game": game, "opponent": opponent, "side": 0, "options": options or {}}
    created = app.test_client().post("/api/games", json=body).json
    return created["id"], connect(app, created["token"], created["id"])


def test_takeback_against_the_engine_undoes_its_reply_too(app):
    game_id, player = engine_game(app, {"type": "engine", "level": 1})
    player.emit("move", {"game_id": game_id, "move": "5"})
    player.next("moved", lambda m: m["ply"] == 2)
    player.emit("takeback", {"game_id": game_id})
    state = player.next("state")
    assert state["moves"] == [] and state["to_move"] == 0 and state["history"] == []
    player.emit("move", {"game_id": game_id, "move": "1"})
    assert player.next("moved", lambda m: m["ply"] == 2)["state"]["moves"][0] == "1"


def test_takeback_and_resign_cancel_a_running_search(app):
    long_engine = {"type": "engine", "time": 30, "algorithm": "minimax"}
    game_id, player = engine_game(app, long_engine, "nim", {"piles": [9, 9, 9, 9]})
    watcher = connect(app, None, game_id)
    player.emit("move", {"game_id": game_id, "move": "1:1"})
    player.next("search", lambda s: s["info"]["kind"] == "started")
    late = connect(app, None)
    late.emit("join", {"game_id": game_id})
    assert late.next("state")["search_state"] == "thinking"
    player.emit("takeback", {"game_id": game_id})
    assert watcher.next("search", lambda s: s["info"]["kind"] == "cancelled")["info"]["reason"] == "takeback"
    assert watcher.next("state")["moves"] == []
    player.emit("move", {"game_id": game_id, "move": "2:2"})
    player.next("search", lambda s: s["info"]["kind"] == "started")
    player.emit("resign", {"game_id": game_id})
    assert watcher.next("search", lambda s: s["info"]["kind"] == "cancelled")["info"]["reason"] == "resigned"
    state = watcher.next("state")
    assert state["result"] == {"winner": 1, "reason": "resigned"} and state["search_state"] == "idle"
    # The only worker answers another game's move only after the stopped search has ended, so by then any move
    # the stopped search could have sent would have arrived.
    other_id, other = engine_game(app, {"type": "engine", "level": 1})
    other.emit("move", {"game_id": other_id, "move": "5"})
    other.next("moved", lambda m: m["ply"] == 2)
    assert watcher.names().count("moved") == 2
    assert moves_of(app, game_id) == ["2:2"]


@pytest.mark.engine_processes
def test_a_search_whose_worker_dies_is_started_again(app):
    game_id, player = engine_game(app, {"type": "engine", "time": 1.0, "algorithm": "minimax"}, "nim",
                                  {"piles": [9, 9, 9, 9]})
    player.emit("move", {"game_id": game_id, "move": "1:1"})
    player.next("search", lambda s: s["info"]["kind"] == "started")
    [worker] = app.extensions["arena"].runner.inner._workers  # the pool inside the solved-positions runner
    os.kill(worker.process.pid, signal.SIGKILL)
    assert "stopped" in player.next("search", lambda s: s["info"]["kind"] == "failed")["info"]["message"]
    player.next("search", lambda s: s["info"]["kind"] == "started")
    assert player.next("moved", lambda m: m["ply"] == 2)["by"] == 1
    assert "error" not in player.names()
