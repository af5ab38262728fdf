"""A regular player's browser: 500 games in one real Chromium profile, and every page still loads with one small
cookie that knows every seat; a browser still full of the per-game seat cookies of earlier versions gets in again."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import requests
from playwright.sync_api import Browser, expect
from support.servers import GENEROUS_CONNECTIONS, LiveServer

GAMES = 500


@pytest.fixture
def live_server(tmp_path: Path):
    """gunicorn with per-address limits far above the hundreds of games these tests create from one address."""
    server = LiveServer(tmp_path / "instance", env=GENEROUS_CONNECTIONS).start()
    yield server
    server.stop()

PLAY_MANY = """async (count) => {
    const ids = [];
    for (let i = 0; i < count; i++) {
        const post = (url, body) => fetch(url, {method: "POST", headers: {"Content-Type": "application/json"},
                                                body: JSON.stringify(body)});
        const created = await post("/api/games", {game: "tictactoe", opponent: {type: "friend"}, side: 0});
        if (created.status !== 201) return {failed: i, status: created.status};
        const game = await created.json();
        await post(`/api/games/${game.id}/alone`, {});
        const moved = await post(`/api/games/${game.id}/moves`, {move: "5"});
        if (moved.status !== 200) return {failed: i, status: moved.status};
        ids.push(game.id);
    }
    return {ids};
}"""


def test_five_hundred_games_in_one_browser_keep_every_page_working(live_server, browser: Browser) -> None:
    context = browser.new_context()
    page = context.new_page()
    page.goto(live_server.url + "/")
    played = page.evaluate(PLAY_MANY, GAMES)
    assert "ids" in played, played
    ids = played["ids"]
    cookies = context.cookies(live_server.url)
    assert [cookie["name"] for cookie in cookies] == ["arena_player"]
    assert len(cookies[0]["value"]) < 80

    assert page.goto(live_server.url + "/").status == 200
    expect(page.locator(".game-card").first).to_be_visible()
    for game_id in (ids[0], ids[GAMES // 2], ids[-1]):
        assert page.goto(f"{live_server.url}/g/{game_id}").status == 200
        expect(page.locator('.player[data-player="0"] .you')).to_be_visible()
        expect(page.locator("#moves button[data-ply]")).to_have_count(1)


STUCK_GAMES = 180
"""Chromium keeps at most 180 cookies per site: the most per-game seat cookies an earlier version could leave."""


def test_a_browser_full_of_old_seat_cookies_gets_every_page_again(live_server, browser: Browser) -> None:
    games = [requests.post(live_server.url + "/api/games", json={"game": "tictactoe", "opponent": {"type": "friend"},
                                                                   "side": 0}, timeout=10).json()
             for _ in range(STUCK_GAMES)]
    context = browser.new_context()
    expires = time.time() + 90 * 24 * 3600
    context.add_cookies([{"name": f"arena_seat_{game['id']}", "value": game["token"], "url": live_server.url,
                          "httpOnly": True, "sameSite": "Lax", "expires": expires} for game in games])
    assert len(context.cookies(live_server.url)) == STUCK_GAMES  # a Cookie header of about 14 KB

    page = context.new_page()
    assert page.goto(live_server.url + "/").status == 200
    assert len(context.cookies(live_server.url)) <= STUCK_GAMES - 20 + 1  # 20 a request, and the new identity's
    for game in (games[-1], games[0]):  # the game asked for is carried over first
        assert page.goto(f"{live_server.url}/g/{game['id']}").status == 200
        expect(page.locator('.player[data-player="0"] .you')).to_be_visible()
    for _ in range(STUCK_GAMES // 20):
        if [cookie["name"] for cookie in context.cookies(live_server.url)] == ["arena_player"]:
            break
        assert page.reload().status == 200
    assert [cookie["name"] for cookie in context.cookies(live_server.url)] == ["arena_player"]
    # Every seat is kept: the browser at its 180 cookies, given its new one, drops none of the old ones unread.
    assert all(context.request.get(f"{live_server.url}/api/games/{game['id']}").json()["you"] == 0 for game in games)
    for game in games[::60]:
        assert page.goto(f"{live_server.url}/g/{game['id']}").status == 200
        expect(page.locator('.player[data-player="0"] .you')).to_be_visible()
