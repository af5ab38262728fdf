"""Hints on the board: Connect Four shows a value over every column (gamesolver's way) and tic-tac-toe in every
free cell, both with a letter or sign beside the colour; they stay on between moves, for players and spectators."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, expect
from support.pages import create_game, open_page

SETUP = "12123434565677"
"""Fourteen stones, Red to move, every column open."""


def test_connect_four_hints_over_the_columns(module_server, browser: Browser, artifacts: Path) -> None:
    for width, height, name in ((1400, 900, "hints-connect4-desktop.png"), (390, 844, "hints-connect4-phone.png")):
        page, errors = open_page(browser, width, height)
        created = create_game(page, module_server, {"game": "connect4", "setup": SETUP, "options": {"hints": True},
                                                    "side": 0, "opponent": {"type": "engine", "level": 2}})
        page.goto(module_server.url + created["url"])
        # exact: the solver proves every move in about 0.04 s, far within its budget however busy the machine is
        # (from the empty board it takes 0.2 s: test_hints.py, and bench/connect4_exact_by_ply.py for the timing)
        expect(page.locator(".hint-label")).to_have_text(["W5", "L4", "W4", "W13", "W4", "L4", "L4"])
        expect(page.locator("#hints-source")).to_contain_text("for Red: the exact value of every move")
        page.screenshot(path=artifacts / name)
        page.click('[data-column="4"].actionable')
        expect(page.locator("#moves button[data-ply]")).to_have_count(2)  # the engine answered
        expect(page.locator(".hint-label")).to_have_count(7)  # hints of the new position: they stay on
        assert errors == []


def test_tictactoe_hints_in_the_cells_for_a_spectator_too(module_server, browser: Browser) -> None:
    player, errors = open_page(browser)
    created = create_game(player, module_server, {"game": "tictactoe", "options": {"hints": True}, "side": 0,
                                                  "opponent": {"type": "friend", "open": True}})
    player.goto(module_server.url + created["url"])
    player.click("#play-alone")  # nobody has taken the other seat yet
    player.click('[data-cell="5"].actionable')
    spectator, spectator_errors = open_page(browser)
    spectator.goto(module_server.url + created["url"])
    for page in (player, spectator):
        # O's answers to X in the centre, cells 1-4 and 6-9: a corner draws, an edge loses in 3
        expect(page.locator(".hint-label")).to_have_text(["D", "L3", "D", "L3", "L3", "D", "L3", "D"])
        expect(page.locator("#hints-list li")).to_have_count(8)
    assert errors == [] and spectator_errors == []


def test_chess_hints_as_arrows_for_the_best_three(module_server, browser: Browser) -> None:
    page, errors = open_page(browser)
    created = create_game(page, module_server, {"game": "chess", "options": {"hints": True}, "side": 0,
                                                "opponent": {"type": "friend", "open": True}})
    page.goto(module_server.url + created["url"])
    expect(page.locator(".hint-arrow")).to_have_count(3)
    expect(page.locator("#hints-list li")).to_have_count(20)  # every move listed under the board
    expect(page.locator("#hints-list")).to_be_visible()
    assert errors == []


def test_two_players_agree_to_turn_hints_on(module_server, browser: Browser) -> None:
    host, errors = open_page(browser)
    created = create_game(host, module_server, {"game": "connect4", "side": 0, "opponent": {"type": "friend"}})
    host.goto(module_server.url + created["url"])
    friend, friend_errors = open_page(browser)
    friend.goto(f"{module_server.url}{created['invite_url']}")
    friend.click("#take-seat")
    expect(host.locator("#hints-toggle")).to_have_text("Ask for hints")
    host.click("#hints-toggle")
    expect(host.locator("#hints-toggle")).to_have_text("Hints asked…")
    expect(friend.locator("#hints-bar")).to_contain_text("Red asks to turn them on")
    expect(friend.locator(".hint-label")).to_have_count(0)
    friend.click("#hints-toggle")  # "Accept hints"
    for page in (host, friend):
        expect(page.locator(".hint-label")).to_have_count(7)
        expect(page.locator("#hints-toggle")).to_have_text("Hints off")
    assert errors == [] and friend_errors == []
