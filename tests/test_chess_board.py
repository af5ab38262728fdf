"""The internal chess board against python-chess: perft counts, move lists, incremental scores."""

from __future__ import annotations

import random
from pathlib import Path

import chess
import pytest

from engine.chess import board as cb
from engine.chess import convert
from engine.chess.evaluation import PERSONALITIES, build_tables

pytestmark = pytest.mark.engine

TABLES = build_tables(12, PERSONALITIES["balanced"])
DATA = Path(__file__).parent / "data" / "chess"


def perft_cases(name: str, max_leaves: int) -> list[tuple[str, int, int]]:
    """(fen, depth, count) for every depth of the EPD file whose count is at most ``max_leaves``."""
    cases = []
    for line in (DATA / name).read_text().splitlines():
        fen, *counts = line.split(";")
        for item in counts:
            depth, count = item.split()
            if int(count) <= max_leaves:
                cases.append((fen.strip(), int(depth[1:]), int(count)))
    return cases


@pytest.mark.parametrize(("fen", "depth", "count"), perft_cases("cpw_perft.epd", 100_000))
def test_perft_matches_the_chess_programming_wiki(fen: str, depth: int, count: int) -> None:
    position = convert.from_board(chess.Board(fen), TABLES)
    assert cb.perft(position, depth, TABLES) == count


@pytest.mark.parametrize(("fen", "depth", "count"), perft_cases("perftsuite_001_040.epd", 12_000))
def test_perft_matches_the_perft_suite(fen: str, depth: int, count: int) -> None:
    position = convert.from_board(chess.Board(fen), TABLES)
    assert cb.perft(position, depth, TABLES) == count


def test_legal_moves_and_scores_agree_with_python_chess_along_random_games() -> None:
    rng = random.Random(7)
    for _ in range(25):
        board = chess.Board()
        position = convert.from_board(board, TABLES)
        for _ in range(120):
            white = board.turn == chess.WHITE
            ours = {convert.move_uci(move, white): child for move, child in cb.legal_moves(position, TABLES)}
            assert set(ours) == {move.uci() for move in board.legal_moves}, board.fen()
            if not ours or board.is_insufficient_material():
                break
            choice = rng.choice(sorted(ours))
            board.push_uci(choice)
            position = ours[choice]
            rebuilt = convert.from_board(board, TABLES)
            assert position.board == rebuilt.board
            assert position.score == rebuilt.score == cb.score_board(position.board, TABLES)


def test_moves_convert_both_ways() -> None:
    board = chess.Board("r3k2r/P6p/8/2pP4/8/8/7P/R3K2R w KQkq c6 0 2")
    for move in board.legal_moves:
        internal = convert.move_from_chess(move, True)
        assert convert.move_uci(internal, True) == move.uci()
    board.push_uci("e1g1")
    for move in board.legal_moves:
        assert convert.move_uci(convert.move_from_chess(move, False), False) == move.uci()
