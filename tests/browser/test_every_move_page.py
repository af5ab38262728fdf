"""The panel's "score every move": under a search that left bounds, one click has every candidate scored exactly
at the search's depth, each row then showing its exact score with what the search had proved under it, for the
player and for a spectator who joins later (headless Chromium, real gunicorn)."""

from __future__ import annotations

import re
from pathlib import Path

import requests
from playwright.sync_api import Browser, expect

from engine.game import describe_score, score_scale
from engine.games import new_game
from engine.search.every_move import score_every_move

ENGINE_TIMEOUT_MS = 60_000
SETUP = "1111117777"


def test_every_move_is_scored_beside_its_bound(live_server, browser: Browser, artifacts: Path) -> None:
    """Connect Four from a position of the opening book, the engine first at depth 4: its search leaves five moves
    as upper bounds (7 "≤ −3", really −9 at that depth)."""
    created = requests.post(live_server.url + "/api/games", timeout=10, json={
        "game": "connect4", "setup": SETUP, "side": 1,
        "opponent": {"type": "engine", "depth": 4, "algorithm": "alphabeta"}}).json()
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(live_server.url + created["url"])
    expect(page.locator("#moves button[data-ply]")).to_have_count(1, timeout=ENGINE_TIMEOUT_MS)
    expect(page.locator("#panel-state")).to_have_text("done", timeout=ENGINE_TIMEOUT_MS)
    record = requests.get(f"{live_server.url}/api/games/{created['id']}/searches/1", timeout=10).json()["info"]
    upper = [root for root in record["root_moves"] if root["bound"] == "upper"]
    assert len(upper) == 5
    expect(page.locator('.rm-row[data-move="7"]')).to_have_class(re.compile(r"\bupper\b"))  # a dashed range
    button = page.locator("#p-every-move")
    expect(button).to_have_text("Score every move exactly at depth 4")
    page.locator("#panel").screenshot(path=artifacts / "every-move-bounds.png")
    button.click()
    expect(button).to_be_hidden(timeout=ENGINE_TIMEOUT_MS)
    state = new_game("connect4", SETUP)
    expected = {root.move: root for root in score_every_move(state, 4).root_moves}
    for root in upper:
        row = page.locator(f'.rm-row[data-move="{root["move"]}"]')
        exact = describe_score(expected[root["move"]].score, score_scale(state))
        expect(row.locator(".rm-score")).to_have_text(re.compile(rf"^{re.escape(exact)}search ≤ "))
        expect(row.locator(".rm-claim")).to_have_text(f"search ≤ {root['score_text']}")
        expect(row).not_to_have_class(re.compile(r"\bupper\b"))  # drawn from its exact score now
    expect(page.locator('.rm-row[data-move="7"] .rm-score')).to_have_text("-9search ≤ -3")
    expect(page.locator("#p-every-move-note")).to_contain_text("full window at depth 4")
    page.locator("#panel").screenshot(path=artifacts / "every-move-scored.png")

    spectator = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True,
                                    is_mobile=True).new_page()
    spectator.goto(live_server.url + created["url"])
    expect(spectator.locator("#panel-state")).to_have_text("done", timeout=ENGINE_TIMEOUT_MS)
    assert spectator.locator("#p-every-move").bounding_box()["height"] >= 44  # a touch target
    spectator.locator("#p-every-move").tap()  # known on the server: answered at once
    expect(spectator.locator(".rm-claim").first).to_be_visible(timeout=ENGINE_TIMEOUT_MS)
    assert errors == []
