"""Our chess endgame tables against python-chess' rules and against published values: on random positions of each
ending, a mate is a loss in 0, a stalemate a draw, and every value is the best of its moves' values (with
python-chess generating the moves, captures and promotions into other tables included); the longest mates are
the published ones (KQK 10 moves, KRK 16, KPK 28, KQKR 35)."""

from __future__ import annotations

import random
from pathlib import Path

import chess
import pytest

from engine.chess import endgames
from engine.solve.tablebase import Entry


def random_boards(material: str, count: int, rng: random.Random) -> list[chess.Board]:
    """``count`` legal positions of ``material`` (White's pieces first: "KQKR"), either side to move."""
    split = material.index("K", 1)
    pieces = [chess.Piece.from_symbol(letter) for letter in material[:split]] + [
        chess.Piece.from_symbol(letter.lower()) for letter in material[split:]]
    boards: list[chess.Board] = []
    while len(boards) < count:
        board = chess.Board(None)
        for piece, square in zip(pieces, rng.sample(chess.SQUARES, len(pieces)), strict=True):
            board.set_piece_at(square, piece)
        board.turn = rng.choice(chess.COLORS)
        if board.is_valid():
            boards.append(board)
    return boards


def turned_over(material: str) -> str:
    """The same ending with the colours swapped: "KQK" -> "KKQ"."""
    split = material.index("K", 1)
    return f"K{material[split + 1:]}K{material[1:split]}"


def check_against_python_chess(material: str, directory: Path, count: int, seed: int) -> None:
    for board in random_boards(material, count, random.Random(seed)):
        entry = endgames.probe(board, directory)
        assert entry is not None, board.fen()
        if board.is_checkmate():
            assert entry == Entry("loss", 0), board.fen()
            continue
        if board.is_stalemate():
            assert entry == Entry("draw", None), board.fen()
            continue
        values = endgames.move_values(board, directory)
        assert values is not None and sorted(values) == sorted(move.uci() for move in board.legal_moves)
        assert entry == max(values.values(), key=lambda value: value.score), board.fen()


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("chess-tables")


@pytest.mark.engine
@pytest.mark.parametrize("material", ["KQK", "KRK", "KPK"])
def test_three_piece_tables_follow_the_rules(material: str, tables: Path) -> None:
    check_against_python_chess(material, tables, 300, seed=ord(material[1]))
    check_against_python_chess(turned_over(material), tables, 100, seed=3)  # Black has the piece: read turned over


@pytest.mark.engine
def test_the_longest_three_piece_mates_are_the_published_ones(tables: Path) -> None:
    for material, moves in (("KQK", 10), ("KRK", 16), ("KPK", 28)):
        solved = endgames.table(material, tables, build_missing=True)
        assert solved is not None
        longest = max(code for code in set(solved[1]) if code >= 2)
        assert (longest - 2) >> 1 == 2 * moves, material  # the side to move, mated after its 10th move: 20 plies


@pytest.mark.engine
def test_positions_without_a_table_are_not_known(tables: Path) -> None:
    assert endgames.probe(chess.Board(), tables) is None
    assert endgames.probe(chess.Board("8/8/8/4k3/8/8/8/4K2R w K - 0 1"), tables) is None  # may castle
    assert endgames.probe(chess.Board("8/8/8/4k3/8/8/8/2B1K3 w - - 0 1"), tables) == Entry("draw", None)
    assert endgames.probe(chess.Board("8/8/8/4k3/8/8/8/3QK3 w - - 0 1"), tables / "elsewhere") is not None


def test_kqkr_has_the_published_longest_mate_and_follows_the_rules(tables: Path) -> None:
    """The four-piece table needs KQK and KRK for its captures (built first); 35 moves is the longest mate."""
    endgames.build("KQKR", tables)
    solved = endgames.table("KQKR", tables)
    assert solved is not None
    longest = max(code for code in set(solved[1]) if code >= 2)
    assert (longest - 2) >> 1 == 70
    check_against_python_chess("KQKR", tables, 300, seed=7)
    check_against_python_chess(turned_over("KQKR"), tables, 100, seed=8)
