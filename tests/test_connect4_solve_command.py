"""``python -m engine solve connect4``: Pons' line format, errors on their own line, the stream goes on."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from engine.commands.solve import solve_stream
from engine.games.connect4 import Connect4
from engine.solve.connect4 import Solver

pytestmark = pytest.mark.engine

ROOT = Path(__file__).parent.parent


def test_solve_command_output_format_with_an_invalid_line() -> None:
    stdin = (
        "2252576253462244111563365343671351441 -1\n"
        "44x\n"
        "7422341735647741166133573473242566 1 trailing words are ignored\n"
        "4444444\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "engine", "solve", "connect4"],
        input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=60, check=False,
    )
    lines = result.stdout.splitlines()
    assert len(lines) == 4, result.stderr
    sequence, score, nodes, micros = lines[0].split(" ")
    assert (sequence, score) == ("2252576253462244111563365343671351441", "-1")
    assert int(nodes) > 0 and int(micros) >= 0
    assert lines[1] == "44x error character 3 of '44x' is 'x', not a column 1-7"
    assert lines[2].split(" ")[:2] == ["7422341735647741166133573473242566", "1"] and len(lines[2].split()) == 4
    assert lines[3] == "4444444 error move 7 of '4444444': column 4 is full"
    assert result.returncode == 1


def test_solve_stream_reports_finished_games_and_empty_lines() -> None:
    out = io.StringIO()
    errors = solve_stream(io.StringIO("1122334\n\n23163416124767223154467471272416755633 0\n"), out, Solver())
    lines = out.getvalue().splitlines()
    assert lines[0] == "1122334 error the game is over: the side that just moved has four in a row"
    assert lines[1].startswith(" error empty line")
    assert lines[2].startswith("23163416124767223154467471272416755633 0 ")
    assert errors == 2


def test_weak_option_prints_the_sign() -> None:
    out = io.StringIO()
    assert solve_stream(io.StringIO("52753311433677442422121 8\n"), out, Solver(), weak=True) == 0
    assert out.getvalue().split()[1] == "1"


def test_analyse_scores_every_column_as_pons_does() -> None:
    """Each column's score is minus the score of the position it leads to (a move that wins at once scores as Pons'
    ``analyze``; a full column -1000), and the best of them is the position's own score in his set."""
    lines = [line.split() for line in (ROOT / "tests" / "data" / "connect4" / "middle_easy.txt").read_text()
             .splitlines()[:20]]
    out = io.StringIO()
    errors = solve_stream(io.StringIO("".join(f"{sequence}\n" for sequence, _ in lines) + "1122334\n"), out,
                          Solver(), analyse=True)
    answers = out.getvalue().splitlines()
    assert errors == 1 and answers[-1] == "1122334 error the game is over: four in a row"
    solver = Solver()
    for (sequence, expected), answer in zip(lines, answers, strict=False):
        fields = answer.split()
        assert fields[0] == sequence and len(fields) == 9 and int(fields[8]) >= 0
        scores = [int(score) for score in fields[1:8]]
        state = Connect4.from_setup(sequence)
        for column in range(7):
            if not state.can_play(column):
                assert scores[column] == -1000
            elif state.play(column).outcome() is not None:
                assert scores[column] == (43 - state.moves) // 2
            else:
                solver.reset()
                assert scores[column] == -solver.solve(state.play(column))
        assert max(scores) == int(expected)


def test_a_reader_that_stops_early_cuts_the_output_without_a_traceback() -> None:
    """``engine solve connect4 < file | head -1``: the rest goes nowhere, quietly; the exit status says it was cut."""
    lines = "".join(f"4{column}\n" for column in "1234567" * 800)  # more output than a pipe holds (64 KiB)
    process = subprocess.Popen([sys.executable, "-m", "engine", "solve", "connect4"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, text=True)
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    process.stdin.write(lines)
    process.stdin.close()
    assert process.stdout.readline().startswith("41 ")
    process.stdout.close()  # the reader goes away, as head does after its lines
    assert process.wait(timeout=120) == 1
    assert process.stderr.read() == ""
