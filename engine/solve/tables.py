"""The solved tables of small games: where they live, building them on first use, and asking them about a position.

Tables are files ``<cache>/tables/<game>.tbl`` where ``<cache>`` is the environment variable ``ARENA_CACHE`` or
``~/.cache/alphabeta-arena``. ``table(game)`` loads one (building and saving it first if it is missing) and keeps
it for the life of the process. ``verdict(state)`` gives the exact value of a position and of each of its moves;
``table_search(state, level)`` answers like a search would, for the strongest level.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from engine.clock import SYSTEM_MONOTONIC, Monotonic
from engine.game import MAX_PLIES, State, score_scale
from engine.games.tictactoe import TicTacToe
from engine.games.wolves import Wolves
from engine.search.info import RootMove, SearchInfo
from engine.solve.positions import TicTacToeSpace, WolvesSpace
from engine.solve.retrograde import Progress, TableError, solve
from engine.solve.tablebase import Entry, Table

SPACES: dict[str, type[TicTacToeSpace] | type[WolvesSpace]] = {"tictactoe": TicTacToeSpace, "wolves": WolvesSpace}
"""Games with a solved table, and the class numbering their positions (``index_of`` is a static method, so
probing needs no instance; building makes one)."""

log = logging.getLogger(__name__)

TABLE_LEVEL = 8
"""The lowest difficulty level that plays from the table."""
BUILD_REPORT_SECONDS = 0.2
"""Seconds between two progress events of a table build."""

_tables: dict[tuple[str, Path], Table] = {}


def cache_dir() -> Path:
    """The folder holding the tables: ``$ARENA_CACHE/tables`` or ``~/.cache/alphabeta-arena/tables``."""
    root = os.environ.get("ARENA_CACHE") or Path.home() / ".cache" / "alphabeta-arena"
    return Path(root) / "tables"


def space(game: str) -> type[TicTacToeSpace] | type[WolvesSpace]:
    """The position-space class of ``game``; ``KeyError`` names the games with tables."""
    if game not in SPACES:
        raise KeyError(f"no solved table for {game!r}; tables exist for {', '.join(SPACES)}")
    return SPACES[game]


def table_path(game: str, directory: Path | None = None) -> Path:
    """Where the table of ``game`` is stored."""
    return (directory or cache_dir()) / f"{game}.tbl"


def build(game: str, directory: Path | None = None, progress: Progress | None = None) -> Table:
    """Solve ``game`` by retrograde analysis (telling ``progress`` how far it is), save the table, and keep it for
    this process. When the folder cannot be written the table is still kept (and used) in memory, and a warning
    is logged."""
    positions = space(game)()
    solved = Table(game, positions.version, bytes(solve(positions, progress)))
    path = table_path(game, directory)
    try:
        solved.save(path)
    except OSError as error:
        log.warning("cannot save the %s table to %s: %s", game, path, error)
    _tables[game, path] = solved
    return solved


def table(game: str, directory: Path | None = None, *, build_missing: bool = True) -> Table | None:
    """The table of ``game``, loaded once per process; built and saved first when missing (or damaged) and
    ``build_missing`` is true, else None. ``KeyError`` for a game without a table."""
    positions = space(game)
    path = table_path(game, directory)
    if (game, path) in _tables:
        return _tables[game, path]
    try:
        loaded = Table.load(path, game, positions.version, positions.size)
    except TableError:
        return build(game, directory) if build_missing else None
    _tables[game, path] = loaded
    return loaded


def describe_level(level: int) -> str | None:
    """What the table does at ``level``, in words for the level picker, or None when the level only searches."""
    return "plays from the solved table: perfect play, no search" if level >= TABLE_LEVEL else None


def building_events(state: State, level: int | None, directory: Path | None = None,
                    clock: Monotonic = SYSTEM_MONOTONIC) -> Iterator[SearchInfo]:
    """When answering ``state`` at ``level`` from the table needs the table built first (it is neither in this
    process nor in a readable file): build it, yielding a "progress" event (``building`` set, every counter 0,
    ``time_ms`` on ``clock``) at most every ``BUILD_REPORT_SECONDS`` (a real wait for the builder's reports, which
    limits nothing). Nothing otherwise."""
    if level is None or level < TABLE_LEVEL or state.name not in SPACES or state.outcome() is not None:
        return
    if table(state.name, directory, build_missing=False) is not None:
        return
    reports: queue.SimpleQueue[tuple[str, int, int | None]] = queue.SimpleQueue()
    failure: list[BaseException] = []

    def run() -> None:
        try:
            build(state.name, directory, lambda stage, done, total: reports.put((stage, done, total)))
        except BaseException as error:  # handed to the caller below
            failure.append(error)

    started = clock()
    builder = threading.Thread(target=run, name="table-build", daemon=True)
    builder.start()
    last = None
    while builder.is_alive() or not reports.empty():
        with contextlib.suppress(queue.Empty):
            last = reports.get(timeout=BUILD_REPORT_SECONDS)
        while not reports.empty():
            last = reports.get()
        if last is not None:
            stage, done, total = last
            yield _building_event(state, stage, done, total, (clock() - started) * 1000)
    builder.join()
    if failure:
        raise failure[0]


def _building_event(state: State, stage: str, done: int, total: int | None, elapsed_ms: float) -> SearchInfo:
    return SearchInfo(
        kind="progress", algorithm="alphabeta", depth=0, seldepth=0, nodes=0, qnodes=0, cutoffs=0, pruned=0,
        generated=0, tt_probes=0, tt_hits=0, time_ms=round(elapsed_ms, 3), nps=0,
        score=None, score_text="", pv=[], best=None, root_moves=[], ebf=None, final=False, source="table",
        building={"what": f"the solved table of {state.title}", "stage": stage, "done": done, "total": total})


def probe(state: State, directory: Path | None = None) -> Entry | None:
    """The exact value of ``state`` for the side to move, or None when its game has no table."""
    index = _index_of(state)
    if index is None:
        return None
    solved = table(state.name, directory)
    return solved.entry(index) if solved else None


def _index_of(state: object) -> int | None:
    """The index of ``state`` in the space of its game (``SPACES``), None for a game without a table. (A game's
    ``play`` takes its own moves, not any ``Move``, so its class is no subtype of ``State`` for the type checker:
    ``state`` is narrowed from ``object``.)"""
    if isinstance(state, TicTacToe):
        return TicTacToeSpace.index_of(state)
    if isinstance(state, Wolves):
        return WolvesSpace.index_of(state)
    return None


def _winner_text(state: State, entry: Entry) -> str:
    if entry.plies is None:
        return "solved: draw"
    winner = state.to_move if entry.result == "win" else 1 - state.to_move
    moves = (entry.plies + 1) // 2 if winner == state.to_move else entry.plies // 2
    name = state.players[winner]
    verb = "win" if name.endswith("s") else "wins"
    return f"solved: {name} {verb} in {moves} move{'s' if moves != 1 else ''}"


def verdict(state: State, directory: Path | None = None) -> dict[str, Any] | None:
    """The table's verdict on ``state``, or None when its game has no table.

    ``{"result": "win" | "loss" | "draw"`` (for the side to move), ``"plies"`` (to the end, None in a draw),
    ``"winner"`` (player index or None), ``"score"`` (engine convention), ``"text"`` ("solved: Wolves win in
    22 moves"), ``"moves": [{"move", "result", "plies", "score"}]}`` with each move's value for the side to move,
    best first.
    """
    entry = probe(state, directory)
    if entry is None:
        return None
    winner = None if entry.plies is None else state.to_move if entry.result == "win" else 1 - state.to_move
    return {
        "result": entry.result,
        "plies": entry.plies,
        "winner": winner,
        "score": entry.score,
        "text": _winner_text(state, entry),
        "moves": [{"move": state.move_text(move), "result": value.result, "plies": value.plies, "score": value.score}
                  for move, value in _move_values(state, directory)],
    }


def _move_values(state: State, directory: Path | None) -> list[tuple[Any, Entry]]:
    """Every legal move with its exact value for the side to move, best first (stable for equal values)."""
    values = []
    for move in state.legal_moves():
        after = probe(state.play(move), directory)
        if after is None:
            raise TableError(f"the table of {state.name} has no entry for the position after {state.move_text(move)}")
        values.append((move, after.after_move()))
    values.sort(key=lambda pair: -pair[1].score)
    return values


def table_search(state: State, level: int | None, clock: Monotonic = SYSTEM_MONOTONIC) -> SearchInfo | None:
    """A final ``SearchInfo`` answering from the table at level ``TABLE_LEVEL`` and above, else None.

    Its score is exact (engine convention), ``pv`` is a line of perfect play to the end, ``root_moves`` holds
    the exact score of every legal move, and ``source`` is "table". None when no level is given (a plain
    search was asked for) or it is lower, when the game has no table, or when the game is over. The table is
    built on first use if it is missing (a few seconds for Wolves & Rabbit). Its ``time_ms`` is measured on
    ``clock``.
    """
    if level is None or level < TABLE_LEVEL or state.name not in SPACES or state.outcome() is not None:
        return None
    started = clock()
    values = _move_values(state, None)
    best_move, best = values[0]
    pv = [state.move_text(best_move)]
    line = state.play(best_move)
    while line.outcome() is None and len(pv) < MAX_PLIES:
        move, _ = _move_values(line, None)[0]
        pv.append(line.move_text(move))
        line = line.play(move)
    probes = len(values) + len(pv)
    elapsed = (clock() - started) * 1000
    return SearchInfo(
        kind="final", algorithm="alphabeta", depth=best.plies or 0, seldepth=len(pv), nodes=probes, qnodes=0,
        cutoffs=0, pruned=0, generated=len(values), tt_probes=probes, tt_hits=probes, time_ms=elapsed,
        nps=int(probes / elapsed * 1000) if elapsed else 0, score=best.score,
        score_text=_winner_text(state, best),
        pv=pv, best=pv[0], root_moves=[RootMove(state.move_text(m), v.score, bound="exact") for m, v in values],
        ebf=None, final=True, source="table", score_scale=score_scale(state), proven=True,
        table_size=SPACES[state.name].size,
    )
