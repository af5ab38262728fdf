"""Whole games in headless Chromium against a real gunicorn: what a person sees and does on the pages."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect
from support.pages import open_page
from support.servers import SearchFreezer
from support.waiting import eventually

ENGINE_TIMEOUT_MS = 30_000


def move_count(page: Page) -> int:
    return page.locator("#moves button[data-ply]").count()


def progress_of(ply: int) -> Callable[[dict[str, Any]], bool]:
    """Matches a search event of the search at ``ply`` that reports progress with a favourite move."""
    return lambda event: (event["ply"] == ply and event["info"]["kind"] in ("progress", "depth")
                          and event["info"]["nodes"] > 0 and event["info"].get("best") is not None)


def test_connect_four_against_the_engine_with_a_spectator(live_server, browser: Browser, artifacts: Path) -> None:
    player, player_errors = open_page(browser)
    player.goto(live_server.url + "/")
    player.click('.game-card[data-game="connect4"]')
    player.check('input[name="opponent"][value="custom"]', force=True)
    player.select_option('select[name="algorithm"]', "alphabeta")
    player.fill('input[name="depth"]', "30")
    player.fill('input[name="time"]', "3")
    player.click("#play")
    player.wait_for_url("**/g/*")
    game_url = player.url

    with SearchFreezer(live_server, game_url.rsplit("/", 1)[1]) as freezer:
        freezer.freeze_at(progress_of(1))
        player.click('[data-column="4"].actionable')
        freezer.wait_frozen()
        expect(player.locator("#panel-state")).to_have_text("thinking", ignore_case=True)
        # the panel shows the count of the last event the search sent before it froze
        eventually(lambda: player.inner_text("#p-nodes") == f"{freezer.latest(1)['nodes']:,}",
                   "the panel showing the running search's node count", timeout=ENGINE_TIMEOUT_MS / 1000)
        expect(player.locator(".c4-ghost.favourite")).to_have_count(1)
        player.screenshot(path=artifacts / "connect4-thinking.png")
        freezer.thaw()
        expect(player.locator("#moves button[data-ply]")).to_have_count(2, timeout=ENGINE_TIMEOUT_MS)
    expect(player.locator(".c4-ghost.favourite")).to_have_count(0)
    expect(player.locator("#status-main")).to_contain_text("Your move")
    assert player.inner_text("#p-depth") != "–"
    assert player.locator("#p-root-moves .rm-row").count() >= 2
    assert player.locator("#p-depth-chart rect.bar").count() >= 2

    spectator, spectator_errors = open_page(browser, 375, 760)
    spectator.goto(game_url)
    expect(spectator.locator("#moves button[data-ply]")).to_have_count(2)
    expect(spectator.locator(".c4-disc:not(.c4-ghost)")).to_have_count(2)
    expect(spectator.locator(".c4-col.legal")).to_have_count(0)
    assert spectator.locator("#seat-banner").is_hidden()

    with SearchFreezer(live_server, game_url.rsplit("/", 1)[1]) as freezer:
        freezer.freeze_at(progress_of(3))
        player.click('[data-column="3"].actionable')
        expect(spectator.locator("#moves button[data-ply]")).to_have_count(3)
        freezer.wait_frozen()
        expect(spectator.locator("#panel-state")).to_have_text("thinking", ignore_case=True)
        spectator.screenshot(path=artifacts / "connect4-spectator-phone.png", full_page=True)
    expect(spectator.locator("#moves button[data-ply]")).to_have_count(4, timeout=ENGINE_TIMEOUT_MS)
    expect(spectator.locator(".c4-disc:not(.c4-ghost)")).to_have_count(4)
    expect(player.locator(".c4-disc:not(.c4-ghost)")).to_have_count(4)
    player.screenshot(path=artifacts / "connect4-player.png", full_page=True)

    spectator.click('#moves button[data-ply="1"]')
    expect(spectator.locator(".c4-disc:not(.c4-ghost)")).to_have_count(1)
    expect(spectator.locator("#back-live")).to_be_visible()
    spectator.click("#back-live")
    expect(spectator.locator(".c4-disc:not(.c4-ghost)")).to_have_count(4)
    spectator.keyboard.press("ArrowLeft")
    expect(spectator.locator(".c4-disc:not(.c4-ghost)")).to_have_count(3)
    spectator.keyboard.press("Escape")
    expect(spectator.locator(".c4-disc:not(.c4-ghost)")).to_have_count(4)
    assert player_errors == [] and spectator_errors == []


def test_tic_tac_toe_played_to_the_end_on_a_phone(live_server, browser: Browser, artifacts: Path) -> None:
    page, errors = open_page(browser, 375, 740)
    page.goto(live_server.url + "/")
    play = page.locator("#play").bounding_box()
    assert play["y"] + play["height"] <= 740 and play["height"] >= 44, "Play is not on the phone's first screen"
    page.click('.game-card[data-game="tictactoe"]')
    page.check('input[name="opponent"][value="custom"]', force=True)
    page.fill('input[name="depth"]', "9")
    page.fill('input[name="time"]', "10")
    page.click("#play")
    page.wait_for_url("**/g/*")

    status = page.locator("#status-main")
    for _ in range(5):
        page.wait_for_function(
            "() => document.querySelector('.grid-cell.actionable') || document.querySelector('#status.over')",
            timeout=ENGINE_TIMEOUT_MS)
        if page.locator("#status.over").count():
            break
        played = move_count(page)
        page.locator(".grid-cell.actionable").first.click()
        page.wait_for_function(f"() => document.querySelectorAll('#moves button[data-ply]').length > {played}")
    expect(page.locator("#status")).to_have_class(re.compile(r"\bover\b"), timeout=ENGINE_TIMEOUT_MS)
    assert status.inner_text() == "Draw" or "wins" in status.inner_text()
    assert page.inner_text("#status-sub") != ""
    expect(page.locator("#rematch")).to_be_visible()
    expect(page.locator("#tree-card")).to_be_visible()
    assert page.locator("#tree .tnode").count() >= 2
    page.locator("#tree .tnode .hit").first.click()
    expect(page.locator(".tree-tip")).to_contain_text("window [")
    page.click("#tree-expand")
    box = page.locator("#tree").bounding_box()
    for node in (page.locator("#tree .tnode").last, page.locator("#tree .tnode").nth(1)):
        node.focus()
        tip = page.locator(".tree-tip").bounding_box()
        assert box["x"] <= tip["x"] and tip["x"] + tip["width"] <= box["x"] + box["width"] + 1, (box, tip)
        assert box["y"] <= tip["y"] and tip["y"] + tip["height"] <= box["y"] + box["height"] + 1, (box, tip)

    width = page.evaluate("document.scrollingElement.scrollWidth")
    assert width <= 375, f"the page is {width} px wide on a 375 px screen"
    page.screenshot(path=artifacts / "tictactoe-phone.png", full_page=True)
    assert errors == []


def test_a_friend_takes_the_free_seat_through_the_link(live_server, browser: Browser, artifacts: Path) -> None:
    host, host_errors = open_page(browser)
    host.goto(live_server.url + "/")
    host.click('.game-card[data-game="tictactoe"]')
    host.check('input[name="opponent"][value="friend"]', force=True)
    host.click("#play")
    host.wait_for_url("**/g/*")
    expect(host.locator("#status-main")).to_have_text("Waiting for your friend to take the other seat")
    host.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    host.click("#copy-link")
    invitation = host.evaluate("navigator.clipboard.readText()")
    assert invitation.startswith(host.url + "?invite=")

    stranger, stranger_errors = open_page(browser)
    stranger.goto(host.url)
    expect(stranger.locator("#seat-banner")).to_be_visible()
    expect(stranger.locator("#seat-text")).to_contain_text("kept for the player invited")
    expect(stranger.locator("#take-seat")).to_be_hidden()
    stranger.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    stranger.click("#copy-link")
    assert stranger.evaluate("navigator.clipboard.readText()") == host.url  # a spectator shares the plain link

    friend, friend_errors = open_page(browser, 375, 740)
    friend.goto(invitation)
    expect(friend.locator("#seat-banner")).to_be_visible()
    expect(friend.locator(".grid-cell.actionable")).to_have_count(0)
    friend.click("#take-seat")
    expect(friend.locator("#seat-banner")).to_be_hidden()
    expect(friend.locator('.player[data-player="1"] .you')).to_be_visible()
    expect(host.locator("#watchers-count")).to_have_text("3")
    expect(stranger.locator("#seat-banner")).to_be_hidden()

    for page, cell in [(host, "1"), (friend, "4"), (host, "2"), (friend, "5"), (host, "3")]:
        page.click(f'[data-cell="{cell}"].actionable')
        expect(page.locator(f'#moves button[aria-label^="Move"][title$=" {cell}"]')).to_have_count(1)
    for page in (host, friend):
        expect(page.locator("#status")).to_have_class(re.compile(r"\bover\b"))
    expect(host.locator("#status-main")).to_have_text("You win! (X)")
    expect(friend.locator("#status-main")).to_have_text("X wins — you lose")
    expect(friend.locator(".win-line")).to_have_count(1)
    friend.screenshot(path=artifacts / "tictactoe-friend-phone.png", full_page=True)
    assert host_errors == [] and friend_errors == [] and stranger_errors == []


def test_a_game_open_to_anyone_is_listed_and_a_passer_by_takes_its_seat(live_server, browser: Browser) -> None:
    host, host_errors = open_page(browser)
    host.goto(live_server.url + "/")
    host.click('.game-card[data-game="tictactoe"]')
    host.check('input[name="opponent"][value="friend"]', force=True)
    host.check('input[name="open"]')
    host.click("#play")
    host.wait_for_url("**/g/*")
    expect(host.locator("#status-main")).to_have_text("Waiting for your friend to take the other seat")

    passer_by, passer_by_errors = open_page(browser)
    passer_by.goto(live_server.url + "/")
    listed = passer_by.locator(f'#live-list a[href="{host.url.removeprefix(live_server.url)}"]')
    expect(listed).to_contain_text("open seat: anyone may join")
    listed.click()
    passer_by.wait_for_url(host.url)
    passer_by.click("#take-seat")
    expect(passer_by.locator('.player[data-player="1"] .you')).to_be_visible()
    host.click('[data-cell="5"].actionable')
    expect(passer_by.locator(".grid-cell.actionable")).to_have_count(8)
    assert host_errors == [] and passer_by_errors == []


def test_the_creator_of_an_engine_game_stops_it_and_a_spectator_cannot(live_server, browser: Browser,
                                                                        artifacts: Path) -> None:
    creator, errors = open_page(browser, 390, 844)
    creator.goto(live_server.url + "/")
    creator.click('.game-card[data-game="connect4"]')
    creator.check('input[name="opponent"][value="engines"]', force=True)
    creator.click("#play")
    creator.wait_for_url("**/g/*")
    # the game stands still (its engines frozen) while the test looks, however slow the machine: else it could
    # end before the creator gets to stop it
    with SearchFreezer(live_server, creator.url.rsplit("/", 1)[1]) as freezer:
        freezer.freeze_at(lambda event: event["ply"] >= 2)
        creator.wait_for_function("() => document.querySelectorAll('#moves button[data-ply]').length >= 2",
                                  timeout=ENGINE_TIMEOUT_MS)
        freezer.wait_frozen()
        spectator, spectator_errors = open_page(browser)
        spectator.goto(creator.url)
        expect(spectator.locator("#status-main")).to_contain_text(re.compile("Red|Yellow"))
        expect(spectator.locator("#stop-game")).to_be_hidden()

        expect(creator.locator("#stop-game")).to_be_visible()
        creator.click("#stop-game")
        freezer.thaw()  # the stop cancels the search: its worker may have to run to let go of a shared lock
    expect(creator.locator("#status-main")).to_have_text("Stopped by its creator")
    expect(spectator.locator("#status-main")).to_have_text("Stopped by its creator")
    expect(creator.locator("#stop-game")).to_be_hidden()
    played = move_count(creator)
    state = creator.request.get(live_server.url + "/api/games/" + creator.url.rsplit("/", 1)[1]).json()
    assert state["result"] == {"winner": None, "reason": "stopped"} and state["ply"] == played
    creator.screenshot(path=artifacts / "engines-stopped-phone.png", full_page=True)
    assert errors == [] and spectator_errors == []
