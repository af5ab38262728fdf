"""Accessibility in headless Chromium against a real gunicorn: axe-core (from npm) on every page in both themes
finds no serious or critical violation; keyboard play keeps the focus on the board; moves are announced; the
promotion chooser opens on the queen."""

from __future__ import annotations

from pathlib import Path

import pytest
import requests
from playwright.sync_api import Browser, expect

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
GAMES = {
    "tictactoe": {"game": "tictactoe", "side": 1, "opponent": {"type": "engine", "depth": 4, "algorithm": "alphabeta"}},
    "chess": {"game": "chess", "opponent": {"type": "friend"}},
}


def serious_violations(page) -> list[str]:
    """axe-core's serious and critical findings on the page as it is: "rule: target (message)"."""
    page.add_script_tag(path=str(AXE))
    results = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    return [f"{violation['id']}: {node['target']} ({node['failureSummary'][:160]})"
            for violation in results["violations"] if violation["impact"] in ("serious", "critical")
            for node in violation["nodes"]]


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("page_name", ["home", "lab", "tictactoe", "chess", "not_found"])
def test_no_serious_accessibility_violation(live_server, browser: Browser, page_name: str, scheme: str) -> None:
    # bypass_csp: the page's policy forbids the injected checker, which is not part of the page
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme, bypass_csp=True)
    page = context.new_page()
    if page_name in GAMES:
        created = requests.post(live_server.url + "/api/games", json=GAMES[page_name], timeout=10).json()
        page.goto(live_server.url + created["url"])
        page.wait_for_selector("#moves")
        if page_name == "tictactoe":
            page.wait_for_selector("#tree .tnode", timeout=30_000)
    else:
        page.goto(live_server.url + {"home": "/", "lab": "/lab", "not_found": "/g/Ab3_x-9"}[page_name])
    page.wait_for_timeout(300)  # transitions of the first paint end
    assert serious_violations(page) == []
    context.close()


def test_keyboard_play_keeps_focus_on_the_board_and_moves_are_announced(live_server, browser: Browser) -> None:
    created = requests.post(live_server.url + "/api/games", timeout=10,
                            json={"game": "tictactoe", "opponent": {"type": "friend"}}).json()
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.context.request.post(f"{live_server.url}/api/games/{created['id']}/seats", data={"token": created["token"]})
    page.context.request.post(f"{live_server.url}/api/games/{created['id']}/alone", data={})
    page.goto(live_server.url + created["url"])
    expect(page.locator("#watchers-count")).to_have_text("1")  # joined: the room's state has been drawn
    page.focus('[aria-label="Cell 5"]')
    page.keyboard.press("Enter")
    page.wait_for_selector('#moves button[data-ply="1"]')
    assert page.evaluate("document.getElementById('board').contains(document.activeElement)")
    assert page.inner_text("#announcer") == "X played 5"


def test_the_promotion_chooser_opens_on_the_queen(live_server, browser: Browser) -> None:
    created = requests.post(live_server.url + "/api/games", timeout=10, json={
        "game": "chess", "setup": "8/4P3/8/8/8/8/8/k6K w - - 0 1", "opponent": {"type": "friend"}}).json()
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.context.request.post(f"{live_server.url}/api/games/{created['id']}/seats", data={"token": created["token"]})
    page.context.request.post(f"{live_server.url}/api/games/{created['id']}/alone", data={})
    page.goto(live_server.url + created["url"])
    expect(page.locator("#watchers-count")).to_have_text("1")  # joined: the room's state has been drawn
    page.click('[data-square="e7"]')
    page.click('[data-square="e8"]')
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "Promote to queen"
    page.keyboard.press("Enter")
    page.wait_for_selector('#moves button[data-ply="1"]')
    assert page.inner_text("#announcer").startswith("White played e8=Q")
