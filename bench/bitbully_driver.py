"""BitBully's side of ``bench/connect4_vs_bitbully.py``: run by the interpreter of a separate virtual environment
where ``bitbully`` is installed (AGPL: a benchmark reference only, never imported by the project).

Reads Pons column sequences (1-7) from stdin and prints, per line, what ``python -m engine solve connect4 --analyse``
prints: ``<sequence> <score of column 1> ... <score of column 7> <microseconds>``, ``-1000`` for a full column. The
transposition table is reset before each position (outside the timing), as ours is.
"""

from __future__ import annotations

import sys
import time

from bitbully import BitBully, Board

FULL_COLUMN = -1000


def main() -> int:
    """Answer every line of stdin."""
    agent = BitBully()
    for raw in sys.stdin:
        sequence = raw.split()[0] if raw.split() else ""
        board = Board.from_moves([int(column) - 1 for column in sequence])
        agent.reset_transposition_table()
        started = time.perf_counter()
        scores = agent.score_all_moves(board)
        micros = round((time.perf_counter() - started) * 1e6)
        columns = [scores.get(column, FULL_COLUMN) for column in range(7)]
        print(sequence, *columns, micros, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
