"""Takes the README's screenshots: ``.venv/bin/python docs/screenshots/take.py``.

Starts the app with gunicorn on a free loopback port (an empty database in a temporary folder), starts a few games
so the home page has something to show, then drives headless Chromium: ``home.png`` is the home page, ``game.png``
a Connect Four game against the engine, taken while the engine thinks; ``analysis-chess.png`` the analysis board on
a chess position of a tree of variations with the engine's three best lines, ``analysis-connect4-phone.png`` the
empty Connect Four board with every column's exact value on a phone, ``analysis-chess-ending.png`` king and pawn against
king, every move's distance to mate read from our endgame tables; ``steps-chess.png`` the search stepper at a
node the transposition table cut, ``steps-connect4-phone.png`` the stepper at a cut-off on a phone.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from playwright.sync_api import Browser, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from browser.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from servers import LiveServer  # noqa: E402

from engine.games import game_class  # noqa: E402
from engine.search.info import SearchOptions  # noqa: E402
from engine.search.steps import entry_step  # noqa: E402
from engine.stepper import record_search  # noqa: E402

OUT = Path(__file__).resolve().parent
"""The pages are opened with their content security policy bypassed: Playwright's waits for a condition evaluate
its text, which the policy (no ``eval``) forbids."""
VIEWPORT = {"width": 1280, "height": 820}


def start_background_games(server: LiveServer) -> None:
    """A few games in progress for the home page's list."""
    server.post("/api/games", {"game": "connect4", "opponent": {"type": "engines", "levels": [3, 6]}})
    server.post("/api/games", {"game": "nim", "options": {"piles": [3, 4, 5]}, "opponent": {"type": "friend"}})
    server.post("/api/games", {"game": "tictactoe", "opponent": {"type": "engine", "level": 5}, "side": 1})


def take_analysis(browser: Browser, server: LiveServer) -> None:
    """The analysis board: chess after 1. e4 e5 with 2. Nf3, 2. f4 and 2. Nc3 (the last shown, three lines), light
    theme; Connect Four's empty board on a phone, dark theme."""
    page = browser.new_page(viewport={"width": 1400, "height": 900}, color_scheme="light", bypass_csp=True)
    page.goto(server.url + "/analyse/chess?moves=e2e4+e7e5+g1f3")
    page.wait_for_function("document.querySelector('#status-main').textContent === 'Black to move'")
    page.select_option('select[name="lines"]', "3")
    for move in ("f2f4", "b1c3"):
        page.keyboard.press("ArrowLeft")
        page.wait_for_function("document.querySelector('#status-main').textContent === 'White to move'")
        page.click(f'[data-square="{move[:2]}"].actionable')
        page.click(f'[data-square="{move[2:]}"].actionable')
    page.wait_for_function("document.querySelector('#status-sub').textContent.includes('a variation')"
                           " && document.querySelectorAll('#p-lines li').length === 3"
                           " && document.querySelector('#p-depth').textContent.startsWith('4')")
    page.screenshot(path=OUT / "analysis-chess.png", full_page=True)
    phone = browser.new_page(viewport={"width": 390, "height": 844}, color_scheme="dark", bypass_csp=True)
    phone.goto(server.url + "/analyse/connect4")
    phone.wait_for_function("document.querySelectorAll('#truth-list li').length === 7"
                            " && parseInt(document.querySelector('#p-depth').textContent, 10) >= 8")
    phone.screenshot(path=OUT / "analysis-connect4-phone.png", full_page=True)
    ending = browser.new_page(viewport={"width": 1400, "height": 900}, color_scheme="light", bypass_csp=True)
    ending.goto(server.url + "/analyse/chess?setup=4k3/8/4K3/4P3/8/8/8/8+w+-+-+0+1")
    ending.wait_for_function("document.querySelectorAll('#truth-list li').length === 4"
                             " && document.querySelector('#panel-state').dataset.state === 'done'")
    ending.screenshot(path=OUT / "analysis-chess-ending.png", full_page=True)


def table_cut_step(game: str, moves: str, depth: int) -> int:
    """The stepper's step at which the search of ``moves`` to ``depth`` enters its first node the transposition
    table cut."""
    state = game_class(game).initial()
    for text in moves.split():
        state = state.play(state.parse_move(text))
    record = record_search(state, depth, SearchOptions()).record
    assert record is not None, "small enough to record"
    return entry_step(record, record["tt"].index("c"))


def take_steps(browser: Browser, server: LiveServer) -> None:
    """The search stepper: a chess node the table cut (returning its stored value), light theme; a Connect Four
    cut-off on a phone, dark theme."""
    moves = "e2e4 e7e5 g1f3 b8c6"
    page = browser.new_page(viewport={"width": 1400, "height": 900}, color_scheme="light", bypass_csp=True)
    step = table_cut_step("chess", moves, 4) + 1  # its return
    page.goto(f"{server.url}/steps/chess?moves={moves.replace(' ', '+')}&depth=4&step={step}")
    page.wait_for_function("document.querySelector('#step-body').textContent.includes('transposition table')")
    page.wait_for_load_state("networkidle")  # the pieces' images
    page.screenshot(path=OUT / "steps-chess.png", full_page=True)
    phone = browser.new_page(viewport={"width": 390, "height": 844}, color_scheme="dark", bypass_csp=True,
                             reduced_motion="reduce")  # each step's disc drops in: the picture waits for none
    phone.goto(f"{server.url}/steps/connect4?moves=4+4+3&depth=7")
    phone.wait_for_function("!document.querySelector('#step-range').disabled")
    for _ in range(3):
        phone.keyboard.press("c")
    phone.wait_for_function("document.querySelector('#step-body').textContent.includes('Cut-off')")
    phone.screenshot(path=OUT / "steps-connect4-phone.png", full_page=True)


def main() -> None:
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        server = LiveServer(Path(folder) / "instance", env={"ARENA_WORKERS": "2"}).start()
        try:
            start_background_games(server)
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport=VIEWPORT, color_scheme="dark", bypass_csp=True)
            page.goto(server.url + "/")
            page.click('.game-card[data-game="connect4"]')
            page.wait_for_selector("#live-list .live-item")
            page.screenshot(path=OUT / "home.png", full_page=True)

            page.check('input[name="opponent"][value="custom"]', force=True)
            page.fill('input[name="depth"]', "40")
            page.fill('input[name="time"]', "5")
            page.click("#play")
            page.wait_for_url("**/g/*")
            for column in ("4", "3", "5"):
                page.wait_for_selector(".c4-col.legal", timeout=30_000)
                played = page.locator("#moves button[data-ply]").count()
                page.click(f'[data-column="{column}"].actionable')
                page.wait_for_function(f"document.querySelectorAll('#moves button[data-ply]').length > {played}")
            page.wait_for_function("document.querySelector('#panel-state').dataset.state === 'thinking'"
                                   " && document.querySelectorAll('#p-depth-chart rect.bar').length >= 9")
            page.mouse.move(2, 2)
            page.screenshot(path=OUT / "game.png")
            take_analysis(browser, server)
            take_steps(browser, server)
            browser.close()
        finally:
            server.stop()


if __name__ == "__main__":
    main()
