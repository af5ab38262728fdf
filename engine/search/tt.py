"""A bounded transposition table: what a search learnt about a position, found again by its key.

An entry is ``(key, depth, lower, upper, move, move_key, generation)``:

- ``lower`` and ``upper`` bound the position's value (``lower == upper``: the exact value). A fail-high gives a
  lower bound, a fail-low an upper bound; results for the same position and depth are intersected, so a
  position searched with different windows (as PVS and mate-distance scores do) keeps both sides.
  ``NO_LOWER`` / ``NO_UPPER`` stand for "no bound".
- ``depth`` is the remaining depth the position was searched to; ``SOLVED_DEPTH`` marks results reached without
  any heuristic evaluation, true game-theoretic bounds valid at every depth.
- Decided scores are stored relative to the position itself and turned back into scores relative to the root of
  the current search (``engine.search.mate_distance``), so a mate found through a transposition keeps its distance.
- ``move`` is the best move found, valid in the position whose exact key is ``move_key`` (with symmetric keys,
  a transposed position shares the entry but not the move).

Replacement policy: two tables of ``size`` slots each, indexed by a hash of the key. The first keeps the
deepest result (an entry gives way to one at least as deep, or to anything once it is from an older search);
what the first refuses, or what it evicts, goes to the second, which always takes the newest entry. Slots live in
dicts, so a table costs memory only for the slots in use and never holds more than ``2 * size`` entries.
"""

from __future__ import annotations

from engine.game import WIN, Move

SOLVED_DEPTH = 1 << 30
"""Depth recorded for results that no horizon influenced: they hold at every depth."""

NO_LOWER, NO_UPPER = -2 * WIN, 2 * WIN
"""Stand-ins for a missing bound (beyond every score, never adjusted for distance)."""

Entry = tuple[int, int, int, int, Move | None, int, int]

_SPREAD = 0x9E3779B97F4A7C15
"""Odd multiplier (2^64 / golden ratio): the slot takes middle bits of ``key * _SPREAD``, which depend on all the
low bits of the key, so keys that differ only in their high bits (packed pile sizes...) do not share slots."""


class TranspositionTable:
    """At most ``2 * size`` entries (``size`` is rounded up to a power of two); see the module docstring."""

    def __init__(self, size: int = 1 << 20) -> None:
        if size < 1:
            raise ValueError(f"a transposition table needs at least one slot, got {size}")
        self.size = 1 << (size - 1).bit_length()
        self._mask = self.size - 1
        self._deep: dict[int, Entry] = {}
        self._recent: dict[int, Entry] = {}
        self.generation = 0

    def __len__(self) -> int:
        return len(self._deep) + len(self._recent)

    def new_search(self) -> None:
        """Mark the entries stored so far as older, so they give way to the next search's results."""
        self.generation += 1

    def clear(self) -> None:
        """Forget everything."""
        self._deep.clear()
        self._recent.clear()

    def get(self, key: int) -> Entry | None:
        """The entry stored for ``key``, or None."""
        slot = (key * _SPREAD >> 29) & self._mask
        entry = self._deep.get(slot)
        if entry is not None and entry[0] == key:
            return entry
        entry = self._recent.get(slot)
        if entry is not None and entry[0] == key:
            return entry
        return None

    def store(self, key: int, depth: int, lower: int, upper: int, move: Move | None, move_key: int) -> None:
        """Record bounds found for ``key`` (already relative to the position, see ``to_table``).

        Bounds at the same depth as the stored ones are intersected with them; a deeper result replaces a
        shallower one, and a shallower one never overwrites a deeper one for the same key.
        """
        slot = (key * _SPREAD >> 29) & self._mask
        deep = self._deep
        old = deep.get(slot)
        if old is not None and old[0] != key:
            recent = self._recent.get(slot)
            if recent is not None and recent[0] == key:
                old, deep = recent, self._recent
        if old is not None and old[0] == key:
            if depth < old[1]:
                return
            if depth == old[1]:
                new_lower, new_upper = max(lower, old[2]), min(upper, old[3])
                if new_lower <= new_upper:
                    lower, upper = new_lower, new_upper
                if move is None:
                    move = old[4]
            deep[slot] = (key, depth, lower, upper, move, move_key, self.generation)
            return
        entry = (key, depth, lower, upper, move, move_key, self.generation)
        if old is None or depth >= old[1] or old[6] != self.generation:
            if old is not None:
                self._recent[slot] = old
            self._deep[slot] = entry
        else:
            self._recent[slot] = entry
