"""Our Connect Four solver side by side with Pascal Pons' C++ solver, in alternating rounds.

    .venv/bin/python -m bench.connect4_vs_pons PONS_BINARY [SET ...] [--rounds N] [--limit N]

PONS_BINARY is his ``c4solver`` built from github.com/PascalPons/connect4 at commit 514a128 ("part12"; ``make``
in a checkout outside this repository). Each round feeds every set's sequences to both programs, one after the
other, the order swapped every round; each program prints ``sequence score nodes microseconds`` per position
(ours: ``python -m engine solve connect4``, which resets the table before each position as his does and times
the solve alone, as his does). Per set: the median over the rounds of each program's mean microseconds per
position, their ratio, the target ratio, the positions whose score differs from the set's answer, the mean nodes
per position of both, and the positions whose node count differs from Pons' (our table is smaller than his:
docs/compiled.md, "Table size"). The sets are those of ``tests/data/connect4`` (Pons' test sets).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SETS = ROOT / "tests" / "data" / "connect4"
TARGETS = {"end_easy": 2.5, "middle_easy": 1.5, "middle_medium": 1.5, "begin_easy": 1.5}
"""The largest ratio of our mean time to Pons' that issue 21 accepts, per set."""


@dataclass(frozen=True, slots=True)
class Run:
    """One program's answers on one set: per position (score, nodes, microseconds)."""

    answers: list[tuple[int, int, int]]

    @property
    def mean_us(self) -> float:
        """Mean microseconds per position."""
        return statistics.fmean(us for _, _, us in self.answers)


def run(command: list[str], sequences: list[str]) -> Run:
    """Feed ``sequences`` to ``command`` and read its ``sequence score nodes us`` lines."""
    done = subprocess.run(command, input="".join(f"{s}\n" for s in sequences), capture_output=True, text=True,
                          check=True, cwd=ROOT)
    answers = []
    for line in done.stdout.splitlines():
        _, score, nodes, micros = line.split()
        answers.append((int(score), int(nodes), int(micros)))
    if len(answers) != len(sequences):
        raise RuntimeError(f"{command[0]} answered {len(answers)} of {len(sequences)} lines: {done.stderr[:300]}")
    return Run(answers)


def main() -> int:
    """Run the rounds and print one line per set."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pons", type=Path, help="Pons' c4solver binary (commit 514a128)")
    parser.add_argument("sets", nargs="*", metavar="SET", help=f"among {', '.join(TARGETS)} (default: all)")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds (default 5)")
    parser.add_argument("--limit", type=int, help="only the first N positions of each set")
    args = parser.parse_args()
    ours = [sys.executable, "-m", "engine", "solve", "connect4", "--no-book"]
    build = subprocess.run([sys.executable, "-m", "engine", "build"], capture_output=True, text=True, check=True,
                           cwd=ROOT).stdout.strip()
    print(f"{build}; {args.rounds} alternating rounds; mean us per position, median over rounds", flush=True)
    print(f"{'set':<14} {'lines':>5} {'Pons us':>10} {'ours us':>10} {'ratio':>6} {'target':>6} {'wrong':>5} "
          f"{'Pons nodes':>11} {'our nodes':>11} {'nodes differ':>12}", flush=True)
    for name in args.sets or TARGETS:
        pairs = [line.split()[:2] for line in (SETS / f"{name}.txt").read_text().splitlines() if line.strip()]
        pairs = pairs[:args.limit] if args.limit else pairs
        sequences = [sequence for sequence, _ in pairs]
        pons_means, our_means = [], []
        pons_run = our_run = None
        for round_number in range(args.rounds):
            order = [("pons", [str(args.pons)]), ("ours", ours)]
            for who, command in order if round_number % 2 == 0 else reversed(order):
                result = run(command, sequences)
                if who == "pons":
                    pons_run = result
                    pons_means.append(result.mean_us)
                else:
                    our_run = result
                    our_means.append(result.mean_us)
        assert pons_run is not None and our_run is not None
        wrong = sum(score != int(expected) for (score, _, _), (_, expected) in zip(our_run.answers, pairs, strict=True))
        differ = sum(a[1] != b[1] for a, b in zip(our_run.answers, pons_run.answers, strict=True))
        pons_us, our_us = statistics.median(pons_means), statistics.median(our_means)
        pons_nodes = statistics.fmean(nodes for _, nodes, _ in pons_run.answers)
        our_nodes = statistics.fmean(nodes for _, nodes, _ in our_run.answers)
        print(f"{name:<14} {len(sequences):>5} {pons_us:>10.1f} {our_us:>10.1f} {our_us / pons_us:>6.2f} "
              f"{TARGETS.get(name, float('nan')):>6.1f} {wrong:>5} {pons_nodes:>11.1f} {our_nodes:>11.1f} "
              f"{differ:>12}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
