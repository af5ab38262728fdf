"""The chess searcher: shortest mates, no stalemate from a won position, basic mates at level 8, draws in search,
events, limits and the stop flag."""

from __future__ import annotations

import threading

import chess
import pytest
from support.clocks import TickingClock

from engine.chess.levels import LEVELS
from engine.chess.search import ChessSearcher
from engine.clock import Monotonic
from engine.game import WIN, play_moves
from engine.games.chess import ChessState
from engine.search import final_event, make_searcher
from engine.search.base import BaseSearcher
from engine.search.info import Limits, SearchInfo, SearchOptions

pytestmark = pytest.mark.engine


def final(state: ChessState, limits: Limits, options: SearchOptions | None = None,
          clock: Monotonic | None = None) -> SearchInfo:
    """The final event of a search of ``state``; ``limits.time`` on ``clock`` (default: one that moves 1 ms at each
    look, every 256 nodes, so that a time limit ends the search at the same node on any machine)."""
    events = list(ChessSearcher(state, limits, options, clock=clock or TickingClock(0.001)).search())
    assert events[-1].final and all(not event.final for event in events[:-1])
    return events[-1]


@pytest.mark.parametrize(("fen", "mate_in", "best"), [
    ("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", 1, {"a1a8"}),
    ("k7/2Q5/1K6/8/8/8/8/8 w - - 0 1", 1, {"c7c8"}),
    ("2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1", 2, {"g3g6"}),
    ("r1bq2rk/pp3pbp/2p1p1pQ/7P/3P4/2PB1N2/PP3PPR/2KR4 w - - 0 1", 2, {"h6h7"}),
    ("k4r2/1R4pb/1pQp1n1p/3P4/5p1P/3P2P1/r1q1R2K/8 w - - 0 1", 3, {"b7b6"}),
    ("r3k2r/pbp2pp1/3b1n2/1p6/3P3p/1B2N1Pq/PP1PQP1P/R1B2RK1 b kq - 0 1", 3, {"h3h2"}),
])
def test_finds_the_shortest_mate(fen: str, mate_in: int, best: set[str]) -> None:
    result = final(ChessState.from_setup(fen), Limits(depth=2 * mate_in + 2))
    assert result.score == WIN - (2 * mate_in - 1)
    assert result.score_text == f"win in {mate_in}"
    assert result.best in best


def test_a_mated_or_stalemated_root_reports_the_result() -> None:
    mated = final(ChessState.from_setup("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1"), Limits(depth=3))
    assert mated.best is None and mated.score == -WIN
    stalemate = final(ChessState.from_setup("k7/2Q5/1K6/8/8/8/8/8 b - - 0 1"), Limits(depth=3))
    assert stalemate.best is None and stalemate.score == 0


def play_out(fen: str, plies: int) -> ChessState:
    """Level 8 (best move, no randomness) with a small fixed depth for both sides, until the game ends."""
    state = ChessState.from_setup(fen)
    assert LEVELS[8].root_margin == 0
    for _ in range(plies):
        if state.outcome() is not None:
            break
        result = final(state, Limits(depth=5, time=2.0))
        state = state.play(state.parse_move(result.best))
    return state


@pytest.mark.parametrize("fen", [
    "8/8/8/4k3/8/8/8/4K2Q w - - 0 1",
    "8/8/8/8/3k4/8/8/1Q2K3 w - - 0 1",
    "7k/8/8/8/8/8/8/K5R1 w - - 0 1",
    "8/8/8/3k4/8/8/8/R3K3 w - - 0 1",
    "8/8/8/8/8/2k5/8/2K1R3 b - - 0 1",
])
def test_king_and_queen_or_rook_mate_a_bare_king_within_fifty_moves(fen: str) -> None:
    state = play_out(fen, 100)
    outcome = state.outcome()
    assert outcome is not None and outcome.reason == "checkmate", state.board.fen()
    assert outcome.winner == 0


def test_fifty_move_draw_is_seen_in_search() -> None:
    lost = "k7/8/1K6/8/8/8/2Q5/8 b - - 98 80"
    assert final(ChessState.from_setup(lost.replace(" 98 ", " 0 ")), Limits(depth=4)).score < -500
    state = ChessState.from_setup(lost.replace(" 98 ", " 99 "))
    assert final(state, Limits(depth=4)).score == 0


def test_repetition_is_seen_in_search_and_in_play() -> None:
    start = ChessState.from_setup("1n4k1/8/8/8/8/8/8/3Q2K1 b - - 0 1")
    state = play_moves(start, ["Nc6", "Qd2", "Nb8", "Qd1"])
    result = final(state, Limits(depth=4))
    assert result.best == "b8c6" and result.score == 0
    assert final(start, Limits(depth=4)).score < -500
    state = play_moves(state, ["Nc6", "Qd2", "Nb8", "Qd1"])
    assert state.outcome() is not None and state.outcome().reason == "threefold repetition"


def test_events_counters_and_root_moves() -> None:
    state = ChessState.from_setup("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    events = list(ChessSearcher(state, Limits(depth=4)).search())
    depths = [event for event in events if event.kind == "depth"]
    assert [event.depth for event in depths] == [1, 2, 3, 4]
    last = events[-1]
    assert last.kind == "final" and last.depth == 4 and last.pv[0] == last.best
    assert last.nodes > last.qnodes > 0 and last.cutoffs > 0 and last.tt_hits > 0 and last.pruned > 0
    assert len(last.root_moves) == 48 and len(last.nodes_per_depth) == 4
    board = chess.Board(state.board.fen())
    for move in last.pv:
        board.push_uci(move)
    counters = [(event.nodes, event.qnodes, event.cutoffs) for event in events]
    assert counters == sorted(counters)


def test_root_margin_gives_every_root_move_an_exact_score() -> None:
    state = ChessState.from_setup(chess.STARTING_FEN)
    result = final(state, Limits(depth=2), SearchOptions(root_margin=50))
    assert all(row.bound == "exact" and row.score is not None for row in result.root_moves)


def test_stop_flag_ends_an_unlimited_search_with_a_move() -> None:
    stop = threading.Event()
    searcher = ChessSearcher(ChessState.from_setup(chess.STARTING_FEN), Limits(), stop=stop)
    kinds = []
    for event in searcher.search():
        kinds.append(event.kind)
        if event.kind == "depth" and event.depth >= 3:
            stop.set()
    assert kinds[-1] == "final" and event.best is not None and event.depth >= 3


def test_time_and_node_limits_are_honoured() -> None:
    state = ChessState.from_setup(chess.STARTING_FEN)
    timed = final(state, Limits(time=0.2))
    assert timed.best is not None and timed.depth < 64
    counted = final(state, Limits(nodes=3000))
    assert counted.best is not None and counted.nodes <= 3000


def test_make_searcher_gives_chess_its_own_base_searcher() -> None:
    searcher = make_searcher(ChessState.from_setup(chess.STARTING_FEN), Limits(depth=1))
    assert isinstance(searcher, ChessSearcher) and isinstance(searcher, BaseSearcher)
    assert final_event(searcher.search()).algorithm == "alphabeta"


@pytest.mark.parametrize("switch", ["tt", "pvs", "null_move", "lmr", "aspiration", "killers", "history",
                                    "ordering", "check_extension", "quiescence", "iterative"])
def test_every_technique_can_be_switched_off(switch: str) -> None:
    state = ChessState.from_setup("2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1")
    # Depth 6: a node the table has no move for searches a ply less (internal iterative reduction, on with the
    # reductions), so the mate in 2 needs a ply to spare when quiescence or iterative deepening is off.
    result = final(state, Limits(depth=6), SearchOptions(**{switch: False}))
    assert result.best == "g3g6" and result.score == WIN - 3


def test_minimax_and_alphabeta_agree_on_the_score() -> None:
    state = ChessState.from_setup("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1")
    options = {"quiescence": False, "null_move": False, "lmr": False, "check_extension": False, "tt": False}
    plain = final(state, Limits(depth=3), SearchOptions(alphabeta=False, **options))
    pruned = final(state, Limits(depth=3), SearchOptions(**options))
    assert plain.score == pruned.score and plain.nodes > pruned.nodes
