"""``python -m engine tablebase build GAME | probe GAME POSITION | info GAME``: solved tables of small games.

``build`` solves the game by retrograde analysis and saves its table (see ``engine.solve.tables`` for where);
``probe`` prints the exact value of a position (in the game's notation) and of each of its moves; ``info``
describes a stored table. ``--dir`` chooses another folder than the cache.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from engine.game import GameError, State
from engine.games import game_class
from engine.solve import tables
from engine.solve.retrograde import TableError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``action`` (build, probe, info), ``game``, the ``position`` for probe, and ``--dir``."""
    parser.add_argument("action", choices=("build", "probe", "info"))
    parser.add_argument("game", choices=sorted(tables.SPACES))
    parser.add_argument("position", nargs="?", help="probe: the position in the game's notation (default: start)")
    parser.add_argument("--dir", type=Path, default=None, help=f"table folder (default: {tables.cache_dir()})")


def run(args: argparse.Namespace) -> int:
    """Do the action; bad positions and missing tables print a reason on stderr and return 2."""
    try:
        if args.action == "build":
            return _build(args.game, args.dir)
        if args.action == "info":
            return _info(args.game, args.dir)
        return _probe(args.game, args.position, args.dir)
    except (GameError, TableError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


def _build(game: str, directory: Path | None) -> int:
    started = time.perf_counter()
    built = tables.build(game, directory)
    seconds = time.perf_counter() - started
    path = tables.table_path(game, directory)
    print(f"{game}: solved {built.counts()['positions']} positions in {seconds:.2f} s; "
          f"{path} ({path.stat().st_size} bytes)")
    return 0


def _info(game: str, directory: Path | None) -> int:
    path = tables.table_path(game, directory)
    started = time.perf_counter()
    loaded = tables.table(game, directory, build_missing=False)
    if loaded is None:
        raise TableError(f"no table at {path}; make it with: python -m engine tablebase build {game}")
    seconds = time.perf_counter() - started
    start = game_class(game).initial()
    info = {"game": game, "path": str(path), "bytes": path.stat().st_size, "indices": len(loaded.codes),
            "load_ms": round(seconds * 1000, 2), **loaded.counts(), "longest_plies": loaded.longest(),
            "start": _verdict(start, directory)["text"]}
    print(json.dumps(info, indent=2))
    return 0


def _probe(game: str, position: str | None, directory: Path | None) -> int:
    cls = game_class(game)
    state = cls.from_setup(position) if position is not None else cls.initial()
    if tables.table(game, directory, build_missing=False) is None:
        raise TableError(f"no table for {game}; make it with: python -m engine tablebase build {game}")
    print(json.dumps({"position": state.setup(), **_verdict(state, directory)}, indent=2))
    return 0


def _verdict(state: State, directory: Path | None) -> dict[str, Any]:
    """``tables.verdict`` on a position of a game whose table is there; ``TableError`` for a game without one."""
    verdict = tables.verdict(state, directory)
    if verdict is None:
        raise TableError(f"{state.name} has no solved table")
    return verdict
