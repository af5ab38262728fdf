"""Texel's method on chess games (``engine.chess.tuning``, ``python -m engine tune``): the linear model reads the same
tables as the engine's evaluation, tuning lowers the error it is asked to lower, and the tables file round-trips."""

from __future__ import annotations

import random
from pathlib import Path

import chess
import chess.pgn
import pytest

from engine.chess import tuning
from engine.chess.evaluation import TABLES, TABLES_FILE, read_tables
from engine.cli import main

pytestmark = pytest.mark.engine


def random_game(rng: random.Random, result: str, plies: int = 80) -> chess.pgn.Game:
    """A game of ``plies`` random legal moves (fewer if it ends) with the given ``result`` header."""
    board = chess.Board()
    while len(board.move_stack) < plies and not board.is_game_over():
        board.push(rng.choice(list(board.legal_moves)))
    game = chess.pgn.Game.from_board(board)
    game.headers["Result"] = result
    return game


def test_the_model_reads_the_tables_the_engine_evaluates_with() -> None:
    rng = random.Random(3)
    changed = [value + rng.randint(-40, 40) for value in tuning.parameters_of(TABLES)]
    engine = tuning.Evaluator(tuning.tables_of(changed, "changed"))
    start = tuning.Evaluator(TABLES)
    compared = 0
    for _ in range(6):
        game = random_game(rng, "1-0", plies=60)
        board = game.board()
        for move in game.mainline_moves():
            sample = tuning.sample_of(board, 1.0, 0, start)
            if sample is not None:
                # The engine blends each entry with an integer division: at most a centipawn off per piece.
                assert abs(tuning.model_score(sample, changed) - engine.score(board)) <= len(board.piece_map()), \
                    board.fen()
                compared += 1
            board.push(move)
    assert compared > 20


def test_quiet_positions_of_decided_games_are_the_samples() -> None:
    rng = random.Random(5)
    game = random_game(rng, "0-1", plies=70)
    samples = list(tuning.samples_of_game(game, 4, tuning.Evaluator(TABLES)))
    assert samples and all(sample.result == 0.0 and sample.game == 4 for sample in samples)
    assert len(samples) <= 70 - tuning.OPENING_PLIES
    game.headers["Result"] = "*"
    assert not list(tuning.samples_of_game(game, 4, tuning.Evaluator(TABLES)))


def test_tuning_lowers_the_training_error() -> None:
    rng = random.Random(7)
    samples = tuning.collect([random_game(rng, rng.choice(["1-0", "0-1", "1/2-1/2"])) for _ in range(20)], TABLES)
    start = tuning.parameters_of(TABLES)
    training = [sample for sample in samples if sample.game % 10]
    progress: list[tuning.Progress] = []
    tuned = tuning.tune(samples, start, 20, 1.0, rate=2.0, report=progress.append)
    assert [step.epoch for step in progress] == [0, 10, 20]
    assert tuning.error(training, tuned, 1.0) < tuning.error(training, start, 1.0)
    kept = min(progress, key=lambda step: step.held_out)  # early stopping on the held-out games
    assert kept.training == pytest.approx(tuning.error(training, tuned, 1.0))


def test_the_tables_file_round_trips_and_must_be_symmetric(tmp_path: Path) -> None:
    assert TABLES.to_json() == TABLES_FILE.read_text(encoding="utf-8")
    assert tuning.tables_of(tuning.parameters_of(TABLES), TABLES.about) == TABLES
    broken = tmp_path / "broken.json"
    broken.write_text(TABLES.to_json().replace("[", "[1, ", 3), encoding="utf-8")
    with pytest.raises(ValueError, match="symmetric rows"):
        read_tables(broken)


def knight_down_game(rng: random.Random, loser: chess.Color) -> chess.pgn.Game:
    """A game from the start without one of ``loser``'s knights, 40 random quiet plies, lost by ``loser``: a result
    the knights' entries can learn."""
    board = chess.Board()
    board.remove_piece_at(chess.B1 if loser == chess.WHITE else chess.B8)
    for _ in range(40):
        quiet = [move for move in board.legal_moves if not board.is_capture(move) and not board.gives_check(move)]
        if not quiet:
            break
        board.push(rng.choice(quiet))
    game = chess.pgn.Game.from_board(board)
    game.headers["Result"] = "0-1" if loser == chess.WHITE else "1-0"
    return game


def test_the_tune_command_writes_tables_that_name_their_games(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    rng = random.Random(11)
    pgn = tmp_path / "games.pgn"
    pgn.write_text("\n\n".join(str(knight_down_game(rng, rng.choice(chess.COLORS))) for _ in range(30)) + "\n",
                   encoding="utf-8")
    out = tmp_path / "tuned.json"
    assert main(["tune", str(pgn), "--epochs", "20", "--rate", "5", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "epoch 20: training" in printed and "wrote" in printed
    tuned = read_tables(out)
    assert "games.pgn" in tuned.about and "of 20" in tuned.about and "held-out error" in tuned.about
    assert sum(tuned.middlegame["N"]) > sum(TABLES.middlegame["N"])  # a knight more won those games
    assert main(["tune", str(pgn), "--epochs", "0", "--out", str(tmp_path / "none.json")]) == 0
    assert "not written" in capsys.readouterr().out and not (tmp_path / "none.json").exists()
    empty = tmp_path / "empty.pgn"
    empty.write_text("", encoding="utf-8")
    assert main(["tune", str(empty), "--out", str(out)]) == 2
    assert "too few to tune" in capsys.readouterr().err
