"""Opening names and the opening book, from Lichess' chess-openings tables (CC0; columns eco, name, pgn).

``named_opening(board)`` names the opening whose line ends in a position (ECO code and name);
``book_moves(board)`` lists the moves the tables continue with from the current position, each weighted by the
number of named lines through it, and ``pick_book_move`` draws one of the main ones at random by weight.

The tables are read from ``$ARENA_OPENINGS`` or the package's ``engine/chess/data``. Replaying the
3,800 lines takes about a second, so the index is built once per process and also saved (pickled) under
``$ARENA_CACHE`` or ``~/.cache/alphabeta-arena``, keyed by the tables' sizes and modification times.
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
import pickle
import random
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import chess

DEFAULT_DIR = Path(__file__).resolve().parent / "data"
INDEX_VERSION = 1


@dataclass(frozen=True, slots=True)
class Opening:
    """A named opening: ECO code (``"C42"``), name (``"Petrov's Defense"``) and its length in plies."""

    eco: str
    name: str
    plies: int


@dataclass(frozen=True, slots=True)
class OpeningIndex:
    """Positions (EPD without counters) to the opening named there, and to the book moves played from there."""

    names: dict[str, Opening]
    moves: dict[str, dict[str, int]]


def openings_dir() -> Path:
    """The folder of ``*.tsv`` opening tables."""
    return Path(os.environ.get("ARENA_OPENINGS") or DEFAULT_DIR)


def _cache_file(tables: list[Path]) -> Path:
    digest = hashlib.sha256(str(INDEX_VERSION).encode())
    for path in tables:
        stat = path.stat()
        digest.update(f"{path.resolve()}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    root = Path(os.environ.get("ARENA_CACHE") or Path.home() / ".cache" / "alphabeta-arena")
    return root / f"chess-openings-{digest.hexdigest()[:16]}.pickle"


def build_index(tables: list[Path]) -> OpeningIndex:
    """Replay every line of the ``tables`` and index names and continuations by position."""
    names: dict[str, Opening] = {}
    moves: dict[str, dict[str, int]] = {}
    for path in tables:
        with path.open(encoding="utf-8") as handle:
            for row in csv.DictReader(handle, delimiter="\t"):
                board = chess.Board()
                sans = [token for token in row["pgn"].split() if not token.endswith(".")]
                for san in sans:
                    epd = board.epd()
                    move = board.push_san(san)
                    step = moves.setdefault(epd, {})
                    step[move.uci()] = step.get(move.uci(), 0) + 1
                opening = Opening(row["eco"], row["name"], len(sans))
                epd = board.epd()
                known = names.get(epd)
                if known is None or opening.plies < known.plies:
                    names[epd] = opening
    return OpeningIndex(names, moves)


@lru_cache(maxsize=1)
def load_index() -> OpeningIndex:
    """The opening index: from the pickle cache when it is current, else built and saved. Empty without tables."""
    folder = openings_dir()
    tables = sorted(folder.glob("*.tsv")) if folder.is_dir() else []
    if not tables:
        return OpeningIndex({}, {})
    cache = _cache_file(tables)
    try:
        with cache.open("rb") as handle:
            index = pickle.load(handle)
        if isinstance(index, OpeningIndex):
            return index
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError):
        pass
    index = build_index(tables)
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        buffer = io.BytesIO()
        pickle.dump(index, buffer, protocol=pickle.HIGHEST_PROTOCOL)
        temporary = cache.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_bytes(buffer.getvalue())
        temporary.replace(cache)
    except OSError:
        pass
    return index


def named_opening(board: chess.Board) -> Opening | None:
    """The named opening whose line ends in exactly this position (pieces, side to move, castling, en passant), or
    None. A game's opening is the latest of its positions that has a name (``ChessState.opening``)."""
    return load_index().names.get(board.epd())


def book_moves(board: chess.Board) -> dict[str, int]:
    """Legal book continuations of ``board`` in UCI, each with its weight (lines through it); empty when out."""
    found = load_index().moves.get(board.epd(), {})
    return {uci: weight for uci, weight in found.items() if board.is_legal(chess.Move.from_uci(uci))}


def pick_book_move(board: chess.Board, rng: random.Random) -> str | None:
    """A book move drawn at random by weight among the main continuations (weight at least a tenth of the most
    played one, which leaves out sidelines such as 1. g4), or None when the position is out of book."""
    choices = book_moves(board)
    if not choices:
        return None
    floor = max(choices.values()) / 10
    moves = sorted(move for move, weight in choices.items() if weight >= floor)
    return rng.choices(moves, weights=[choices[move] for move in moves])[0]
