"""Accessibility in headless Chromium against a real gunicorn: axe-core (from npm), in both themes, finds no
violation of impact moderate or above on any page, each game before and after a move and with hints on, and a
reviewed game; keyboard play keeps the focus on the board; moves are announced; the promotion chooser opens on the
queen."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import requests
from playwright.sync_api import Browser, Page, expect
from support.pages import (
    ANALYSIS_NODES,
    STEPPED_SEARCHES,
    create_game,
    open_analysis,
    open_home,
    open_path,
    open_reviewed_game,
    open_steps,
)
from support.servers import LiveServer

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
REPORTED = ("moderate", "serious", "critical")
GAMES = ("tictactoe", "nim", "connect4", "wolves", "chess")
HINTS_SETUP = {"connect4": "12123434565677"}
"""Positions whose hints come at once (Connect Four's empty board would take the solver a while)."""


def violations(page: Page) -> list[str]:
    """axe-core's findings of impact moderate or above on the page as it is: "rule: target (message)"."""
    if not page.evaluate("() => 'axe' in window"):
        page.add_script_tag(path=str(AXE))
    results = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    return [f"{violation['id']}: {node['target']} ({node['failureSummary'][:160]})"
            for violation in results["violations"] if violation["impact"] in REPORTED
            for node in violation["nodes"]]


def create(server: LiveServer, body: dict) -> dict:
    return requests.post(server.url + "/api/games", json=body, timeout=10).json()


def before_a_move(game: str) -> Callable[[Page, LiveServer], None]:
    """A spectator's view of a new game against the engine, nobody has moved."""
    def open_game(page: Page, server: LiveServer) -> None:
        created = create(server, {"game": game, "side": 0, "opponent": {"type": "engine", "level": 1}})
        page.goto(server.url + created["url"])
        page.wait_for_selector("#board svg, #board button")
    return open_game


def after_a_move(game: str) -> Callable[[Page, LiveServer], None]:
    """The engine has searched and moved: the move list with its current move, the panel, the tree (if any)."""
    def open_game(page: Page, server: LiveServer) -> None:
        created = create(server, {"game": game, "side": 1, "opponent": {"type": "engine", "level": 3}})
        page.goto(server.url + created["url"])
        page.wait_for_selector('#moves button[aria-current="true"]', timeout=30_000)
        if game in ("tictactoe", "nim"):
            page.wait_for_selector("#tree .tnode", timeout=30_000)
    return open_game


def with_hints(game: str) -> Callable[[Page, LiveServer], None]:
    """Hints on, for the player to move (the hints card and the board's marks)."""
    def open_game(page: Page, server: LiveServer) -> None:
        body = {"game": game, "side": 0, "options": {"hints": True}, "opponent": {"type": "engine", "level": 1}}
        if game in HINTS_SETUP:
            body["setup"] = HINTS_SETUP[game]
        page.goto(server.url + create_game(page, server, body)["url"])
        page.wait_for_selector("#hints-list li", timeout=30_000)
    return open_game


PAGES = {
    "home": open_home, "lab": open_path("/lab"), "not found": open_path("/g/Ab3_x-9"),
    **{f"{game} before a move": before_a_move(game) for game in GAMES},
    **{f"{game} after a move": after_a_move(game) for game in GAMES},
    **{f"{game} with hints": with_hints(game) for game in GAMES},
    "reviewed game": open_reviewed_game,
    **{f"{game} analysis board": open_analysis(game) for game in ANALYSIS_NODES},
    **{f"{game} stepper": open_steps(game) for game in STEPPED_SEARCHES},
}


@pytest.mark.parametrize("name", PAGES)
def test_no_accessibility_violation(module_server, browser: Browser, name: str) -> None:
    # bypass_csp: the page's policy forbids the injected checker, which is not part of the page. Reduced motion:
    # the page then has no transitions, so a theme's colours are all there at once when the checker reads them.
    context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True, reduced_motion="reduce")
    page = context.new_page()
    PAGES[name](page, module_server)
    found = []
    for theme in ("light", "dark"):
        page.evaluate("(theme) => { document.documentElement.dataset.theme = theme; }", theme)
        found += [f"{theme}: {violation}" for violation in violations(page)]
    assert found == []


def test_keyboard_play_keeps_focus_on_the_board_and_moves_are_announced(module_server, browser: Browser) -> None:
    created = requests.post(module_server.url + "/api/games", timeout=10,
                            json={"game": "tictactoe", "opponent": {"type": "friend"}}).json()
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.context.request.post(f"{module_server.url}/api/games/{created['id']}/seats", data={"token": created["token"]})
    page.context.request.post(f"{module_server.url}/api/games/{created['id']}/alone", data={})
    page.goto(module_server.url + created["url"])
    expect(page.locator("#watchers-count")).to_have_text("1")  # joined: the room's state has been drawn
    page.focus('[data-cell="5"].actionable')
    page.keyboard.press("Enter")
    page.wait_for_selector('#moves button[data-ply="1"]')
    assert page.evaluate("document.getElementById('board').contains(document.activeElement)")
    assert page.inner_text("#announcer") == "X played 5."


def test_the_promotion_chooser_opens_on_the_queen(module_server, browser: Browser) -> None:
    created = requests.post(module_server.url + "/api/games", timeout=10, json={
        "game": "chess", "setup": "8/4P3/8/8/8/8/8/k6K w - - 0 1", "opponent": {"type": "friend"}}).json()
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.context.request.post(f"{module_server.url}/api/games/{created['id']}/seats", data={"token": created["token"]})
    page.context.request.post(f"{module_server.url}/api/games/{created['id']}/alone", data={})
    page.goto(module_server.url + created["url"])
    expect(page.locator("#watchers-count")).to_have_text("1")  # joined: the room's state has been drawn
    page.click('[data-square="e7"].actionable')
    page.click('[data-square="e8"].actionable')
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "Promote to queen"
    page.keyboard.press("Enter")
    page.wait_for_selector('#moves button[data-ply="1"]')
    assert page.inner_text("#announcer").startswith("White played e8=Q")
