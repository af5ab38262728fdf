"""The evaluation chart (static/js/charts.js), drawn by the page's own module in Chromium for games of every shape:
value ticks in the game's unit, proven wins in their side's band, an x-axis numbered in moves that ends with the
game, and no label, point or review mark on top of another, on a desktop panel and on a phone."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser
from support.pages import open_page

from engine.game import WIN

DRAW = """async ({width, points, plies, axis, marks}) => {
  const { drawEvaluation } = await import('/assets/js/charts.js');
  const holder = document.createElement('div');
  holder.className = 'chart';
  holder.style.width = `${width}px`;
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  holder.append(svg);
  document.querySelector('main').prepend(holder);
  drawEvaluation(svg, points, {plies, names: ['White', 'Black'], axis,
                                 marks: marks.map((ply) => ({ply, kind: 'major', symbol: '??', label: `error at ${ply}`,
                                                              onSelect: () => {}}))});
  const box = (node) => { const r = node.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  return {
    svg: box(svg),
    texts: [...svg.querySelectorAll(':scope > text')].map((node) => ({text: node.textContent, box: box(node)})),
    dots: [...svg.querySelectorAll('.eval-dot')].map(box),
    marks: [...svg.querySelectorAll('.eval-mark')].map(box),
    bands: [...svg.querySelectorAll('.eval-band')].map((node) => ({seat: node.classList.contains('p0') ? 0 : 1,
                                                                    box: box(node)})),
  };
}"""


def overlap(a: list[float], b: list[float]) -> bool:
    """Whether two boxes [left, top, right, bottom] share more than a hairline."""
    return min(a[2], b[2]) - max(a[0], b[0]) > 0.5 and min(a[3], b[3]) - max(a[1], b[1]) > 0.5


def inside(inner: list[float], outer: list[float]) -> bool:
    return all(inner[i] >= outer[i] - 0.5 for i in (0, 1)) and all(inner[i] <= outer[i] + 0.5 for i in (2, 3))


def long_chess_game() -> list[dict]:
    """200 plies: small advantages, a 9-pawn lead, then White mates (scores in centipawns, decided at the end)."""
    points = [{"ply": ply, "score": (ply % 7) * 12 - 30 if ply < 120 else 900 - ply} for ply in range(1, 191)]
    return points + [{"ply": ply, "score": WIN - (201 - ply)} for ply in range(191, 201)]


def decided_connect4_game() -> list[dict]:
    """Red's heuristic against Yellow's proven win, 28 plies, as a level-1 engine against the solver plays it."""
    return [{"ply": ply, "score": 9 if ply % 2 else -(WIN - (29 - ply))} for ply in range(1, 29)]


SHAPES = {
    "long chess game": (long_chess_game(), 200, {"unit": "pawns", "per_unit": 100}, []),
    "decided Connect Four game": (decided_connect4_game(), 28, {"unit": "points", "per_unit": 1}, []),
    "four-ply game": ([{"ply": ply, "score": 1 - ply} for ply in range(1, 5)], 4, {"unit": "lines", "per_unit": 1},
                      []),
    "Nim, proven results only": ([{"ply": 1, "score": 0}, {"ply": 2, "score": WIN - 3}], 2, {"unit": "", "per_unit": 1},
                                 []),
    "review with many errors": ([{"ply": ply, "score": (-1) ** ply * 400} for ply in range(1, 81)], 80,
                                {"unit": "pawns", "per_unit": 100}, [ply for ply in range(3, 81) if ply % 5 != 0]),
}


@pytest.mark.parametrize("width", [300, 560])
@pytest.mark.parametrize("shape", SHAPES)
def test_the_evaluation_chart_is_scaled_and_nothing_collides(module_server, browser: Browser, artifacts: Path,
                                                             shape: str, width: int) -> None:
    points, plies, axis, marks = SHAPES[shape]
    page, errors = open_page(browser, 1400, 900)
    page.goto(module_server.url + "/")
    chart = page.evaluate(DRAW, {"width": width, "points": points, "plies": plies, "axis": axis, "marks": marks})
    page.locator(".chart").first.screenshot(path=artifacts / f"chart-{shape.replace(' ', '-')}-{width}.png")
    texts = chart["texts"]
    labels = [text["text"] for text in texts]
    # Value ticks: zero, and in a game with a unit, signed values in that unit named upright beside them.
    assert "0" in labels
    if axis["unit"]:
        assert axis["unit"] in labels and any(label.startswith("+") for label in labels)
        assert any(label.startswith("\u2212") for label in labels)
    else:
        assert not any(label[0] in "+\u2212" for label in labels)
    # The x-axis is numbered in moves and ends with the game.
    moves = [int(label) for label in labels if label.isdigit() and label != "0"]
    step = moves[1] - moves[0] if len(moves) > 1 else 1
    assert moves and plies / 2 - step < max(moves) <= plies / 2
    assert "move" in labels
    # Proven wins in their side's band: White's above, Black's below.
    decided = [point for point in points if abs(point["score"]) > WIN - 1000]
    bands = {band["seat"]: band["box"] for band in chart["bands"]}
    assert set(bands) == {0 if point["score"] > 0 else 1 for point in decided}
    by_ply = {point["ply"]: dot for point, dot in zip(points, chart["dots"], strict=True)}
    for point in decided:
        left, top, right, bottom = by_ply[point["ply"]]
        centre = [(left + right) / 2, (top + bottom) / 2] * 2
        assert inside(centre, bands[0 if point["score"] > 0 else 1]), point
    # Nothing on top of anything else, and nothing outside the chart.
    for i, text in enumerate(texts):
        assert inside(text["box"], chart["svg"]), text
        for other in texts[i + 1:]:
            assert not overlap(text["box"], other["box"]), (text, other)
        for dot in chart["dots"] + chart["marks"]:
            assert not overlap(text["box"], dot), (text, dot)
    assert len(chart["marks"]) == len(marks)
    for i, mark in enumerate(chart["marks"]):
        assert inside(mark, chart["svg"]), mark
        for other in chart["marks"][i + 1:]:
            assert not overlap(mark, other), (mark, other)
    assert errors == []
