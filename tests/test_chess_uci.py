"""``python -m engine uci`` driven by python-chess's UCI client."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.engine
import pytest

from engine.commands.uci import UciSession, time_budget, uci_score
from engine.game import WIN

pytestmark = pytest.mark.engine

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def engine() -> Iterator[chess.engine.SimpleEngine]:
    process = chess.engine.SimpleEngine.popen_uci([sys.executable, "-m", "engine", "uci"], cwd=ROOT)
    yield process
    process.quit()


def test_identifies_itself_and_its_options(engine: chess.engine.SimpleEngine) -> None:
    assert engine.id["name"] == "Alpha-Beta Arena"
    assert "Personality" in engine.options and "OwnBook" in engine.options


def test_go_depth_reports_info_and_a_legal_move(engine: chess.engine.SimpleEngine) -> None:
    board = chess.Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    result = engine.play(board, chess.engine.Limit(depth=3), info=chess.engine.INFO_ALL)
    assert result.move in board.legal_moves
    assert result.info["depth"] == 3 and result.info["nodes"] > 0 and "score" in result.info
    assert result.info["pv"][0] == result.move


def test_go_movetime_and_clock_times_give_a_move(engine: chess.engine.SimpleEngine) -> None:
    board = chess.Board()
    assert engine.play(board, chess.engine.Limit(time=0.3)).move in board.legal_moves
    clock = chess.engine.Limit(white_clock=5, black_clock=5, white_inc=0.1, black_inc=0.1)
    assert engine.play(board, clock).move in board.legal_moves


def test_reports_a_mate_score(engine: chess.engine.SimpleEngine) -> None:
    info = engine.analyse(chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"), chess.engine.Limit(depth=3))
    assert info["score"].relative == chess.engine.Mate(1) and info["pv"][0] == chess.Move.from_uci("a1a8")


def test_stop_ends_an_infinite_analysis(engine: chess.engine.SimpleEngine) -> None:
    board = chess.Board()
    with engine.analysis(board) as analysis:
        assert "depth" in analysis.get()  # the search is running and reporting
        analysis.stop()
        best = analysis.wait()
    assert best.move in board.legal_moves


def test_short_game_against_itself(engine: chess.engine.SimpleEngine) -> None:
    board = chess.Board()
    for _ in range(12):
        result = engine.play(board, chess.engine.Limit(depth=2))
        assert result.move in board.legal_moves
        board.push(result.move)
    assert len(board.move_stack) == 12


def test_bad_commands_are_reported_and_the_session_goes_on() -> None:
    commands = "\n".join(["uci", "position fen not-a-fen", "position startpos moves e2e5",
                          "setoption name Nope value 1", "bogus", "position startpos moves e2e4", "go depth 2",
                          "isready", "quit"]) + "\n"
    output = io.StringIO()
    UciSession(io.StringIO(commands), output).serve()
    lines = output.getvalue().splitlines()
    errors = [line for line in lines if line.startswith("info string")]
    assert len(errors) == 4 and "uciok" in lines and "readyok" in lines
    best = [line for line in lines if line.startswith("bestmove")]
    assert len(best) == 1 and chess.Move.from_uci(best[0].split()[1]) in chess.Board(
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").legal_moves


def test_scores_and_time_budgets() -> None:
    assert uci_score(35) == "cp 35" and uci_score(WIN - 1) == "mate 1" and uci_score(WIN - 5) == "mate 3"
    assert uci_score(-(WIN - 2)) == "mate -1" and uci_score(-WIN) == "mate 0"
    assert time_budget({"movetime": 500}, True) == pytest.approx(0.47)
    assert time_budget({"wtime": 30_000, "btime": 1_000}, True) == pytest.approx(30 / 30 - 0.03)
    assert time_budget({"wtime": 30_000, "btime": 1_000}, False) == pytest.approx(0.01)
    assert time_budget({"wtime": 1_000, "winc": 2_000, "btime": 1}, True) == pytest.approx(0.4 - 0.03)
    assert time_budget({"depth": 5}, True) is None
