"""The service's heartbeat row (``webapp.arena.downtime``): when some node last ran, and the down time it gives back to
running clocks."""

from __future__ import annotations

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from webapp.store.tables import Database, GameRow, HeartbeatRow, is_duplicate_key, rows_changed, utc

_HEARTBEAT = "service"


class HeartbeatRecord:
    """The ``heartbeat`` table's one row."""

    def __init__(self, database: Database) -> None:
        self._database = database

    def beat(self) -> None:
        """Record that the service runs now (``webapp.arena.downtime``)."""
        with self._database.transaction() as session:
            session.merge(HeartbeatRow(name=_HEARTBEAT, at=self._database.now()))

    def forgive_down_time(self, slack: float) -> float:
        """Give every running clock back the time the whole service was down: when the last heartbeat is more than
        ``slack`` seconds old, the turn start of each active game with a clock moves on by the time since that
        heartbeat, or since the turn began when it began after it (a move just before the crash). One node does it
        (the heartbeat is replaced only if unchanged since it was read, in the same transaction). Returns the
        seconds forgiven (0 when the service was not down or another node did it, or on a new database, where the
        first node to start writes the first heartbeat and a node starting at the same moment finds it written)."""
        try:
            return self._forgive_down_time(slack)
        except IntegrityError as error:
            if not is_duplicate_key(error):
                raise
            return 0.0

    def _forgive_down_time(self, slack: float) -> float:
        now = self._database.now()
        with self._database.transaction() as session:
            last = session.get(HeartbeatRow, _HEARTBEAT)
            if last is None:
                session.add(HeartbeatRow(name=_HEARTBEAT, at=now))
                return 0.0
            last_at = utc(last.at)
            down = (now - last_at).total_seconds()
            if down <= slack:
                return 0.0
            taken = session.execute(update(HeartbeatRow).where(
                HeartbeatRow.name == _HEARTBEAT, HeartbeatRow.at == last.at).values(at=now))
            if rows_changed(taken) != 1:
                return 0.0
            running = session.execute(select(GameRow.id, GameRow.turn_started_at).where(
                GameRow.status == "active", GameRow.turn_started_at.is_not(None)))
            for game_id, turn_started in running.all():
                started = utc(turn_started) if turn_started is not None else now
                # The service was surely up until the last heartbeat, and until this turn began if it began later
                # (a move just before a crash): the time since then is given back.
                surely_up_until = max(started, last_at)
                session.execute(update(GameRow).where(GameRow.id == game_id).values(
                    turn_started_at=started + (now - surely_up_until)))
            return down
