"""The Wolves & Rabbit board in headless Chromium: legal targets shown, moves by click and by keyboard."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, expect

ENGINE_TIMEOUT_MS = 30_000


def test_rabbit_chosen_start_and_moves_by_click_and_keyboard(live_server, browser: Browser, artifacts: Path) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(live_server.url + "/")
    page.click('.game-card[data-game="wolves"]')
    page.select_option('select[name="rabbit"]', "e1")
    page.check('input[name="opponent"][value="custom"]', force=True)
    page.fill('input[name="depth"]', "3")
    page.fill('input[name="time"]', "2")
    page.click("#play")
    page.wait_for_url("**/g/*")

    expect(page.locator(".wolves-wolf")).to_have_count(4)
    expect(page.locator(".wolves-rabbit")).to_have_count(1)
    expect(page.locator(".wolves-target")).to_have_count(2)  # the rabbit is selected at once: d2 and f2
    page.screenshot(path=artifacts / "wolves-start.png")
    page.click('[data-square="d2"].actionable')
    expect(page.locator("#moves button[data-ply]")).to_have_count(2, timeout=ENGINE_TIMEOUT_MS)
    expect(page.locator(".wolves-wolf")).to_have_count(4)
    expect(page.locator(".wolves-target")).to_have_count(4)  # from d2: c1, e1, c3, e3

    page.focus('[data-square="e3"].actionable')
    page.keyboard.press("Enter")
    expect(page.locator("#moves button[data-ply]")).to_have_count(4, timeout=ENGINE_TIMEOUT_MS)
    assert page.locator("#moves button[data-ply]").first.inner_text().strip().endswith("e1-d2")
    page.screenshot(path=artifacts / "wolves-after-two-moves.png")
    assert errors == []
