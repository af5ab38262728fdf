"""The stored reviews of finished games (``webapp.arena.reviews``): claimed by one node, kept for everyone."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError

from webapp.store.tables import Database, ReviewRow, is_duplicate_key, utc


class ReviewRecords:
    """The ``reviews`` table: one row per game whose review was asked for."""

    def __init__(self, database: Database) -> None:
        self._database = database

    def claim(self, game_id: str, stale_before: dt.datetime) -> bool:
        """Record that this node starts the review of ``game_id``; False (nothing written) when a review of it is
        done, or running and heard of since ``stale_before`` (aware UTC). A cancelled, failed or stale review is
        started again. Several nodes racing: one wins."""
        now = self._database.now()
        try:
            with self._database.transaction() as session:
                row = session.get(ReviewRow, game_id, with_for_update=True)
                if row is None:
                    session.add(ReviewRow(game_id=game_id, status="running", result=None, updated_at=now))
                    return True
                if row.status == "done" or (row.status == "running" and utc(row.updated_at) >= stale_before):
                    return False
                row.status, row.result, row.updated_at = "running", None, now
                return True
        except IntegrityError as error:
            if not is_duplicate_key(error):
                raise
            return False

    def save(self, game_id: str, status: str, result: dict[str, Any] | None = None) -> None:
        """Record the review's new ``status`` (and its ``result`` once done); a running review's progress only
        renews its time."""
        with self._database.transaction() as session:
            session.execute(update(ReviewRow).where(ReviewRow.game_id == game_id).values(
                status=status, result=result, updated_at=self._database.now()))

    def get(self, game_id: str) -> tuple[str, dict[str, Any] | None] | None:
        """``(status, result)`` of the game's review, or None when none was asked for."""
        with self._database.sessions() as session:
            row = session.get(ReviewRow, game_id)
            return None if row is None else (row.status, row.result)
