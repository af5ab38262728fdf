"""Our Connect Four analysis side by side with BitBully's, in alternating rounds: every column's exact score.

    .venv/bin/python -m bench.connect4_vs_bitbully BITBULLY_PYTHON [SET ...] [--rounds N] [--limit N]

BITBULLY_PYTHON is the interpreter of a separate virtual environment with ``pip install bitbully`` (AGPL: a
reference to measure against, never imported by the project); it runs ``bench/bitbully_driver.py``. Ours is
``python -m engine solve connect4 --analyse`` (the solver with our reader of the same 12-ply opening book). Both
reset their transposition table before each position and time the scoring of all seven columns alone. The sets are
Pons' files in ``tests/data/connect4``, ``ply-N``: the distinct N-stone prefixes of his Begin-Medium and
Middle-Medium lines, and ``random``: every prefix with 2 to 14 stones of 20 random games (seeded, so every run
plays the same games). Per set: the median over rounds of each program's mean, 95th percentile and maximum
milliseconds per position, and the positions where the seven scores differ (they must not).
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
from pathlib import Path

from engine.games.connect4 import Connect4

ROOT = Path(__file__).resolve().parent.parent
SETS = ROOT / "tests" / "data" / "connect4"
DEFAULT_SETS = ("random", "ply-1", "ply-4", "ply-8", "ply-11", "ply-12", "ply-13", "ply-14", "begin_easy",
                "begin_medium", "middle_medium", "middle_easy", "end_easy")
RANDOM_GAMES = 20
RANDOM_STONES = range(2, 15)


def random_prefixes(seed: int = 22) -> list[str]:
    """Every prefix with ``RANDOM_STONES`` stones of ``RANDOM_GAMES`` random games, as column sequences."""
    rng = random.Random(seed)
    prefixes = []
    for _ in range(RANDOM_GAMES):
        state = Connect4.from_setup("")
        sequence = ""
        while state.outcome() is None and len(sequence) < RANDOM_STONES[-1]:
            column = rng.choice(state.legal_moves())
            state = state.play(column)
            sequence += str(column + 1)
            if state.outcome() is None and len(sequence) in RANDOM_STONES:
                prefixes.append(sequence)
    return prefixes


def positions(name: str, limit: int | None) -> list[str]:
    """The column sequences of set ``name`` (a file of Pons' or ``ply-N``), at most ``limit``."""
    if name == "random":
        chosen = random_prefixes()
    elif name.startswith("ply-"):
        stones = int(name[4:])
        found: dict[str, None] = {}
        for source in ("begin_medium", "middle_medium"):
            for line in (SETS / f"{source}.txt").read_text().splitlines():
                sequence = line.split()[0]
                if len(sequence) > stones:
                    found.setdefault(sequence[:stones])
        chosen = list(found)
    else:
        chosen = [line.split()[0] for line in (SETS / f"{name}.txt").read_text().splitlines() if line.strip()]
    return chosen[:limit] if limit else chosen


def run(command: list[str], sequences: list[str]) -> list[tuple[str, float]]:
    """``(the seven scores, milliseconds)`` per sequence from ``command``'s ``--analyse`` lines."""
    done = subprocess.run(command, input="".join(f"{s}\n" for s in sequences), capture_output=True, text=True,
                          check=True, cwd=ROOT)
    answers = []
    for line in done.stdout.splitlines():
        fields = line.split()
        answers.append((" ".join(fields[1:8]), int(fields[8]) / 1000))
    if len(answers) != len(sequences):
        raise RuntimeError(f"{command[0]} answered {len(answers)} of {len(sequences)} lines: {done.stderr[:300]}")
    return answers


def summary(times: list[float]) -> tuple[float, float, float]:
    """Mean, 95th percentile and maximum."""
    ordered = sorted(times)
    return statistics.fmean(ordered), ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], ordered[-1]


def main() -> int:
    """Run the rounds and print one line per set."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("bitbully", type=Path, help="the Python of a virtual environment with bitbully installed")
    parser.add_argument("sets", nargs="*", metavar="SET", help="Pons' set names or ply-N (default: a selection)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (default 3)")
    parser.add_argument("--limit", type=int, default=100, help="positions per set (default 100)")
    args = parser.parse_args()
    ours = [sys.executable, "-m", "engine", "solve", "connect4", "--analyse"]
    theirs = [str(args.bitbully), str(ROOT / "bench" / "bitbully_driver.py")]
    build = subprocess.run([sys.executable, "-m", "engine", "build"], capture_output=True, text=True, check=True,
                           cwd=ROOT).stdout.strip()
    print(f"{build}; {args.rounds} alternating rounds; ms per position (all seven columns), median over rounds")
    print(f"{'set':<14} {'lines':>5} {'ours mean':>10} {'p95':>8} {'max':>8} {'BitBully mean':>14} {'p95':>8} "
          f"{'max':>8} {'ratio':>6} {'differ':>6}", flush=True)
    for name in args.sets or DEFAULT_SETS:
        sequences = positions(name, args.limit)
        our_rounds, their_rounds, differ = [], [], 0
        for _ in range(args.rounds):
            our_answers = run(ours, sequences)
            their_answers = run(theirs, sequences)
            differ = sum(a[0] != b[0] for a, b in zip(our_answers, their_answers, strict=True))
            our_rounds.append(summary([ms for _, ms in our_answers]))
            their_rounds.append(summary([ms for _, ms in their_answers]))
        mine = [statistics.median(r[i] for r in our_rounds) for i in range(3)]
        other = [statistics.median(r[i] for r in their_rounds) for i in range(3)]
        print(f"{name:<14} {len(sequences):>5} {mine[0]:>10.2f} {mine[1]:>8.2f} {mine[2]:>8.2f} {other[0]:>14.2f} "
              f"{other[1]:>8.2f} {other[2]:>8.2f} {mine[0] / other[0]:>6.2f} {differ:>6}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
