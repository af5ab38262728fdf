"""The search stepper's record (``engine.stepper.record_search``): one row per node the search counted, in visit order,
for every game and every technique set; each row consistent with the search's own rules; the same record every time;
too large a search reported, not recorded."""

from __future__ import annotations

import dataclasses

import pytest

from engine.chess.tree import IIR_DEPTH
from engine.games import new_game
from engine.search.info import SearchOptions
from engine.search.steps import BOUNDS, KINDS, PROBES, SKIPS, SOURCES, StepRecord, entry_step
from engine.stepper import record_search
from tests.test_search_counters import GAMES, random_positions

pytestmark = pytest.mark.engine

DEPTHS = {"tictactoe": 9, "nim": 10, "connect4": 6, "wolves": 6, "chess": 4}
UNORDERED_DEPTH = {"chess": 3}
"""Without move ordering a chess search to depth 4 can pass the record's 50,000 nodes (63,094 in one position)."""
TECHNIQUES = {
    "everything": SearchOptions(),
    "alpha-beta only": SearchOptions(pvs=False, iterative=False, tt=False, ordering=False, killers=False,
                                     history=False, aspiration=False, null_move=False, lmr=False, bounds=False,
                                     quiescence=False),
    "no alpha-beta": SearchOptions(alphabeta=False, tt=False, quiescence=False),
}


def parents(record: StepRecord) -> list[int]:
    """Each row's parent row (-1 for a root), from the plies: the last earlier row one ply up."""
    last_at_ply: list[int] = []
    result = []
    for node, ply in enumerate(record["ply"]):
        del last_at_ply[ply:]
        result.append(last_at_ply[ply - 1] if ply else -1)
        last_at_ply.append(node)
    return result


def check_record(record: StepRecord) -> None:
    """Every row keeps the contracts of ``engine.search.steps``."""
    count = record["nodes"]
    for column in ("ply", "move", "index", "alpha", "beta", "depth", "value"):
        assert len(record[column]) == count, column  # type: ignore[literal-required]
    for column, letters in (("kind", KINDS), ("tt", PROBES), ("bound", BOUNDS), ("source", SOURCES)):
        assert len(record[column]) == count, column  # type: ignore[literal-required]
        assert set(record[column]) <= set(letters), column  # type: ignore[literal-required]
    above = parents(record)
    for node in range(count):
        value, alpha, beta = record["value"][node], record["alpha"][node], record["beta"][node]
        assert value is not None and record["source"][node] != "x", node  # a finished search leaves every node
        bound = "u" if value <= alpha else "l" if value >= beta else "e"
        assert record["bound"][node] == bound, node
        parent = above[node]
        if parent < 0:
            assert record["kind"][node] == "R" and record["index"][node] == -1
            continue
        if record["kind"][node] == "N":
            assert record["move"][node] == "pass"
            continue
        order = record["order"][str(parent)]
        index = record["index"][node]
        assert order[index][0] == record["move"][node], node
        assert 0 <= order[index][1] < len(record["reasons"])
    for node, index in record["cut"].items():
        assert 0 <= index < len(record["order"][node])
        assert record["bound"][int(node)] in "le", node  # at or above beta (which bounds may have narrowed)
    for node in record["tt_entry"]:
        assert record["tt"][int(node)] in "onc"
    assert record["skip_reason"].keys() == record["skipped"].keys()
    for node, left_out in record["skipped"].items():
        assert record["skip_reason"][node] in SKIPS
        searched = {record["move"][child] for child in range(count) if above[child] == int(node)}
        assert left_out and not searched & set(left_out), node


@pytest.mark.parametrize("technique", list(TECHNIQUES))
@pytest.mark.parametrize("game", list(GAMES))
def test_the_record_has_one_row_per_counted_node(game: str, technique: str) -> None:
    options = TECHNIQUES[technique]
    for state in random_positions(game, 3, seed=len(game)):
        depth = DEPTHS[game] if options.alphabeta else min(DEPTHS[game], 3)
        if not options.ordering:
            depth = min(depth, UNORDERED_DEPTH.get(game, depth))
        stepped = record_search(state, depth, options)
        assert not stepped.too_large
        assert stepped.record is not None
        assert stepped.record["nodes"] == stepped.info.nodes
        check_record(stepped.record)


@pytest.mark.parametrize("game", list(GAMES))
def test_the_same_search_records_the_same_steps(game: str) -> None:
    state = random_positions(game, 1, seed=7)[0]
    first = record_search(state, DEPTHS[game], SearchOptions())
    again = record_search(state, DEPTHS[game], SearchOptions())
    assert first.record == again.record
    assert first.info.best == again.info.best


def test_the_last_root_returns_the_searchs_score() -> None:
    state = new_game("connect4")
    stepped = record_search(state, 7, SearchOptions())
    assert stepped.record is not None
    roots = [node for node, kind in enumerate(stepped.record["kind"]) if kind == "R"]
    assert stepped.record["value"][roots[-1]] == stepped.info.score


def test_chess_moves_are_written_in_uci_and_the_null_move_as_a_pass() -> None:
    state = new_game("chess").play_texts(["e4", "e5", "Nf3"])
    stepped = record_search(state, 5, SearchOptions())
    assert stepped.record is not None
    first_root = stepped.record["order"]["0"]
    assert {move for move, _ in first_root} == {state.move_text(move) for move in state.legal_moves()}
    moves = [move for move, ply in zip(stepped.record["move"], stepped.record["ply"], strict=True) if ply]
    assert all(move == "pass" or 4 <= len(move) <= 5 for move in moves)
    assert "pass" in moves  # the null move


def test_chess_late_quiet_moves_left_out_are_recorded_with_why() -> None:
    state = new_game("chess").play_texts(["e4", "e5", "Nf3", "Nc6", "Bb5"])
    stepped = record_search(state, 5, SearchOptions())
    assert stepped.record is not None
    check_record(stepped.record)
    pruned = [node for node, why in stepped.record["skip_reason"].items() if why == "l"]
    assert pruned
    for node in pruned:
        ordered = {move for move, _ in stepped.record["order"][node]}
        assert set(stepped.record["skipped"][node]) <= ordered  # in UCI, among the node's moves


def test_chess_nodes_without_a_table_move_search_a_ply_shallower_and_say_so() -> None:
    """Internal iterative reduction: a node at least ``IIR_DEPTH`` plies from the horizon whose table has no move
    searches a ply less; its recorded depth is the depth searched, one below what its parent gave it."""
    state = new_game("chess").play_texts(["e4", "e5", "Nf3", "Nc6", "Bb5"])
    stepped = record_search(state, 7, SearchOptions())
    record = stepped.record
    assert record is not None
    check_record(record)
    assert record["shallower"]
    for node in record["shallower"]:
        assert record["tt"][node] in "mo" and record["depth"][node] >= IIR_DEPTH - 1


def test_too_large_a_search_is_reported_and_not_recorded() -> None:
    stepped = record_search(new_game("connect4"), 12, SearchOptions(), limit=2_000)
    assert stepped.too_large
    assert stepped.record is None
    assert stepped.info.nodes == 2_001


def test_only_alpha_beta_is_stepped() -> None:
    with pytest.raises(ValueError, match="only alpha-beta"):
        record_search(new_game("tictactoe"), 3, dataclasses.replace(SearchOptions(), algorithm="minimax"))


def test_the_entry_step_counts_every_return_before_it() -> None:
    record = {"ply": [0, 1, 2, 2, 1, 2, 0]}
    # steps: enter 0, enter 1, enter 2, return 2, enter 3, return 3, return 1, enter 4, enter 5, return 5, return 4...
    assert [entry_step(record, node) for node in range(7)] == [1, 2, 3, 5, 8, 9, 13]  # type: ignore[arg-type]
