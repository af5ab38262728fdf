"""Connect Four state: notation round trips, legality, outcome, evaluation, bounds, keys and view."""

from __future__ import annotations

import json
import pickle
import random

import pytest

from engine.game import WIN, IllegalMoveError, InvalidSetupError
from engine.games import new_game
from engine.games.connect4 import CELLS, HEIGHT, WIDTH, Connect4

pytestmark = pytest.mark.engine

DRAWN_FULL_BOARD = "156366643422365415735125444215362321717777"
"""A random game that filled the board without four in a row."""


def random_state(rng: random.Random, plies: int) -> Connect4:
    state = Connect4.initial()
    for _ in range(plies):
        moves = state.legal_moves()
        if not moves:
            break
        state = state.play(rng.choice(moves))
    return state


def test_registry_and_initial() -> None:
    state = new_game("connect4")
    assert state == Connect4()
    assert state.to_move == 0
    assert state.legal_moves() == [3, 2, 4, 1, 5, 0, 6]
    assert state.outcome() is None
    with pytest.raises(InvalidSetupError, match="no options"):
        Connect4.initial(width=8)


def test_setup_round_trip_and_pickle() -> None:
    rng = random.Random(4)
    for plies in range(0, 43, 3):
        state = random_state(rng, plies)
        again = Connect4.from_setup(state.setup())
        assert again == state and again.history == state.history
        assert again.key == state.key
        assert pickle.loads(pickle.dumps(state)) == state
    assert Connect4.from_setup("4453").setup() == "4453"


def test_transpositions_are_equal_positions() -> None:
    a, b = Connect4.from_setup("4453"), Connect4.from_setup("4354")
    assert a == b and hash(a) == hash(b) and a.key == b.key
    assert a.history != b.history


def test_play_is_pure_and_follows_pons_layout() -> None:
    state = Connect4.from_setup("44")
    after = state.play(3)
    assert state.setup() == "44" and after.setup() == "444"
    assert after.mask == 0b111 << 21
    assert after.position == 0b010 << 21  # the side to move (Yellow) owns the middle stone
    assert after.stones_of(0) == 0b101 << 21
    assert after.key == after.position + after.mask


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("44x", "character 3 of '44x' is 'x', not a column 1-7"),
        ("408", "character 2 of '408' is '0', not a column 1-7"),
        ("4444444", "move 7 of '4444444': column 4 is full"),
        ("12121212", "move 8 of '12121212': the game is over"),
    ],
)
def test_invalid_setups_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(InvalidSetupError) as error:
        Connect4.from_setup(text)
    assert str(error.value) == message


def test_illegal_moves_say_what_is_wrong() -> None:
    full = Connect4.from_setup("444444")
    with pytest.raises(IllegalMoveError, match="column 4 is full"):
        full.play(3)
    with pytest.raises(IllegalMoveError, match="column 4 is full"):
        full.parse_move("4")
    for bad in (7, -1, "3", True, None):
        with pytest.raises(IllegalMoveError, match="is not a column; columns are 1-7"):
            full.play(bad)
    for bad in ("8", "0", "x", "", "44"):
        with pytest.raises(IllegalMoveError, match="is not a column; columns are 1-7"):
            full.parse_move(bad)
    won = Connect4.from_setup("1212121")
    with pytest.raises(IllegalMoveError, match="the game is over"):
        won.play(4)
    with pytest.raises(IllegalMoveError, match="the game is over"):
        won.parse_move("5")
    assert full.parse_move(" 5 ") == 4 and full.move_text(4) == "5"


@pytest.mark.parametrize(
    ("text", "winner"),
    [
        ("1212121", 0),  # vertical
        ("1122334", 0),  # horizontal
        ("71122334", 1),  # horizontal for the second player
        ("12233434474", 0),  # diagonal up-right
        ("76655454414", 0),  # diagonal up-left
    ],
)
def test_four_in_a_row_wins(text: str, winner: int) -> None:
    state = Connect4.from_setup(text)
    outcome = state.outcome()
    assert outcome is not None and outcome.winner == winner and outcome.reason == "four in a row"
    assert state.legal_moves() == []
    assert Connect4.from_setup(text[:-1]).outcome() is None
    assert state.score_bounds() == (-WIN, -WIN)


def test_full_board_is_a_draw() -> None:
    state = Connect4.from_setup(DRAWN_FULL_BOARD)
    assert state.moves == CELLS
    outcome = state.outcome()
    assert outcome is not None and outcome.is_draw and outcome.reason == "board full"
    assert state.legal_moves() == []
    assert state.score_bounds() == (0, 0)
    with pytest.raises(IllegalMoveError, match="full"):
        state.play(0)


def mirror(bits: int) -> int:
    """A bitboard (or key) reflected left-right: column c's bits (``HEIGHT + 1`` of them) move to column 6 - c."""
    column_bits = (1 << HEIGHT + 1) - 1
    shift = HEIGHT + 1
    return sum((bits >> shift * column & column_bits) << shift * (WIDTH - 1 - column) for column in range(WIDTH))


def test_symmetric_key_is_equal_for_mirrored_positions() -> None:
    rng = random.Random(7)
    for plies in range(1, 30, 2):
        state = random_state(rng, plies)
        mirrored = Connect4.from_setup("".join(str(8 - int(c)) for c in state.setup()))
        assert mirrored.symmetric_key == state.symmetric_key
        assert mirror(state.key) == mirrored.key
        assert (state.mirror_position, state.mirror_mask) == (mirror(state.position), mirror(state.mask))
    assert Connect4.from_setup("1").key != Connect4.from_setup("7").key
    assert Connect4.from_setup("1").symmetric_key == Connect4.from_setup("7").symmetric_key
    assert Connect4.from_setup("1").symmetric_key != Connect4.from_setup("2").symmetric_key


def test_evaluate_is_from_the_side_to_move() -> None:
    assert Connect4.from_setup("445566").evaluate() == 100  # Red to move completes four on the bottom row
    assert Connect4.from_setup("44556").evaluate() == -100  # Yellow to move cannot stop both ends of Red's three
    assert Connect4.from_setup("4").evaluate() < 0  # Red holds the centre
    rng = random.Random(11)
    for plies in range(0, 40, 4):
        state = random_state(rng, plies)
        if state.outcome() is None:
            assert isinstance(state.evaluate(), int) and abs(state.evaluate()) <= 1000


def test_order_hint_prefers_wins_then_centre() -> None:
    state = Connect4.from_setup("445566")
    hints = {move: state.order_hint(move) for move in state.legal_moves()}
    assert max(hints, key=hints.__getitem__) in (2, 6)  # completes an open four-window
    assert Connect4().order_hint(3) > Connect4().order_hint(0)


def test_score_bounds_follow_the_stones_each_side_needs() -> None:
    assert Connect4().score_bounds() == (-(WIN - 8), WIN - 7)
    assert Connect4.from_setup("44").score_bounds() == (-(WIN - 6), WIN - 5)
    three_each = Connect4.from_setup("112233")
    assert three_each.score_bounds() == (-(WIN - 2), WIN - 1)
    one_left = Connect4.from_setup(DRAWN_FULL_BOARD[:-1])
    assert one_left.score_bounds() == (0, WIN - 1)


def test_view_is_json_and_describes_the_board() -> None:
    state = Connect4.from_setup("4453")
    view = state.view()
    json.dumps(view)
    assert len(view["cells"]) == 6 and all(len(row) == 7 for row in view["cells"])
    assert view["cells"][5] == [None, None, 1, 0, 0, None, None]  # bottom row
    assert view["cells"][4] == [None, None, None, 1, None, None, None]
    assert view["cells"][0] == [None] * 7
    assert view["last"] == {"column": 3, "row": 1}
    assert view["legal"] == ["4", "3", "5", "2", "6", "1", "7"]
    assert view["to_move"] == 0 and view["moves"] == 4
    assert view["winning_cells"] == []
    won = Connect4.from_setup("1122334").view()
    assert won["winning_cells"] == [{"column": c, "row": 1} for c in (1, 2, 3, 4)]
    assert won["legal"] == [] and won["last"] == {"column": 4, "row": 1}
    assert Connect4().view()["last"] is None


def test_non_losing_moves_block_and_avoid_giving_a_win() -> None:
    assert Connect4.from_setup("12121").non_losing_moves() == [0]  # block the vertical three
    assert Connect4.from_setup("44556").non_losing_moves() == []  # two open ends: every move loses
    assert Connect4.from_setup("445566").non_losing_moves() == Connect4.from_setup("445566").legal_moves()
    # Red holds row 2 of columns 4-6: Yellow must not fill row 1 of column 3 or 7 under Red's winning cells.
    state = Connect4.from_setup("5456416")
    assert state.outcome() is None
    assert state.non_losing_moves() == [3, 4, 1, 5, 0]
    assert Connect4.from_setup("1122334").non_losing_moves() == []
