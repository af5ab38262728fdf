"""Your training in the browser: a Connect Four game in which the visitor threw away a win, then a draw, is
reviewed; both mistakes are due on /me/training; solving one there (the analysis board's exercise) and failing the
other sends both away, and the page then says so, with the success rate and the accuracy chart of the game; once the
server's clock has moved a day, the failed one is due again. Screenshots, desktop and phone."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect
from support.pages import create_game, open_page
from support.servers import GENEROUS_CONNECTIONS, LiveServer
from support.shifted_app import SHIFT_FILE, SHIFTED_APP, shift_time
from support.waiting import eventually

MOVES = list("3444133434435253255551777777112222")
"""Red (the visitor) throws away the win with 1. 3 (4 wins) and the draw with 3. 1 (4 draws; 5 loses in 14); Yellow
plays perfectly and wins."""
DAY = 24 * 3600


@pytest.fixture(scope="module")
def shifted_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, Path]]:
    """A real gunicorn whose Unix time the test moves (``shifted_app``), and the file that moves it."""
    folder = tmp_path_factory.mktemp("shifted")
    shift = folder / "shift"
    server = LiveServer(folder / "instance", env={**GENEROUS_CONNECTIONS, SHIFT_FILE: str(shift)},
                        app=SHIFTED_APP).start()
    yield server, shift
    server.stop()


def test_a_visitor_trains_on_its_mistakes(shifted_server, browser: Browser, artifacts: Path) -> None:
    server, shift = shifted_server
    page, errors = open_page(browser, 1400, 900)
    created = create_game(page, server, {"game": "connect4", "opponent": {"type": "friend"}, "side": 0})
    friend = server.post(f"/api/games/{created['id']}/seats", {"invite": created["invite"]}).json()["token"]
    for index, move in enumerate(MOVES):
        token = created["token"] if index % 2 == 0 else friend
        played = server.post(f"/api/games/{created['id']}/moves", {"move": move, "token": token})
        assert played.status_code == 200
    assert server.post(f"/api/games/{created['id']}/review", {}).status_code == 202
    eventually(lambda: server.get(f"/api/games/{created['id']}/review").json()["status"] == "done",
               "the review", timeout=120)

    page.goto(f"{server.url}/me/training")
    expect(page.locator("#training-status")).to_have_text("2 exercises are due.")
    expect(page.locator("#accuracy-chart svg circle")).to_have_count(1)
    page.screenshot(path=artifacts / "training.png", full_page=True)
    page.get_by_role("link", name="Solve: Connect Four, 1. 3: threw away a win").click()
    page.click('[data-column="4"].actionable')  # the only win
    expect(page.locator("#exercise-result")).to_contain_text("Right: 4 keeps the best result")

    page.goto(f"{server.url}/me/training")
    expect(page.locator("#training-status")).to_have_text("1 exercise is due. 1 comes back later.")
    page.get_by_role("link", name="Solve: Connect Four, 3. 1: threw away a draw").click()
    page.click('[data-column="5"].actionable')
    expect(page.locator("#exercise-result")).to_have_text(
        "Not this: after 5 it is loss in 14, where draw was there. Try again.")

    page.goto(f"{server.url}/me/training")
    expect(page.locator("#training-status")).to_have_text("Nothing is due now. 2 come back later.")
    expect(page.locator("#rates-rows tr")).to_have_text("Connect Four2150 %")

    shift_time(shift, DAY + 60)  # a day later: the failed one is due again; the solved one too (its first interval)
    page.goto(f"{server.url}/me/training")
    expect(page.locator("#training-status")).to_have_text("2 exercises are due.")
    for name in ("3. 1: threw away a draw · solved 0 of 1", "1. 3: threw away a win · solved 1 of 1"):
        expect(page.get_by_role("link", name=f"Solve: Connect Four, {name}")).to_be_visible()
    phone = page.context.new_page()
    phone.set_viewport_size({"width": 390, "height": 844})
    phone.goto(f"{server.url}/me/training")
    expect(phone.locator("#rates-rows tr")).to_have_count(1)
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    phone.screenshot(path=artifacts / "training-phone.png", full_page=True)
    assert errors == []
