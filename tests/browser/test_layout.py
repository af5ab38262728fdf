"""Text that fits, on a desktop and on a phone: a long engine label wraps in the players bar instead of being cut,
the move list scrolled to its last move shows whole rows only, and the chess move field shows all of its
placeholder."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser
from support.pages import create_game

LONG_LABEL = {"type": "engine", "algorithm": "alphabeta", "depth": 30, "time": 1.5, "personality": "aggressive"}
MOVES = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5", "Bb3", "d6", "c3", "O-O",
         "h3", "Nb8", "d4", "Nbd7", "c4", "c6", "cxb5", "axb5"]
"""24 plies of a Ruy Lopez: more rows than the move list shows at once."""

CUT_ROWS = """() => {
  const list = document.getElementById('moves').getBoundingClientRect();
  return [...document.querySelectorAll('#moves button')].map((button) => button.getBoundingClientRect())
    .filter((row) => row.bottom > list.top + 0.5 && row.top < list.bottom - 0.5)
    .filter((row) => row.top < list.top - 0.5 || row.bottom > list.bottom + 0.5).length;
}"""

PLACEHOLDER_ROOM = """() => {
  const field = document.getElementById('move-text');
  const style = getComputedStyle(field);
  const context = document.createElement('canvas').getContext('2d');
  context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  const room = field.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  return room - context.measureText(field.placeholder).width;
}"""


@pytest.mark.parametrize("width, height", [(1400, 900), (390, 844)])
def test_labels_wrap_the_move_list_shows_whole_rows_and_the_placeholder_fits(module_server, browser: Browser,
                                                                             width: int, height: int) -> None:
    phone = width < 600
    context = browser.new_context(viewport={"width": width, "height": height}, has_touch=phone, is_mobile=phone)
    page = context.new_page()
    against_engine = create_game(page, module_server, {"game": "chess", "side": 0, "opponent": LONG_LABEL})
    page.goto(module_server.url + against_engine["url"])
    label = page.locator('.player[data-player="1"] .who')
    page.wait_for_selector("#move-entry:not([hidden])")
    assert "aggressive" in label.inner_text()
    assert label.evaluate("(who) => who.scrollWidth <= who.clientWidth && who.scrollHeight <= who.clientHeight")
    assert page.evaluate(PLACEHOLDER_ROOM) >= 0

    created = create_game(page, module_server,
                          {"game": "chess", "side": 0, "opponent": {"type": "friend", "open": True}})
    black = module_server.post(f"/api/games/{created['id']}/seats", {}).json()["token"]
    for index, move in enumerate(MOVES):
        token = created["token"] if index % 2 == 0 else black
        answer = module_server.post(f"/api/games/{created['id']}/moves", {"move": move, "token": token})
        assert answer.status_code == 200
    page.goto(module_server.url + created["url"])
    page.wait_for_selector(f'#moves button[data-ply="{len(MOVES)}"]')
    assert page.evaluate("() => { const list = document.getElementById('moves'); "
                         "return list.scrollHeight > list.clientHeight && list.scrollTop > 0; }")  # it scrolled
    assert page.evaluate(CUT_ROWS) == 0
