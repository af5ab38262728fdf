"""A regular player's browser: 500 games in one real Chromium profile, and every page still loads with one small
cookie that knows every seat."""

from __future__ import annotations

from playwright.sync_api import Browser, expect

GAMES = 500

PLAY_MANY = """async (count) => {
    const ids = [];
    for (let i = 0; i < count; i++) {
        const post = (url, body) => fetch(url, {method: "POST", headers: {"Content-Type": "application/json"},
                                                body: JSON.stringify(body)});
        const created = await post("/api/games", {game: "tictactoe", opponent: {type: "friend"}, side: 0});
        if (created.status !== 201) return {failed: i, status: created.status};
        const game = await created.json();
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
    context.close()
