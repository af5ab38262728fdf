"""Watching engines: the creator of an engine-against-engine game pauses, resumes and paces it with the stop code
it got; the pause is kept in the store, so every node and a restarted server keep it."""

from __future__ import annotations

from support.fakes import ThreadRunner
from support.helpers import assert_error, create, wait_for_ply

from webapp import create_app

EVE = {"game": "tictactoe", "opponent": {"type": "engines", "levels": [1, 1]}}


def direct(client, game_id: str, **change):
    return client.post(f"/api/games/{game_id}/engines", json=change)


def test_the_creator_pauses_paces_and_resumes(app, client):
    created = create(client, EVE)
    game_id, code = created["id"], created["stop_code"]
    paused = direct(client, game_id, stop_code=code, paused=True, pace=0).json
    assert paused["options"]["paused_by_creator"] is True and paused["options"]["pace"] == 0.0
    assert paused["search_state"] == "paused"
    assert app.extensions["arena"].runner.state_of(game_id) == "idle"  # no search runs while paused
    ply = paused["ply"]
    resumed = direct(client, game_id, stop_code=code, paused=False).json
    assert resumed["options"]["paused_by_creator"] is False
    assert wait_for_ply(client, game_id, ply + 2)["ply"] >= ply + 2  # with no wait between moves


def test_only_the_creator_directs_an_engine_game(app, client):
    created = create(client, EVE)
    game_id = created["id"]
    assert_error(direct(client, game_id, stop_code="x" * 22, paused=True), 403, "forbidden")
    assert_error(direct(client, game_id, stop_code=created["stop_code"], pace=1), 400, "bad_request")
    assert_error(direct(client, game_id, stop_code=created["stop_code"], paused="yes"), 400, "bad_request")
    friends = create(client)
    assert_error(direct(client, friends["id"], stop_code=created["stop_code"], paused=True), 403, "forbidden")
    assert client.get(f"/api/games/{game_id}").json["options"].get("paused_by_creator") is None


def test_a_pause_outlives_a_restart(app, client, tmp_path):
    created = create(client, EVE)
    game_id = created["id"]
    direct(client, game_id, stop_code=created["stop_code"], paused=True)
    app.extensions["arena"].close()
    restarted = create_app({"TESTING": True, "ARENA_WORKERS": 1}, runner=ThreadRunner())
    try:
        state = restarted.test_client().get(f"/api/games/{game_id}").json
        assert state["options"]["paused_by_creator"] is True and state["search_state"] == "paused"
        assert restarted.extensions["arena"].runner.state_of(game_id) == "idle"
    finally:
        restarted.extensions["arena"].close()
