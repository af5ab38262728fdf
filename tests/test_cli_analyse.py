"""``python -m engine analyse``: a table or JSON lines of events, the final one last; exit 2 on bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.cli import main

pytestmark = pytest.mark.engine

ROOT = Path(__file__).resolve().parent.parent


def test_json_lines_end_with_the_final_event(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", "tictactoe", "--position", "15", "--json"]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert events[-1]["final"] is True and events[-1]["kind"] == "final"
    assert not any(event["final"] for event in events[:-1])
    assert events[-1]["score_text"] == "+0" and events[-1]["best"] in list("2346789")


def test_table_has_a_row_per_event_and_the_root_moves(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", "nim", "--position", "10 max=3", "--depth", "4", "--no-tt", "--no-ordering"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:3] == ["kind", "depth", "seld"]
    assert [line.split()[0] for line in out[1:6]] == ["depth"] * 4 + ["final"]
    assert "root moves:" in out and any("1:2" in line for line in out)


@pytest.mark.parametrize("algorithm", ["minimax", "mcts"])
def test_other_algorithms(algorithm: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", "tictactoe", "--position", "159", "--algorithm", algorithm, "--nodes", "2000",
                 "--seed", "1", "--json"]) == 0
    final = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert final["algorithm"] == algorithm and final["best"] in list("2468")


def test_option_toggles(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", "tictactoe", "--option", "alphabeta=off", "--option", "iterative=off", "--json"]) == 0
    final = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert final["pruned"] == 0 and final["score"] == 0


@pytest.mark.parametrize(("argv", "message"), [
    (["analyse", "checkers"], "unknown game 'checkers'"),
    (["analyse", "tictactoe", "--position", "55"], "cell 5 is already taken"),
    (["analyse", "nim", "--position", "3,x"], "not a comma-separated list"),
    (["analyse", "tictactoe", "--depth", "0"], "limits.depth must be"),
    (["analyse", "tictactoe", "--option", "speed=on"], "bad --option 'speed=on'"),
])
def test_bad_input_exits_2_with_a_message(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert message in captured.err and captured.out == ""


def test_module_entry_point() -> None:
    result = subprocess.run([sys.executable, "-m", "engine", "analyse", "tictactoe", "--position", "7918"],
                            cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0
    final_rows = [line for line in result.stdout.splitlines() if line.split()[:1] == ["final"]]
    assert len(final_rows) == 1 and "win in 1" in final_rows[0] and final_rows[0].endswith("pv 4")
