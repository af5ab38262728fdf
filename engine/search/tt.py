"""A bounded transposition table: what a search learnt about a position, found again by its key.

An entry is ``(key, depth, flag, score, move, move_key, generation)``:

- ``flag`` says what ``score`` is: ``EXACT`` (the value), ``LOWER`` (a fail-high: the value is at least this) or
  ``UPPER`` (a fail-low: at most this).
- ``depth`` is the remaining depth the position was searched to; ``SOLVED_DEPTH`` marks a result reached
  without any heuristic evaluation, hence valid at every depth.
- Decided scores are stored relative to the position itself (``to_table``) and turned back into scores relative
  to the root of the current search (``from_table``), so a mate found through a transposition keeps its distance.
- ``move`` is the best move found, valid in the position whose exact key is ``move_key`` (with symmetric keys,
  a transposed position shares the entry but not the move).

Replacement policy: two tables of ``size`` slots each, indexed by the key's low bits. The first keeps the
deepest result (an entry is replaced by one at least as deep, or by anything once it is from an older search);
what the first refuses goes to the second, which always takes the newest entry. Slots live in dicts, so a table
costs memory only for the slots in use and never holds more than ``2 * size`` entries.
"""

from __future__ import annotations

from engine.game import MAX_PLIES, WIN, Move

EXACT, LOWER, UPPER = 0, 1, 2
SOLVED_DEPTH = 1 << 30
"""Depth recorded for results that no horizon influenced: they hold at every depth."""

Entry = tuple[int, int, int, int, Move | None, int, int]


def to_table(score: int, ply: int) -> int:
    """A score relative to the root, found ``ply`` plies down, made relative to that position."""
    if score > WIN - MAX_PLIES:
        return score + ply
    if score < -(WIN - MAX_PLIES):
        return score - ply
    return score


def from_table(score: int, ply: int) -> int:
    """The inverse of ``to_table``: a stored score seen ``ply`` plies from the current root."""
    if score > WIN - MAX_PLIES:
        return score - ply
    if score < -(WIN - MAX_PLIES):
        return score + ply
    return score


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
        slot = key & self._mask
        entry = self._deep.get(slot)
        if entry is not None and entry[0] == key:
            return entry
        entry = self._recent.get(slot)
        if entry is not None and entry[0] == key:
            return entry
        return None

    def store(self, key: int, depth: int, flag: int, score: int, move: Move | None, move_key: int) -> None:
        """Record a result; ``score`` must already be relative to the position (``to_table``)."""
        slot = key & self._mask
        entry = (key, depth, flag, score, move, move_key, self.generation)
        old = self._deep.get(slot)
        if old is None or depth >= old[1] or old[6] != self.generation or (old[0] == key and flag == EXACT):
            if old is not None and old[0] != key:
                self._recent[slot] = old
            self._deep[slot] = entry
        else:
            self._recent[slot] = entry
