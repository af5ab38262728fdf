"""Our chess endgame tables against python-chess' rules and against published values: on random positions of each
ending, a mate is a loss in 0, a stalemate a draw, and every value is the best of its moves' values (with
python-chess generating the moves, captures and promotions into other tables included); the longest mates are
the published ones (KQK 10 moves, KRK 16, KPK 28, KQKR 35)."""

from __future__ import annotations

import random
from pathlib import Path

import chess
import pytest
from support.clocks import TickingClock

from engine.games import new_game
from engine.search import make_searcher
from engine.search.info import Limits, SearchOptions
from engine.solve import chess_endgames as endgames
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


# Building KQKR is a minute of one core alone; two suites at once on two cores give it a fraction of one, so its
# guard against hanging is set far above what the default (300 s) allows such a share.
@pytest.mark.timeout(1800)
def test_kqkr_follows_the_rules_and_the_search_reads_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The four-piece table (about a minute on the compiled engine) needs KQK and KRK for its captures, built
    first; 35 moves is its longest mate. With five pieces at the root, both ways of taking the knight lead into
    KQKR, and the search scores them exactly from the table."""
    kqkr = tmp_path / "tables"
    endgames.build("KQKR", kqkr)
    solved = endgames.table("KQKR", kqkr)
    assert solved is not None
    longest = max(code for code in set(solved[1]) if code >= 2)
    assert (longest - 2) >> 1 == 70
    check_against_python_chess("KQKR", kqkr, 300, seed=7)
    check_against_python_chess(turned_over("KQKR"), kqkr, 100, seed=8)
    monkeypatch.setenv("ARENA_CACHE", str(tmp_path))
    state = new_game("chess", "4k2r/8/8/8/8/8/3n4/3QK3 w - - 0 1")
    final = list(make_searcher(state, Limits(depth=2), SearchOptions()).search())[-1]
    scores = {move.move: move.score for move in final.root_moves}
    for capture in ("d1d2", "e1d2"):
        after = state.board.copy()
        after.push_uci(capture)
        entry = endgames.probe(after)
        assert entry is not None and scores[capture] == entry.after_move().score


@pytest.mark.engine
def test_a_chess_ending_is_reviewed_and_hinted_exactly() -> None:
    """Reviews and hints read the tables (in the run's cache, three-piece tables built on first use): a king and
    rook ending's moves are judged exactly, a slower mate is "kept the result", and the hints give mate distances."""
    from engine.hints import exact_hints
    from engine.review import BEST, KEPT, review_moves

    start = new_game("chess", "8/8/8/4k3/8/8/8/R3K3 w - - 0 1")
    best = endgames.move_values(start.board)
    assert best is not None
    quickest = max(best, key=lambda move: best[move].score)
    slower = next(move for move, value in best.items() if value.result == "win" and value.score < best[quickest].score)
    verdicts = review_moves(start, [quickest]) + review_moves(start, [slower])
    assert verdicts[0].exact and verdicts[0].verdict == BEST and verdicts[0].before.startswith("win in ")
    assert verdicts[1].exact and verdicts[1].verdict == KEPT
    assert verdicts[1].win_before == verdicts[1].win_after == 100.0
    hints = exact_hints(start, 1.0)
    assert hints is not None and hints["moves"][quickest]["value"] == verdicts[0].before


@pytest.mark.engine
def test_the_search_probes_the_tables_below_its_root() -> None:
    """A depth-2 search of a rook ending (up to sixteen moves from mate, far beyond its horizon) scores every root
    move exactly, from the tables at its children, and its line goes on through the tables to the mate."""
    state = new_game("chess", "8/8/8/4k3/8/8/8/R3K3 w - - 0 1")
    values = endgames.move_values(state.board)
    final = list(make_searcher(state, Limits(depth=2), SearchOptions()).search())[-1]
    assert values is not None
    assert {move.move: move.score for move in final.root_moves} == {move: value.score for move, value in values.items()}
    line = state.board.copy()
    for move in final.pv:
        line.push_uci(move)
    assert line.is_checkmate() and len(final.pv) == values[final.best].plies


@pytest.mark.engine
def test_the_strong_levels_play_an_ending_from_the_tables_and_the_beginners_search_it() -> None:
    """Levels 5-8 play a rook ending's quickest mate at once from the tables; levels 1-4 search it like any
    position (their margin may then pick a slower way, as a beginner would), and the level picker says which."""
    from engine.oracles import consult, describe_level

    state = new_game("chess", "8/8/8/4k3/8/8/8/R3K3 w - - 0 1")
    values = endgames.move_values(state.board)
    assert values is not None
    quickest = max(values.values(), key=lambda value: value.score)
    strong = [answer for answer in consult(state, 8, TickingClock(0.0), random.Random(1)) if answer.final]
    assert strong and strong[0].source == "table" and values[strong[0].best] == quickest
    assert list(consult(state, 1, TickingClock(0.0), random.Random(1))) == []
    assert "endgame tables" in (describe_level("chess", 5) or "") and describe_level("chess", 4) is None
