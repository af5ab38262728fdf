"""Every change of a game raises its version by one, in the store and in every payload, so a client can tell that
it missed or received out of order an event (databases older than the column gain it: tests/test_migrations.py)."""

from __future__ import annotations

from support.helpers import connect


def version_of(client, game_id: str) -> int:
    return client.get(f"/api/games/{game_id}").json["version"]


def test_each_change_of_a_friend_game_raises_its_version_by_one(app, client):
    created = client.post("/api/games", json={"game": "tictactoe", "opponent": {"type": "friend"}, "side": 0}).json
    game_id = created["id"]
    assert version_of(client, game_id) == 0
    second = app.test_client().post(f"/api/games/{game_id}/seats", json={"invite": created["invite"]}).json
    assert version_of(client, game_id) == 1
    watcher = connect(app, None, game_id)
    player = connect(app, created["token"], game_id)
    player.emit("move", {"game_id": game_id, "move": "5"})
    [moved] = watcher.take("moved")
    assert moved["version"] == moved["state"]["version"] == 2 == version_of(client, game_id)
    client.post(f"/api/games/{game_id}/resign", json={"token": second["token"]})
    [resigned] = watcher.take("state")
    assert resigned["version"] == 3
    offered = client.post(f"/api/games/{game_id}/rematch", json={"token": created["token"]})
    assert offered.status_code == 202 and offered.json["offers"]["rematch"] == 0
    assert watcher.take("state")[-1]["version"] == 4  # the offer is a change too
    made = client.post(f"/api/games/{game_id}/rematch", json={"token": second["token"]}).json
    states = watcher.take("state")
    assert states[-1]["version"] == 5 and states[-1]["rematch_id"] == made["id"]  # spectators learn it from state
    assert version_of(client, made["id"]) == 2  # created, then each of the two players' seats


def test_a_takeback_raises_the_version_though_the_ply_goes_down(client):
    created = client.post("/api/games", json={"game": "nim", "options": {"piles": [5, 5], "takeback": True},
                                              "opponent": {"type": "engine", "level": 1}, "side": 0}).json
    game_id, token = created["id"], created["token"]
    client.post(f"/api/games/{game_id}/moves", json={"move": "1:1", "token": token})
    before = client.get(f"/api/games/{game_id}").json
    taken_back = client.post(f"/api/games/{game_id}/takeback", json={"token": token}).json
    assert taken_back["ply"] == 0 and taken_back["version"] > before["version"]
