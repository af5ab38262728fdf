"""Takes the README's screenshots: ``.venv/bin/python docs/screenshots/take.py``.

Starts the app with gunicorn on a free loopback port (an empty database in a temporary folder), starts a few games
so the home page has something to show, then drives headless Chromium: ``home.png`` is the home page, ``game.png``
a Connect Four game against the engine, taken while the engine thinks.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from browser.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from servers import LiveServer  # noqa: E402

OUT = Path(__file__).resolve().parent
VIEWPORT = {"width": 1280, "height": 820}


def start_background_games(server: LiveServer) -> None:
    """A few games in progress for the home page's list."""
    server.post("/api/games", {"game": "connect4", "opponent": {"type": "engines", "levels": [3, 6]}})
    server.post("/api/games", {"game": "nim", "options": {"piles": [3, 4, 5]}, "opponent": {"type": "friend"}})
    server.post("/api/games", {"game": "tictactoe", "opponent": {"type": "engine", "level": 5}, "side": 1})


def main() -> None:
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        server = LiveServer(Path(folder) / "instance", env={"ARENA_WORKERS": "2"}).start()
        try:
            start_background_games(server)
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport=VIEWPORT, color_scheme="dark")
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
                page.click(f'[aria-label="Drop a disc in column {column}"]')
                page.wait_for_function(f"document.querySelectorAll('#moves button[data-ply]').length > {played}")
            page.wait_for_function("document.querySelector('#panel-state').dataset.state === 'thinking'"
                                   " && document.querySelectorAll('#p-depth-chart rect.bar').length >= 9")
            page.mouse.move(2, 2)
            page.screenshot(path=OUT / "game.png")
            browser.close()
        finally:
            server.stop()


if __name__ == "__main__":
    main()
