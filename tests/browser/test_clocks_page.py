"""Clocks in the page: chosen on the home page, shown to both players and a spectator, counting down in each
browser, and a fallen clock ending the game everywhere without anybody moving."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Browser, expect
from support.pages import open_page

FLAG_TIMEOUT_MS = 30_000
"""A 15-second clock falls within this, with room for a loaded machine."""


def test_a_clock_counts_down_for_everyone_and_flags(live_server, browser: Browser, artifacts: Path) -> None:
    host, host_errors = open_page(browser)
    host.goto(live_server.url + "/")
    host.click('.game-card[data-game="tictactoe"]')
    host.check('input[name="opponent"][value="friend"]', force=True)
    host.select_option("#clock", "custom")
    host.fill('input[name="clock_minutes"]', "0.25")
    host.fill('input[name="clock_increment"]', "0")
    host.click("#play")
    host.wait_for_url("**/g/*")
    invite = host.evaluate("document.getElementById('game-root').dataset.invite")
    friend, friend_errors = open_page(browser, 390, 844)
    friend.goto(f"{host.url}?invite={invite}")
    friend.click("#take-seat")
    spectator, spectator_errors = open_page(browser)
    spectator.goto(host.url)
    pages = (host, friend, spectator)
    for page in pages:
        expect(page.locator(".player .clock")).to_have_text(["0:15", "0:15"])

    for page, cell in [(host, "1"), (friend, "5"), (host, "9")]:
        page.click(f'[data-cell="{cell}"].actionable')
        expect(page.locator(f'#moves button[aria-label^="Move"][title$=" {cell}"]')).to_have_count(1)
    friend_clock = '.player[data-player="1"] .clock'
    for page in pages:  # the friend's clock runs, in each browser, while nobody sends anything
        expect(page.locator(friend_clock)).to_have_class(re.compile(r"\brunning\b"))
        expect(page.locator(friend_clock)).to_have_text(re.compile(r"^0:(0\d\.\d|1[0-3])$"))
    friend.screenshot(path=artifacts / "clock-running-phone.png")

    for page in pages:
        expect(page.locator("#status")).to_have_class(re.compile(r"\bover\b"), timeout=FLAG_TIMEOUT_MS)
        expect(page.locator("#status-sub")).to_contain_text("Time out")
        expect(page.locator(friend_clock)).to_have_text("0:00.0")
        expect(page.locator(friend_clock)).not_to_have_class(re.compile(r"\brunning\b"))
    expect(host.locator("#status-main")).to_have_text("You win! (X)")
    expect(friend.locator("#status-main")).to_have_text("X wins — you lose")
    expect(spectator.locator("#status-main")).to_have_text("X wins")
    host.screenshot(path=artifacts / "clock-flagged-desktop.png")
    assert host_errors == [] and friend_errors == [] and spectator_errors == []
