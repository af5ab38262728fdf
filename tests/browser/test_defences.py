"""The pages defend themselves in a real Chromium: they run under their Content-Security-Policy without a single
violation, a page of another origin cannot forge a player's request or frame a game."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests
from playwright.sync_api import Browser, Page, expect
from support.pages import open_home

RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(`${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}:${event.lineNumber}`);
});
"""


def watched_page(browser: Browser) -> tuple[Page, list[str]]:
    """A page in a fresh context whose CSP violations (events and console reports) and script errors are listed."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(RECORD_VIOLATIONS)
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(f"script error: {error}"))
    page.on("console", lambda message: problems.append(message.text)
            if "Content Security Policy" in message.text else None)
    return page, problems


def violations(page: Page) -> list[str]:
    return page.evaluate("window.__cspViolations")


ENGINE_GAMES = [
    ("tictactoe", {}, '.grid-cell.actionable'),
    ("nim", {"options": {"piles": [3, 4, 5]}}, None),
    ("connect4", {}, '[data-column="4"].actionable'),
    ("wolves", {}, None),
    ("chess", {}, None),
]


@pytest.mark.parametrize(("game", "extra", "move"), ENGINE_GAMES, ids=[g[0] for g in ENGINE_GAMES])
def test_game_pages_run_under_the_policy_without_a_violation(module_server, browser: Browser, game, extra, move):
    page, problems = watched_page(browser)
    page.goto(module_server.url + "/")
    created = page.evaluate("""async (body) => {
        const response = await fetch("/api/games", {method: "POST", headers: {"Content-Type": "application/json"},
                                                    body: JSON.stringify(body)});
        return response.json();
    }""", {"game": game, "opponent": {"type": "engine", "level": 1}, "side": 0, **extra})
    page.goto(module_server.url + created["url"])
    expect(page.locator("#status-main")).to_contain_text("Your move")
    if move is not None:
        page.locator(move).first.click()
        expect(page.locator("#moves button[data-ply]")).to_have_count(2, timeout=30_000)
    expect(page.locator("#panel-state")).not_to_have_text("")
    assert violations(page) == [] and problems == []


def test_home_and_lab_run_under_the_policy_without_a_violation(module_server, browser: Browser):
    page, problems = watched_page(browser)
    open_home(page, module_server)
    expect(page.locator(".game-card").first).to_be_visible()
    page.click('.game-card[data-game="connect4"]')
    page.check('input[name="opponent"][value="custom"]', force=True)
    page.goto(module_server.url + "/lab?game=tictactoe&setup=5")
    page.click("#lab-run")
    expect(page.locator("#lab-results")).to_be_visible(timeout=30_000)
    assert violations(page) == [] and problems == []


ATTACKER_PAGE = """<!doctype html><html><body>
<form id="forged" method="post" enctype="text/plain" action="{target}/api/games/{game_id}/resign"></form>
<script>
  navigator.sendBeacon("{target}/api/games/{game_id}/rematch");
  fetch("{target}/api/games/{game_id}/takeback", {{method: "POST", mode: "no-cors", credentials: "include"}});
  setTimeout(() => document.getElementById("forged").submit(), 500);
</script>
</body></html>"""
"""Requests a page of any origin can send with the victim's cookies: an empty form post, a beacon, a no-cors fetch."""

FRAMING_PAGE = """<!doctype html><html><body>
<iframe id="framed" src="{target}/g/{game_id}" width="600" height="400"></iframe>
</body></html>"""


@pytest.fixture
def attacker_site() -> Iterator[tuple[str, dict[str, str]]]:
    """A web server on another port of 127.0.0.1 (same site, other origin) serving ``pages[path]``."""
    pages: dict[str, str] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = pages.get(self.path, "").encode()
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", pages
    server.shutdown()


def test_a_page_on_another_port_can_neither_act_for_a_player_nor_frame_the_game(module_server, browser: Browser,
                                                                               attacker_site):
    attacker, pages = attacker_site
    context = browser.new_context()
    victim = context.new_page()
    victim.goto(module_server.url + "/")
    created = victim.evaluate("""async () => (await fetch("/api/games", {method: "POST",
        headers: {"Content-Type": "application/json"},
        body: JSON.stringify({game: "tictactoe", opponent: {type: "engine", level: 1}, side: 0,
                              options: {takeback: true}})})).json()""")
    game_id = created["id"]
    victim.goto(f"{module_server.url}/g/{game_id}")
    victim.locator('.grid-cell.actionable').first.click()
    expect(victim.locator("#moves button[data-ply]")).to_have_count(2, timeout=30_000)
    before = requests.get(f"{module_server.url}/api/games/{game_id}", timeout=10).json()

    pages["/"] = ATTACKER_PAGE.format(target=module_server.url, game_id=game_id)
    pages["/frame"] = FRAMING_PAGE.format(target=module_server.url, game_id=game_id)
    visit = context.new_page()
    with visit.expect_navigation(url=f"{module_server.url}/api/games/{game_id}/resign"):
        visit.goto(attacker + "/")
    assert "unsupported_media_type" in visit.content() or "cross_origin" in visit.content()

    after = requests.get(f"{module_server.url}/api/games/{game_id}", timeout=10).json()
    assert after["status"] == "active" and after["rematch_id"] is None
    assert after["moves"] == before["moves"]

    framed = context.new_page()
    blocked: list[str] = []
    framed.on("console", lambda message: blocked.append(message.text))
    framed.goto(attacker + "/frame")
    framed.wait_for_load_state("load")
    expect(framed.frame_locator("#framed").locator("#game-root")).to_have_count(0)
    assert any("frame-ancestors" in text or "X-Frame-Options" in text for text in blocked), blocked
