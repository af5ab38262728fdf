"""The review card: a spectator of a finished chess game asks for the review, follows its progress, sees the
blunder marked on the chart and in the list, and goes to the position where a better move was there; somebody
opening the link later sees the same stored review at once."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Browser, expect
from support.pages import open_page

REVIEW_TIMEOUT_MS = 60_000


def test_a_finished_game_is_reviewed_in_the_page(module_server, browser: Browser, artifacts: Path) -> None:
    created = module_server.post("/api/games", {"game": "chess", "opponent": {"type": "friend", "open": True},
                                              "side": 0}).json()
    game_id = created["id"]
    black = module_server.post(f"/api/games/{game_id}/seats", {}).json()["token"]
    for index, move in enumerate(["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"]):
        token = created["token"] if index % 2 == 0 else black
        assert module_server.post(f"/api/games/{game_id}/moves", {"move": move, "token": token}).status_code == 200

    spectator, errors = open_page(browser, 1400, 900)
    spectator.goto(f"{module_server.url}/g/{game_id}")
    card = spectator.locator("#review-card")
    expect(card).to_be_visible()
    expect(spectator.locator("#review-status")).to_contain_text("verdict on every move")
    spectator.click("#review-start")
    expect(spectator.locator("#review-result")).to_be_visible(timeout=REVIEW_TIMEOUT_MS)
    blunder = spectator.locator(".review-error.major", has_text="3… Nf6: blunder")
    expect(blunder).to_have_count(1)
    expect(blunder).to_contain_text(re.compile(r"→ loss in 1; win chance \d+(\.\d)? % → 0 %\)"))
    expect(spectator.locator("#review-summary")).to_contain_text(
        re.compile(r"Black: .* · accuracy \d+(\.\d)? % \(Lichess's formula on win chances, 3 moves\)"))
    mark = spectator.locator('.eval-mark-button[aria-label^="3… Nf6: blunder"]')
    expect(mark).to_have_count(1)
    card.screenshot(path=artifacts / "review-card.png")
    mark.click()
    expect(spectator.locator("#review-focus")).to_contain_text("Better here:")
    expect(spectator.locator("#board-wrap")).to_have_class(re.compile(r"\breview\b"))  # showing a past position
    expect(spectator.locator('#moves button[aria-current="true"]')).to_have_text("Bc4")
    spectator.click("#analyse-position")  # what would the engine do here, before 3... Nf6?
    expect(spectator.locator("#review-focus")).to_contain_text("the position after 5 moves the engine would play")
    expect(spectator.locator("#review-focus")).not_to_contain_text("Nf6")
    analyse = spectator.locator('.review-analyse[aria-label="Analyse the position before 3… Nf6"]')
    expect(analyse).to_have_attribute("href", re.compile(r"^/analyse/chess\?.*moves=e2e4\+e7e5\+d1h5\+b8c6\+f1c4$"))
    analyse.click()  # the analysis board, on the position before the blunder, with its moves
    expect(spectator.locator("#status-main")).to_have_text("Black to move")
    expect(spectator.locator('#move-tree .mv[aria-current="true"]')).to_have_text("Bc4")

    late, late_errors = open_page(browser, 390, 844)
    late.goto(f"{module_server.url}/g/{game_id}")
    expect(late.locator("#review-result")).to_be_visible()
    expect(late.locator("#review-start")).to_be_hidden()
    expect(late.locator(".review-error.major", has_text="3… Nf6: blunder")).to_have_count(1)
    late.locator("#review-card").screenshot(path=artifacts / "review-card-phone.png")
    assert errors == [] and late_errors == []


def test_a_review_says_which_plies_were_judged_exactly(module_server, browser: Browser, artifacts: Path) -> None:
    """A misère Nim game with a take limit on three piles of 30, which no theory here solves while the piles allow
    more than 20,000 positions (engine.solve.nim): the card says that its first moves were judged by a search and
    the later ones from the exact value of every move."""
    created = module_server.post("/api/games", {"game": "nim", "setup": "30,30,30 max=3 misere",
                                              "opponent": {"type": "friend", "open": True}, "side": 0}).json()
    game_id = created["id"]
    second = module_server.post(f"/api/games/{game_id}/seats", {}).json()["token"]
    for index in range(30):  # three from the first pile that is not empty, until the last counter is taken
        token = created["token"] if index % 2 == 0 else second
        move = f"{index // 10 + 1}:3"
        assert module_server.post(f"/api/games/{game_id}/moves", {"move": move, "token": token}).status_code == 200

    page, errors = open_page(browser, 1400, 900)
    page.goto(f"{module_server.url}/g/{game_id}")
    page.click("#review-start")
    expect(page.locator("#review-result")).to_be_visible(timeout=REVIEW_TIMEOUT_MS)
    about = page.locator("#review-about")
    expect(about).to_have_text(re.compile(r"^The exact value of every move \(solved table, endgame table, solver or "
                                          r"theory\): .+\. From a search of 0\.5 s \(up to depth 64\): 1\.–.*\.$"))
    page.locator("#review-card").screenshot(path=artifacts / "review-card-nim.png")
    assert errors == []
