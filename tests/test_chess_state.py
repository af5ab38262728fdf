"""The chess game state: setup, notation, outcomes with reasons, bad input, view, value semantics."""

from __future__ import annotations

import pickle
import tracemalloc

import chess
import pytest
from support.long_games import long_game

from engine.game import IllegalMoveError, InvalidSetupError, play_moves
from engine.games import game_class, new_game
from engine.games.chess import ChessState
from engine.player import think
from engine.search.info import Limits

pytestmark = pytest.mark.engine


def test_registry_and_start_position() -> None:
    state = new_game("chess")
    assert game_class("chess") is ChessState
    assert state.to_move == 0 and len(state.legal_moves()) == 20 and state.outcome() is None
    assert ChessState.score_scale == 100


def test_an_empty_setup_is_the_starting_position() -> None:
    assert ChessState.from_setup("  ") == new_game("chess")


@pytest.mark.parametrize("text", ["not a fen", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1",
                                  "8/8/8/8/8/8/8/8 w - - 0 1", "4k3/8/8/8/8/8/8/4K2Q w - - 0 1 extra junk",
                                  "k7/8/8/8/8/8/8/KQ6 w - - 0 1 moves e2e4"])
def test_bad_setup_raises_invalid_setup_error(text: str) -> None:
    with pytest.raises(InvalidSetupError):
        ChessState.from_setup(text)


def test_impossible_position_is_named() -> None:
    with pytest.raises(InvalidSetupError, match="opposite check"):
        ChessState.from_setup("5k2/8/8/8/8/8/8/4KR2 w - - 0 1")


def test_setup_round_trips_with_moves() -> None:
    state = ChessState.from_setup("startpos moves e2e4 c7c5 g1f3")
    again = ChessState.from_setup(state.setup())
    assert again == state and again.board.move_stack == state.board.move_stack
    assert ChessState.from_setup(chess.STARTING_FEN) == new_game("chess")


@pytest.mark.parametrize(("text", "message"), [("e2e5", "not legal"), ("Ke2", "not legal"), ("zz9", "not a move"),
                                               ("", "UCI"), ("e7e8q", "not legal")])
def test_bad_moves_raise_illegal_move_error_with_a_message(text: str, message: str) -> None:
    state = new_game("chess")
    with pytest.raises(IllegalMoveError, match=message):
        state.parse_move(text)
    with pytest.raises(IllegalMoveError):
        state.play(chess.Move.from_uci("e2e5"))


def test_san_and_uci_are_both_accepted() -> None:
    state = new_game("chess")
    assert state.parse_move("Nf3") == state.parse_move("g1f3") == chess.Move.from_uci("g1f3")
    state = play_moves(state, ["e4", "e5", "Nf3", "Nc6", "Bc4", "Nf6"])
    assert state.parse_move("O-O") == chess.Move.from_uci("e1g1")
    ambiguous = ChessState.from_setup("4k3/8/8/8/8/8/8/R3K2R w - - 0 1")
    assert ambiguous.parse_move("Rd1") == chess.Move.from_uci("a1d1")


def test_checkmate_is_a_win_with_its_reason() -> None:
    state = play_moves(new_game("chess"), ["f3", "e5", "g4", "Qh4"])
    outcome = state.outcome()
    assert outcome is not None and outcome.winner == 1 and outcome.reason == "checkmate"
    assert state.legal_moves() == []
    assert state.view()["check"] == "e1"
    with pytest.raises(IllegalMoveError, match="game is over"):
        state.parse_move("a3")


@pytest.mark.parametrize(("fen", "reason"), [
    ("k7/2Q5/1K6/8/8/8/8/8 b - - 0 1", "stalemate"),
    ("k7/8/1K6/8/8/8/8/6N1 b - - 0 1", "insufficient material"),
    ("k7/8/1K6/8/8/8/2Q5/8 b - - 100 80", "fifty-move rule"),
])
def test_draws_have_their_reason(fen: str, reason: str) -> None:
    outcome = ChessState.from_setup(fen).outcome()
    assert outcome is not None and outcome.winner is None and outcome.reason == reason


def test_fifty_move_rule_and_threefold_repetition_arise_in_play() -> None:
    state = ChessState.from_setup("k7/8/1K6/8/8/8/2Q5/8 w - - 99 80")
    assert state.outcome() is None
    state = state.play(state.parse_move("Qc3"))
    assert state.outcome().reason == "fifty-move rule"
    shuffle = ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"]
    state = play_moves(new_game("chess"), shuffle)
    assert state.outcome() is None
    state = state.play(state.parse_move("Ng8"))
    assert state.outcome().reason == "threefold repetition" and state.outcome().winner is None


def test_view_has_what_the_board_draws() -> None:
    state = play_moves(new_game("chess"), ["e4", "e5", "Nf3", "Nf6"])
    view = state.view()
    assert view["fen"] == state.board.fen() and view["last_move"] == "g8f6" and view["check"] is None
    assert view["pieces"]["e4"] == "P" and view["pieces"]["f6"] == "n" and len(view["pieces"]) == 32
    assert view["san"] == ["e4", "e5", "Nf3", "Nf6"] and view["moves"][0] == "e2e4"
    assert "f3e5" in view["legal"] and view["to_move"] == 0 and view["turn"] == "white"
    assert view["opening"] == {"eco": "C42", "name": "Petrov's Defense"}
    assert view["outcome"] is None and "1. e4 e5 2. Nf3 Nf6" in state.pgn() and "pgn" not in view


def test_opening_name_survives_leaving_the_book() -> None:
    state = play_moves(new_game("chess"), ["e4", "e5", "Nf3", "Nf6", "a3", "h6", "h3"])
    assert state.view()["opening"]["eco"] == "C42"


def test_state_is_an_immutable_picklable_value() -> None:
    state = play_moves(new_game("chess"), ["d4", "d5", "c4", "Nf6", "Nc3"])
    child = state.play(state.parse_move("Nc6"))
    assert state.setup().endswith("moves d2d4 d7d5 c2c4 g8f6 b1c3") and child.setup() == state.setup() + " b8c6"
    assert len(state.board.move_stack) == 2 and len(child.board.move_stack) == 3  # since the last pawn move
    copy = pickle.loads(pickle.dumps(child))
    assert copy == child and hash(copy) == hash(child) and copy.view()["san"] == child.view()["san"]
    assert copy.setup() == child.setup() and copy.board.move_stack == child.board.move_stack
    assert isinstance(state.key, int) and state.key != child.key
    assert -50 < new_game("chess").evaluate() < 50


def test_repetitions_count_the_moves_since_the_last_capture_or_pawn_move() -> None:
    """The board keeps only those moves, the game's rules still see the repetitions, and the whole game is kept."""
    shuffle = ["Nf3", "Nf6", "Ng1", "Ng8"]
    state = play_moves(new_game("chess"), ["e4", "e5", *shuffle])
    assert len(state.board.move_stack) == 4 and state.outcome() is None
    state = play_moves(state, shuffle)
    assert state.outcome() is not None and state.outcome().reason == "threefold repetition"
    assert state.san_moves() == ["e4", "e5"] + shuffle * 2 and state.game_board().ply() == 10


def test_a_line_reads_in_san_up_to_its_first_illegal_move() -> None:
    state = new_game("chess")
    assert state.readable_line(["e2e4", "e7e5", "g1f3"]) == ["e4", "e5", "Nf3"]
    assert state.readable_line(["e2e4", "e2e4", "g1f3"]) == ["e4"]
    assert state.readable_line(["nonsense"]) == []


def test_the_engine_reports_its_line_and_candidates_in_san_too() -> None:
    state = new_game("chess")
    for info in think(state, Limits(depth=2)):
        assert info.pv_text == state.readable_line(info.pv)
        assert all(root.text == state.readable_line([root.move])[0] for root in info.root_moves)
    assert info.final and info.pv_text and info.root_moves


def test_games_without_another_notation_leave_the_readable_fields_empty() -> None:
    for info in think(new_game("tictactoe"), Limits(depth=2)):
        assert info.pv_text is None and all(root.text is None for root in info.root_moves)


def test_a_game_replayed_on_one_board_equals_the_game_played_move_by_move():
    moves = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7"]
    one_by_one = new_game("chess")
    for text in moves:
        one_by_one = one_by_one.play(one_by_one.parse_move(text))
    replayed = new_game("chess").play_texts(moves)
    assert replayed == one_by_one and replayed.setup() == one_by_one.setup()
    assert replayed.san_moves() == moves
    assert ChessState.from_setup(replayed.setup()).san_moves() == moves


def test_a_bad_move_in_a_replay_or_a_setup_is_named_by_its_number():
    with pytest.raises(InvalidSetupError, match="move 3"):
        ChessState.from_setup("startpos moves e2e4 e7e5 e4e5")
    with pytest.raises(IllegalMoveError, match="move 5: the game is over"):
        play_moves(new_game("chess"), ["f3", "e5", "g4", "Qh4", "a3"])


def test_typed_moves_are_read_whatever_their_letter_case_when_unambiguous():

    start = new_game("chess")
    for text in ("nf3", "NF3", "Nf3", "g1F3"):
        assert start.parse_move(text).uci() == "g1f3"
    assert start.parse_move("E4").uci() == "e2e4"
    castle = ChessState.from_setup("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert castle.parse_move("o-o").uci() == "e1g1" and castle.parse_move("0-0-0").uci() == "e1c1"
    promote = ChessState.from_setup("8/4P3/8/8/8/8/8/k6K w - - 0 1")
    assert promote.parse_move("e8=n").uci() == "e7e8n"
    bishop_only = ChessState.from_setup("4k3/8/8/8/8/2n5/3B4/4K3 w - - 0 1")
    assert bishop_only.parse_move("bxc3").uci() == "d2c3"
    pawn_only = ChessState.from_setup("4k3/8/8/8/8/2n5/1P6/4K3 w - - 0 1")
    assert pawn_only.parse_move("bxc3").uci() == "b2c3"
    both = ChessState.from_setup("4k3/8/8/8/8/2n5/1P1B4/4K3 w - - 0 1")
    assert both.parse_move("bxc3").uci() == "b2c3" and both.parse_move("Bxc3").uci() == "d2c3"  # SAN as typed
    with pytest.raises(IllegalMoveError, match="bishop"):
        both.parse_move("BXC3")
    with pytest.raises(IllegalMoveError, match="not a move"):
        castle.parse_move("o-o-o-o")
    with pytest.raises(IllegalMoveError, match="not legal"):
        start.parse_move("nf6")


def test_a_long_game_holds_little_memory() -> None:
    """A game of 1,200 plies (an 8,000-character setup) holds its board with at most the last 100 moves, two bytes a
    move for the rest: about 48 KiB, where a board with the whole game in its stack held over half a MiB."""
    moves = long_game(1200, seed=1)
    assert len(moves) == 1200
    assert new_game("chess").view()["opening"] is None  # the opening names are loaded once per process, before
    tracemalloc.start()
    try:
        state = ChessState.from_setup("startpos moves " + " ".join(moves))
        state.view()
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert len(state.board.move_stack) <= 100 and state.setup().split()[7:] == moves
    assert held < 96 * 1024, held
