"""The creator of an engine-against-engine game sees its pace in the speed menu, the server's own (``ARENA_PACE``)
included when it is none of the menu's choices, and changes it there."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, expect
from support.servers import LiveServer
from support.waiting import eventually

CREATE = """(body) => fetch('/api/games', {method: 'POST', headers: {'Content-Type': 'application/json'},
    body: JSON.stringify(body)}).then((answer) => answer.json())"""


def test_the_speed_menu_shows_the_games_pace_and_changes_it(browser: Browser, tmp_path: Path) -> None:
    server = LiveServer(tmp_path / "instance", env={"ARENA_PACE": "0.25"}).start()
    try:
        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        page.goto(server.url + "/")
        created = page.evaluate(CREATE, {"game": "connect4", "opponent": {"type": "engines", "levels": [1, 1]}})
        page.evaluate("([id, code]) => localStorage.setItem(`arena-stop:${id}`, code)",
                      [created["id"], created["stop_code"]])  # as the home page keeps it for the game's creator
        page.goto(server.url + created["url"])
        menu = page.locator("#pace")
        expect(menu).to_have_value("0.25")
        expect(menu.locator("option:checked")).to_have_text("0.25 s between moves (the server's pace)")
        menu.select_option("2")
        expect(menu).to_have_value("2")
        eventually(lambda: server.get(f"/api/games/{created['id']}").json()["pace"] == 2, "the new pace")
    finally:
        server.stop()
