"""The engine's searches stay: a late spectator sees the panel as the last search ended, and a past engine move
selected in the move list shows its own stored search, in headless Chromium against a real gunicorn."""

from __future__ import annotations

import re
from pathlib import Path

import requests
from playwright.sync_api import Browser, expect

ENGINE_TIMEOUT_MS = 30_000
ENGINE_FIRST = {"game": "tictactoe", "side": 1, "opponent": {"type": "engine", "depth": 5, "algorithm": "alphabeta"}}


def expect_count(counter, value: int) -> None:
    """The panel counter shows ``value`` once its count-up animation has ended."""
    expect(counter).to_have_text(re.compile(rf"^{value:,}$"))


def test_a_late_spectator_and_a_past_move_show_the_stored_search(live_server, browser: Browser,
                                                                  artifacts: Path) -> None:
    created = requests.post(live_server.url + "/api/games", json=ENGINE_FIRST, timeout=10).json()
    game_url = f"{live_server.url}/g/{created['id']}"
    api = f"{live_server.url}/api/games/{created['id']}"
    player = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    errors: list[str] = []
    player.on("pageerror", lambda error: errors.append(str(error)))
    player.request.post(f"{api}/seats", data={"token": created["token"]})
    player.goto(game_url)
    player.wait_for_selector(".grid-cell.actionable", timeout=ENGINE_TIMEOUT_MS)
    first = requests.get(f"{api}/searches/1", timeout=10).json()["info"]

    spectator = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    spectator.on("pageerror", lambda error: errors.append(str(error)))
    spectator.goto(game_url)
    expect(spectator.locator("#panel-state")).to_have_text("done")
    expect(spectator.locator("#p-nodes")).not_to_have_text("–")
    expect_count(spectator.locator("#p-nodes"), first["nodes"])
    assert spectator.inner_text("#p-score") == first["score_text"]
    strip, board = spectator.locator("#engine-strip"), spectator.locator("#board").bounding_box()
    expect(strip).to_contain_text(f"done · {first['score_text']} for X · depth 5/{first['seldepth']}")
    assert board["y"] >= 0 and strip.bounding_box()["y"] + strip.bounding_box()["height"] <= 844, \
        "on a phone the board and the engine's summary do not fit on the first screen"
    spectator.screenshot(path=artifacts / "late-spectator-phone.png")
    spectator.locator("#panel").screenshot(path=artifacts / "late-spectator-panel-phone.png")

    player.locator(".grid-cell.actionable").first.click()
    player.wait_for_function("() => document.querySelectorAll('#moves button[data-ply]').length >= 3",
                             timeout=ENGINE_TIMEOUT_MS)
    expect(player.locator("#panel-state")).to_have_text("done")
    third = requests.get(f"{api}/searches/3", timeout=10).json()["info"]
    expect_count(player.locator("#p-nodes"), third["nodes"])

    player.click('#moves button[data-ply="1"]')
    expect(player.locator("#panel-state")).to_have_text("stored search")
    expect(player.locator("#p-engine")).to_have_text("move 1 · alphabeta · depth 5")
    expect(player.locator("#p-nodes")).to_have_text(re.compile(r"\d"))
    player.wait_for_function(f"() => document.querySelector('#p-nodes').dataset.value === '{first['nodes']}'")
    expect(player.locator("#p-iterations")).to_be_visible()
    assert player.get_attribute("#p-iteration", "max") == str(len(first["iterations"])) == "5"
    expect(player.locator("#p-iteration-text")).to_contain_text("Depth 5 (the last")
    player.locator("#p-iteration").fill("1")
    depth_one = first["iterations"][0]
    expect(player.locator("#p-iteration-text")).to_contain_text(
        f"Depth 1: best {depth_one['best']}, score {depth_one['score_text']}")
    expect(player.locator("#tree-summary")).to_contain_text("An earlier iteration, depth 1")
    assert player.locator("#tree .tnode").count() == 1 + len(depth_one["tree"]["children"])
    player.screenshot(path=artifacts / "past-move-search.png", full_page=True)
    player.click('#moves button[data-ply="2"]')  # the player's own move: the live search again
    expect(player.locator("#panel-state")).to_have_text("done")
    player.click("#back-live")
    expect(player.locator("#panel-state")).to_have_text("done")
    expect_count(player.locator("#p-nodes"), third["nodes"])
    assert errors == []
