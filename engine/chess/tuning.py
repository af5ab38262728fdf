"""Texel's method: tune the chess evaluation's piece-square tables (material included) on positions of games.

A sample is a quiet position of a finished game (not in check, the move played from it neither a capture nor a
promotion, past the opening), labelled with the game's result for White: 1, 0.5 or 0. Its evaluation is linear in
the tables' entries: every piece adds its square's middlegame entry times ``phase / 24`` and its endgame entry times
``(24 - phase) / 24``, negated for Black (``engine.chess.evaluation.PieceSquareTables``); the rest of the engine's
static evaluation (pawn structure, the bishop pair, the default personality's terms) is a fixed ``offset`` measured
once with the engine's own evaluation. Tuning lowers the mean squared error between the results and the expected
score ``1 / (1 + 10 ** (-k * eval / 400))`` (Peter Österlund's method, as the Chess Programming Wiki's "Texel's
Tuning Method" describes it): ``k`` is fitted first with the tables in use, then full-batch gradient descent (Adam)
moves every entry, pulled back toward its starting value by ``regularisation``. The positions of every tenth game
are held out and their error reported, so that a run shows whether the tables learned or only memorised (positions
of one game are alike, so they are held out together).

The tables are left-right symmetric (the search's board is turned half a turn after each move), so one entry serves
a square and its mirror image: 32 entries per piece and phase, 384 in all.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import chess
import chess.pgn

from engine.chess import convert
from engine.chess.evaluation import (
    DEFAULT_PERSONALITY,
    FULL_PHASE,
    PERSONALITIES,
    PIECES,
    PieceSquareTables,
    build_tables,
    game_phase,
    lone_king_side,
)
from engine.chess.tree import ENDGAME_PIECES, ChessTree
from engine.search.info import SearchOptions

FOLDED = 32
"""Entries per piece and phase: 8 rows by the 4 files a-d (files e-h mirror them)."""
PARAMETERS = len(PIECES) * 2 * FOLDED
OPENING_PLIES = 8
"""Plies of a game skipped before positions are taken (the matches' openings are 4-8 plies of book)."""
RESULTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


@dataclass(frozen=True, slots=True)
class Sample:
    """One position: the entries its pieces use (``entries``, the middlegame index of each; the endgame one is
    ``FOLDED`` further) with the net number of White's minus Black's pieces on them (``counts``), its ``phase``,
    the fixed rest of its evaluation for White (``offset``, centipawns), the game's ``result`` for White and the
    game's number among those read (``game``)."""

    entries: tuple[int, ...]
    counts: tuple[int, ...]
    phase: int
    offset: float
    result: float
    game: int


def entry_of(piece: chess.Piece, square: chess.Square) -> int:
    """The middlegame entry a piece on ``square`` reads: its table, the row from its owner's side (rank 8 of White's
    view first) and the file folded onto a-d."""
    rank = chess.square_rank(square)
    row = 7 - rank if piece.color == chess.WHITE else rank
    file = chess.square_file(square)
    kind = PIECES.index(piece.symbol().upper())
    return kind * 2 * FOLDED + row * 4 + min(file, 7 - file)


def parameters_of(tables: PieceSquareTables) -> list[float]:
    """The 384 tunable entries of ``tables`` (each piece's middlegame entries, then its endgame ones)."""
    values: list[float] = []
    for piece in PIECES:
        for table in (tables.middlegame[piece], tables.endgame[piece]):
            values.extend(table[row * 8 + col] for row in range(8) for col in range(4))
    return values


def tables_of(values: list[float], about: str) -> PieceSquareTables:
    """The tables of 384 entries (``parameters_of``'s order), rounded to whole centipawns and mirrored onto files
    e-h."""
    def unfold(start: int) -> tuple[int, ...]:
        rows = [[round(values[start + row * 4 + col]) for col in range(4)] for row in range(8)]
        return tuple(value for row in rows for value in row + row[::-1])

    middlegame = {piece: unfold(kind * 2 * FOLDED) for kind, piece in enumerate(PIECES)}
    endgame = {piece: unfold(kind * 2 * FOLDED + FOLDED) for kind, piece in enumerate(PIECES)}
    return PieceSquareTables(middlegame, endgame, about)


def model_score(sample: Sample, values: list[float]) -> float:
    """The sample's evaluation for White with the entries ``values``."""
    mg = sample.phase / FULL_PHASE
    eg = 1 - mg
    total = sample.offset
    for entry, count in zip(sample.entries, sample.counts, strict=True):
        total += count * (values[entry] * mg + values[entry + FOLDED] * eg)
    return total


def samples_of_game(game: chess.pgn.Game, number: int, evaluator: Evaluator) -> Iterator[Sample]:
    """The quiet positions of ``game`` (the ``number``-th read) past ``OPENING_PLIES``, those the move played from
    is neither a capture nor a promotion (none when the game has no decided result), as ``sample_of`` makes them."""
    result = RESULTS.get(game.headers.get("Result", "*"))
    if result is None:
        return
    board = game.board()
    for ply, move in enumerate(game.mainline_moves()):
        if ply >= OPENING_PLIES and not board.is_capture(move) and not move.promotion:
            sample = sample_of(board, result, number, evaluator)
            if sample is not None:
                yield sample
        board.push(move)


def sample_of(board: chess.Board, result: float, number: int, evaluator: Evaluator) -> Sample | None:
    """``board`` as a sample of the ``number``-th game, which ended ``result`` for White, its offset measured by
    ``evaluator``; None in check, in an ending the endgame tables hold, or with a lone king (mop-up)."""
    if board.is_check() or len(board.piece_map()) <= ENDGAME_PIECES or lone_king_side(board) is not None:
        return None
    phase = game_phase(board)
    counts: dict[int, int] = {}
    for square, piece in board.piece_map().items():
        entry = entry_of(piece, square)
        counts[entry] = counts.get(entry, 0) + (1 if piece.color == chess.WHITE else -1)
    kept = {entry: count for entry, count in counts.items() if count}
    bare = Sample(tuple(kept), tuple(kept.values()), phase, 0.0, result, number)
    offset = evaluator.score(board) - model_score(bare, evaluator.start)
    return Sample(bare.entries, bare.counts, phase, offset, result, number)


class Evaluator:
    """The engine's static evaluation of python-chess boards with given tables (the default personality's), for
    White; each phase's blend of the tables is made once."""

    def __init__(self, tables: PieceSquareTables) -> None:
        self.start = parameters_of(tables)
        """The tables' 384 tunable entries."""
        self._tables = tables
        self._blends: dict[int, tuple[int, ...]] = {}
        self._tree = ChessTree(SearchOptions(), 0, _never)

    def score(self, board: chess.Board) -> float:
        """The engine's static evaluation of ``board`` for White, in centipawns."""
        phase = game_phase(board)
        blend = self._blends.get(phase)
        if blend is None:
            blend = self._blends[phase] = build_tables(phase, PERSONALITIES[DEFAULT_PERSONALITY], self._tables)
        position = convert.from_board(board, blend)
        self._tree.load(blend, phase, False, False, set())
        score = self._tree.evaluate(position.board, position.score, 0)
        return float(score if board.turn == chess.WHITE else -score)


def _never() -> None:
    """A search tick that never stops anything (``Evaluator`` searches nothing)."""


def read_games(paths: Iterable[str]) -> Iterator[chess.pgn.Game]:
    """Every game of the PGN files ``paths``."""
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            while (game := chess.pgn.read_game(handle)) is not None:
                yield game


def collect(games: Iterable[chess.pgn.Game], tables: PieceSquareTables) -> list[Sample]:
    """The samples of every game, each position once (the first game reaching it labels it)."""
    seen: set[tuple[tuple[int, ...], tuple[int, ...], int]] = set()
    samples = []
    evaluator = Evaluator(tables)
    for number, game in enumerate(games):
        for sample in samples_of_game(game, number, evaluator):
            key = (sample.entries, sample.counts, sample.phase)
            if key not in seen:
                seen.add(key)
                samples.append(sample)
    return samples


def expected(score: float, k: float) -> float:
    """White's expected result for an evaluation of ``score`` centipawns."""
    return 1 / (1 + 10 ** (-k * score / 400))


def error(samples: list[Sample], values: list[float], k: float) -> float:
    """Mean squared difference between the results and the expected results."""
    return sum((sample.result - expected(model_score(sample, values), k)) ** 2 for sample in samples) / len(samples)


def fit_scale(samples: list[Sample], values: list[float]) -> float:
    """The ``k`` that minimises ``error`` for ``values`` (golden-section search over 0.1-3)."""
    low, high = 0.1, 3.0
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(40):
        a = high - ratio * (high - low)
        b = low + ratio * (high - low)
        if error(samples, values, a) < error(samples, values, b):
            high = b
        else:
            low = a
    return (low + high) / 2


@dataclass(frozen=True, slots=True)
class Progress:
    """One epoch of ``tune``: its number and the errors on the training and held-out samples."""

    epoch: int
    training: float
    held_out: float


def tune(samples: list[Sample], start: list[float], epochs: int, k: float, rate: float = 1.0,
         regularisation: float = 1e-7, report: Callable[[Progress], None] | None = None) -> list[float]:
    """Entries that lower ``error`` on the samples of nine games in ten (every tenth game is held out), from
    ``start``, by ``epochs`` steps of Adam with step size ``rate`` (centipawns), each entry pulled toward its start by
    ``regularisation`` times its squared distance. The errors are measured before the first epoch, every tenth and
    after the last (``report`` hears of each); the entries returned are those measured with the lowest held-out
    error (early stopping: ``start`` itself when no epoch improves on it; the last epoch's when no game is held
    out)."""
    training = [sample for sample in samples if sample.game % 10]
    held_out = [sample for sample in samples if not sample.game % 10]
    values = list(start)
    first = [0.0] * PARAMETERS
    second = [0.0] * PARAMETERS
    beta1, beta2, epsilon = 0.9, 0.999, 1e-8
    slope = math.log(10) * k / 400

    def measure(epoch: int, best: tuple[float, list[float]] | None) -> tuple[float, list[float]]:
        """Report the errors of ``values`` now; the better of ``best`` and these values on the held-out games."""
        progress = Progress(epoch, error(training, values, k), error(held_out, values, k) if held_out else 0.0)
        if report is not None:
            report(progress)
        return (progress.held_out, list(values)) if best is None or progress.held_out < best[0] else best

    best = measure(0, None)
    for epoch in range(1, epochs + 1):
        gradient = [2 * regularisation * (value - begin) for value, begin in zip(values, start, strict=True)]
        scale = 2 / len(training)
        for sample in training:
            predicted = expected(model_score(sample, values), k)
            weight = -scale * (sample.result - predicted) * predicted * (1 - predicted) * slope
            mg = sample.phase / FULL_PHASE
            for entry, count in zip(sample.entries, sample.counts, strict=True):
                gradient[entry] += weight * count * mg
                gradient[entry + FOLDED] += weight * count * (1 - mg)
        for index in range(PARAMETERS):
            first[index] = beta1 * first[index] + (1 - beta1) * gradient[index]
            second[index] = beta2 * second[index] + (1 - beta2) * gradient[index] ** 2
            corrected = first[index] / (1 - beta1 ** epoch)
            spread = second[index] / (1 - beta2 ** epoch)
            values[index] -= rate * corrected / (math.sqrt(spread) + epsilon)
        if epoch % 10 == 0 or epoch == epochs:
            best = measure(epoch, best)
    return best[1] if held_out else values
