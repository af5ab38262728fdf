"""Chess endgame tables of our own: the exact distance to mate of every position of the endings with few pieces.

``MATERIALS`` are the endings with a table, built by retrograde analysis (``engine.solve.ending_solve``) with the
stronger side as White; every position is read from its table, turned over when the colours are the other way
round. Every three-piece ending (``KK``, ``KBK`` and ``KNK`` are draws without a table) and the common four-piece
ones, with every table their captures and promotions lead to. Values count plies to mate with best play, ignoring
the fifty-move rule (no ending here needs more than 35 moves); a position with castling rights is not read.

Tables are files ``<cache>/tables/chess-<material>.tbl`` (``engine.solve.tables.cache_dir``, the format of
``engine.solve.tablebase``), loaded once per process. The three-piece ones take under a second each and are built
when first needed (``build_missing``); the four-piece ones by ``python -m engine tablebase build chess``
(``make tables``), several at a time (``build_all``). Without a table a position is simply not known.

They answer a chess position in three ways: ``endgame_answer`` (the oracle's move, before the book and Syzygy),
``TableChessSearcher`` (the search, probing below its root) and ``move_values`` (the truth of reviews, hints and the
analysis board, ``engine.truth``). This module sits in ``engine.solve`` so that ``engine.chess`` never imports it.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path

import chess

from engine.chess.evaluation import CENTIPAWNS
from engine.chess.search import ChessSearcher
from engine.chess.tree import ENDGAME_PIECES
from engine.game import describe_score
from engine.search.info import RootMove, SearchInfo
from engine.solve.ending_solve import PROMOTIONS, Progress, Tables, probe_pieces, solve_ending
from engine.solve.ending_space import DRAWN_MATERIALS, PAWN, EndingSpace, material_name, oriented
from engine.solve.retrograde import DRAW_CODE, TableError
from engine.solve.tablebase import Entry, Table
from engine.solve.tables import cache_dir

THREE_PIECES = ("KQK", "KRK", "KPK")
FOUR_PIECES = ("KQKR", "KBNK", "KQKQ", "KQKB", "KQKN", "KRKR", "KRKB", "KRKN", "KQKP", "KRKP")
MATERIALS = THREE_PIECES + FOUR_PIECES
"""Every ending with a table; each one's captures and promotions lead to endings listed before it."""
BUILT_ON_FIRST_USE = frozenset(THREE_PIECES)
VERSION = 1
"""The index layout of ``engine.solve.ending_space``; a table made for another is built again."""

log = logging.getLogger(__name__)
_loaded: dict[tuple[str, Path], tuple[EndingSpace, bytes]] = {}
_absent: set[tuple[str, Path]] = set()
"""Tables the search found missing: it does not look for their files again in this process."""
_lock = threading.Lock()

_LETTER_TYPES = {ord(letter): kind for letter, kind in zip("PNBRQK", range(1, 7), strict=True)}
_LETTER_TYPES.update({ord(letter): kind for letter, kind in zip("pnbrqk", range(1, 7), strict=True)})


def table_path(material: str, directory: Path | None = None) -> Path:
    """Where the table of ``material`` is stored."""
    return (directory or cache_dir()) / f"chess-{material}.tbl"


def exits(material: str) -> set[str]:
    """The endings with a table that one capture or promotion leads to from ``material``."""
    space = EndingSpace(material)
    found = set()
    for slot in range(2, space.count):
        squares = [0] * space.count
        squares[slot] = -1
        found.add(oriented(material_name(space.types, space.colours, squares))[0])
        if space.types[slot] == PAWN:
            for promotion in PROMOTIONS:
                types = list(space.types)
                types[slot] = promotion
                found.add(oriented(material_name(types, space.colours, [0] * space.count))[0])
                for victim in range(2, space.count):
                    if victim != slot:
                        squares = [0] * space.count
                        squares[victim] = -1
                        found.add(oriented(material_name(types, space.colours, squares))[0])
    return found - DRAWN_MATERIALS


def table(material: str, directory: Path | None = None, *, build_missing: bool = False) -> tuple[
        EndingSpace, bytes] | None:
    """The solved table of ``material`` (a name of ``MATERIALS``), loaded once per process; built and saved first
    when missing and ``build_missing`` (with the tables it needs), else None."""
    with _lock:
        return _loaded_or_built(material, directory, build_missing, None)


def _loaded_or_built(material: str, directory: Path | None, build_missing: bool,
                     progress: Progress | None) -> tuple[EndingSpace, bytes] | None:
    """``table``'s work, under ``_lock``."""
    path = table_path(material, directory)
    if (material, path) not in _loaded:
        space = EndingSpace(material)
        try:
            loaded = Table.load(path, f"chess {material}", VERSION, space.size)
        except TableError:
            if not build_missing:
                return None
            loaded = _build(material, directory, progress)
        _loaded[material, path] = (space, loaded.codes)
    return _loaded[material, path]


def build(material: str, directory: Path | None = None, progress: Progress | None = None) -> Table:
    """Solve ``material`` by retrograde analysis (and first every table it needs that is missing), save it and keep
    it for this process. ``TableError`` for a material without a table here."""
    with _lock:
        return _build(material, directory, progress)


def _build(material: str, directory: Path | None, progress: Progress | None) -> Table:
    if material not in MATERIALS:
        raise TableError(f"no chess table for {material}; tables exist for {', '.join(MATERIALS)}")
    needed: Tables = {}
    for other in exits(material):
        found = _loaded_or_built(other, directory, True, progress)
        assert found is not None  # built when missing
        needed[other] = found
    space = EndingSpace(material)
    solved = Table(f"chess {material}", VERSION, bytes(solve_ending(space, needed, progress)))
    path = table_path(material, directory)
    try:
        solved.save(path)
    except OSError as error:
        log.warning("cannot save the chess table %s to %s: %s", material, path, error)
    _loaded[material, path] = (space, solved.codes)
    return solved


def build_all(directory: Path | None = None, materials: Iterable[str] = MATERIALS, workers: int | None = None,
              report: Callable[[str, float, int], None] | None = None) -> None:
    """Build every table of ``materials`` that is missing, and the tables they need, in ``workers`` processes at
    once (default: one per core), each as soon as those it needs are built; ``report(material, seconds,
    file_bytes)`` hears of each one built."""
    wanted = set(materials)
    order = [material for material in MATERIALS if material in wanted or any(
        material in _needs(other) for other in wanted)]
    done = {material for material in order if table_path(material, directory).exists()}
    with ProcessPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
        running: dict[Future[float], str] = {}
        while len(done) < len(order):
            for material in order:
                if material not in done and material not in running.values() and _needs(material) <= done:
                    running[pool.submit(_build_in_process, material, directory)] = material
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                material = running.pop(future)
                seconds = future.result()
                done.add(material)
                if report is not None:
                    report(material, seconds, table_path(material, directory).stat().st_size)


def _needs(material: str) -> set[str]:
    """Every table ``material`` needs, directly or through another."""
    direct = exits(material)
    return direct.union(*(_needs(other) for other in direct))


def _build_in_process(material: str, directory: Path | None) -> float:
    started = time.perf_counter()
    build(material, directory)
    return time.perf_counter() - started


def board_material(board: chess.Board) -> str | None:
    """The ending a board's pieces make, as its table names it ("KQKR"), or None beyond four pieces."""
    if chess.popcount(board.occupied) > 4:
        return None
    return oriented(material_name(*_pieces(board)))[0]


def _pieces(board: chess.Board) -> tuple[list[int], list[int], list[int]]:
    """The board's pieces as ``engine.solve.ending_space`` takes them: types (numbered as python-chess numbers
    them, pawn 1 to king 6), colours (White 0) and squares (a1 0)."""
    pieces = board.piece_map()
    return ([piece.piece_type for piece in pieces.values()], [0 if piece.color else 1 for piece in pieces.values()],
            list(pieces))


def probe(board: chess.Board, directory: Path | None = None) -> Entry | None:
    """The exact value of ``board`` for the side to move, or None: more than four pieces, castling rights, an
    ending without a table, or its table not built (three-piece ones are built here when missing)."""
    material = board_material(board)
    if material is None or board.castling_rights or not board.is_valid():
        return None
    if material in DRAWN_MATERIALS:
        return Entry.from_code(DRAW_CODE)
    if material not in MATERIALS:
        return None
    solved = table(material, directory, build_missing=material in BUILT_ON_FIRST_USE)
    if solved is None:
        return None
    types, colours, squares = _pieces(board)
    code = probe_pieces({material: solved}, types, colours, squares, 0 if board.turn else 1)
    return Entry.from_code(code)


def move_values(board: chess.Board, directory: Path | None = None) -> dict[str, Entry] | None:
    """Every legal move's (UCI) exact value for the side to move, or None when a position after one is not known
    (see ``probe``); empty when the game is over."""
    board = board.copy(stack=False)
    values = {}
    for move in board.legal_moves:
        board.push(move)
        try:
            after = probe(board, directory)
        finally:
            board.pop()
        if after is None:
            return None
        values[move.uci()] = after.after_move()
    return values


def search_probe(board: bytes, white_to_move: bool) -> int:
    """The table code of a position of the search's internal board (``engine.chess.board``: its side to move in
    upper case, turned half a turn when Black moves), or 0 when no loaded table knows it: castling rights, more
    than four pieces, an ending without a table or whose table is not built (looked for once per process; the
    search never builds one)."""
    if board[0]:  # castling rights (CASTLING_AT)
        return 0
    types: list[int] = []
    colours: list[int] = []
    squares: list[int] = []
    for index in range(21, 99):
        kind = _LETTER_TYPES.get(board[index])
        if kind is None:
            continue
        if len(types) == 4:
            return 0
        seen_from_white = index if white_to_move else 119 - index
        row, column = divmod(seen_from_white, 10)
        types.append(kind)
        colours.append(0 if (board[index] < 97) == white_to_move else 1)
        squares.append((9 - row) * 8 + column - 1)
    material = oriented(material_name(types, colours, squares))[0]
    if material in DRAWN_MATERIALS:
        return DRAW_CODE
    if material not in MATERIALS:
        return 0
    key = (material, table_path(material))
    if key in _absent:
        return 0
    solved = table(material)
    if solved is None:
        _absent.add(key)
        return 0
    return probe_pieces({material: solved}, types, colours, squares, 0 if white_to_move else 1)


PV_PLIES = 40
"""The longest line of perfect play an endgame table's answer shows."""


def perfect_line(board: chess.Board, limit: int) -> list[str]:
    """At most ``limit`` moves (UCI) of perfect play from ``board`` by the tables (the quickest mate, the slowest
    defeat, each side in turn), to the end of the game or as far as they know it; empty where they know nothing."""
    line = board.copy(stack=False)
    moves: list[str] = []
    while len(moves) < limit and not line.is_game_over():
        values = move_values(line)
        if not values:
            break
        moves.append(max(values, key=lambda move: values[move].score))
        line.push_uci(moves[-1])
    return moves


def endgame_answer(board: chess.Board) -> SearchInfo | None:
    """The answer of our endgame tables as a final event: every move's exact score
    (``WIN - plies`` to mate, 0 a draw; bound "exact"), the best one (the quickest mate, the slowest defeat) with a
    line of perfect play; None when the tables do not know the position or it is over."""
    values = move_values(board)
    if not values:
        return None
    pv = perfect_line(board, PV_PLIES)
    best = pv[0]
    score = values[best].score
    return SearchInfo(
        kind="final", algorithm="alphabeta", depth=values[best].plies or 0, seldepth=len(pv), nodes=0, qnodes=0,
        cutoffs=0, pruned=0, generated=len(values), tt_probes=0, tt_hits=0, time_ms=0.0, nps=0, score=score,
        score_text=f"endgame table: {describe_score(score, CENTIPAWNS)}", pv=pv, best=best,
        root_moves=[RootMove(move, value.score, bound="exact") for move, value in values.items()], ebf=None,
        final=True, source="table", score_scale=CENTIPAWNS, proven=True)


class TableChessSearcher(ChessSearcher):
    """The chess searcher reading these tables below its root (``search_probe``): chess's ``searcher_class``. The
    principal variation of each completed depth, and of the final event, goes on through the tables where it
    enters an ending they know (the search itself stops at the table's value there)."""

    def search(self) -> Iterator[SearchInfo]:
        """``ChessSearcher.search``'s events, the lines of ``depth`` and ``final`` ones carried on by the tables."""
        for info in super().search():
            yield self._through_tables(info) if info.kind in ("depth", "final") and info.pv else info

    def _through_tables(self, info: SearchInfo) -> SearchInfo:
        board = self.board.copy(stack=False)
        for move in info.pv:
            board.push_uci(move)
        if chess.popcount(board.occupied) > ENDGAME_PIECES or board.is_game_over() or len(info.pv) >= PV_PLIES:
            return info
        line = perfect_line(board, PV_PLIES - len(info.pv))
        return dataclasses.replace(info, pv=[*info.pv, *line]) if line else info

    def endgame_probe(self) -> Callable[[bytes, bool], int]:
        """``search_probe``."""
        return search_probe
