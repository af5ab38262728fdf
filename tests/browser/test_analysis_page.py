"""The analysis board in headless Chromium: a tree of variations in every game that a reload finds again, the
engine's panel equal to ``python -m engine analyse``, Connect Four's exact values drawn as the solver has them, bad
input answered on the page, and screenshots of it at a desktop's and a phone's size in both themes."""

from __future__ import annotations

import random
from pathlib import Path
from urllib.parse import urlencode

import pytest
from playwright.sync_api import Browser, Page, expect
from support.helpers import analyse_json
from support.pages import open_page

from engine.game import play_moves
from engine.games.connect4 import Connect4
from engine.truth import move_values


def press(page: Page, selector: str) -> None:
    """Press the button ``selector`` from the keyboard (focus, then Enter), as a keyboard user does. The engine's
    panel and the exact values grow above the page's buttons while their events stream in, so a pointer aimed at
    one can land on whatever has moved under it on a busy machine."""
    page.locator(selector).press("Enter")


def play(page: Page, game: str, move: str) -> None:
    """Play ``move`` (the game's notation) on the board as a person does: a click, or two for a piece's move."""
    if game == "tictactoe":
        page.click(f'[data-cell="{move}"].actionable')
    elif game == "connect4":
        page.click(f'[data-column="{move}"].actionable')
    elif game == "nim":
        pile, take = move.split(":")
        page.click(f'[data-move="{pile}:{take}"].actionable')
    elif game == "chess":
        page.click(f'[data-square="{move[:2]}"].actionable')
        page.click(f'[data-square="{move[2:4]}"].actionable')
    else:
        start, end = move.split("-")
        page.click(f'[data-square="{start}"].actionable')
        page.click(f'[data-square="{end}"].actionable')


def current_move(page: Page):
    return page.locator('#move-tree .mv[aria-current="true"]')


def legal(module_server, game: str, moves: str = "") -> list[dict]:
    return module_server.get(f"/api/analysis/{game}?{urlencode({'moves': moves})}").json()["legal"]


LINES = {
    "tictactoe": ("5", "1", "3"),
    "connect4": ("4", "4", "3"),
    "nim": ("1:1", "1:1", "1:2"),
    "chess": ("e2e4", "e7e5", "c7c5"),
}


@pytest.mark.parametrize("game", ["tictactoe", "nim", "connect4", "wolves", "chess"])
def test_a_tree_of_variations_comes_back_with_a_reload(module_server, browser: Browser, game: str) -> None:
    """Two moves, one back, another move: a variation beside the main line. A reload finds the same node, with the
    tree; the arrows walk it; promoting the variation makes it the main line."""
    if game == "wolves":
        first = legal(module_server, game)[0]["move"]
        second, other = (entry["move"] for entry in legal(module_server, game, first)[:2])
    else:
        first, second, other = LINES[game]
    page, errors = open_page(browser)
    page.goto(f"{module_server.url}/analyse/{game}?{urlencode({'moves': first})}")
    expect(page.locator("#status-main")).to_contain_text("to move")
    play(page, game, second)
    expect(page).to_have_url(f"{module_server.url}/analyse/{game}?{urlencode({'moves': f'{first} {second}'})}")
    page.keyboard.press("ArrowLeft")
    expect(page).to_have_url(f"{module_server.url}/analyse/{game}?{urlencode({'moves': first})}")
    expect(page.locator("#go-forward")).to_be_enabled()
    play(page, game, other)
    expect(page.locator("#move-tree .variation .mv")).to_have_count(1)
    expect(page.locator("#move-tree .variation .mv[aria-current='true']")).to_have_count(1)
    expect(page.locator("#status-sub")).to_contain_text("a variation")
    page.reload()
    expect(page).to_have_url(f"{module_server.url}/analyse/{game}?{urlencode({'moves': f'{first} {other}'})}")
    expect(page.locator("#move-tree .variation .mv[aria-current='true']")).to_have_count(1)
    expect(page.locator("#move-tree .mv")).to_have_count(3)
    page.keyboard.press("ArrowUp")  # to the main line's move beside it
    expect(page).to_have_url(f"{module_server.url}/analyse/{game}?{urlencode({'moves': f'{first} {second}'})}")
    page.keyboard.press("ArrowDown")  # back to the variation's move
    expect(page).to_have_url(f"{module_server.url}/analyse/{game}?{urlencode({'moves': f'{first} {other}'})}")
    press(page, "#promote")
    expect(page.locator("#move-tree .variation .mv[aria-current='true']")).to_have_count(0)
    expect(page.locator("#status-sub")).to_contain_text("main line")
    press(page, "#delete-node")
    expect(page.locator("#move-tree .mv")).to_have_count(2)
    expect(page).to_have_url(f"{module_server.url}/analyse/{game}?{urlencode({'moves': first})}")
    assert errors == []


def test_the_panel_on_a_node_equals_the_analyse_command(module_server, browser: Browser,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    expected = analyse_json("tictactoe", "51", 5, "tt", capsys)
    page, errors = open_page(browser)
    page.goto(f"{module_server.url}/analyse/tictactoe?moves=5+1")
    page.select_option('select[name="preset"]', "tt")
    page.fill('input[name="depth"]', "5")
    page.locator('input[name="depth"]').dispatch_event("change")
    expect(page.locator("#panel-state")).to_have_text("done", timeout=30_000)
    expect(page.locator("#p-nodes")).to_have_text(f"{expected['nodes']:,}")
    expect(page.locator("#p-cutoffs")).to_have_text(f"{expected['cutoffs']:,}")
    expect(page.locator("#p-score")).to_have_text(expected["score_text"])
    expect(page.locator("#tree-card")).to_be_visible()
    assert errors == []


def connect4_positions(count: int) -> list[list[str]]:
    """``count`` positions of random games (a fixed seed), 0 to 16 stones, none of them over."""
    rng = random.Random(41)
    positions: list[list[str]] = [[]]
    while len(positions) < count:
        state, moves = Connect4.initial(), []
        for _ in range(rng.randint(1, 16)):
            move = rng.choice(state.legal_moves())
            if state.play(move).outcome() is not None:
                break
            moves.append(state.move_text(move))
            state = state.play(move)
        positions.append(moves)
    return positions


def test_connect_four_values_shown_are_the_solvers(module_server, browser: Browser) -> None:
    """Twenty positions, the empty board first: every column's value on the page is the solver's."""
    page, errors = open_page(browser)
    for moves in connect4_positions(20):
        state = play_moves(Connect4.initial(), moves)
        truth = move_values(state, 60.0)
        assert truth is not None
        page.goto(f"{module_server.url}/analyse/connect4?{urlencode({'moves': ' '.join(moves)})}")
        items = page.locator("#truth-list li")
        expect(items).to_have_count(len(truth), timeout=30_000)
        titles = {move: page.locator(f"#truth-list li[title^='{move}:']").get_attribute("title") for move in truth}
        assert {move: title.split(": ", 1)[1] for move, title in titles.items()} == {
            move: value.text for move, value in truth.items()}, moves
    assert errors == []


def test_a_bad_position_gets_a_clear_error_on_the_page(module_server, browser: Browser) -> None:
    page, errors = open_page(browser)
    page.goto(f"{module_server.url}/analyse/chess?moves=e2e4+e2e4")
    expect(page.locator("#status-sub")).to_contain_text("move 2")
    assert page.locator("#board svg").count() == 1
    assert errors == []
    assert page.goto(f"{module_server.url}/analyse/checkers").status == 404


@pytest.mark.parametrize(("width", "height", "scheme"), [(1400, 900, "light"), (1400, 900, "dark"),
                                                          (390, 844, "light"), (390, 844, "dark")])
def test_screenshots(module_server, browser: Browser, artifacts: Path, width: int, height: int, scheme: str) -> None:
    """The empty Connect Four board with its seven values, a chess node of a variation tree with the engine's three
    best lines, a tic-tac-toe node with its search tree."""
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
    page = context.new_page()
    size = f"{width}x{height}-{scheme}"
    page.goto(f"{module_server.url}/analyse/connect4")
    expect(page.locator("#truth-list li")).to_have_count(7, timeout=30_000)
    expect(page.locator("#p-depth")).not_to_have_text("–", timeout=30_000)
    page.screenshot(path=artifacts / f"analysis-connect4-{size}.png", full_page=True)
    page.goto(f"{module_server.url}/analyse/chess?moves=e2e4+e7e5+g1f3")
    expect(page.locator("#status-main")).to_contain_text("Black to move")
    page.select_option('select[name="lines"]', "3")
    page.keyboard.press("ArrowLeft")
    play(page, "chess", "f2f4")
    page.keyboard.press("ArrowLeft")
    play(page, "chess", "b1c3")
    expect(page.locator("#move-tree .variation")).to_have_count(2)
    expect(page.locator("#status-sub")).to_contain_text("a variation")
    expect(page.locator("#p-lines-block")).to_be_visible(timeout=30_000)
    expect(page.locator("#p-lines li")).to_have_count(3)
    page.screenshot(path=artifacts / f"analysis-chess-{size}.png", full_page=True)
    page.goto(f"{module_server.url}/analyse/tictactoe?moves=5")
    page.fill('input[name="depth"]', "4")
    page.locator('input[name="depth"]').dispatch_event("change")
    expect(page.locator("#tree-card")).to_be_visible(timeout=30_000)
    page.screenshot(path=artifacts / f"analysis-tictactoe-{size}.png", full_page=True)


def test_the_tree_names_a_probe_and_its_re_search(module_server, browser: Browser) -> None:
    """Tic-tac-toe after 5, depth 4: principal-variation search probes moves with a null window and searches some
    again; the tree lists each of those twice, marked "probe" then "re-search", and its legend says what they are."""
    page, errors = open_page(browser)
    page.goto(f"{module_server.url}/analyse/tictactoe?moves=5")
    page.fill('input[name="depth"]', "4")
    page.locator('input[name="depth"]').dispatch_event("change")
    expect(page.locator("#tree-card")).to_be_visible(timeout=30_000)
    press(page, "#tree-expand")
    expect(page.locator("#tree .tnode.probe").first).to_be_visible()
    assert page.locator("#tree .tnode.probe").count() == page.locator("#tree .tnode.research").count()
    description = page.locator("#tree .tnode.probe").first.get_attribute("aria-description")
    assert "null-window probe" in description
    expect(page.locator(".tree-legend")).to_contain_text("probe, then re-search")
    assert errors == []


def test_the_moves_copy_as_pgn_with_their_variations(module_server, browser: Browser) -> None:
    """Chess: 1. e4 e5 2. Nf3, then 2. f4 and 2. Nc3 beside it, and 2... Nc6 after f4: the copied PGN keeps every
    variation where it branches; each move is announced to screen readers."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, permissions=["clipboard-read",
                                                                                      "clipboard-write"])
    page = context.new_page()
    page.goto(f"{module_server.url}/analyse/chess?moves=e2e4+e7e5+g1f3")
    expect(page.locator("#status-main")).to_have_text("Black to move")
    expect(page.locator("#announcer")).to_have_text("Move 2, White: Nf3")
    page.keyboard.press("ArrowLeft")
    play(page, "chess", "f2f4")
    expect(page.locator("#announcer")).to_have_text("Move 2, White: f4, a variation")
    play(page, "chess", "b8c6")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    play(page, "chess", "b1c3")
    # The Clipboard API writes only while the document has the focus (as it has for a person who just clicked in it).
    page.bring_to_front()
    press(page, "#copy-moves")
    expect(page.locator("#toast")).to_have_text("PGN copied.")
    pgn = page.evaluate("navigator.clipboard.readText()")
    assert pgn.splitlines()[0] == '[Event "Analysis"]'
    assert pgn.rstrip().endswith("1. e4 e5 2. Nf3 (2. f4 Nc6) (2. Nc3) *")


CENTRE = """(selector) => {
    const rect = document.querySelector(selector)?.getBoundingClientRect();
    return rect ? [rect.x + rect.width / 2, rect.y + rect.height / 2] : null;
}"""
"""The centre of the element a selector names, in the page's pixels, once there is one."""


def press_through_redraws(page: Page, cell: str) -> None:
    """A click on ``cell`` whose press and release are split by two redraws of the board (flipped and back), as when
    the server's answers arrive mid-click: the release lands on a redrawn cell, not on the one pressed."""
    centre = page.wait_for_function(CENTRE, arg=cell).json_value()  # read at once: a redraw may come any time
    page.mouse.move(*centre)
    page.mouse.down()
    for _ in range(2):
        page.locator("#flip").dispatch_event("click")
    expect(page.locator("#flip")).to_have_attribute("aria-pressed", "false")
    page.mouse.up()


@pytest.mark.parametrize("game", ["connect4", "chess"])
def test_a_click_is_not_lost_when_the_board_is_redrawn_under_it(module_server, browser: Browser, game: str) -> None:
    """The board is redrawn whenever the server says more of the node (its values, the engine's best move): a click
    that began before such a redraw and ends after it still plays."""
    page, errors = open_page(browser)
    page.goto(f"{module_server.url}/analyse/{game}")
    expect(page.locator("#status-main")).to_contain_text("to move")
    if game == "chess":
        press_through_redraws(page, '[data-square="e2"].actionable')
        expect(page.locator('[data-square="e4"]')).to_have_attribute("aria-label", "e4: empty, move e2 here")
        press_through_redraws(page, '[data-square="e4"].actionable')
    else:
        press_through_redraws(page, '[data-column="4"].actionable')
    expect(current_move(page)).to_have_count(1)
    expect(page.locator("#move-tree .mv")).to_have_count(1)  # played once: the release acts only where no click came
    assert errors == []
