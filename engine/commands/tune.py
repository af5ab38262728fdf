"""``python -m engine tune GAMES.pgn ... [--epochs N] [--rate CP] [--out FILE]``: Texel's method on chess games.

Reads the quiet positions of the games (``engine.chess.tuning``), fits the scale ``k`` with the tables in use
(``engine/chess/data/piece_square.json``), tunes the tables from them and writes the result to ``--out`` (default:
those same tables), with an ``about`` naming the games and the errors. Prints the number of positions and the
training and held-out errors every ten epochs; the tables written are those of the lowest held-out error, and none
are written when no epoch lowers it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engine.chess import tuning
from engine.chess.evaluation import TABLES_FILE, read_tables


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The PGN files, ``--epochs``, ``--rate``, ``--regularisation``, ``--start`` and ``--out``."""
    parser.add_argument("games", nargs="+", help="PGN files of finished games")
    parser.add_argument("--epochs", type=int, default=200)
    parser.add_argument("--rate", type=float, default=1.0, help="Adam's step in centipawns")
    parser.add_argument("--regularisation", type=float, default=1e-7)
    parser.add_argument("--start", type=Path, default=TABLES_FILE, help="the tables to start from")
    parser.add_argument("--out", type=Path, default=TABLES_FILE, help="where to write the tuned tables")


def run(args: argparse.Namespace) -> int:
    """Tune and write the tables; no usable position prints a reason on stderr and returns 2."""
    start = read_tables(args.start)
    samples = tuning.collect(tuning.read_games(args.games), start)
    if len(samples) < 10:
        print(f"only {len(samples)} quiet positions in those games: too few to tune", file=sys.stderr)
        return 2
    values = tuning.parameters_of(start)
    k = tuning.fit_scale(samples, values)
    before = tuning.error(samples, values, k)
    print(f"{len(samples)} positions (those of every tenth game held out); k = {k:.3f}; error {before:.5f} with the "
          "start tables", flush=True)

    measured: list[tuning.Progress] = []

    def report(progress: tuning.Progress) -> None:
        measured.append(progress)
        print(f"epoch {progress.epoch}: training {progress.training:.5f}, held out {progress.held_out:.5f}",
              flush=True)

    tuned = tuning.tune(samples, values, args.epochs, k, args.rate, args.regularisation, report)
    if tuned == values:
        print(f"no epoch lowered the held-out error ({measured[0].held_out:.5f} with the start tables): "
              f"{args.out} not written")
        return 0
    kept = min(measured, key=lambda progress: progress.held_out)
    names = ", ".join(Path(name).name for name in args.games)
    about = (f"Texel's method (python -m engine tune, epoch {kept.epoch} of {args.epochs}, rate {args.rate}, "
             f"regularisation {args.regularisation}, k = {k:.3f}) on {len(samples)} quiet positions of the engine's "
             f"games ({names}): held-out error {measured[0].held_out:.5f} -> {kept.held_out:.5f}. From: {start.about}")
    args.out.write_text(tuning.tables_of(tuned, about).to_json(), encoding="utf-8")
    print(f"wrote {args.out} (epoch {kept.epoch})")
    return 0
