"""Boards a screen reader reads and a keyboard plays (WAI-ARIA grids, static/js/boards/grid.js), in headless Chromium
against a real gunicorn: each game's board, after a few moves, names every piece, disc, mark or counter in the
accessibility tree; a whole game of tic-tac-toe and Connect Four moves are played with the keyboard alone (Tab into
the board, arrows, Enter); a chess move is selected, dropped with Escape and made with the arrows and Enter."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect
from support.pages import create_game, open_page
from support.servers import LiveServer

ENGINE_TIMEOUT_MS = 60_000

NAMED = {
    "tictactoe": ("5 1 9", ['gridcell "Cell 5: X"', 'gridcell "Cell 1: O"', 'gridcell "Cell 9: X"',
                            'gridcell "Cell 2: empty']),
    "connect4": ("4 4 3", ['gridcell "Column 4: red, yellow, 4 empty', 'gridcell "Column 3: red, 5 empty',
                           'gridcell "Column 1: 6 empty']),
    "nim": ("1:1", ['row "Pile 1, 0 counters"', 'gridcell "Pile 1: empty"', 'row "Pile 2, 4 counters"',
                    'gridcell "Take 1 from pile 2 of 4', 'gridcell "Take 4 from pile 2 of 4']),
    "wolves": ("", ['1: rabbit, ', 'gridcell "b8: wolf"', 'gridcell "h8: wolf"', 'gridcell "a1: empty"']),
    "chess": ("e2e4 c7c5", ['row "Rank 8"', 'gridcell "e4: white pawn', 'gridcell "c5: black pawn"',
                            'gridcell "e8: black king"', 'gridcell "e2: empty']),
}
"""An analysis node of each game and what its board's accessibility tree must name (a name may go on with the move's
exact value, which the analysis board adds)."""


@pytest.mark.parametrize("game", list(NAMED))
def test_every_piece_is_named(module_server, browser: Browser, game: str) -> None:
    moves, names = NAMED[game]
    page, errors = open_page(browser)
    setup = "&setup=1,4" if game == "nim" else ""  # Nim: piles of 0 and 4 after the move
    page.goto(f"{module_server.url}/analyse/{game}?moves={moves.replace(' ', '+')}{setup}")
    expect(page.locator("#board [role=grid]")).to_be_visible()
    expect(page.locator("#status-main")).to_contain_text("to move")
    snapshot = page.locator("#board").aria_snapshot()
    for name in names:
        assert name in snapshot, (name, snapshot)
    assert errors == []


def tab_into_board(page: Page) -> None:
    """Press Tab until the keyboard focus is on the board (one Tab stop)."""
    for _ in range(60):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.getAttribute('role') === 'gridcell'"):
            return
    raise AssertionError("Tab never reached the board")


def walk_to(page: Page, selector: str) -> None:
    """Move the board's focus with the arrow keys from the focused cell to the cell ``selector`` names."""
    expect(page.locator(f"#board {selector}")).to_be_visible()
    for _ in range(20):
        target = page.locator(f"#board {selector}").bounding_box()
        assert target is not None
        here = page.evaluate("(() => { const b = document.activeElement.getBoundingClientRect();"
                             " return {x: b.x + b.width / 2, y: b.y + b.height / 2}; })()")
        dx = target["x"] + target["width"] / 2 - here["x"]
        dy = target["y"] + target["height"] / 2 - here["y"]
        if abs(dx) < target["width"] / 2 and abs(dy) < target["height"] / 2:
            return
        if abs(dx) >= target["width"] / 2:
            page.keyboard.press("ArrowRight" if dx > 0 else "ArrowLeft")
        else:
            page.keyboard.press("ArrowDown" if dy > 0 else "ArrowUp")
    raise AssertionError(f"the arrows never reached {selector}")


def open_engine_game(page: Page, server: LiveServer, game: str, playable: int) -> None:
    """A new game of ``game`` against the engine's first level, the visitor to move with ``playable`` moves."""
    created = create_game(page, server, {"game": game, "opponent": {"type": "engine", "level": 1}, "side": 0})
    page.goto(server.url + created["url"])
    expect(page.locator("#board .grid-cell.actionable")).to_have_count(playable)


def test_a_whole_game_of_tictactoe_with_the_keyboard_alone(module_server, browser: Browser) -> None:
    page, errors = open_page(browser)
    open_engine_game(page, module_server, "tictactoe", playable=9)
    tab_into_board(page)
    for ply in range(0, 9, 2):
        if page.locator("#status.over").count():
            break
        cell = page.locator("#board .grid-cell.actionable").first.get_attribute("data-cell")
        walk_to(page, f'[data-cell="{cell}"]')
        page.keyboard.press("Enter")
        expect(page.locator(f'#moves button[data-ply="{ply + 1}"]')).to_have_count(1)
        focused = page.evaluate("document.activeElement.getAttribute('role')")
        assert focused == "gridcell", "the focus stays on the board"
        # the engine's reply, or the end of the game
        expect(page.locator(f'#moves button[data-ply="{ply + 2}"], #status.over')).not_to_have_count(
            0, timeout=ENGINE_TIMEOUT_MS)
    expect(page.locator("#status.over")).to_have_count(1, timeout=ENGINE_TIMEOUT_MS)
    assert errors == []


def test_connect_four_columns_are_played_with_the_arrows(module_server, browser: Browser) -> None:
    page, errors = open_page(browser)
    open_engine_game(page, module_server, "connect4", playable=7)
    tab_into_board(page)
    page.keyboard.press("End")
    expect(page.locator("#board [role=gridcell]:focus")).to_have_attribute("data-column", "7")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Enter")
    expect(page.locator('#moves button[data-ply="1"]')).to_have_count(1)
    focused = page.locator("#board [role=gridcell]:focus")
    # our stone at the bottom of column 6; the engine's reply may already be on it
    expect(focused).to_have_attribute("aria-label", re.compile(r"^Column 6: red(, yellow, 4|, 5) empty$"))
    page.keyboard.press("ArrowLeft")  # the board's arrows never leave the live game for the move list
    expect(page.locator("#board [role=gridcell]:focus")).to_have_attribute("data-column", "5")
    assert errors == []


def test_a_chess_move_with_the_keyboard_and_escape_dropping_a_selection(module_server, browser: Browser,
                                                                        artifacts: Path) -> None:
    page, errors = open_page(browser, 390, 844)
    created = create_game(page, module_server, {"game": "chess", "opponent": {"type": "friend"}, "side": 0})
    page.context.request.post(f"{module_server.url}/api/games/{created['id']}/alone", data={})
    page.goto(module_server.url + created["url"])
    expect(page.locator("#watchers-count")).to_have_text("1")
    tab_into_board(page)
    walk_to(page, '[data-square="g1"]')
    page.keyboard.press("Enter")
    expect(page.locator('#board [data-square="g1"]')).to_have_attribute("aria-label", "g1: white knight, selected")
    expect(page.locator('#board [data-square="f3"]')).to_have_attribute("aria-label", "f3: empty, move g1 here")
    page.keyboard.press("Escape")
    expect(page.locator('#board [data-square="g1"]')).to_have_attribute("aria-label", "g1: white knight, can move")
    page.keyboard.press("Enter")
    walk_to(page, '[data-square="f3"]')
    for theme in ("dark", "light"):  # where the focus ring is, in both themes
        page.evaluate("(theme) => { document.documentElement.dataset.theme = theme; }", theme)
        page.screenshot(path=artifacts / f"board-focus-chess-390x844-{theme}.png")
    page.keyboard.press("Enter")
    expect(page.locator('#moves button[data-ply="1"]')).to_have_count(1)
    expect(page.locator('#board [data-square="f3"]')).to_have_attribute("aria-label", "f3: white knight")
    assert errors == []


def test_moves_are_announced_with_what_they_do_and_the_position_is_read(module_server, browser: Browser) -> None:
    """A capture and a check said in words; R on the board, or the button, says the whole position."""
    page, errors = open_page(browser)
    created = create_game(page, module_server, {"game": "chess", "opponent": {"type": "friend"}, "side": 0,
                                                "setup": "3k4/8/8/3p4/4Q3/8/8/4K3 w - - 0 1"})
    page.context.request.post(f"{module_server.url}/api/games/{created['id']}/alone", data={})
    page.goto(module_server.url + created["url"])
    expect(page.locator("#watchers-count")).to_have_text("1")
    page.click('[data-square="e4"].actionable')
    page.click('[data-square="d5"].actionable')
    expect(page.locator("#announcer")).to_have_text("White played Qxd5+: captures, check.")
    page.click("#read-position")
    expect(page.locator("#announcer")).to_have_text(
        "Rank 8: d8: black king; Rank 7: empty; Rank 6: empty; Rank 5: d5: white queen; Rank 4: empty; "
        "Rank 3: empty; Rank 2: empty; Rank 1: e1: white king")
    tab_into_board(page)
    page.keyboard.press("Escape")  # nothing selected: the key is the page's
    page.keyboard.press("r")
    expect(page.locator("#announcer")).to_contain_text("Rank 8: d8: black king")
    assert errors == []


def test_a_skip_link_leads_to_the_board(module_server, browser: Browser) -> None:
    page, errors = open_page(browser)
    page.goto(f"{module_server.url}/analyse/connect4?moves=4")
    expect(page.locator("#board [role=grid]")).to_be_visible()
    page.keyboard.press("Tab")
    expect(page.locator(".skip-link")).to_be_focused()
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.getAttribute('role')") == "gridcell"
    assert errors == []


def test_sound_is_off_until_turned_on_and_a_spectator_chooses_apart(module_server, browser: Browser) -> None:
    """The sound button starts off; turning it on is kept for the games one plays, not for those one watches."""
    page, errors = open_page(browser)
    created = create_game(page, module_server, {"game": "tictactoe", "opponent": {"type": "friend"}, "side": 0})
    page.goto(module_server.url + created["url"])
    expect(page.locator("#board [role=grid]")).to_be_visible()  # the page has drawn its game: its buttons work
    toggle = page.locator("#sound-toggle")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    page.reload()
    expect(page.locator("#sound-toggle")).to_have_attribute("aria-pressed", "true")
    spectator = page.context.new_page()  # the same browser, on a game it does not play in
    other = module_server.post("/api/games", {"game": "tictactoe", "opponent": {"type": "friend"}}).json()
    spectator.goto(module_server.url + other["url"])
    expect(spectator.locator("#sound-toggle")).to_have_attribute("aria-pressed", "false")
    assert errors == []


def test_nims_arrows_follow_the_piles_as_drawn(module_server, browser: Browser) -> None:
    """Piles stand side by side: up and down go along a pile (taking fewer or more), left and right between piles."""
    page, errors = open_page(browser)
    page.goto(f"{module_server.url}/analyse/nim?setup=3,4")
    expect(page.locator("#board [role=grid]")).to_be_visible()
    tab_into_board(page)
    focused = page.locator("#board [role=gridcell]:focus")
    expect(focused).to_have_attribute("data-move", "1:1")
    page.keyboard.press("ArrowDown")
    expect(focused).to_have_attribute("data-move", "1:2")
    page.keyboard.press("ArrowRight")
    expect(focused).to_have_attribute("data-move", "2:2")
    page.keyboard.press("ArrowUp")
    expect(focused).to_have_attribute("data-move", "2:1")
    assert errors == []
