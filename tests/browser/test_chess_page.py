"""The chess game page in headless Chromium against a real gunicorn: a game from a FEN typed into the home page,
moves typed in SAN and UCI, the SAN move list, the opening name, the engine's arrow and the PGN download."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, expect
from support.pages import open_page, type_move
from support.servers import SearchFreezer
from support.waiting import eventually

AFTER_E4_E5 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
ENGINE_TIMEOUT_MS = 30_000


def test_a_game_from_a_fen_against_the_engine_with_typed_moves(module_server, browser: Browser, artifacts: Path):
    page, errors = open_page(browser)
    page.goto(module_server.url + "/")
    page.click('.game-card[data-game="chess"]')
    expect(page.get_by_placeholder("Start from FEN or PGN (optional)")).to_be_visible()
    page.fill("#chess-setup", AFTER_E4_E5)
    page.check('input[name="opponent"][value="friend"]', force=True)
    expect(page.locator("#style-row")).to_be_hidden()
    page.check('input[name="opponent"][value="custom"]', force=True)
    expect(page.locator("#style-row")).to_be_visible()
    page.check('input[name="personality"][value="aggressive"]', force=True)
    page.fill('input[name="depth"]', "30")
    page.fill('input[name="time"]', "1.5")
    page.screenshot(path=artifacts / "chess-home-fen.png", full_page=True)
    page.set_viewport_size({"width": 375, "height": 760})
    page.screenshot(path=artifacts / "chess-home-fen-phone-page.png", full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.click("#play")
    page.wait_for_url("**/g/*")
    expect(page.locator("#status-main")).to_contain_text("Your move")
    expect(page.locator("#moves")).to_contain_text("No moves yet")

    type_move(page, "Ke3")
    expect(page.locator("#move-error")).to_contain_text("Ke3")
    expect(page.locator("#moves button[data-ply]")).to_have_count(0)
    page.screenshot(path=artifacts / "chess-typed-error.png")

    with SearchFreezer(module_server, page.url.rsplit("/", 1)[1]) as freezer:
        freezer.freeze_at(lambda event: event["ply"] == 1 and not event["info"].get("final")
                          and event["info"].get("best") is not None)
        type_move(page, "Nf3")
        expect(page.locator('#moves button[data-ply="1"]')).to_have_text("Nf3")
        expect(page.locator("#move-text")).to_have_value("")
        expect(page.locator("#move-error")).to_have_text("")
        expect(page.locator("#moves .no").first).to_have_text("2.")
        freezer.wait_frozen()
        arrow = page.locator("#board line.chess-arrow")
        # the arrow shows the best move of the last event the search sent before it froze
        eventually(lambda: arrow.count() == 1 and arrow.get_attribute("data-move") == freezer.latest(1)["best"],
                   "the board drawing the engine's current best move", timeout=ENGINE_TIMEOUT_MS / 1000)
        freezer.thaw()
        expect(page.locator('#moves button[data-ply="2"]')).to_be_visible(timeout=ENGINE_TIMEOUT_MS)
    page.screenshot(path=artifacts / "chess-engine-replied.png")
    expect(page.locator("#board line.chess-arrow")).to_have_count(0)
    reply = page.locator('#moves button[data-ply="2"]').inner_text()
    state = module_server.get(f"/api/games/{page.url.rsplit('/', 1)[1]}").json()
    assert reply == state["view"]["san"][-1] and state["history"][1]["move"] == state["view"]["moves"][-1]
    assert state["start_setup"] == AFTER_E4_E5
    assert state["opponent"]["personality"] == "aggressive"
    assert state["seats"][1]["label"] == "Engine alphabeta · depth 30 · 1.5 s · aggressive"
    expect(page.locator("#opening")).to_be_visible()
    page.set_viewport_size({"width": 375, "height": 760})
    page.screenshot(path=artifacts / "chess-phone-player.png", full_page=True)
    assert errors == []


def test_kings_gambit_typed_in_san_and_uci_shows_the_opening_and_downloads_pgn(module_server, browser: Browser,
                                                                                 artifacts: Path):
    created = module_server.post("/api/games", {"game": "chess", "opponent": {"type": "friend"}, "side": 0}).json()
    black = module_server.post(f"/api/games/{created['id']}/seats", {"invite": created["invite"]}).json()
    page, errors = open_page(browser)
    restored = page.context.request.post(f"{module_server.url}/api/games/{created['id']}/seats",
                                         data={"token": created["token"]})
    assert restored.ok  # the browser now holds the creator's seat
    page.goto(module_server.url + created["url"])
    expect(page.locator("#opening")).to_be_hidden()

    type_move(page, "e4")
    expect(page.locator('#moves button[data-ply="1"]')).to_have_text("e4")
    played = module_server.post(f"/api/games/{created['id']}/moves", {"move": "e7e5", "token": black["token"]})
    assert played.status_code == 200, played.text
    expect(page.locator('#moves button[data-ply="2"]')).to_have_text("e5")
    type_move(page, "f2f4")
    expect(page.locator('#moves button[data-ply="3"]')).to_have_text("f4")
    expect(page.locator("#opening")).to_have_text("C30 King's Gambit")
    type_move(page, "Nf3")
    expect(page.locator("#move-error")).to_contain_text("Wait for your turn")
    page.screenshot(path=artifacts / "chess-kings-gambit.png")

    with page.expect_download() as download_info:
        page.click("#download-pgn")
    download = download_info.value
    assert download.suggested_filename == f"arena-{created['id']}.pgn"
    pgn = Path(download.path()).read_text()
    (artifacts / "chess-download.pgn").write_text(pgn)
    assert "1. e4 e5 2. f4" in pgn and '[Result "*"]' in pgn
    assert f'[Event "Alpha-Beta Arena game {created["id"]}"]' in pgn and '[White "White (player)"]' in pgn

    page.locator('#moves button[data-ply="1"]').click()
    expect(page.locator("#back-live")).to_be_visible()
    expect(page.locator("#opening")).to_contain_text("King's Pawn")

    phone, phone_errors = open_page(browser, 375, 760)
    phone.goto(module_server.url + created["url"])
    expect(phone.locator('#moves button[data-ply="3"]')).to_have_text("f4")
    expect(phone.locator("#opening")).to_have_text("C30 King's Gambit")
    expect(phone.locator("#move-entry")).to_be_hidden()
    phone.screenshot(path=artifacts / "chess-phone.png", full_page=True)
    assert errors == [] and phone_errors == []


def test_the_friend_who_takes_black_sees_the_board_from_black_at_once(module_server, browser: Browser) -> None:
    created = module_server.post("/api/games", {"game": "chess", "opponent": {"type": "friend"}, "side": 0}).json()
    friend, errors = open_page(browser, 390, 844)
    friend.goto(f"{module_server.url}{created['url']}?invite={created['invite']}")
    expect(friend.locator("#flip")).to_have_attribute("aria-pressed", "false")  # a spectator sees White's side
    friend.click("#take-seat")
    expect(friend.locator('.player[data-player="1"] .you')).to_be_visible()
    expect(friend.locator("#flip")).to_have_attribute("aria-pressed", "true")
    played = module_server.post(f"/api/games/{created['id']}/moves", {"move": "e2e4", "token": created["token"]})
    assert played.status_code == 200
    pawn = friend.locator('[data-square="e7"]')
    expect(pawn).to_have_count(1)
    board = friend.locator("#board").bounding_box()
    assert pawn.bounding_box()["y"] > board["y"] + board["height"] / 2, "Black's pawns are not at the bottom"
    assert errors == []
