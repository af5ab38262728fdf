"""Your games in the browser: a visitor who played a won tic-tac-toe game and started a Connect Four game against
the engine finds both listed newest first (its side, the opponent, the result), filters them with the keyboard,
opens the move link, and forgets them; another browser's list stays its own. Screenshots, desktop and phone."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Browser, expect
from support.pages import create_game, open_page


def test_a_visitor_lists_filters_and_forgets_its_games(module_server, browser: Browser, artifacts: Path) -> None:
    page, errors = open_page(browser, 1400, 900)
    page.goto(f"{module_server.url}/me/games")
    expect(page.locator("#games-status")).to_have_text("No game yet: games you play in this browser are listed here.")
    won = create_game(page, module_server, {"game": "tictactoe", "opponent": {"type": "friend"}, "side": 0})
    friend = module_server.post(f"/api/games/{won['id']}/seats", {"invite": won["invite"]}).json()["token"]
    for index, move in enumerate(["5", "1", "9", "3", "2", "7", "8"]):  # X: 5 9 2 8, the middle column
        token = won["token"] if index % 2 == 0 else friend
        assert module_server.post(f"/api/games/{won['id']}/moves", {"move": move, "token": token}).status_code == 200
    engine = create_game(page, module_server, {"game": "connect4", "opponent": {"type": "engine", "level": 1},
                                               "side": 0})

    page.goto(f"{module_server.url}/me/games")
    rows = page.locator("#games-rows tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_contain_text("Connect Four")
    expect(rows.nth(0)).to_contain_text("Engine level 1")
    expect(rows.nth(1)).to_contain_text("Tic-tac-toe")
    expect(rows.nth(1).locator("td.result")).to_contain_text("Won")
    analyse = rows.nth(1).get_by_role("link", name="Analyse the last position of this Tic-tac-toe game")
    expect(analyse).to_have_attribute("href", "/analyse/tictactoe?moves=5+1+9+3+2+7+8")
    expect(page.get_by_role("columnheader", name="Result")).to_be_visible()
    page.screenshot(path=artifacts / "your-games.png", full_page=True)

    page.focus("#games-filter")  # the filter by keyboard: a select changed with the arrow keys
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    expect(page.locator("#games-filter")).to_have_value("connect4")
    expect(rows).to_have_count(1)
    expect(page.locator("#games-status")).to_have_text("1 game shown.")
    expect(page.locator("#games-export")).to_have_attribute("href", "/api/me/games/export?game=connect4")

    page.click("#games-move-link")
    expect(page.locator("#move-link-url")).to_have_value(re.compile(rf"^{module_server.url}/me/move/[A-Za-z0-9_.-]+$"))

    stranger, stranger_errors = open_page(browser, 390, 844)
    stranger.goto(f"{module_server.url}/me/games")
    expect(stranger.locator("#games-status")).to_contain_text("No game yet")
    stranger.screenshot(path=artifacts / "your-games-empty-phone.png", full_page=True)

    phone = page.context.new_page()
    phone.set_viewport_size({"width": 390, "height": 844})
    phone.goto(f"{module_server.url}/me/games")
    expect(phone.locator("#games-rows tr")).to_have_count(2)
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390  # the table scrolls in its own region
    phone.screenshot(path=artifacts / "your-games-phone.png", full_page=True)
    phone.close()

    page.on("dialog", lambda dialog: dialog.accept())
    page.click("#games-forget")
    expect(page.locator("#tools-status")).to_have_text("Forgot 2 games.")
    expect(page.locator("#games-status")).to_contain_text("No game")
    assert module_server.get(f"/api/games/{engine['id']}").status_code == 200  # the game itself stays
    assert errors == [] and stranger_errors == []
