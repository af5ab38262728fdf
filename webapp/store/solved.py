"""Solved positions (``solved_positions``): the exact values of a position's moves that took the engine a while to
find, kept for every node so the next viewer of that position gets them at once (``webapp.search.solved``)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError

from webapp.store.tables import Database, SolvedRow, is_duplicate_key

SOLVED_LIMIT = 100_000
"""Most rows kept; past it the oldest go first. A Connect Four row is about 200 bytes with its index entries, so
the table stays within about 20 MB."""


class SolvedRecords:
    """The ``solved_positions`` table, at most ``limit`` rows."""

    def __init__(self, database: Database, limit: int = SOLVED_LIMIT) -> None:
        self._database = database
        self.limit = limit

    def load(self, game: str, position: str) -> dict[str, list[Any]] | None:
        """The values stored for ``position`` of ``game`` (``{move: [result, plies]}``), or None."""
        with self._database.sessions() as session:
            row = session.get(SolvedRow, (game, position))
            return None if row is None else row.moves

    def save(self, game: str, position: str, moves: dict[str, list[Any]]) -> None:
        """Keep ``moves`` for ``position`` of ``game`` (a position stored already keeps its row: its values are
        the same); past ``limit`` rows, the oldest are deleted."""
        try:
            with self._database.transaction() as session:
                session.add(SolvedRow(game=game, position=position, moves=moves, stored_at=self._database.now()))
        except IntegrityError as error:
            if not is_duplicate_key(error):
                raise
            return
        with self._database.transaction() as session:
            count = session.scalar(select(func.count()).select_from(SolvedRow)) or 0
            if count > self.limit:
                oldest = select(SolvedRow.stored_at).order_by(SolvedRow.stored_at).offset(count - self.limit - 1)
                cutoff = session.scalar(oldest.limit(1))
                session.execute(delete(SolvedRow).where(SolvedRow.stored_at <= cutoff))
