"""The exact value of a position and of each of its moves, where this project can know it: the solved tables
(tic-tac-toe, Wolves & Rabbit), Nim's theory and exhaustive search (``engine.solve.nim``), the Connect Four
solver when it proves the position within a time budget, and chess's endgame tables (``engine.solve.chess_endgames``:
endings of up to four pieces whose table is built).

This is for display and review only: nothing in the engine's play reads it (a level plays as its settings say).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from engine.clock import SYSTEM_MONOTONIC, Deadline, Monotonic
from engine.game import MAX_PLIES, WIN, State, describe_score, is_decided
from engine.games.connect4 import Connect4
from engine.games.nim import Nim
from engine.search.info import RootMoveDict
from engine.solve import tables as solved
from engine.solve.connect4 import SolveTimeout, pons_to_engine
from engine.solve.connect4_oracle import move_scores
from engine.solve.nim import value as nim_value
from engine.solve.solver_pool import SOLVERS

Result = Literal["win", "draw", "loss"]
Verdict = Literal["consistent", "undecided", "error"]
"""What a move's exact value says of a search's claim on it (``judge``)."""
CONNECT4_SECONDS = 3.0
"""The default time the Connect Four solver gets to prove every move of one position (``move_values``, as reviews
use it); beyond it the position's truth is unknown. Compiled and with the opening book, the slowest of 200
positions per ply took 1.3 s, at 13 stones; up to 11 stones every one took under 0.11 s
(``bench/connect4_exact_by_ply.py``, docs/compiled.md)."""
TABLE_GAMES = ("tictactoe", "wolves")
LIVE_CONNECT4_SECONDS = 0.5
"""What ``live_truth`` gives the Connect Four solver, at any ply: within it, 196 of 200 positions sampled at 12
stones (the hardest) were proven, 199 of 200 at 13, all of them at every other ply (``bench/connect4_exact_by_ply.py``);
a position it does not prove stays unknown rather than delay the engine's move."""
KEPT_CONNECT4_STONES = range(12, 20)
"""Connect Four positions whose values a store keeps (``kept_key``): from the first past the opening book on, where
proving every move takes a median of 70 ms and up to 2 s, to 19 stones (at most 115 ms from 17 stones on;
``bench/connect4_exact_by_ply.py``, docs/compiled.md)."""
LIVE_BUILT_TABLES = ("tictactoe",)
"""Tables ``live_truth`` builds when missing (tic-tac-toe's takes a tenth of a second); Wolves & Rabbit's takes
5-20 s and is left to the level that plays from it."""
LIVE_MAX_MOVES = 64
"""``live_truth`` says nothing of a position with more legal moves (large Nim piles): its values would crowd the
search record (64 KiB) for a panel that lists the best few."""


@dataclass(frozen=True, slots=True)
class Exact:
    """The value of a position for the side to move under perfect play: ``result`` and ``plies`` to the end (None
    in a draw, and where only the result is known: Nim's theory on large piles)."""

    result: Result
    plies: int | None = None

    @property
    def score(self) -> int | None:
        """In the engine's convention (``WIN - plies`` for a win, its negation for a loss, 0 for a draw); None when
        the distance is unknown."""
        if self.result == "draw":
            return 0
        if self.plies is None:
            return None
        return WIN - self.plies if self.result == "win" else -(WIN - self.plies)

    @property
    def text(self) -> str:
        """"win in 4" / "loss in 2" (moves of the side to move, as ``describe_score`` counts them), "draw", or
        "win" / "loss" when the distance is unknown."""
        score = self.score
        return self.result if score is None or self.result == "draw" else describe_score(score)

    def after_move(self) -> Exact:
        """This value as seen by the opponent one ply earlier: the value of the move that led here."""
        if self.result == "draw":
            return self
        flipped: Result = "loss" if self.result == "win" else "win"
        return Exact(flipped, None if self.plies is None else self.plies + 1)

    def rank(self) -> tuple[int, int]:
        """A key ordering values from worst to best for the side to move: losses (sooner ones first), draws, wins
        (slower ones first); an unknown distance counts as the slowest win or the longest loss."""
        unknown = 10**9
        if self.result == "win":
            return 2, -(self.plies if self.plies is not None else unknown)
        if self.result == "loss":
            return 0, self.plies if self.plies is not None else unknown
        return 1, 0

    def to_dict(self) -> dict[str, Any]:
        """JSON form: ``{"result", "plies", "score", "text"}``."""
        return {"result": self.result, "plies": self.plies, "score": self.score, "text": self.text}


def kept_key(state: State) -> str | None:
    """The key under which the exact values of ``state``'s moves are worth keeping once found (a store of solved
    positions reads it before solving again), or None where finding them again costs little: Connect Four
    positions with ``KEPT_CONNECT4_STONES`` stones, keyed by Pons' exact key (``position + mask``); the other
    games' values come from tables, theory or small searches."""
    position: object = state  # narrowed by class: a game's class is no State subtype for the type checker
    if isinstance(position, Connect4) and position.moves in KEPT_CONNECT4_STONES:
        return str(position.position + position.mask)
    return None


def values_to_pairs(values: dict[str, Exact]) -> dict[str, list[Any]]:
    """Exact values in their compact JSON form, ``{move: [result, plies]}`` (as reviews store them)."""
    return {move: [value.result, value.plies] for move, value in values.items()}


def values_from_pairs(pairs: dict[str, list[Any]]) -> dict[str, Exact]:
    """The inverse of ``values_to_pairs``."""
    return {move: Exact(result, plies) for move, (result, plies) in pairs.items()}


def of_score(score: int) -> Exact:
    """The ``Exact`` of a decided (or drawn, 0) score in the engine's convention."""
    if score == 0:
        return Exact("draw")
    return Exact("win" if score > 0 else "loss", WIN - abs(score))


def finished_value(state: State) -> Exact | None:
    """The value of a finished position for the side to move (0 plies), None while the game goes on."""
    outcome = state.outcome()
    if outcome is None:
        return None
    if outcome.winner is None:
        return Exact("draw")
    return Exact("win" if outcome.winner == state.to_move else "loss", 0)


def move_values(state: State, seconds: float = CONNECT4_SECONDS, tables: Path | None = None,
                build_tables: bool = True, known: dict[str, Exact] | None = None,
                clock: Monotonic = SYSTEM_MONOTONIC) -> dict[str, Exact] | None:
    """Each legal move's exact value for the side to move (``move_text -> Exact``), or None when it is not known:
    a game without a source, a solved table not built yet (with ``build_tables`` False), a Connect Four position
    the solver cannot prove in ``seconds`` (of ``clock``), Nim under rules its theory does not cover. Empty for a
    finished game. ``tables`` is the folder of the solved tables (default: their cache). ``known``: the values
    already found for this position (a store of solved positions, ``kept_key``), returned as they are."""
    if known is not None:
        return dict(known)
    if state.outcome() is not None:
        return {}
    values: dict[str, Exact] = {}
    if state.name in TABLE_GAMES:
        if solved.table(state.name, tables, build_missing=build_tables) is None:
            return None
        for move in state.legal_moves():
            entry = solved.probe(state.play(move), tables)
            if entry is None:
                return None
            values[state.move_text(move)] = Exact(entry.result, entry.plies).after_move()
        return values
    position: object = state  # narrowed by class below: a game's class is no State subtype for the type checker
    if isinstance(position, Nim):
        for move in position.legal_moves():
            theory = nim_value(position.play(move))
            if theory is None:
                return None
            wins, plies = theory
            values[state.move_text(move)] = Exact("win" if wins else "loss", plies).after_move()
        return values
    if state.name == "chess":
        return _chess_values(state)
    if isinstance(position, Connect4):
        try:
            with SOLVERS.borrow() as solver:
                scored = move_scores(position, solver, Deadline.after(seconds, clock))
        except SolveTimeout:
            return None
        return {position.move_text(move): of_score(pons_to_engine(pons, position.moves)) for pons, move, _ in scored}
    return None


def may_know(state: State) -> bool:
    """Whether ``move_values`` may know ``state`` at all (cheap): every position of a game with a source; in chess
    only an ending of up to four pieces without castling rights."""
    if state.name != "chess":
        return state.name in TABLE_GAMES or state.name in ("nim", "connect4")
    from engine.games.chess import ChessState
    from engine.solve.chess_endgames import board_material

    position: object = state
    assert isinstance(position, ChessState)
    return board_material(position.board) is not None and not position.board.castling_rights


def _chess_values(state: State) -> dict[str, Exact] | None:
    """A chess position's move values from the endgame tables (imported here: python-chess takes a while)."""
    from engine.games.chess import ChessState
    from engine.solve import chess_endgames as endgames

    position: object = state
    assert isinstance(position, ChessState)
    values = endgames.move_values(position.board)
    return None if values is None else {move: Exact(entry.result, entry.plies) for move, entry in values.items()}


def position_value(values: dict[str, Exact]) -> Exact:
    """The value of a position given its moves' values (``move_values``): the best of them."""
    return max(values.values(), key=Exact.rank)


def judge(score: int | None, bound: str | None, exact: Exact, depth: int) -> Verdict | None:
    """What ``exact``, a move's value, says of a search's claim on it at ``depth`` plies: ``score`` with its ``bound``
    ("exact", "lower": at least, "upper": at most; None counts as exact). The claim is the interval of scores it
    allows (one score, or every score above or below it).

    - "consistent": the interval holds the true score (where only the result is known, some score of that result);
    - "error" (a horizon error): the interval excludes it, and either the claim is decided (a win or loss the search
      proved, which the truth refutes) or the true result comes within ``depth`` plies of the root, where the search
      saw every line, and yet the search scored the move by its evaluation;
    - "undecided" (not decided at this depth): the interval excludes it, but the claim is a heuristic value and the
      true result lies beyond the search's horizon (or its distance is unknown, or it is a draw): the search proved
      nothing the truth refutes.

    None without a score (MCTS, a book)."""
    if score is None:
        return None
    low = score if bound in ("exact", "lower", None) else -WIN
    high = score if bound in ("exact", "upper", None) else WIN
    truths = _scores_of(exact)
    if truths[0] <= high and low <= truths[1]:
        return "consistent"
    within_horizon = exact.result != "draw" and exact.plies is not None and exact.plies <= depth
    return "error" if is_decided(score) or within_horizon else "undecided"


def _scores_of(exact: Exact) -> tuple[int, int]:
    """The lowest and highest engine score ``exact`` may stand for: its own, or every score of its result."""
    if exact.score is not None:
        return exact.score, exact.score
    if exact.result == "win":
        return WIN - MAX_PLIES + 1, WIN
    return -WIN, -(WIN - MAX_PLIES + 1)


def judged(truth: dict[str, Exact], root_moves: list[RootMoveDict], depth: int) -> dict[str, dict[str, Any]]:
    """``truth`` in its JSON form (``Exact.to_dict``), each move with the ``verdict`` of ``judge`` on the claim of a
    search of ``depth`` plies on it (its row of ``root_moves``; None for a move without a row or without a score)."""
    claims = {row["move"]: row for row in root_moves}
    answer = {}
    for move, value in truth.items():
        row = claims.get(move)
        answer[move] = {**value.to_dict(), "verdict": judge(row["score"], row["bound"], value, depth) if row else None}
    return answer


def live_truth(state: State, known: dict[str, Exact] | None = None,
               clock: Monotonic = SYSTEM_MONOTONIC) -> dict[str, Exact] | None:
    """The exact value of each legal move of ``state`` for the engine panel, within what a live engine turn can
    afford: solved tables if already built (tic-tac-toe's is built at once), the Connect Four solver within
    ``LIVE_CONNECT4_SECONDS``, at most ``LIVE_MAX_MOVES`` moves; None where unknown; ``known`` and ``clock`` as
    ``move_values`` takes them. Display only (``judged`` gives its JSON form beside a search)."""
    if len(state.legal_moves()) > LIVE_MAX_MOVES:
        return None
    return move_values(state, LIVE_CONNECT4_SECONDS, build_tables=state.name in LIVE_BUILT_TABLES, known=known,
                       clock=clock)
