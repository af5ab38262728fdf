"""On a phone (390x844, touch) every visible control and board target of every page is at least 44 x 44 CSS px: the
home, lab and error pages, each game's board, a game with its move list, the engine panel after a search (its
iteration slider and the search tree), and a reviewed game. A checkbox's or radio button's target is its label."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Browser, Page
from support.pages import ANALYSIS_NODES, create_game, open_analysis, open_home, open_path, open_reviewed_game
from support.servers import LiveServer

TOO_SMALL = """() => [...document.querySelectorAll(`button, a[href], select, input:not([type=hidden]), textarea,
    summary, [role=button], [role=treeitem], [role=gridcell].actionable, [tabindex="0"]`)]
  .map((element) => element.matches('input[type=checkbox], input[type=radio]') && element.closest('label')
    ? element.closest('label') : element)
  .filter((element) => element.getClientRects().length > 0 && getComputedStyle(element).visibility !== 'hidden')
  .map((element) => {
    const box = element.getBoundingClientRect();
    const name = element.id || element.getAttribute('aria-label') || element.textContent.trim().slice(0, 30);
    return [`${element.tagName.toLowerCase()}.${element.getAttribute('class') ?? ''} ${name}`, box.width, box.height];
  })
  .filter(([, width, height]) => width < 43.5 || height < 43.5)"""

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}


def engine_game(game: str) -> Callable[[Page, LiveServer], None]:
    """A new game of ``game`` against the engine, the visitor to move on an untouched board."""
    def open_game(page: Page, server: LiveServer) -> None:
        created = create_game(page, server, {"game": game, "opponent": {"type": "engine", "level": 1}, "side": 0})
        page.goto(server.url + created["url"])
        page.wait_for_selector("#board [role=gridcell].actionable")
    return open_game


def searched_game(game: str) -> Callable[[Page, LiveServer], None]:
    """A game of ``game`` in which the engine (seat 0) has searched and moved: the panel shows its iteration
    slider and, for tic-tac-toe and Nim, the tree it searched."""
    def open_game(page: Page, server: LiveServer) -> None:
        created = create_game(page, server, {"game": game, "opponent": {"type": "engine", "level": 3}, "side": 1})
        page.goto(server.url + created["url"])
        page.wait_for_selector("#moves button")
        page.wait_for_selector(".tnode")
    return open_game


def chess_with_moves(page: Page, server: LiveServer) -> None:
    created = create_game(page, server, {"game": "chess", "opponent": {"type": "friend", "open": True}, "side": 0})
    black = server.post(f"/api/games/{created['id']}/seats", {}).json()["token"]
    for index, move in enumerate(["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]):
        token = created["token"] if index % 2 == 0 else black
        assert server.post(f"/api/games/{created['id']}/moves", {"move": move, "token": token}).status_code == 200
    page.goto(server.url + created["url"])
    page.wait_for_selector("#moves button >> nth=5")


PAGES = {
    "home": open_home, "lab": open_path("/lab"), "not found": open_path("/no-such-page"),
    **{f"{game} board": engine_game(game) for game in ("tictactoe", "nim", "connect4", "wolves", "chess")},
    "tic-tac-toe searched": searched_game("tictactoe"), "Nim searched": searched_game("nim"),
    "chess with moves": chess_with_moves, "reviewed game": open_reviewed_game,
    **{f"{game} analysis board": open_analysis(game) for game in ANALYSIS_NODES},
}


@pytest.mark.parametrize("name", PAGES)
def test_every_target_is_44_pixels_square(module_server, browser: Browser, name: str) -> None:
    context = browser.new_context(**PHONE)
    page = context.new_page()
    PAGES[name](page, module_server)
    assert page.evaluate(TOO_SMALL) == []
