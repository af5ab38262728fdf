"""Opening names, the book, its cache, and the chess oracle (book and tablebase)."""

from __future__ import annotations

import random
from pathlib import Path

import chess
import pytest

from engine.chess import openings
from engine.chess.oracle import chess_oracle, tablebase_move
from engine.clock import SYSTEM_MONOTONIC
from engine.game import play_moves
from engine.games import new_game
from engine.games.chess import ChessState
from engine.oracles import oracle_for
from engine.player import think

pytestmark = pytest.mark.engine


def test_opening_names_follow_the_game() -> None:
    state = new_game("chess")
    assert state.opening() is None and openings.named_opening(state.board) is None
    state = play_moves(state, ["e4", "c5"])
    assert state.opening().name == "Sicilian Defense"
    state = play_moves(state, ["Nf3", "d6"])
    opening = state.opening()
    assert opening.eco == "B50" and opening.name.startswith("Sicilian Defense")


def test_a_game_keeps_its_opening_after_it_leaves_the_named_lines() -> None:
    """Found move by move (a viewed state's children) or all at once (a state fresh from its setup), the opening is
    the latest named position's, however many moves and captures came after it."""
    line = ["e4", "c5", "Nf3", "d6", "d4", "cxd4", "Nxd4", "Nf6", "Nc3", "a6", "Bg5", "e6", "Bxf6", "gxf6",
            "Qh5", "Qb6", "Qxf7+", "Kxf7"]
    step = new_game("chess")
    step.opening()
    for move in line:
        step = play_moves(step, [move])
    whole = ChessState.from_setup(step.setup())
    assert step.opening() == whole.opening() and step.opening().name.startswith("Sicilian Defense: Najdorf")
    assert len(step.board.move_stack) == 0 and not list(whole.board.move_stack)
    assert step.san_moves() == whole.san_moves() == line


def test_book_moves_are_legal_weighted_and_varied() -> None:
    board = chess.Board()
    moves = openings.book_moves(board)
    assert moves["e2e4"] > moves["g2g4"] > 0
    rng = random.Random(3)
    picks = {openings.pick_book_move(board, rng) for _ in range(60)}
    assert {"e2e4", "d2d4"} <= picks and "g2g4" not in picks
    assert all(chess.Move.from_uci(move) in board.legal_moves for move in picks)
    out_of_book = ChessState.from_setup("4k3/8/8/8/8/8/8/4K2R w K - 0 1").board
    assert openings.book_moves(out_of_book) == {} and openings.pick_book_move(out_of_book, rng) is None


def test_index_is_cached_on_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tables = tmp_path / "tables"
    tables.mkdir()
    (tables / "x.tsv").write_text("eco\tname\tpgn\nC20\tKing's Pawn Game\t1. e4 e5\n"
                                  "C40\tKing's Knight Opening\t1. e4 e5 2. Nf3\n", encoding="utf-8")
    monkeypatch.setenv("ARENA_OPENINGS", str(tables))
    monkeypatch.setenv("ARENA_CACHE", str(tmp_path / "cache"))
    openings.load_index.cache_clear()
    try:
        built = openings.load_index()
        assert len(built.names) == 2 and built.moves[chess.Board().epd()] == {"e2e4": 2}
        assert list((tmp_path / "cache").glob("chess-openings-*.pickle"))
        openings.load_index.cache_clear()
        assert openings.load_index() == built
    finally:
        openings.load_index.cache_clear()


def test_oracle_plays_book_moves_at_levels_five_to_eight_only() -> None:
    state = play_moves(new_game("chess"), ["e4", "e5"])
    answer = chess_oracle(state, 5, random.Random(1))
    assert answer is not None and answer.source == "book" and answer.final
    assert chess.Move.from_uci(answer.best) in state.board.legal_moves
    opening = state.play(chess.Move.from_uci(answer.best)).opening()
    assert answer.score is None and answer.score_text == f"opening book · {opening.eco} {opening.name}"
    assert chess_oracle(state, 4) is None
    events = list(think(state, level=8))
    assert len(events) == 1 and events[0].source == "book"


def test_a_seeded_player_draws_the_same_book_moves() -> None:
    """``think`` hands its random generator to the book, so a seed reproduces the book moves of a game."""
    state = new_game("chess")

    def book_line(seed: int) -> list[str]:
        rng, line, position = random.Random(seed), [], state
        for _ in range(6):
            *_, final = think(position, level=8, rng=rng)
            assert final.source == "book"
            line.append(final.best)
            position = position.play(chess.Move.from_uci(final.best))
        return line

    lines = {seed: book_line(seed) for seed in range(4)}
    assert all(book_line(seed) == line for seed, line in lines.items())
    assert len({tuple(line) for line in lines.values()}) > 1  # the seed does choose among the main lines


def test_without_syzygy_files_the_oracle_answers_only_our_endings(monkeypatch: pytest.MonkeyPatch,
                                                                  tmp_path: Path) -> None:
    board = chess.Board("8/8/8/4k3/8/8/8/4K2Q w - - 0 1")
    monkeypatch.delenv("ARENA_SYZYGY", raising=False)
    assert tablebase_move(board) is None
    assert tablebase_move(board, str(tmp_path / "missing")) is None
    assert chess_oracle(ChessState(board), 8) is None  # the book and Syzygy only
    answers = list(oracle_for("chess").answers(ChessState(board), 8, SYSTEM_MONOTONIC, random.Random(1)))
    answer = answers[0]  # our KQK table first (built on first use in the run's cache)
    assert answer.source == "table" and answer.score_text.startswith("endgame table: win in")
    assert len(answer.root_moves) == board.legal_moves.count()
    assert all(move.bound == "exact" for move in answer.root_moves)
    five = ChessState(chess.Board("8/8/8/4k3/8/3p4/8/R3K2Q w - - 0 1"))
    assert list(oracle_for("chess").answers(five, 8, SYSTEM_MONOTONIC, random.Random(1))) == []  # five pieces
