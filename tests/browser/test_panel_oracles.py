"""A move from an oracle (a solved table, the opening book) had no search, and the panel says so: no search counters,
the source named once; the solver's move shows the solver's own counters; a search's branching factor only from its
second depth (headless Chromium, real gunicorn)."""

from __future__ import annotations

from pathlib import Path

import requests
from playwright.sync_api import Browser, expect
from support.servers import LiveServer

ENGINE_TIMEOUT_MS = 60_000
COUNTERS = ("#p-depth", "#p-nodes", "#p-pruned", "#p-cutoffs", "#p-tt", "#p-nps", "#p-ebf")


def engine_first(server: LiveServer, browser: Browser, body: dict, width: int = 1280, height: int = 900):
    """A page on a new game in which the engine moves first, once its move is in."""
    created = requests.post(server.url + "/api/games", json={**body, "side": 1}, timeout=10).json()
    page = browser.new_context(viewport={"width": width, "height": height}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server.url + created["url"])
    expect(page.locator("#panel-state")).not_to_have_text("thinking", timeout=ENGINE_TIMEOUT_MS)
    expect(page.locator("#moves button[data-ply]")).to_have_count(1, timeout=ENGINE_TIMEOUT_MS)
    return page, created, errors


def test_a_table_move_shows_no_search_counters(module_server, browser: Browser) -> None:
    page, created, errors = engine_first(module_server, browser, {"game": "tictactoe",
                                                                "opponent": {"type": "engine", "level": 8}})
    record = requests.get(f"{module_server.url}/api/games/{created['id']}/searches/1", timeout=10).json()["info"]
    assert record["source"] == "table" and record["nodes"] > 0  # the table read counts its look-ups
    for counter in COUNTERS:
        expect(page.locator(counter)).to_have_text("–")
    expect(page.locator("#p-time")).not_to_have_text("–")
    expect(page.locator("#p-score-who")).to_contain_text("read from the solved table")
    assert errors == []


def test_a_book_move_names_its_source_once(module_server, browser: Browser, artifacts: Path) -> None:
    page, created, errors = engine_first(module_server, browser, {"game": "chess",
                                                                "opponent": {"type": "engine", "level": 5}},
                                         width=390, height=844)
    record = requests.get(f"{module_server.url}/api/games/{created['id']}/searches/1", timeout=10).json()["info"]
    assert record["source"] == "book" and record["score_text"].startswith("opening book · ")
    strip = page.locator("#engine-strip")
    expect(strip).to_contain_text(record["score_text"])
    assert strip.inner_text().count("opening book") == 1
    assert "nodes" not in strip.inner_text()
    for counter in COUNTERS:
        expect(page.locator(counter)).to_have_text("–")
    page.screenshot(path=artifacts / "panel-book-move-phone.png")
    assert errors == []


def test_branching_waits_for_a_second_depth(module_server, browser: Browser) -> None:
    page, _, errors = engine_first(module_server, browser, {"game": "connect4", "opponent": {
        "type": "engine", "depth": 1, "algorithm": "alphabeta"}})
    expect(page.locator("#p-depth")).to_have_text("1/1")
    expect(page.locator("#p-ebf")).to_have_text("–")
    assert errors == []


def test_the_solvers_move_shows_the_solvers_counters(module_server, browser: Browser) -> None:
    """Connect Four at level 8 past its opening book: the solver searched to the end of the game, and the panel shows
    its depth, nodes and speed as its own (no cutoffs, pruning or TT hits, which it does not count for the panel)."""
    page, created, errors = engine_first(module_server, browser, {"game": "connect4", "setup": "4453",
                                                                "opponent": {"type": "engine", "level": 8}})
    record = requests.get(f"{module_server.url}/api/games/{created['id']}/searches/1", timeout=10).json()["info"]
    assert record["source"] == "solver" and record["nodes"] > 0
    expect(page.locator("#p-depth")).to_have_text(f"{record['depth']} to the end")
    expect(page.locator("#p-nodes")).to_have_text(f"{record['nodes']:,}")
    expect(page.locator("#p-nps")).to_have_text(f"{record['nps']:,}")
    for counter in ("#p-pruned", "#p-cutoffs", "#p-tt", "#p-ebf"):
        expect(page.locator(counter)).to_have_text("–")
    expect(page.locator("#p-depth-chart")).to_contain_text("the solver searched to the end of the game")
    assert errors == []
