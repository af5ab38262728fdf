"""Helpers shared by the browser tests: a page of its own for each person, typing a chess move, and a reviewed
game."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Browser, Page, expect

from .servers import LiveServer
from .waiting import eventually

Opener = Callable[[Page, LiveServer], None]
"""Opens some page of a live server in a browser page, set up as a test needs it."""


def open_page(browser: Browser, width: int = 1280, height: int = 900) -> tuple[Page, list[str]]:
    """A page in a fresh context (its own cookies, the dark theme, downloads accepted) and the list its script
    errors are collected in."""
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme="dark",
                                  accept_downloads=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return page, errors


def create_game(page: Page, server: LiveServer, body: dict) -> dict:
    """Create a game as ``page``'s visitor (the answer's cookie, holding the seat, goes to the page's context), without
    loading a page first; returns the creation's answer."""
    answer = page.context.request.post(server.url + "/api/games", data=body)
    assert answer.ok, answer.text()
    return answer.json()


def type_move(page: Page, text: str) -> None:
    """Type ``text`` in the chess move field and press Enter."""
    page.fill("#move-text", text)
    page.press("#move-text", "Enter")


def reviewed_game(server: LiveServer) -> str:
    """The URL of a finished tic-tac-toe game between two people (X wins down the middle column, both sides having
    erred) whose review is done: its chart and list mark the errors."""
    created = server.post("/api/games", {"game": "tictactoe", "opponent": {"type": "friend", "open": True},
                                         "side": 0}).json()
    second = server.post(f"/api/games/{created['id']}/seats", {}).json()["token"]
    for index, move in enumerate(["2", "1", "5", "3", "8"]):
        token = created["token"] if index % 2 == 0 else second
        assert server.post(f"/api/games/{created['id']}/moves", {"move": move, "token": token}).status_code == 200
    assert server.post(f"/api/games/{created['id']}/review", {}).status_code == 202
    eventually(lambda: server.get(f"/api/games/{created['id']}/review").json()["status"] == "done", "the review",
               timeout=120)
    return server.url + created["url"]


def open_reviewed_game(page: Page, server: LiveServer) -> None:
    """Open ``reviewed_game``'s page once its review shows."""
    page.goto(reviewed_game(server))
    page.wait_for_selector(".review-error")


def open_path(url: str) -> Opener:
    """An opener of the server's page at ``url`` (a path)."""
    def open_it(page: Page, server: LiveServer) -> None:
        page.goto(server.url + url)
    return open_it


ANALYSIS_NODES = {"tictactoe": "5 1", "nim": "", "connect4": "4 4 3", "wolves": "", "chess": "e2e4 c7c5 g1f3"}
"""A node of each game's analysis board, for the tests that look at every page."""


def open_analysis(game: str) -> Opener:
    """An opener of ``game``'s analysis board at ``ANALYSIS_NODES[game]``, once its exact values (or why there are
    none) and the engine's first completed depth show."""
    def open_it(page: Page, server: LiveServer) -> None:
        moves = ANALYSIS_NODES[game]
        page.goto(f"{server.url}/analyse/{game}" + (f"?moves={moves.replace(' ', '+')}" if moves else ""))
        expect(page.locator("#truth-source")).not_to_have_text("are being worked out…", timeout=30_000)
        expect(page.locator("#p-depth")).not_to_have_text("–", timeout=30_000)
    return open_it


STEPPED_SEARCHES = {"tictactoe": ("5 1", 4), "connect4": ("4 4 3", 5), "chess": ("e2e4 e7e5 g1f3 b8c6", 3)}
"""A search of each of three games for the stepper, for the tests that look at every page."""


def open_steps(game: str) -> Opener:
    """An opener of the search stepper at ``STEPPED_SEARCHES[game]``, once its recording is loaded, at a cut-off."""
    def open_it(page: Page, server: LiveServer) -> None:
        moves, depth = STEPPED_SEARCHES[game]
        page.goto(f"{server.url}/steps/{game}?moves={moves.replace(' ', '+')}&depth={depth}")
        expect(page.locator("#step-range")).to_be_enabled(timeout=60_000)
        page.keyboard.press("c")
        expect(page.locator("#step-body")).to_contain_text("Cut-off")
    return open_it


def open_home(page: Page, server: LiveServer) -> None:
    """Open the home page with a game of its own in the list of games being played (the list then holds at least
    one game whatever other tests left on a shared server)."""
    server.post("/api/games", {"game": "tictactoe", "opponent": {"type": "friend"}, "side": 0})
    page.goto(server.url + "/")
    page.wait_for_selector("#live-list .live-item")
