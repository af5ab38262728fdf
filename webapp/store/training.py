"""Each browser's training queue: its mistakes from reviewed games as exercises that come back (``training`` rows).

Spaced repetition in the simplest form: an exercise is due when added; answered right it comes back after 1, 3, 7
and then 21 days (``INTERVAL_DAYS``), and after a right answer at 21 days it is learned (no longer due); answered
wrong it comes back the next day and starts over. A browser keeps at most ``TRAINING_LIMIT`` exercises (the oldest
go first): about 100 bytes each, 50 KB a browser.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import delete, func, select, update

from webapp.store.tables import Database, TrainingRow, utc

INTERVAL_DAYS = (1, 3, 7, 21)
TRAINING_LIMIT = 500


@dataclass(frozen=True, slots=True)
class TrainingItem:
    """An exercise: the mistake at ``ply`` of ``game_id`` (a ``game``), due at ``due_at`` (None: learned), its
    ``step`` of ``INTERVAL_DAYS``, and how many times it was tried and solved."""

    game_id: str
    ply: int
    game: str
    step: int
    due_at: dt.datetime | None
    tries: int
    solved: int


def _item(row: TrainingRow) -> TrainingItem:
    return TrainingItem(row.game_id, row.ply, row.game, row.step, None if row.due_at is None else utc(row.due_at),
                        row.tries, row.solved)


class TrainingRecords:
    """The ``training`` rows of every browser."""

    def __init__(self, database: Database, limit: int = TRAINING_LIMIT) -> None:
        """The queues on ``database``, each keeping at most ``limit`` exercises."""
        self._database = database
        self.limit = limit

    def add(self, player_id: str, mistakes: Iterable[tuple[str, int, str]]) -> int:
        """Add each ``(game_id, ply, game)`` the browser does not have yet, due now; then drop its oldest beyond
        its ``limit``. Returns how many were added."""
        now = self._database.now()
        added = 0
        with self._database.transaction() as session:
            have = {(game_id, ply) for game_id, ply in session.execute(
                select(TrainingRow.game_id, TrainingRow.ply).where(TrainingRow.player_id == player_id))}
            for game_id, ply, game in mistakes:
                if (game_id, ply) not in have:
                    have.add((game_id, ply))
                    session.add(TrainingRow(player_id=player_id, game_id=game_id, ply=ply, game=game, step=0,
                                            due_at=now, tries=0, solved=0, created_at=now))
                    added += 1
            session.flush()
            if len(have) > self.limit:
                oldest = (select(TrainingRow.game_id, TrainingRow.ply).where(TrainingRow.player_id == player_id)
                          .order_by(TrainingRow.created_at, TrainingRow.game_id, TrainingRow.ply)
                          .limit(len(have) - self.limit))
                for game_id, ply in session.execute(oldest).all():
                    session.execute(delete(TrainingRow).where(TrainingRow.player_id == player_id,
                                                              TrainingRow.game_id == game_id, TrainingRow.ply == ply))
        return added

    def due(self, player_id: str, limit: int) -> list[TrainingItem]:
        """The browser's exercises due now, the longest waiting first (at most ``limit``)."""
        query = (select(TrainingRow).where(TrainingRow.player_id == player_id,
                                           TrainingRow.due_at <= self._database.now())
                 .order_by(TrainingRow.due_at, TrainingRow.game_id, TrainingRow.ply).limit(limit))
        with self._database.sessions() as session:
            return [_item(row) for row in session.scalars(query)]

    def waiting(self, player_id: str) -> int:
        """How many of the browser's exercises come back later (not due yet, not learned)."""
        query = select(func.count()).where(TrainingRow.player_id == player_id,
                                           TrainingRow.due_at > self._database.now())
        with self._database.sessions() as session:
            return session.scalar(query) or 0

    def record(self, player_id: str, game_id: str, ply: int, right: bool) -> TrainingItem | None:
        """Record an answer to the browser's exercise (None when it has none such): right, it waits the next
        interval (or is learned after the last); wrong, it is due the next day and starts over."""
        now = self._database.now()
        with self._database.transaction() as session:
            row = session.get(TrainingRow, (player_id, game_id, ply))
            if row is None:
                return None
            row.tries += 1
            if right:
                row.solved += 1
                row.due_at = now + dt.timedelta(days=INTERVAL_DAYS[row.step]) if row.step < len(INTERVAL_DAYS) else None
                row.step += 1
            else:
                row.step = 0
                row.due_at = now + dt.timedelta(days=INTERVAL_DAYS[0])
            return _item(row)

    def rates(self, player_id: str) -> dict[str, tuple[int, int]]:
        """Per game, how many answers the browser gave and how many were right."""
        query = (select(TrainingRow.game, func.sum(TrainingRow.tries), func.sum(TrainingRow.solved))
                 .where(TrainingRow.player_id == player_id).group_by(TrainingRow.game))
        with self._database.sessions() as session:
            return {game: (int(tries or 0), int(solved or 0)) for game, tries, solved in session.execute(query)}

    def forget(self, player_id: str) -> None:
        """Delete the browser's queue."""
        with self._database.transaction() as session:
            session.execute(delete(TrainingRow).where(TrainingRow.player_id == player_id))

    def move(self, from_player: str, to_player: str) -> None:
        """Give ``from_player``'s queue to ``to_player`` (an exercise both have keeps ``to_player``'s)."""
        with self._database.transaction() as session:
            held = {(game_id, ply) for game_id, ply in session.execute(
                select(TrainingRow.game_id, TrainingRow.ply).where(TrainingRow.player_id == to_player))}
            for game_id, ply in held:
                session.execute(delete(TrainingRow).where(TrainingRow.player_id == from_player,
                                                          TrainingRow.game_id == game_id, TrainingRow.ply == ply))
            session.execute(update(TrainingRow).where(TrainingRow.player_id == from_player)
                            .values(player_id=to_player))
