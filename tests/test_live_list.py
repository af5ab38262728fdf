"""The live list ("Being played now") shows only games being played: changed in the last two minutes, or watched
now; an abandoned game leaves it and keeps its link."""

from __future__ import annotations

from support.helpers import connect, create

from webapp.arena.reads import LIVE_RECENT_SECONDS


def listed(app) -> list[str]:
    return [summary["id"] for summary in app.extensions["arena"].reads.live_games()]


def test_abandoned_games_leave_the_live_list(app, client, clock):
    watched = create(client)["id"]
    abandoned = create(client)["id"]
    client.post(f"/api/games/{abandoned}/moves", json={"move": "5"})
    assert {watched, abandoned} <= {game["id"] for game in client.get("/api/games").json["games"]}
    clock.advance(LIVE_RECENT_SECONDS - 30)
    assert set(listed(app)) == {watched, abandoned}  # both changed recently
    spectator = connect(app, join=watched)
    clock.advance(60)
    assert listed(app) == [watched]  # nobody moved for longer: only the watched game is being played
    spectator.disconnect()
    assert listed(app) == []
    assert client.get(f"/api/games/{abandoned}").status_code == 200  # its link still works
