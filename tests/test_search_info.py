"""How searches behave: events and counters, stopping, mate distance, tree recording, and bad input."""

from __future__ import annotations

import itertools
import multiprocessing
import threading

import pytest
from support.clocks import TickingClock

from engine.game import WIN
from engine.games.connect4 import Connect4
from engine.games.nim import Nim
from engine.games.tictactoe import TicTacToe
from engine.search import analyse, final_event, make_searcher
from engine.search.alphabeta import Searcher
from engine.search.info import Limits, RootMoveDict, SearchInfo, SearchInfoDict, SearchOptions

pytestmark = pytest.mark.engine

COUNTERS = ("nodes", "qnodes", "cutoffs", "pruned", "generated", "tt_probes", "tt_hits", "seldepth", "time_ms")
ALGORITHMS = ("alphabeta", "minimax", "mcts")


def events_of(state, limits: Limits, options: SearchOptions = SearchOptions()) -> list[SearchInfo]:  # noqa: B008
    return list(make_searcher(state, limits, options).search())


@pytest.mark.parametrize(("state", "limits", "algorithm"), [
    (Connect4.initial(), Limits(depth=7), "alphabeta"),
    (TicTacToe(), Limits(depth=6), "minimax"),
    (TicTacToe(), Limits(nodes=2_000), "mcts"),
], ids=ALGORITHMS)
def test_counters_never_decrease_and_the_final_event_comes_last(state, limits, algorithm) -> None:
    events = events_of(state, limits, SearchOptions(algorithm=algorithm))
    assert [e.final for e in events].count(True) == 1 and events[-1].final and events[-1].kind == "final"
    assert {e.kind for e in events} <= {"progress", "depth", "final"}
    for before, after in itertools.pairwise(events):
        for counter in COUNTERS:
            assert getattr(after, counter) >= getattr(before, counter), counter
        assert len(after.nodes_per_depth) >= len(before.nodes_per_depth)
    assert all(e.algorithm == algorithm for e in events)


def test_one_depth_event_per_iteration() -> None:
    events = events_of(Connect4.initial(), Limits(depth=5))
    assert [e.depth for e in events if e.kind == "depth"] == [1, 2, 3, 4, 5]
    final = events[-1]
    assert len(final.nodes_per_depth) == 5 and sum(final.nodes_per_depth) == final.nodes
    assert final.ebf is not None and final.ebf > 1


def test_pruned_is_zero_for_minimax_and_positive_for_alphabeta() -> None:
    minimax = analyse(TicTacToe(), Limits(depth=4), SearchOptions(algorithm="minimax"))
    alphabeta = analyse(TicTacToe(), Limits(depth=4))
    assert minimax.pruned == 0 and minimax.cutoffs == 0 and minimax.tt_probes == 0
    assert alphabeta.pruned > 0 and alphabeta.cutoffs > 0 and alphabeta.nodes < minimax.nodes


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("state", [TicTacToe.from_setup("51"), Nim.from_setup("3,4,5 max=3"),
                                   Connect4.from_setup("4453")], ids=["tictactoe", "nim", "connect4"])
def test_final_best_move_is_legal(state, algorithm: str) -> None:
    limits = Limits(nodes=500) if algorithm == "mcts" else Limits(depth=3)
    info = analyse(state, limits, SearchOptions(algorithm=algorithm, seed=1))
    assert state.parse_move(info.best) in state.legal_moves()
    assert info.best in {root.move for root in info.root_moves}


def test_root_moves_say_which_scores_are_exact() -> None:
    info = analyse(TicTacToe.from_setup("1"))
    assert info.root_moves[0].move == info.best == "5" and info.root_moves[0].bound == "exact"
    assert {root.bound for root in info.root_moves} <= {"exact", "upper", "lower"}
    assert all(root.score <= info.score for root in info.root_moves)
    everything = analyse(TicTacToe.from_setup("1"), options=SearchOptions(root_margin=WIN))
    assert all(root.bound == "exact" for root in everything.root_moves)
    exact = {root.move: root.score for root in analyse(TicTacToe.from_setup("1"), options=SearchOptions(
        algorithm="minimax")).root_moves}
    assert {root.move: root.score for root in everything.root_moves} == exact


@pytest.mark.timeout(60)
@pytest.mark.parametrize("make_flag", [threading.Event, multiprocessing.Event], ids=["thread", "process"])
def test_stop_flag_ends_a_long_search_with_a_legal_move(make_flag) -> None:
    """Connect Four from the start without limits searches for hours: the flag ends it (the test's timeout guards
    the ending; how soon after the flag it comes is the engine's check interval, ``CHECK_EVERY`` nodes)."""
    stop = make_flag()
    state = Connect4.initial()
    searcher = make_searcher(state, Limits(), SearchOptions(), stop)
    for info in searcher.search():
        if info.depth >= 6:
            stop.set()
    assert info.final
    assert state.parse_move(info.best) in state.legal_moves()


def test_stop_method_and_closing_the_generator_end_the_worker() -> None:
    searcher = Searcher(Connect4.initial())
    events = searcher.search()
    first = next(events)
    searcher.stop()
    rest = list(events)
    assert rest[-1].final and rest[-1].nodes >= first.nodes
    threads_before = threading.active_count()
    events = Searcher(Connect4.initial()).search()
    next(events)
    events.close()
    assert threading.active_count() <= threads_before


def test_a_stopped_search_before_any_depth_still_answers_a_legal_move() -> None:
    stop = threading.Event()
    stop.set()
    info = final_event(make_searcher(Connect4.initial(), Limits(), SearchOptions(), stop).search())
    assert info.final and info.best in {str(c) for c in range(1, 8)}


@pytest.mark.parametrize(("game", "algorithm"), [*(("connect4", algorithm) for algorithm in ALGORITHMS),
                                                  ("chess", "alphabeta")])
def test_a_time_limit_is_kept_on_the_searchers_clock(game: str, algorithm: str) -> None:
    """On a clock that moves 10 ms at each read, a one-second search ends by its first look past the second (or
    between iterations, past half of it), sends progress at most every 100 ms of that clock, and ends at the same
    node every time: the limit is measured on the clock the search is given, not on the machine's."""
    from engine.games import new_game

    def run() -> list[SearchInfo]:
        options = SearchOptions(algorithm=algorithm, seed=1)
        return list(make_searcher(new_game(game), Limits(time=1.0), options, clock=TickingClock(0.01)).search())

    events = run()
    final = events[-1]
    assert final.final and final.best is not None
    assert 500 <= final.time_ms < 1100
    progress = [info.time_ms for info in events if info.kind == "progress"]
    assert progress and all(later - earlier >= 100 for earlier, later in itertools.pairwise(progress))
    assert run()[-1].nodes == final.nodes


def test_node_limit_is_respected() -> None:
    info = analyse(Connect4.initial(), Limits(nodes=3_000))
    assert 3_000 <= info.nodes <= 3_000 + 1


def test_the_faster_win_is_taken() -> None:
    info = analyse(TicTacToe.from_setup("7918"))  # X can win at once with 4, or later with 5, 3 or 2
    assert info.best == "4" and info.score == WIN - 1 and info.score_text == "win in 1"


def test_a_lost_side_resists_as_long_as_it_can() -> None:
    info = analyse(TicTacToe.from_setup("2589"))  # every move loses; only 1 delays the loss by two plies
    assert info.best == "1" and info.score == -(WIN - 4) and info.score_text == "loss in 2"


def test_set_position_keeps_what_was_learnt() -> None:
    searcher = Searcher(TicTacToe.from_setup("1"))
    first = final_event(searcher.search())
    searcher.set_position(TicTacToe.from_setup("15"))
    second = final_event(searcher.search())
    fresh = analyse(TicTacToe.from_setup("15"))
    assert first.score == 0 and second.score == fresh.score == 0
    assert second.nodes < fresh.nodes


def test_recorded_tree_holds_windows_scores_and_pruned_moves() -> None:
    info = analyse(TicTacToe.from_setup("15"), Limits(), SearchOptions(iterative=False, record_tree=10_000))
    tree = info.tree
    assert tree["move"] is None and tree["score"] == info.score and tree["truncated"] is False

    def walk(node: dict) -> int:
        assert set(node) >= {"move", "alpha", "beta", "score", "depth", "children", "pruned"}
        assert -WIN <= node["alpha"] <= node["beta"] <= WIN
        return 1 + sum(walk(child) for child in node["children"])

    assert walk(tree) == info.nodes
    assert any(node["pruned"] for node in _all_nodes(tree))
    small = analyse(TicTacToe.from_setup("15"), Limits(), SearchOptions(iterative=False, record_tree=5))
    assert small.tree["truncated"] is True and sum(1 for _ in _all_nodes(small.tree)) == 5


def _all_nodes(node: dict):
    yield node
    for child in node["children"]:
        yield from _all_nodes(child)


def test_a_finished_game_gets_its_score_and_no_move() -> None:
    info = analyse(TicTacToe.from_setup("14253"))
    assert info.final and info.best is None and info.score == -WIN


@pytest.mark.parametrize(("limits", "message"), [
    (Limits(depth=0), "limits.depth must be a positive whole number"),
    (Limits(time=-1.0), "limits.time must be a positive number"),
    (Limits(nodes=0), "limits.nodes must be a positive whole number"),
])
def test_bad_limits_raise_value_error(limits: Limits, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_searcher(TicTacToe(), limits)


def test_bad_options_and_arguments_raise_specific_errors() -> None:
    with pytest.raises(ValueError, match="unknown algorithm 'alphabet'"):
        make_searcher(TicTacToe(), Limits(), SearchOptions(algorithm="alphabet"))
    with pytest.raises(ValueError, match="tt_size must be a positive"):
        make_searcher(TicTacToe(), Limits(), SearchOptions(tt_size=0))
    with pytest.raises(TypeError, match="expected a game state"):
        make_searcher("5193", Limits())
    with pytest.raises(TypeError, match="stop must have an is_set"):
        make_searcher(TicTacToe(), Limits(), SearchOptions(), stop=True)


def test_minimax_records_its_tree_too() -> None:
    info = analyse(TicTacToe.from_setup("1593"), Limits(),
                   SearchOptions(algorithm="minimax", iterative=False, record_tree=100_000))
    nodes = list(_all_nodes(info.tree))
    assert len(nodes) == info.nodes and not any(node["pruned"] for node in nodes)
    assert info.tree["score"] == info.score


@pytest.mark.parametrize("switch", ["alphabeta", "pvs", "iterative", "tt", "ordering", "killers", "history",
                                    "aspiration", "quiescence", "null_move", "check_extension"])
def test_every_value_preserving_switch_can_be_turned_off(switch: str) -> None:
    """With LMR and the rule bounds off (they change depth-limited values on purpose), turning off any other
    technique leaves the value at a given depth equal to minimax's."""
    state = Connect4.from_setup("4453")
    base = {"lmr": False, "bounds": False}
    expected = analyse(state, Limits(depth=4), SearchOptions(algorithm="minimax")).score
    info = analyse(state, Limits(depth=4), SearchOptions(**base, **{switch: False}))
    assert info.score == expected and state.parse_move(info.best) in state.legal_moves()


def test_the_json_types_name_every_field_of_an_event():
    info = analyse(TicTacToe(), Limits(depth=2))
    data = info.to_dict()
    assert set(data) == set(SearchInfoDict.__annotations__) - {"sent_at"}  # stamped by a relay only
    assert set(data["root_moves"][0]) == set(RootMoveDict.__annotations__)


@pytest.mark.parametrize("game", ["chess", "connect4", "nim"])
def test_every_event_describes_one_iteration(game: str) -> None:
    """A search stopped from outside after three progress events during an iteration: each progress event shows
    the last completed iteration (its best move, score, line and root moves; only the counters run on), and in every
    event the best move's row holds the headline score, the final one too when the unfinished iteration proved a
    better move. (Stopped by events, not by a time limit, so that a loaded machine cannot end it before any
    progress: the time limit is only a safety net.)"""
    from engine.games import new_game

    state = new_game(game, "40,50,60" if game == "nim" else None)
    searcher = make_searcher(state, Limits(time=120.0))
    events: list[SearchInfo] = []
    iterated, progress_after_an_iteration = False, 0
    for info in searcher.search():
        events.append(info)
        iterated = iterated or info.kind == "depth"
        if info.kind == "progress" and iterated:
            progress_after_an_iteration += 1
            if progress_after_an_iteration == 3:
                searcher.stop()
    completed = None
    for info in events:
        if info.kind == "progress" and completed is not None:
            assert (info.best, info.score, info.pv, info.root_moves) == (
                completed.best, completed.score, completed.pv, completed.root_moves)
        if info.kind == "depth":
            completed = info
        rows = [row for row in info.root_moves if row.move == info.best and row.score is not None]
        if info.kind != "progress" and rows:
            assert rows[0].score == info.score, info.kind
    assert completed is not None and any(info.kind == "progress" for info in events)
