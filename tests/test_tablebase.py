"""Solved tables: the retrograde solver against the rules and against search, the file format, perfect play."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.cli import main
from engine.game import WIN
from engine.games.tictactoe import TicTacToe
from engine.games.wolves import Wolves
from engine.player import think
from engine.search import analyse, final_event
from engine.search.info import Limits, SearchOptions
from engine.solve import tables
from engine.solve.positions import TicTacToeSpace, WolvesSpace
from engine.solve.retrograde import INVALID, ONGOING, TableError
from engine.solve.tablebase import Entry, Table

pytestmark = pytest.mark.engine


@pytest.fixture(scope="module")
def table_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A cache folder (``ARENA_CACHE``) with both tables built in it."""
    root = tmp_path_factory.mktemp("arena-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ARENA_CACHE", str(root))
        for game in tables.SPACES:
            tables.build(game)
        yield tables.cache_dir()


@pytest.fixture(scope="module")
def wolves_space() -> WolvesSpace:
    return WolvesSpace()


def exact_value(state: TicTacToe | Wolves, table_dir: Path) -> Entry:
    """The value the rules give ``state`` one ply deep, taking its children's values from the table."""
    outcome = state.outcome()
    if outcome is not None:
        if outcome.winner is None:
            return Entry("draw", None)
        return Entry("win" if outcome.winner == state.to_move else "loss", 0)
    children = [tables.probe(state.play(move), table_dir).after_move() for move in state.legal_moves()]
    return max(children, key=lambda entry: entry.score)


def test_tictactoe_empty_board_is_a_draw(table_dir: Path) -> None:
    assert tables.probe(TicTacToe.initial()) == Entry("draw", None)
    assert tables.verdict(TicTacToe.initial())["text"] == "solved: draw"
    corner_edge = TicTacToe.from_setup("12")  # X takes a corner, O answers on an adjacent edge: X wins
    assert tables.probe(corner_edge) == Entry("win", 5)


def test_tictactoe_table_equals_plain_negamax(table_dir: Path) -> None:
    values: dict[tuple[int, int], int] = {}

    def negamax(state: TicTacToe) -> int:
        if (state.x, state.o) not in values:
            if state.outcome() is not None:
                value = 0 if state.outcome().winner is None else -WIN
            else:
                scores = (-negamax(state.play(move)) for move in state.legal_moves())
                value = max(s - 1 if s > 0 else s + 1 if s < 0 else 0 for s in scores)
            values[state.x, state.o] = value
        return values[state.x, state.o]

    negamax(TicTacToe.initial())
    assert len(values) == 5478
    for x, o in values:
        state = TicTacToeSpace().state_of(TicTacToeSpace.index_of(TicTacToe((), x, o)))
        assert tables.probe(state).score == values[x, o], state.setup()


def test_wolves_space_matches_the_rules(wolves_space: WolvesSpace) -> None:
    rng = random.Random(1)
    checked = 0
    while checked < 3000:
        index = rng.randrange(wolves_space.size)
        status = wolves_space.status(index)
        state = wolves_space.state_of(index)
        if status == INVALID:
            assert state.wolves >> state.rabbit & 1
            continue
        checked += 1
        assert wolves_space.index_of(state) == index
        assert (status == ONGOING) == (state.outcome() is None)
        if status != ONGOING:
            continue
        children = sorted(wolves_space.index_of(state.play(m)) for m in state.legal_moves())
        assert sorted(wolves_space.successors(index)) == children
        for child in children:
            assert index in wolves_space.predecessors(child)
        for parent in wolves_space.predecessors(index):
            if wolves_space.status(parent) == ONGOING:
                assert index in wolves_space.successors(parent)


def test_wolves_table_obeys_the_rules_everywhere_sampled(table_dir: Path, wolves_space: WolvesSpace) -> None:
    """Every sampled position's value is the best of its moves' values, one ply deep (with terminal positions
    judged by ``Wolves.outcome``): with no cycles in the game, this pins the whole table down."""
    rng = random.Random(2)
    checked = 0
    while checked < 4000:
        index = rng.randrange(wolves_space.size)
        if wolves_space.status(index) == INVALID:
            continue
        checked += 1
        state = wolves_space.state_of(index)
        assert tables.probe(state) == exact_value(state, table_dir), state.setup()


def test_wolves_start_is_a_win_for_the_wolves(table_dir: Path) -> None:
    for square in ("a1", "c1", "e1", "g1"):
        assert tables.probe(Wolves.initial(rabbit=square)) == Entry("loss", 44)
    verdict = tables.verdict(Wolves.initial())
    assert verdict["text"] == "solved: Wolves win in 22 moves"
    assert verdict["winner"] == 1 and verdict["score"] == -(WIN - 44)
    assert [m["move"] for m in verdict["moves"]] == ["c1-b2", "c1-d2"]


def test_wolves_table_equals_alpha_beta(table_dir: Path, wolves_space: WolvesSpace) -> None:
    """Alpha-beta searched to the end agrees on the exact result and distance, and its move keeps the value:
    a lost side resists as long as it can, a winning side wins as fast as it can. (Positions up to 6 plies
    from the end: deeper ones take alpha-beta seconds each.)"""
    rng = random.Random(4)
    checked = 0
    while checked < 2500:
        index = rng.randrange(wolves_space.size)
        if wolves_space.status(index) != ONGOING:
            continue
        state = wolves_space.state_of(index)
        entry = tables.probe(state)
        if entry.plies > 6:
            continue
        checked += 1
        info = analyse(state, Limits(), SearchOptions())
        assert info.score == entry.score, state.setup()
        assert tables.probe(state.play(state.parse_move(info.best))).after_move() == entry, state.setup()


def play_out(state: TicTacToe | Wolves, perfect_side: int, rng: random.Random, perfect_opponent: bool) -> tuple:
    """Play ``state`` to the end: ``perfect_side`` from the table (level 8), the other side at random or
    perfectly. Returns the outcome and the number of plies played."""
    plies = 0
    while state.outcome() is None:
        if state.to_move == perfect_side or perfect_opponent:
            info = final_event(think(state, level=8))
            assert info.source == "table"
            move = state.parse_move(info.best)
        else:
            move = rng.choice(state.legal_moves())
        state = state.play(move)
        plies += 1
    return state.outcome(), plies


@pytest.mark.parametrize("perfect_opponent", [False, True])
def test_level_8_never_loses_a_won_position(table_dir: Path, wolves_space: WolvesSpace, perfect_opponent: bool) -> None:
    rng = random.Random(3)
    played = 0
    while played < 60:
        state = wolves_space.state_of(rng.randrange(wolves_space.size))
        if wolves_space.status(wolves_space.index_of(state)) != ONGOING:
            continue
        entry = tables.probe(state)
        if entry.result != "win":
            continue
        played += 1
        outcome, plies = play_out(state, state.to_move, rng, perfect_opponent)
        assert outcome.winner == state.to_move, state.setup()
        assert plies == entry.plies if perfect_opponent else plies <= entry.plies


def test_table_search_reports_every_move(table_dir: Path) -> None:
    state = Wolves.from_setup("R:c3 W:b4,d4,f6,h8 w")
    info = tables.table_search(state, 8)
    assert info.score == WIN - 23 and info.score_text == "solved: Wolves win in 12 moves"
    assert {m.move for m in info.root_moves} == {state.move_text(m) for m in state.legal_moves()}
    for root in info.root_moves:
        after = tables.probe(state.play(state.parse_move(root.move)))
        assert root.score == after.after_move().score
    assert len(info.pv) == 23 and info.best == info.pv[0]
    assert tables.table_search(state, 7) is None
    assert tables.table_search(TicTacToe.initial(), 8).score == 0


def test_table_file_round_trip_and_damage(tmp_path: Path) -> None:
    codes = bytes([0, 1, 2, 3, 5, 200])
    path = tmp_path / "t.tbl"
    Table("tictactoe", 1, codes).save(path)
    assert Table.load(path, "tictactoe", 1, len(codes)).codes == codes
    with pytest.raises(TableError, match="holds another table"):
        Table.load(path, "wolves", 1, len(codes))
    with pytest.raises(TableError, match="holds another table"):
        Table.load(path, "tictactoe", 2, len(codes))
    path.write_bytes(path.read_bytes()[:-3])
    with pytest.raises(TableError, match="damaged"):
        Table.load(path, "tictactoe", 1, len(codes))
    with pytest.raises(TableError, match="cannot read table"):
        Table.load(tmp_path / "missing.tbl", "tictactoe", 1, len(codes))
    assert [Entry.from_code(c) for c in codes] == [
        None, Entry("draw", None), Entry("win", 0), Entry("loss", 0), Entry("loss", 1), Entry("win", 99)]


def test_missing_table_is_built_on_first_use(tmp_path: Path) -> None:
    assert tables.table("tictactoe", tmp_path, build_missing=False) is None
    built = tables.table("tictactoe", tmp_path)
    assert built is not None and tables.table_path("tictactoe", tmp_path).exists()
    assert tables.table("tictactoe", tmp_path) is built


def test_unwritable_folder_still_gives_a_table(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    built = tables.table("tictactoe", blocker / "tables")
    assert built is not None and built.entry(0) == Entry("draw", None)


def test_command_line(table_dir: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["tablebase", "probe", "wolves", "R:c3 W:b4,d4,f6,h8 w"]) == 0
    probed = json.loads(capsys.readouterr().out)
    assert probed["text"] == "solved: Wolves win in 12 moves" and probed["plies"] == 23
    assert main(["tablebase", "info", "wolves"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["positions"] == 2013760 and info["draws"] == 0 and info["longest_plies"] == 44
    assert main(["tablebase", "probe", "wolves", "R:c3 W:b4 w"]) == 2
    assert "there are 4 wolves" in capsys.readouterr().err
    assert main(["tablebase", "info", "wolves", "--dir", str(tmp_path)]) == 2
    assert "no table at" in capsys.readouterr().err


def test_a_table_built_for_a_move_reports_its_progress_first(tmp_path: Path) -> None:
    """Level 8 of a game whose table is missing builds it, saying how far it is, then answers from it; once the
    table exists nothing is reported."""
    empty = TicTacToe.initial()
    events = list(tables.building_events(empty, 8, tmp_path))
    assert events and all(event.kind == "progress" and not event.final and event.nodes == 0 for event in events)
    stages = [event.building["stage"] for event in events]
    assert stages[-1] == "solving backwards" and all(event.building["what"] == "the solved table of Tic-tac-toe"
                                                      for event in events)
    assert tables.table_path("tictactoe", tmp_path).exists()
    assert list(tables.building_events(empty, 8, tmp_path)) == []
    assert list(tables.building_events(empty, 7, tmp_path / "elsewhere")) == []
