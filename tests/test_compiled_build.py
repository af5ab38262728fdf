"""The compiled engine (setup.py, engine.native): built where a C compiler exists, chosen per process, never stale,
and equal to the interpreted modules in every output. Only the first test is marked ``engine`` (it checks the
build of the process it runs in); the others choose the build of the processes they start."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from engine import BUILD
from engine.native import COMPILED_FOLDER, MANIFEST, PACKAGE_ROOT, PURE_PYTHON_VARIABLE, inspect_build

PROBE = """
import json, engine, engine.solve.connect4 as solver
print(json.dumps({"compiled": engine.BUILD.compiled, "file": solver.__file__}))
"""

OUTPUTS = """
import hashlib
import json
from pathlib import Path
from engine.games import new_game
from engine.games.connect4 import Connect4
from engine.search import analyse
from engine.search.info import Limits
from engine.solve.connect4 import Solver
from engine.solve.connect4_book import opening_book
from engine.solve.connect4_oracle import connect4_answers, move_scores
from engine.solve.positions import TicTacToeSpace, WolvesSpace
from engine.solve.retrograde import solve

searches = [("tictactoe", None, None), ("nim", "3,4,5", None), ("connect4", "4453", 8), ("connect4", "", 7),
            ("wolves", None, 8), ("chess", None, 5),
            ("chess", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 5),
            ("chess", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 5),
            ("chess", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 7)]
out = {"searches": [], "solves": [], "oracle": None}
for game, setup, depth in searches:
    info = analyse(new_game(game, setup), Limits(depth=depth))
    roots = [[move.move, move.score, move.nodes, move.bound] for move in info.root_moves]
    out["searches"].append([game, info.score, info.best, info.pv, info.nodes, info.qnodes, info.cutoffs,
                            info.pruned, info.generated, info.tt_hits, info.depth, roots])
solver = Solver()
for name, count in (("end_easy", 30), ("middle_easy", 30), ("begin_easy", 10), ("middle_medium", 3)):
    for line in (Path("tests/data/connect4") / f"{name}.txt").read_text().splitlines()[:count]:
        solver.reset()
        out["solves"].append([line.split()[0], solver.solve(Connect4.from_setup(line.split()[0])), solver.nodes])
info = [*connect4_answers(Connect4.from_setup("2252576253462244111563365343671351"), 8)][-1]
roots = [[move.move, move.score, move.nodes, move.bound] for move in info.root_moves]
out["oracle"] = [info.score, info.pv, info.nodes, roots]
out["book"] = [list(entry) for entry in move_scores(Connect4.from_setup("43"), Solver(book=opening_book()))]
out["tables"] = [hashlib.sha256(solve(space())).hexdigest() for space in (TicTacToeSpace, WolvesSpace)]
print(json.dumps(out))
"""


def run_python(code: str, cwd: Path, pure: bool) -> subprocess.CompletedProcess[str]:
    """``code`` run by this Python in a fresh process from ``cwd``, on the interpreted modules when ``pure``."""
    env = {key: value for key, value in os.environ.items() if key != PURE_PYTHON_VARIABLE}
    if pure:
        env[PURE_PYTHON_VARIABLE] = "1"
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True,
                          check=True, timeout=600)


def has_c_compiler() -> bool:
    compiler = (sysconfig.get_config_var("CC") or "").split()
    return bool(compiler) and shutil.which(compiler[0]) is not None


@pytest.mark.engine
def test_the_installed_engine_is_compiled_where_a_c_compiler_exists() -> None:
    if os.environ.get(PURE_PYTHON_VARIABLE) == "1":
        assert not BUILD.compiled and BUILD.reason == f"{PURE_PYTHON_VARIABLE}=1"
        return
    assert has_c_compiler(), "this machine has no C compiler: the engine cannot be compiled here"
    assert BUILD.compiled, BUILD.describe()
    assert {"engine.solve.connect4", "engine.games.connect4_bits"} <= set(BUILD.modules)
    import engine.solve.connect4

    assert Path(engine.solve.connect4.__file__).is_relative_to(COMPILED_FOLDER)


def test_pure_python_makes_a_process_use_the_sources() -> None:
    compiled = json.loads(run_python(PROBE, PACKAGE_ROOT, pure=False).stdout)
    pure = json.loads(run_python(PROBE, PACKAGE_ROOT, pure=True).stdout)
    assert compiled["compiled"] and compiled["file"].endswith(sysconfig.get_config_var("EXT_SUFFIX"))
    assert not pure["compiled"] and pure["file"] == str(PACKAGE_ROOT / "engine" / "solve" / "connect4.py")


def test_an_edited_source_is_never_shadowed_by_its_build(tmp_path: Path) -> None:
    """A copy of the package with its build: loaded compiled, then, once one source changes, interpreted (all
    modules of the build), with a warning that says which file and what to do."""
    assert (COMPILED_FOLDER / MANIFEST).is_file(), "no compiled build: run make install"
    shutil.copytree(PACKAGE_ROOT / "engine", tmp_path / "engine", ignore=shutil.ignore_patterns("__pycache__"))
    before = run_python(PROBE, tmp_path, pure=False)
    assert json.loads(before.stdout) == {
        "compiled": True,
        "file": str(next((tmp_path / "engine" / "_compiled" / "engine" / "solve").glob("connect4.*"))),
    }
    source = tmp_path / "engine" / "games" / "connect4_bits.py"
    source.write_text(source.read_text() + "\n\nEDITED = True\n")
    after = run_python(PROBE + "import engine.games.connect4_bits as bits; print(bits.EDITED)", tmp_path, pure=False)
    lines = after.stdout.splitlines()
    assert json.loads(lines[0]) == {"compiled": False, "file": str(tmp_path / "engine" / "solve" / "connect4.py")}
    assert lines[1] == "True"
    assert "engine/games/connect4_bits.py changed since the compiled build; run make install" in after.stderr


def test_inspect_build_reasons(tmp_path: Path) -> None:
    assert inspect_build(COMPILED_FOLDER, PACKAGE_ROOT, {PURE_PYTHON_VARIABLE: "1"})[0].reason == "ARENA_PURE_PYTHON=1"
    build, files = inspect_build(tmp_path, PACKAGE_ROOT, {})
    assert (build.compiled, files) == (False, {}) and build.reason.startswith("no compiled build")
    manifest = json.loads((COMPILED_FOLDER / MANIFEST).read_text())
    (tmp_path / MANIFEST).write_text(json.dumps({**manifest, "python": "cpython-20"}))
    assert "is for cpython-20" in inspect_build(tmp_path, PACKAGE_ROOT, {})[0].reason
    (tmp_path / MANIFEST).write_text(json.dumps(manifest))
    assert "lacks" in inspect_build(tmp_path, PACKAGE_ROOT, {})[0].reason  # the extensions are not in tmp_path


def test_compiled_and_interpreted_engines_give_equal_outputs() -> None:
    """Moves, scores, PVs and node counts of a search in every game, Pons' sets solved, the Connect Four oracle's
    every-move scores, an early position solved down to the opening book, and the tic-tac-toe and Wolves & Rabbit
    tables: identical whichever build runs."""
    compiled = json.loads(run_python(OUTPUTS, PACKAGE_ROOT, pure=False).stdout)
    interpreted = json.loads(run_python(OUTPUTS, PACKAGE_ROOT, pure=True).stdout)
    assert compiled == interpreted
    assert len(compiled["solves"]) == 73 and all(nodes > 0 for _, _, nodes in compiled["solves"][30:])
