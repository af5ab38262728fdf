"""Learn from a mistake: from a reviewed game's error, "Practise" opens the analysis board on the position before it
with the exact values and the engine hidden; the move played in the game, then another wrong move are refused (with
their values), and the one move that keeps the draw is right, after which the values show."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Browser, expect
from support.pages import open_page, reviewed_game, type_move


def test_an_error_becomes_an_exercise(module_server, browser: Browser, artifacts: Path) -> None:
    page, errors = open_page(browser, 1400, 900)
    page.goto(reviewed_game(module_server))
    practise = page.locator('.review-practise[aria-label="Practise: find a better move than 2… 3"]')
    expect(practise).to_have_attribute("href", "/analyse/tictactoe?moves=2+1+5&exercise=3&better=8")
    practise.click()

    result = page.locator("#exercise-result")
    expect(page.locator("#exercise-task")).to_have_text("Find a better move than 3, the move played in the game.")
    expect(page.locator("#truth-source")).to_have_text("are hidden until the exercise is answered.")
    expect(page.locator("#panel-state")).not_to_have_attribute("data-state", "thinking")
    page.click('[data-cell="3"].actionable')
    expect(result).to_have_text("3 is the move played in the game. Try another.")
    page.click("#exercise-retry")
    page.click('[data-cell="9"].actionable')
    expect(result).to_have_text("Not this: after 9 it is loss in 1, where draw was there. Try again.")
    expect(page.locator("#truth-source")).to_have_text("are hidden until the exercise is answered.")
    page.screenshot(path=artifacts / "exercise-wrong.png", full_page=True)
    page.click("#exercise-retry")
    page.click('[data-cell="8"].actionable')
    expect(result).to_have_text("Right: 8 keeps the best result, draw.")
    expect(page.locator("#exercise-show")).to_be_hidden()
    page.click("#go-back")
    expect(page.locator("#truth-source")).to_contain_text("read from the solved table")
    assert errors == []


def test_a_chess_answer_is_checked_by_the_engine(module_server, browser: Browser, artifacts: Path) -> None:
    """Beyond the endgame tables the server searches after the answer as the review did: a move allowing mate is
    a blunder (its win chance said), a defence the review did not choose is right when it keeps the chances."""
    page, errors = open_page(browser, 1400, 900)
    page.goto(f"{module_server.url}/analyse/chess?moves=e2e4+e7e5+d1h5+b8c6+f1c4&exercise=g8f6&better=d8e7"
              "&value=-30")
    result = page.locator("#exercise-result")
    expect(page.locator("#exercise-task")).to_have_text("Find a better move than Nf6, the move played in the game.")
    type_move(page, "a6")
    expect(result).to_have_text(re.compile(r"Not this: after a6 your win chance is 0 %, where 47\.2 % was there, a "
                                           r"blunder \(a search of 0\.5 s \(up to depth 64\)\)\. Try again\."))
    expect(page.locator("#truth-source")).to_have_text("are hidden until the exercise is answered.")
    page.click("#exercise-retry")
    type_move(page, "Qe7")
    expect(result).to_have_text("Right: Qe7 is the move the review's search preferred.")
    page.screenshot(path=artifacts / "exercise-chess.png", full_page=True)
    assert errors == []


def test_after_a_slow_win_the_answer_must_be_quick(module_server, browser: Browser) -> None:
    """The exercise of a move that kept the win 28 plies slower: another slow win is not quick enough; the win at
    once is right."""
    page, errors = open_page(browser, 1400, 900)
    page.goto(f"{module_server.url}/analyse/connect4?moves=4+7+5+4+6+7&exercise=5&better=3&within=10")
    result = page.locator("#exercise-result")
    page.click('[data-column="4"].actionable')
    expect(result).to_have_text("Not quick enough: after 4 it is win in 16, where win in 1 was there. Try again.")
    page.click("#exercise-retry")
    page.click('[data-column="3"].actionable')
    expect(result).to_have_text("Right: 3 keeps the best result, win in 1.")
    assert errors == []
