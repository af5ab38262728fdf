"""Your training in the browser: the mistakes of a visitor's reviewed game are due on /me/training; solving one
there (the analysis board's exercise) and failing the other sends both away, and the page then says so, with the
success rate and the accuracy chart of the game. Screenshots, desktop and phone."""

from __future__ import annotations

from pathlib import Path

from helpers import eventually
from pages import create_game, open_page
from playwright.sync_api import Browser, expect


def test_a_visitor_trains_on_its_mistakes(module_server, browser: Browser, artifacts: Path) -> None:
    page, errors = open_page(browser, 1400, 900)
    created = create_game(page, module_server, {"game": "tictactoe", "opponent": {"type": "friend"}, "side": 0})
    friend = module_server.post(f"/api/games/{created['id']}/seats", {"invite": created["invite"]}).json()["token"]
    for index, move in enumerate(["5", "2", "1", "9", "3", "7", "4", "6", "8"]):  # X errs at 3. 3 and 4. 4
        token = created["token"] if index % 2 == 0 else friend
        played = module_server.post(f"/api/games/{created['id']}/moves", {"move": move, "token": token})
        assert played.status_code == 200
    assert module_server.post(f"/api/games/{created['id']}/review", {}).status_code == 202
    eventually(lambda: module_server.get(f"/api/games/{created['id']}/review").json()["status"] == "done",
               "the review", timeout=120)

    page.goto(f"{module_server.url}/me/training")
    expect(page.locator("#training-status")).to_have_text("2 exercises are due.")
    expect(page.locator("#accuracy-chart svg circle")).to_have_count(1)
    page.screenshot(path=artifacts / "training.png", full_page=True)
    page.get_by_role("link", name="Solve: Tic-tac-toe, 3. 3: threw away a win").click()
    page.click('[data-cell="7"].actionable')  # the win: 7 makes two threats
    expect(page.locator("#exercise-result")).to_contain_text("Right: 7 keeps the best result")

    page.goto(f"{module_server.url}/me/training")
    expect(page.locator("#training-status")).to_have_text("1 exercise is due. 1 comes back later.")
    page.get_by_role("link", name="Solve: Tic-tac-toe, 4. 4: threw away a draw").click()
    page.click("#exercise-show")
    expect(page.locator("#exercise-result")).to_contain_text("The answer:")

    page.goto(f"{module_server.url}/me/training")
    expect(page.locator("#training-status")).to_have_text("Nothing is due now. 2 come back later.")
    expect(page.locator("#rates-rows tr")).to_have_text("Tic-tac-toe2150 %")
    phone = page.context.new_page()
    phone.set_viewport_size({"width": 390, "height": 844})
    phone.goto(f"{module_server.url}/me/training")
    expect(phone.locator("#rates-rows tr")).to_have_count(1)
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    phone.screenshot(path=artifacts / "training-phone.png", full_page=True)
    assert errors == []
