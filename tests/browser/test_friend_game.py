"""A friend game as on Lichess, in three browser contexts (two players and a spectator): the invitation and its
waiting panel, the board facing the friend as soon as the seat is taken, a takeback request declined then accepted,
a draw offer declined, a clock that flags, and a rematch offered by one player and accepted by the other, with the
spectator following after a countdown (another spectator chooses to stay)."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Browser, Page, expect
from support.pages import open_page, type_move

FLAG_TIMEOUT_MS = 60_000
"""A 30-second clock falls within this, with room for a loaded machine."""


def moves_shown(page: Page, count: int) -> None:
    expect(page.locator("#moves button[data-ply]")).to_have_count(count)


def test_a_friend_game_from_invitation_to_rematch(live_server, browser: Browser, artifacts: Path) -> None:
    host, host_errors = open_page(browser, 1400, 900)
    host.goto(live_server.url + "/")
    host.click('.game-card[data-game="chess"]')
    host.check('input[name="opponent"][value="friend"]', force=True)
    host.select_option("#clock", "custom")
    host.fill('input[name="clock_minutes"]', "0.5")
    host.fill('input[name="clock_increment"]', "0")
    host.click("#play")
    host.wait_for_url("**/g/*")
    game_url = host.url

    panel = host.locator("#waiting-panel")
    expect(panel).to_be_visible()
    expect(host.locator("#status-main")).to_have_text("Waiting for your friend to take the other seat")
    invitation = host.locator("#invite-field").input_value()
    assert invitation.startswith(game_url + "?invite=")
    host.screenshot(path=artifacts / "waiting-panel-desktop.png")
    type_move(host, "e4")
    expect(host.locator("#move-error")).to_have_text("Your friend has not joined yet.")

    friend, friend_errors = open_page(browser, 390, 844)
    friend.goto(invitation)
    join = friend.locator("#take-seat")
    expect(join).to_have_text("Join as Black")  # the one action the invitation offers, at the top
    assert join.bounding_box()["y"] + join.bounding_box()["height"] <= 844
    join.click()
    expect(friend.locator("#flip")).to_have_attribute("aria-pressed", "true")  # Black at the bottom, at once
    expect(panel).to_be_hidden()
    spectator, spectator_errors = open_page(browser)
    spectator.goto(game_url)
    expect(spectator.locator("#waiting-panel")).to_be_hidden()
    stayer, stayer_errors = open_page(browser)
    stayer.goto(game_url)

    type_move(host, "e4")
    moves_shown(friend, 1)
    type_move(friend, "e5")
    moves_shown(host, 2)

    friend.click("#ask-takeback")  # Black wants e5 back
    offer = host.locator('#offer-banner .offer-line[data-kind="takeback"]')
    expect(offer).to_contain_text("Black asks to take back their last move")
    expect(spectator.locator("#offer-banner")).to_contain_text("Black asks to take back")
    host.screenshot(path=artifacts / "offer-banner-desktop.png")
    offer.get_by_role("button", name="Decline").click()
    expect(friend.locator("#offer-banner")).to_be_hidden()
    moves_shown(spectator, 2)
    friend.click("#ask-takeback")
    expect(offer).to_be_visible()
    offer.get_by_role("button", name="Accept").click()
    for page in (host, friend, spectator):
        moves_shown(page, 1)
    type_move(friend, "c5")
    moves_shown(host, 2)

    host.click("#offer-draw")
    draw = friend.locator('#offer-banner .offer-line[data-kind="draw"]')
    expect(draw).to_contain_text("White offers a draw")
    friend.screenshot(path=artifacts / "offer-banner-phone.png")
    draw.get_by_role("button", name="Decline").click()
    expect(host.locator("#offer-banner")).to_be_hidden()

    # White's clock runs and nobody moves: it falls, for everyone.
    white_clock = '.player[data-player="0"] .clock'
    expect(spectator.locator(white_clock)).to_have_class(re.compile(r"\brunning\b"))
    for page in (host, friend, spectator):
        expect(page.locator("#status-sub")).to_contain_text("Time out", timeout=FLAG_TIMEOUT_MS)
        expect(page.locator(white_clock)).to_have_text("0:00.0")
    expect(friend.locator("#status-main")).to_have_text("You win! (Black)")

    expect(friend.locator("#rematch")).to_have_text("Offer rematch")
    friend.click("#rematch")
    expect(friend.locator("#rematch")).to_have_text("Rematch offered…")
    expect(host.locator('#offer-banner .offer-line[data-kind="rematch"]')).to_contain_text("Black offers a rematch")
    host.locator('#offer-banner .offer-line[data-kind="rematch"]').get_by_role("button", name="Accept").click()
    host.wait_for_url(re.compile(r"/g/(?!" + re.escape(game_url.rsplit("/", 1)[1]) + r")"))
    friend.wait_for_url(host.url)
    expect(spectator.locator("#rematch-banner")).to_be_visible()
    expect(spectator.locator("#rematch-link")).to_have_attribute("href", host.url.removeprefix(live_server.url))
    expect(spectator.locator("#rematch-text")).to_contain_text("following them in")
    expect(stayer.locator("#rematch-text")).to_contain_text("following them in")
    stayer.click("#rematch-stay")
    expect(stayer.locator("#rematch-text")).to_have_text("The players started a rematch.")
    spectator.wait_for_url(host.url)  # it follows the players, as they did
    expect(spectator.locator('.player[data-player="1"] .you')).to_be_hidden()  # still a spectator there
    assert stayer.url == game_url  # its countdown, started with the other's, was stopped
    expect(host.locator('.player[data-player="1"] .you')).to_be_visible()  # seats swapped: the host plays Black
    assert host_errors == [] and friend_errors == [] and spectator_errors == [] and stayer_errors == []
