"""On a phone (390x844, touch) every visible control of the home, game and lab pages is at least 44 px tall."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

CONTROLS = """() => [...document.querySelectorAll(
    'button, a.btn, select, input[type=text], input[type=number], .segmented label, summary')]
  .filter((element) => element.offsetParent !== null)
  .map((element) => [element.id || element.textContent.trim().slice(0, 24), element.getBoundingClientRect().height])
  .filter(([, height]) => height < 44)"""


@pytest.mark.parametrize("page_name", ["home", "game", "lab"])
def test_every_control_is_a_44_pixel_touch_target(live_server, browser: Browser, page_name: str) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.goto(live_server.url + "/")
    if page_name == "game":
        created = page.evaluate("""fetch('/api/games', {method: 'POST', headers: {'Content-Type': 'application/json'},
            body: JSON.stringify({game: 'tictactoe', opponent: {type: 'engine', level: 2}, side: 0})})
            .then(r => r.json())""")
        page.goto(live_server.url + created["url"])
        page.wait_for_selector("#copy-link")
    elif page_name == "lab":
        page.goto(live_server.url + "/lab")
    assert page.evaluate(CONTROLS) == []
    context.close()
