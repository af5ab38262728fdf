"""The search stepper in headless Chromium against a real gunicorn: every game's recorded search replayed with as
many steps as the engine's own search has nodes, the keyboard and the link reopening a step, a cut-off explained, a
search too large to record, the way in from the analysis board, the lab and a game's engine search, and
screenshots of a step with a table cut at a desktop's and a phone's size in both themes."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlencode

import pytest
from playwright.sync_api import Browser, Page, expect
from support.pages import create_game, open_page

from engine.games import game_class
from engine.search.info import SearchOptions
from engine.search.steps import entry_step
from engine.stepper import record_search

SEARCHES = {
    "tictactoe": ("5 1", 5), "nim": ("", 6), "connect4": ("4 4 3", 6), "wolves": ("", 5),
    "chess": ("e2e4 e7e5 g1f3 b8c6", 4),
}
"""A position and a depth of each game whose search records quickly."""


def steps_url(server_url: str, game: str, moves: str, depth: int, step: int | None = None) -> str:
    query = {"moves": moves, "preset": "everything", "depth": depth} if moves else {"preset": "everything",
                                                                                      "depth": depth}
    if step is not None:
        query["step"] = step
    return f"{server_url}/steps/{game}?{urlencode(query)}"


def engine_nodes(game: str, moves: str, depth: int) -> tuple[int, dict]:
    """The node count and record of the same search run here by the engine itself."""
    cls = game_class(game)
    state = cls.initial()
    for text in moves.split():
        state = state.play(state.parse_move(text))
    stepped = record_search(state, depth, SearchOptions())
    assert stepped.record is not None
    return stepped.info.nodes, stepped.record


def loaded(page: Page) -> None:
    expect(page.locator("#step-range")).to_be_enabled(timeout=60_000)


@pytest.mark.parametrize("game", list(SEARCHES))
def test_the_steps_are_the_engines_own_nodes(module_server, browser: Browser, game: str) -> None:
    moves, depth = SEARCHES[game]
    nodes, _ = engine_nodes(game, moves, depth)
    page, errors = open_page(browser)
    page.goto(steps_url(module_server.url, game, moves, depth))
    loaded(page)
    expect(page.locator("#status-sub")).to_contain_text(f"{nodes:,} nodes, {2 * nodes:,} steps")
    expect(page.locator("#step-count")).to_have_text(f"Step 1 of {2 * nodes:,}")
    expect(page.locator("#step-body")).to_contain_text("the root of a pass to depth 1")
    page.keyboard.press("End")
    expect(page.locator("#step-count")).to_have_text(f"Step {2 * nodes:,} of {2 * nodes:,}")
    expect(page.locator("#step-body")).to_contain_text("returns")
    assert errors == []


def test_the_keyboard_and_the_link_reopen_a_step_and_a_cut_off_is_explained(module_server, browser: Browser) -> None:
    moves, depth = SEARCHES["connect4"]
    page, errors = open_page(browser)
    page.goto(steps_url(module_server.url, "connect4", moves, depth))
    loaded(page)
    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(steps_url(module_server.url, "connect4", moves, depth, step=2))
    page.keyboard.press("c")
    expect(page.locator("#step-body")).to_contain_text("Cut-off")
    expect(page.locator("#step-body")).to_contain_text("were never searched")
    expect(page.locator("#order-rows tr.cutter-row")).to_have_count(1)
    at = page.locator("#step-count").inner_text()
    url = page.url
    page.reload()
    loaded(page)
    expect(page.locator("#step-count")).to_have_text(at)
    assert page.url == url
    page.keyboard.press("Shift+ArrowLeft")
    expect(page.locator("#step-count")).not_to_have_text(at)
    assert errors == []


def test_chess_moves_left_out_and_cut_off_are_written_as_players_read_them(module_server, browser: Browser) -> None:
    """A chess node's facts name its moves in SAN, as its move table does, once the node's position is known."""
    moves, depth = SEARCHES["chess"]
    _, record = engine_nodes("chess", moves, depth)
    node = next(int(key) for key in record["skipped"] if "c6e7" in record["skipped"][key])
    page, errors = open_page(browser)
    page.goto(steps_url(module_server.url, "chess", moves, depth, step=entry_step(record, node)))
    loaded(page)
    facts = page.locator("#step-body")
    expect(facts).to_contain_text("Left out")
    expect(facts).to_contain_text("Nce7, h6, ")
    expect(facts).not_to_contain_text("c6e7")
    page.keyboard.press("c")  # to the next cut-off
    san = r"(?:[NBRQK][a-h]?[1-8]?x?[a-h][1-8]|[a-h]x?[a-h]?[1-8]|O-O)[+#]?"
    expect(facts).to_contain_text(re.compile(f"move, {san}, "))
    assert errors == []


def test_a_search_too_large_to_record_offers_a_lower_depth(module_server, browser: Browser) -> None:
    page, errors = open_page(browser)
    page.goto(steps_url(module_server.url, "connect4", "", 14))
    expect(page.locator("#status-sub")).to_contain_text("Too large to record", timeout=60_000)
    smaller = page.get_by_role("link", name="Record depth")
    expect(smaller).to_be_visible()
    smaller.click()
    loaded(page)
    assert errors == []


def test_the_analysis_board_and_the_lab_lead_to_the_stepper(module_server, browser: Browser) -> None:
    page, errors = open_page(browser)
    page.goto(f"{module_server.url}/analyse/tictactoe?moves=5+1")
    expect(page.locator("#p-depth")).not_to_have_text("–", timeout=30_000)
    page.fill('input[name="depth"]', "3")
    page.locator('input[name="depth"]').blur()  # its change starts the search again
    expect(page.locator("#engine-steps")).to_have_attribute(
        "href", "/steps/tictactoe?moves=5+1&preset=everything&depth=3")
    expect(page.locator("#p-depth")).to_contain_text("3", timeout=30_000)  # the page settled: nothing moves now
    page.click("#engine-steps")
    loaded(page)
    page.goto(f"{module_server.url}/lab?game=tictactoe&setup=5")
    page.fill('input[name="depth0"]', "3")
    page.click("#lab-run")
    link = page.get_by_role("link", name="Step through").first
    expect(link).to_be_visible(timeout=60_000)
    link.click()
    loaded(page)
    expect(page.locator("#search-summary")).to_contain_text("to depth 3")
    assert errors == []


def test_a_games_engine_search_leads_to_the_stepper(module_server, browser: Browser) -> None:
    page, errors = open_page(browser)
    body = {"game": "tictactoe", "side": 0, "opponent": {"type": "engine", "level": 3}}
    page.goto(module_server.url + create_game(page, module_server, body)["url"])
    page.click('[data-cell="5"].actionable')
    link = page.locator("#p-steps")
    expect(link).to_be_visible(timeout=60_000)
    assert link.get_attribute("href").startswith("/steps/tictactoe?moves=5&preset=everything&depth=")
    link.click()
    loaded(page)
    assert errors == []


@pytest.mark.parametrize(("width", "height", "scheme"), [(1400, 900, "light"), (1400, 900, "dark"),
                                                          (390, 844, "light"), (390, 844, "dark")])
def test_screenshots(module_server, browser: Browser, artifacts: Path, width: int, height: int, scheme: str) -> None:
    """A tic-tac-toe, a Connect Four and a chess step at a node the table cut."""
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
    page = context.new_page()
    for game in ("tictactoe", "connect4", "chess"):
        moves, depth = SEARCHES[game]
        _, record = engine_nodes(game, moves, depth)
        node = record["tt"].index("c")
        page.goto(steps_url(module_server.url, game, moves, depth, step=entry_step(record, node)))
        loaded(page)
        expect(page.locator("#step-body")).to_contain_text("table hit that cut")
        page.keyboard.press("ArrowRight")  # its return: the stored value answers the window
        expect(page.locator("#step-body")).to_contain_text("the transposition table")
        page.screenshot(path=artifacts / f"steps-{game}-{width}x{height}-{scheme}.png", full_page=True)
