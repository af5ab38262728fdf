"""The lab in headless Chromium: opened from a game page on its position, two searches compared in a table."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Browser, expect


def test_lab_compares_two_searches_from_a_game_position(live_server, browser: Browser, artifacts: Path) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    created = live_server.post("/api/games", {"game": "tictactoe", "opponent": {"type": "friend"}}).json()
    live_server.post(f"/api/games/{created['id']}/alone", {"token": created["token"]})
    moved = live_server.post(f"/api/games/{created['id']}/moves", {"move": "5", "token": created["token"]})
    assert moved.status_code == 200, moved.text
    page.goto(live_server.url + created["url"])
    expect(page.locator("#lab-link")).to_have_attribute("href", "/lab?game=tictactoe&setup=5")
    page.click("#lab-link")
    page.wait_for_url("**/lab?*")
    expect(page.locator('select[name="game"]')).to_have_value("tictactoe")
    expect(page.locator('input[name="setup"]')).to_have_value("5")
    page.fill('input[name="moves"]', "1")
    page.select_option('select[name="preset0"]', "minimax")
    page.fill('input[name="depth0"]', "4")
    page.select_option('select[name="preset1"]', "everything")
    page.fill('input[name="depth1"]', "4")
    page.click("#lab-run")
    rows = page.locator("#lab-table tbody tr")
    expect(rows).to_have_count(2)
    expect(page.locator('#lab-table tbody tr[data-state="done"]')).to_have_count(2, timeout=30_000)
    expect(page.locator("#lab-agree")).to_contain_text("At depth 4 the 2 values agree")
    minimax, everything = (rows.nth(i).locator("td") for i in range(2))
    assert minimax.nth(6).inner_text() == "0"  # minimax prunes nothing
    assert everything.nth(6).inner_text() != "0"
    assert minimax.nth(10).inner_text() == everything.nth(10).inner_text() == "yes"
    page.screenshot(path=artifacts / "lab.png", full_page=True)
    assert errors == []


def test_the_lab_compares_only_searches_of_the_same_depth(module_server, browser: Browser) -> None:
    """Chess after 1.e4 e5 2.Nf3 Nc6 at depth 4: minimax, given 0.05 s, does not get there and is not compared;
    the three alpha-beta searches that do agree to the shown precision; the best move is written in SAN."""
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.goto(f"{module_server.url}/lab?game=chess")
    page.fill('input[name="moves"]', "e2e4 e7e5 g1f3 b8c6")
    for column, preset in enumerate(["minimax", "ordering", "tt", "everything"]):
        page.select_option(f'select[name="preset{column}"]', preset)
        page.fill(f'input[name="depth{column}"]', "4")
        page.fill(f'input[name="time{column}"]', "0.05" if preset == "minimax" else "30")
    page.click("#lab-run")
    expect(page.locator('#lab-table tbody tr[data-state="done"]')).to_have_count(4, timeout=90_000)
    rows = page.locator("#lab-table tbody tr")
    assert rows.nth(0).locator("td").nth(10).inner_text() == "no value: no depth completed"
    assert [rows.nth(i).locator("td").nth(10).inner_text() for i in (1, 2, 3)] == ["yes", "yes", "yes"]
    best = [rows.nth(i).locator("td").nth(4).inner_text() for i in range(4)]
    assert best[0] == "–"  # minimax completed no depth: it has no best move
    assert not any(re.fullmatch(r"[a-h][1-8][a-h][1-8][qrbn]?", move) for move in best), best  # SAN, not UCI
    expect(page.locator("#lab-agree")).to_contain_text("At depth 4 the 3 values agree")
    expect(page.locator("#lab-agree")).to_contain_text("Not compared: Minimax (depth 0 of the 4 asked)")


def test_a_search_proven_before_its_depth_is_compared_with_deeper_ones(module_server, browser: Browser) -> None:
    """Tic-tac-toe after 5 1 at depth 9: every technique proves the value at depth 7 and stops there (the game's
    value, which every deeper search finds); minimax, one pass at depth 9, finds the same, and the two agree."""
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.goto(f"{module_server.url}/lab?game=tictactoe&setup=5")
    page.fill('input[name="moves"]', "1")
    for column, preset in enumerate(["minimax", "everything"]):
        page.select_option(f'select[name="preset{column}"]', preset)
        page.fill(f'input[name="depth{column}"]', "9")
    page.click("#lab-run")
    expect(page.locator('#lab-table tbody tr[data-state="done"]')).to_have_count(2, timeout=60_000)
    rows = page.locator("#lab-table tbody tr")
    assert [rows.nth(i).locator("td").nth(2).inner_text() for i in range(2)] == ["9", "7"]
    assert [rows.nth(i).locator("td").nth(10).inner_text() for i in range(2)] == ["yes", "yes"]
    expect(page.locator("#lab-agree")).to_contain_text("At depth 9 the 2 values agree (+0) (1 proven")
