"""Exact values of Nim positions: who wins, and in how many plies under perfect play when the position is small.

Two sources, the first that applies:

1. **Exhaustive search** (``EXHAUSTIVE_STATES``): when the piles allow at most that many distinct positions,
   negamax over the sorted piles with a memo gives the exact distance (the winner wins as fast as it can, the loser
   resists as long as it can), for any rules.
2. **Theory** (result only, no distance): ``engine.games.nim.theory_loss``, Bouton's theorem and its misère rule
   (the same rule orders the search's moves).

Misère play with a limit on several large piles has neither here: ``value`` answers None.
"""

from __future__ import annotations

import math
from functools import lru_cache

from engine.games.nim import Nim, theory_loss

EXHAUSTIVE_STATES = 20_000
"""The most positions the exhaustive search may meet (the product of pile sizes plus one bounds it). Its memo
keeps at most 100,000 positions across calls (a long-running worker process stays bounded)."""


def value(state: Nim) -> tuple[bool, int | None] | None:
    """``(side to move wins, plies to the end)`` of ``state`` under perfect play; plies is None when only the
    theory answers (large piles); None when neither source applies (misère with a limit on large piles)."""
    piles = tuple(sorted(size for size in state.piles if size))
    if math.prod(size + 1 for size in piles) <= EXHAUSTIVE_STATES:
        score = _search(piles, state.max_take, state.misere)
        return score > 0, abs(score) - 1
    loses = theory_loss(list(piles), state.max_take, state.misere)
    return None if loses is None else (not loses, None)


@lru_cache(maxsize=100_000)
def _search(piles: tuple[int, ...], max_take: int | None, misere: bool) -> int:
    """``±(1 + plies to the end)`` for the side to move (positive: it wins), piles sorted without zeros."""
    if not piles:
        return 1 if misere else -1  # the opponent just took the last counter
    best = None
    for index, size in enumerate(piles):
        for take in range(1, (size if max_take is None else min(size, max_take)) + 1):
            rest = size - take
            child = tuple(sorted((*piles[:index], *piles[index + 1:], *((rest,) if rest else ()))))
            after = _search(child, max_take, misere)
            mine = (abs(after) + 1) * (1 if after < 0 else -1)  # one ply further from the end, seen from here
            if best is None or _better(mine, best):
                best = mine
    assert best is not None
    return best


def _better(a: int, b: int) -> bool:
    """Whether score ``a`` is better than ``b`` for the side to move: a win beats a loss, a faster win a slower
    one, a slower loss a faster one."""
    if (a > 0) != (b > 0):
        return a > 0
    return a < b  # wins: fewer plies; losses: more plies (further below zero)
