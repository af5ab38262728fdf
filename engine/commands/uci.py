"""``python -m engine uci``: speak the UCI protocol on stdin/stdout so chess GUIs and python-chess can drive us.

Supported: ``uci``, ``debug``, ``isready``, ``setoption name Personality|OwnBook value ...``, ``ucinewgame``,
``position startpos|fen <fen> [moves ...]``, ``go [depth N] [movetime MS] [nodes N] [wtime MS btime MS winc MS
binc MS movestogo N] [infinite]``, ``stop``, ``quit``. The search runs in a thread, so ``stop`` and ``isready``
are answered while it thinks. Output: ``info depth seldepth nodes nps time score cp|mate pv`` after each depth and
``bestmove``.
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import threading
from typing import TextIO

import chess

from engine.chess.evaluation import PERSONALITIES
from engine.chess.openings import pick_book_move
from engine.chess.search import ChessSearcher
from engine.chess.tree import MATE_BOUND
from engine.game import WIN
from engine.games.chess import ChessState
from engine.search.info import Limits, SearchInfo, SearchOptions
from engine.solve.chess_endgames import TableChessSearcher

ENGINE_NAME = "Alpha-Beta Arena"
MOVE_OVERHEAD = 0.03
"""Seconds kept back from every time budget for the protocol round trip."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command takes no arguments: everything arrives through the protocol."""


def run(args: argparse.Namespace) -> int:
    """Serve UCI on stdin/stdout until ``quit`` or end of input."""
    UciSession(sys.stdin, sys.stdout).serve()
    return 0


def uci_score(score: int) -> str:
    """``cp N`` or ``mate N`` (negative when we are mated) for a score in the shared convention."""
    if score > MATE_BOUND:
        return f"mate {(WIN - score + 1) // 2}"
    if score < -MATE_BOUND:
        moves = (WIN + score) // 2
        return f"mate -{moves}" if moves else "mate 0"
    return f"cp {score}"


def time_budget(tokens: dict[str, int], white: bool) -> float | None:
    """Seconds to spend on this move from the ``go`` parameters (None when the search has no time limit)."""
    if "movetime" in tokens:
        return max(0.01, tokens["movetime"] / 1000 - MOVE_OVERHEAD)
    remaining = tokens.get("wtime" if white else "btime")
    if remaining is None:
        return None
    increment = tokens.get("winc" if white else "binc", 0) / 1000
    moves_to_go = tokens.get("movestogo", 30)
    seconds = remaining / 1000
    budget = seconds / max(moves_to_go, 1) + 0.75 * increment
    return max(0.01, min(budget, 0.4 * seconds) - MOVE_OVERHEAD)


class UciSession:
    """One UCI conversation: the current position, options, and the search thread."""

    def __init__(self, source: TextIO, sink: TextIO) -> None:
        self.source = source
        self.sink = sink
        self.lock = threading.Lock()
        self.state = ChessState(chess.Board())
        self.personality = "balanced"
        self.own_book = False
        self.rng = random.Random()
        self.searcher: ChessSearcher | None = None
        self.thread: threading.Thread | None = None
        self.stop_event = threading.Event()

    def send(self, line: str) -> None:
        """Write one protocol line and flush it."""
        with self.lock:
            self.sink.write(line + "\n")
            self.sink.flush()

    def serve(self) -> None:
        """Read and answer commands until ``quit`` or end of input."""
        for raw in self.source:
            words = raw.split()
            if not words:
                continue
            command, rest = words[0], words[1:]
            if command == "quit":
                break
            handler = getattr(self, f"on_{command}", None)
            if handler is None:
                self.send(f"info string unknown command {command}")
                continue
            try:
                handler(rest)
            except (ValueError, chess.InvalidMoveError, chess.IllegalMoveError) as error:
                self.send(f"info string error: {error}")
        self.on_stop([])

    def on_uci(self, _: list[str]) -> None:
        self.send(f"id name {ENGINE_NAME}")
        self.send("id author the Alpha-Beta Arena authors")
        names = " ".join(f"var {name}" for name in PERSONALITIES)
        self.send(f"option name Personality type combo default balanced {names}")
        self.send("option name OwnBook type check default false")
        self.send("uciok")

    def on_debug(self, _: list[str]) -> None:
        """Debug mode changes nothing here."""

    def on_isready(self, _: list[str]) -> None:
        self.send("readyok")

    def on_setoption(self, words: list[str]) -> None:
        text = " ".join(words)
        if not text.startswith("name "):
            raise ValueError("setoption needs: name <option> value <value>")
        name, _, value = text[5:].partition(" value ")
        name, value = name.strip().lower(), value.strip()
        if name == "personality":
            if value not in PERSONALITIES:
                raise ValueError(f"unknown personality {value!r}; choose one of {', '.join(PERSONALITIES)}")
            self.personality = value
        elif name == "ownbook":
            self.own_book = value.lower() == "true"
        else:
            raise ValueError(f"unknown option {name!r}")

    def on_ucinewgame(self, _: list[str]) -> None:
        self.on_stop([])
        self.state = ChessState(chess.Board())
        self.searcher = None

    def on_position(self, words: list[str]) -> None:
        if not words:
            raise ValueError("position needs startpos or fen")
        moves: list[str] = []
        if "moves" in words:
            at = words.index("moves")
            words, moves = words[:at], words[at + 1:]
        if words[0] == "startpos":
            board = chess.Board()
        elif words[0] == "fen":
            board = chess.Board(" ".join(words[1:]))
        else:
            raise ValueError("position needs startpos or fen")
        if not board.is_valid():
            raise ValueError(f"impossible position {board.fen()} ({board.status()!r})")
        for move in moves:
            board.push_uci(move)
        self.state = ChessState(board)

    def on_go(self, words: list[str]) -> None:
        self.on_stop([])
        tokens: dict[str, int] = {}
        infinite = "infinite" in words
        for name, value in itertools.pairwise(words):
            if name in ("depth", "movetime", "nodes", "wtime", "btime", "winc", "binc", "movestogo"):
                tokens[name] = int(value)
        board = self.state.board
        if self.own_book and not infinite:
            book = pick_book_move(board, self.rng)
            if book is not None:
                self.send(f"info string book move {book}")
                self.send(f"bestmove {book}")
                return
        limits = Limits(
            depth=tokens.get("depth"),
            time=None if infinite else time_budget(tokens, board.turn == chess.WHITE),
            nodes=tokens.get("nodes"),
        )
        self.stop_event = threading.Event()
        options = SearchOptions(personality=self.personality)
        self.searcher = TableChessSearcher(self.state, limits, options, stop=self.stop_event)
        self.thread = threading.Thread(target=self._think, args=(self.searcher, infinite, self.stop_event),
                                       daemon=True)
        self.thread.start()

    def on_stop(self, _: list[str]) -> None:
        self.stop_event.set()
        if self.thread is not None:
            self.thread.join()
            self.thread = None

    def on_ponderhit(self, _: list[str]) -> None:
        """Pondering is not supported; a ponder hit changes nothing."""

    def _think(self, searcher: ChessSearcher, infinite: bool, stop: threading.Event) -> None:
        final: SearchInfo | None = None
        for event in searcher.search():
            if event.kind == "depth" or (event.final and event.depth):
                self.send(self._info_line(event))
            final = event
        if infinite:
            stop.wait()
        best = final.best if final is not None else None
        if best is None:
            legal = list(self.state.board.legal_moves)
            best = legal[0].uci() if legal else "0000"
        self.send(f"bestmove {best}")

    @staticmethod
    def _info_line(event: SearchInfo) -> str:
        parts = [f"info depth {event.depth}", f"seldepth {event.seldepth}", f"nodes {event.nodes}",
                 f"nps {event.nps}", f"time {int(event.time_ms)}"]
        if event.score is not None:
            parts.append(f"score {uci_score(event.score)}")
        if event.pv:
            parts.append("pv " + " ".join(event.pv))
        return " ".join(parts)
