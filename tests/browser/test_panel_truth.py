"""The panel tells the truth: for each game, what it shows at the end of a deterministic engine search equals what
``python -m engine analyse`` finds with the same settings on the same position (headless Chromium, real
gunicorn), and the stored record equals it too."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import chess
import pytest
import requests
from playwright.sync_api import Browser, expect
from support.pages import create_game

SEARCHES = [("tictactoe", 6, 3000), ("nim", 6, 3000), ("connect4", 5, 0), ("wolves", 5, 0), ("chess", 4, 0)]
"""(game, depth, recorded tree nodes as the app records them) of an alpha-beta search from the start position."""


def digits(text: str) -> int:
    return int(re.sub(r"\D", "", text))


def readable(game: str, line: list[str]) -> list[str]:
    """``line`` (moves from the start) as the page writes them: SAN for chess, the game's notation otherwise."""
    if game != "chess":
        return line
    board = chess.Board()
    sans = []
    for uci in line:
        sans.append(board.san(chess.Move.from_uci(uci)))
        board.push_uci(uci)
    return sans


def analyse(game: str, depth: int, tree: int) -> dict:
    """The final event of ``python -m engine analyse`` with these settings."""
    command = [sys.executable, "-m", "engine", "analyse", game, "--depth", str(depth), "--json"]
    if tree:
        command += ["--tree", str(tree)]
    output = subprocess.run(command, capture_output=True, text=True, check=True, timeout=120).stdout
    return json.loads(output.strip().splitlines()[-1])


@pytest.mark.parametrize(("game", "depth", "tree"), SEARCHES, ids=[search[0] for search in SEARCHES])
def test_the_panel_shows_what_the_command_line_finds(module_server, browser: Browser, game, depth, tree) -> None:
    created = requests.post(module_server.url + "/api/games", timeout=10, json={
        "game": game, "side": 1, "opponent": {"type": "engine", "depth": depth, "algorithm": "alphabeta"}}).json()
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(module_server.url + created["url"])
    expect(page.locator("#panel-state")).to_have_text("done", timeout=60_000)
    expected = analyse(game, depth, tree)
    stored = requests.get(f"{module_server.url}/api/games/{created['id']}/searches/1", timeout=10).json()["info"]

    for name in ("nodes", "pruned", "cutoffs", "tt_hits", "best", "score", "score_text", "depth", "seldepth", "pv"):
        assert stored[name] == expected[name], name
    assert page.inner_text("#p-score") == expected["score_text"]
    assert page.inner_text("#p-depth").replace("\n", "") == f"{expected['depth']}/{expected['seldepth']}"
    expect(page.locator("#p-nodes")).to_have_text(f"{expected['nodes']:,}")
    assert digits(page.inner_text("#p-pruned").split()[0]) == expected["pruned"]
    expect(page.locator("#p-cutoffs")).to_have_text(f"{expected['cutoffs']:,}")
    assert page.inner_text("#p-root-moves .rm-row.best .rm-move") == readable(game, expected["pv"])[0]
    assert page.inner_text("#p-pv").split() == readable(game, expected["pv"])
    assert errors == []


MARKS = {"consistent": "✓ ", "undecided": "? ", "error": "⚠ "}
CLASSES = {"consistent": "consistent", "undecided": "undecided", "error": "horizon"}
TRUTH_SEARCHES = [
    ("tictactoe", {}, None, 2, {"undecided"}),
    ("nim", {"options": {"piles": [3, 4, 5]}}, "3,4,5", 2, {"consistent", "undecided"}),
    ("connect4", {"setup": "1111117777"}, "1111117777", 4, {"consistent", "undecided"}),
]
"""(game, what the creation adds, the position for the command line, depth, verdicts) of a first engine move and
the verdicts its candidates get (tic-tac-toe's first moves all draw, which no heuristic score proves; Connect Four
from a position of its opening book, whose values the solver reads at once)."""


@pytest.mark.parametrize(("game", "creation", "position", "depth", "verdicts"), TRUTH_SEARCHES,
                         ids=[search[0] for search in TRUTH_SEARCHES])
def test_the_truth_column_shows_the_command_lines_verdicts(module_server, browser: Browser, game, creation, position,
                                                           depth, verdicts) -> None:
    """Each candidate's truth cell carries the verdict ``python -m engine analyse --truth`` gives on the same search:
    ✓ for a bound or score that holds the exact value, ? for a heuristic score beside a result beyond the horizon."""
    created = requests.post(module_server.url + "/api/games", timeout=10, json={
        "game": game, "side": 1, **creation,
        "opponent": {"type": "engine", "depth": depth, "algorithm": "alphabeta"}}).json()
    page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    page.goto(module_server.url + created["url"])
    expect(page.locator("#panel-state")).to_have_text("done", timeout=60_000)
    command = [sys.executable, "-m", "engine", "analyse", game, "--depth", str(depth), "--json", "--truth"]
    if position:
        command += ["--position", position]
    output = subprocess.run(command, capture_output=True, text=True, check=True, timeout=120).stdout
    expected = json.loads(output.strip().splitlines()[-1])["truth"]
    rows = page.locator("#p-root-moves .rm-row")
    shown = [rows.nth(index).get_attribute("data-move") for index in range(rows.count())]
    assert len(shown) == min(8, len(expected))
    for move in shown:
        entry = expected[move]
        row = page.locator(f'.rm-row[data-move="{move}"]')
        expect(row.locator(".rm-truth")).to_have_text(MARKS[entry["verdict"]] + entry["text"])
        expect(row).to_have_class(re.compile(rf"\b{CLASSES[entry['verdict']]}\b"))
    assert {expected[move]["verdict"] for move in shown} == verdicts
    stored = requests.get(f"{module_server.url}/api/games/{created['id']}/searches/1", timeout=10).json()["info"]
    assert stored["truth"] == expected


def test_the_truth_column_judges_bounds_by_the_exact_value(module_server, browser: Browser, artifacts) -> None:
    """Against a depth-2 search, O's candidates after X takes an edge: 7, 9, 4 and 6 lose in 3 in truth (the solved
    table) and the search proved them no better than −2 or −3: consistent bounds, marked ✓; 5, 1, 3 and 8 draw,
    which the search's evaluation neither proved nor refuted: not decided at this depth. None is an error."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    created = create_game(page, module_server, {"game": "tictactoe", "opponent": {"type": "engine", "depth": 2},
                                                "side": 0})
    page.goto(module_server.url + created["url"])
    page.click('[data-cell="2"].actionable')
    expect(page.locator("#p-truth-note")).to_be_visible()
    for move in ("7", "9", "4", "6"):
        row = page.locator(f'.rm-row[data-move="{move}"]')
        expect(row).to_have_class(re.compile(r"\bconsistent\b"))
        expect(row.locator(".rm-truth")).to_have_text("✓ loss in 3")
        expect(row.locator(".rm-truth")).to_have_attribute("title", re.compile(r"lies within what the search proved"))
    for move in ("5", "1", "3", "8"):
        row = page.locator(f'.rm-row[data-move="{move}"]')
        expect(row.locator(".rm-truth")).to_have_text("? draw")
        expect(row).to_have_class(re.compile(r"\bundecided\b"))
        expect(row.locator(".rm-truth")).to_have_attribute("title", re.compile(r"^Not decided at depth 2"))
    expect(page.locator("#p-root-moves .rm-row.horizon")).to_have_count(0)
    page.locator("#panel").screenshot(path=artifacts / "truth-column.png")
    record = requests.get(f"{module_server.url}/api/games/{created['id']}/searches/2", timeout=10).json()
    assert record["info"]["truth"]["7"] == {"result": "loss", "plies": 6, "score": -999994, "text": "loss in 3",
                                            "verdict": "consistent"}
