"""``python -m engine tablebase build GAME | probe GAME POSITION | info GAME``: solved tables of small games, and
chess's endgame tables (GAME ``chess``).

``build`` solves the game by retrograde analysis and saves its table (see ``engine.solve.tables`` for where; for
chess every ending of ``engine.solve.chess_endgames.MATERIALS`` that is missing, or those of ``--material``, one process
per core); ``probe`` prints the exact value of a position (in the game's notation; chess: a FEN) and of each of its
moves; ``info`` describes a stored table (chess: every one). ``--dir`` chooses another folder than the cache.
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
    parser.add_argument("game", choices=[*sorted(tables.SPACES), "chess"])
    parser.add_argument("position", nargs="?", help="probe: the position in the game's notation (default: start)")
    parser.add_argument("--dir", type=Path, default=None, help=f"table folder (default: {tables.cache_dir()})")
    parser.add_argument("--material", action="append", help="chess build: an ending to build (KQKR), repeatable")


def run(args: argparse.Namespace) -> int:
    """Do the action; bad positions and missing tables print a reason on stderr and return 2."""
    try:
        if args.game == "chess":
            return _chess(args.action, args.position, args.dir, args.material)
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


def _chess(action: str, position: str | None, directory: Path | None, materials: list[str] | None) -> int:
    """The chess endgame tables: build the missing ones, describe them, or probe a FEN."""
    import chess

    from engine.solve import chess_endgames as endgames
    from engine.solve.ending_space import EndingSpace

    if action == "build":
        started = time.perf_counter()

        def report(material: str, seconds: float, size: int) -> None:
            print(f"{material}: {EndingSpace(material).size:,} indices in {seconds:.1f} s; "
                  f"{endgames.table_path(material, directory)} ({size:,} bytes)", flush=True)

        unknown = [material for material in materials or () if material not in endgames.MATERIALS]
        if unknown:
            raise TableError(f"no chess table for {', '.join(unknown)}; tables exist for "
                             f"{', '.join(endgames.MATERIALS)}")
        endgames.build_all(directory, materials or endgames.MATERIALS, report=report)
        print(f"done in {time.perf_counter() - started:.1f} s")
        return 0
    if action == "info":
        rows = []
        for material in endgames.MATERIALS:
            path = endgames.table_path(material, directory)
            solved = endgames.table(material, directory)
            if solved is None:
                rows.append({"material": material, "built": False})
                continue
            decided = [code for code in set(solved[1]) if code >= 2]
            rows.append({"material": material, "built": True, "path": str(path), "bytes": path.stat().st_size,
                         "indices": len(solved[1]), "longest_mate_plies": (max(decided) - 2) >> 1})
        print(json.dumps(rows, indent=2))
        return 0
    try:
        board = chess.Board(position) if position else chess.Board()
    except ValueError as error:
        raise TableError(f"not a FEN: {error}") from None
    entry = endgames.probe(board, directory)
    values = endgames.move_values(board, directory)
    if entry is None or values is None:
        raise TableError("no table knows this position (more than four pieces, castling rights, or a four-piece "
                         "table not built: python -m engine tablebase build chess)")
    print(json.dumps({"position": board.fen(), "result": entry.result, "plies": entry.plies, "moves": [
        {"move": move, "result": value.result, "plies": value.plies}
        for move, value in sorted(values.items(), key=lambda pair: -pair[1].score)]}, indent=2))
    return 0
