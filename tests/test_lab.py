"""The algorithm lab: its searches equal ``python -m engine analyse`` with the same configuration, they go through
the shared worker pool (queued when it is busy), and bad requests are refused with a reason."""

from __future__ import annotations

import json

import pytest
from support.helpers import analyse_json, connect
from support.waiting import eventually

from engine.cli import main
from engine.commands.analyse import TOGGLES
from webapp.arena.lab import PRESETS
from webapp.arena.lab import job_key as lab_job_key


def collect_finals(client, columns: int, timeout: float = 60) -> tuple[str, dict[int, dict], list[str]]:
    """The run id, each column's final event, and the kinds of every lab event seen, in order."""
    run: list[str] = []
    finals: dict[int, dict] = {}
    kinds: list[str] = []

    def every_final() -> bool:
        for name, payload in client.drain():
            if name == "lab_started":
                run.append(payload["run"])
            elif name == "lab":
                kinds.append(payload["info"]["kind"])
                if payload["info"]["kind"] == "final":
                    finals[payload["column"]] = payload["info"]
            elif name == "error":
                pytest.fail(f"error event: {payload}")
        return len(finals) >= columns

    eventually(every_final, f"the final events of {columns} columns", timeout=timeout)
    return run[-1] if run else None, finals, kinds


def test_the_alpha_beta_row_is_alpha_beta_alone(app, capsys: pytest.CaptureFixture[str]) -> None:
    """Every technique but alpha-beta is off in its row (the chess-only quiescence and check extension aside), the
    game's rule-based bounds too: tic-tac-toe after 5, depth 8, counts what ``engine analyse`` counts with all off."""
    options = PRESETS["alphabeta"][2]
    assert [name for name in TOGGLES if getattr(options, name)] == ["alphabeta", "quiescence"]
    flags = [f"--option={name}=off" for name in TOGGLES if name not in ("alphabeta", "quiescence")]
    assert main(["analyse", "tictactoe", "--position", "5", "--depth", "8", "--json", *flags]) == 0
    bare = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert analyse_json("tictactoe", "5", 8, "alphabeta", capsys)["nodes"] == bare["nodes"]
    client = connect(app)
    client.emit("lab_start", {"game": "tictactoe", "setup": "5", "moves": [], "configs": [{"preset": "alphabeta",
                                                                                           "depth": 8}]})
    _, finals, _ = collect_finals(client, 1)
    assert finals[0]["nodes"] == bare["nodes"]


def test_lab_numbers_equal_the_analyse_command(app, capsys: pytest.CaptureFixture[str]) -> None:
    client = connect(app)
    presets = ["minimax", "alphabeta", "tt", "everything"]
    client.emit("lab_start", {"game": "tictactoe", "setup": "5", "moves": ["1"],
                              "configs": [{"preset": p, "depth": 4} for p in presets]})
    run, finals, kinds = collect_finals(client, len(presets))
    assert run and sorted(finals) == [0, 1, 2, 3]
    assert "queued" in kinds  # one worker: the other columns wait their turn
    for column, preset in enumerate(presets):
        expected = analyse_json("tictactoe", "51", 4, preset, capsys)
        got = finals[column]
        for field in ("score", "best", "nodes", "pruned", "cutoffs", "depth", "pv"):
            assert got[field] == expected[field], (preset, field)
    assert finals[0]["pruned"] == 0 < finals[1]["pruned"]
    assert len({f["score"] for f in finals.values()}) == 1


@pytest.mark.parametrize(("payload", "message"), [
    ({"game": "go", "setup": "", "moves": [], "configs": [{"preset": "alphabeta"}]}, "unknown game"),
    ({"game": "tictactoe", "setup": "55", "moves": [], "configs": [{"preset": "alphabeta"}]}, "already taken"),
    ({"game": "tictactoe", "setup": "", "moves": [], "configs": []}, "configs must be a list of 1 to 4"),
    ({"game": "tictactoe", "setup": "", "moves": [], "configs": [{"preset": "magic"}]}, "unknown preset"),
    ({"game": "tictactoe", "setup": "", "moves": [], "configs": [{"preset": "minimax", "depth": 99}]}, "depth must"),
    ({"game": "tictactoe", "setup": "123456789", "moves": [], "configs": [{"preset": "minimax"}]}, "the game is over"),
    ({"game": "tictactoe", "setup": "", "moves": ["x"], "configs": [{"preset": "minimax"}]}, "not a cell"),
])
def test_bad_lab_requests_are_refused(app, payload: dict, message: str) -> None:
    client = connect(app)
    client.emit("lab_start", payload)
    errors = client.take("error")
    assert len(errors) == 1 and message in errors[0]["message"] and errors[0]["event"] == "lab_start"


def test_lab_page_opens_a_position(app) -> None:
    page = app.test_client().get("/lab?game=wolves&setup=R:c1%20W:b8,d8,f8,h8%20w")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert 'value="R:c1 W:b8,d8,f8,h8 w"' in html and '<option value="wolves" selected>' in html


def test_lab_stop_cancels_the_run(app) -> None:
    client = connect(app)
    client.emit("lab_start", {"game": "tictactoe", "setup": "", "moves": [],
                              "configs": [{"preset": "minimax", "time": 30}, {"preset": "minimax", "time": 30}]})
    started = client.take("lab_started")
    assert len(started) == 1
    client.emit("lab_stop", {"run": started[0]["run"]})
    assert wait_for_cancelled(client, 2) == {0, 1}
    assert app.extensions["arena"].runner.state_of(lab_job_key(started[0]["run"], 0)) == "idle"


def wait_for_cancelled(client, columns: int, timeout: float = 10) -> set[int]:
    """The columns whose ``cancelled`` event ``client`` received, once there are ``columns`` of them (an
    ``AssertionError`` after ``timeout`` seconds)."""
    cancelled: set[int] = set()

    def all_cancelled() -> bool:
        cancelled.update(lab["column"] for lab in client.take("lab") if lab["info"]["kind"] == "cancelled")
        return len(cancelled) >= columns

    eventually(all_cancelled, f"{columns} cancelled columns", timeout=timeout)
    return cancelled


def test_only_the_connection_that_started_a_run_can_stop_it(app) -> None:
    owner, other = connect(app), connect(app)
    owner.emit("lab_start", {"game": "tictactoe", "setup": "", "moves": [],
                             "configs": [{"preset": "minimax", "time": 30}]})
    [run] = [started["run"] for started in owner.take("lab_started")]
    other.emit("lab_stop", {"run": run})
    [error] = other.take("error")
    assert error["code"] == "forbidden" and error["event"] == "lab_stop"
    # a stop is handled before the refusal returns ("cancelled" comes from the cancelling thread): none came
    assert not [lab for lab in owner.take("lab") if lab["info"]["kind"] == "cancelled"]
    assert app.extensions["arena"].runner.state_of(lab_job_key(run, 0)) != "idle"
    owner.emit("lab_stop", {"run": run})
    assert wait_for_cancelled(owner, 1) == {0}


def test_a_run_stops_when_its_connection_ends(app) -> None:
    owner = connect(app)
    owner.emit("lab_start", {"game": "tictactoe", "setup": "", "moves": [],
                             "configs": [{"preset": "minimax", "time": 30}, {"preset": "minimax", "time": 30}]})
    [run] = [started["run"] for started in owner.take("lab_started")]
    owner.disconnect()
    runner = app.extensions["arena"].runner
    eventually(lambda: {runner.state_of(lab_job_key(run, c)) for c in (0, 1)} == {"idle"}, "both columns' end")
