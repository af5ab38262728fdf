"""Games, their seats and moves (with the search record of each engine move), and the seats browsers hold."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import bindparam, delete, func, select, update
from sqlalchemy.exc import IntegrityError

from webapp.clock import SYSTEM_CLOCK, Clock
from webapp.store.heartbeat import HeartbeatRecord
from webapp.store.histories import HISTORY_LIMIT, HistoryRecords, trim
from webapp.store.records import PlyTakenError, StoredGame, StoredMove, StoredSeat
from webapp.store.reviews import ReviewRecords
from webapp.store.solved import SolvedRecords
from webapp.store.tables import (
    Base,
    Database,
    GameRow,
    MoveRow,
    PlayerSeatRow,
    SearchRecordRow,
    SeatRow,
    is_duplicate_key,
    rows_changed,
    utc,
)
from webapp.store.training import TRAINING_LIMIT, TrainingRecords

DELETE_BATCH = 500
"""Game ids per ``DELETE ... WHERE id IN (...)`` statement (SQLite allows 32,766 parameters, PostgreSQL 65,535)."""
_GAMES = Base.metadata.tables["games"]
_INSERT_MOVE = Base.metadata.tables["moves"].insert()
_INSERT_RECORD = Base.metadata.tables["search_records"].insert()
_UPDATE_GAME_TURN = _GAMES.update().where(
    _GAMES.c.id == bindparam("b_game_id"), _GAMES.c.ply == bindparam("b_previous_ply"),
    _GAMES.c.status == "active").values(version=_GAMES.c.version + 1)
"""The turn update of a move: it changes a row only if the game is still active at the ply before the move."""
_VERSION_QUERY = select(GameRow.version).where(GameRow.id == bindparam("game_id"))
"""Built once: constructing the statement costs more than running it."""


class _StaleTurnError(Exception):
    """Raised inside ``add_move``'s transaction to roll it back; reported as ``PlyTakenError``."""


class Store:
    """The database of games: games, seats, moves and their search records, the browsers' seats; with its
    ``reviews``, the browsers' ``histories`` and ``training`` queues, the ``solved`` positions and the service's
    ``heartbeat`` on the same database. Thread-safe: each method opens its own session."""

    def __init__(self, url: str, clock: Clock = SYSTEM_CLOCK, history_limit: int = HISTORY_LIMIT,
                 training_limit: int = TRAINING_LIMIT) -> None:
        """Open the database at ``url`` (SQLite file or PostgreSQL, see ``database_url``) and create its tables;
        the times it stores are ``clock``'s; a browser's history keeps its newest ``history_limit`` games, its
        training queue its newest ``training_limit`` exercises."""
        self.history_limit = history_limit
        self.database = Database(url, clock)
        self.engine = self.database.engine
        self._sessions = self.database.sessions
        self._transaction = self.database.transaction
        self.reviews = ReviewRecords(self.database)
        self.histories = HistoryRecords(self.database)
        self.training = TrainingRecords(self.database, training_limit)
        self.solved = SolvedRecords(self.database)
        self.heartbeat = HeartbeatRecord(self.database)

    def close(self) -> None:
        """Close every pooled connection."""
        self.database.close()

    def create_game(self, game: StoredGame, to_move: int | None, holder: tuple[str, int] | None = None) -> None:
        """Insert a new game with its seats (and no moves); ``to_move`` is the seat to move at the start. With
        ``holder`` ``(browser, seat)``, that browser holds that seat (``remember_seat``), in the same transaction:
        the game exists with its creator's seat recorded, or not at all."""
        with self._transaction() as session:
            session.add(GameRow(
                id=game.id, game=game.game, start_setup=game.start_setup, game_options=game.game_options,
                options=game.options, opponent=game.opponent, status=game.status, ply=0, to_move=to_move,
                created_at=game.created_at, updated_at=game.updated_at,
            ))
            session.flush()
            session.add_all(SeatRow(game_id=game.id, seat=s.seat, engine=s.engine, taken=s.taken) for s in game.seats)
            if holder is not None:
                session.add(PlayerSeatRow(player_id=holder[0], game_id=game.id, seat=holder[1]))
                session.flush()
                trim(session, holder[0], self.history_limit)

    def load_game(self, game_id: str) -> StoredGame | None:
        """The game with its seats and moves in ply order, or None."""
        with self._sessions() as session:
            row = session.get(GameRow, game_id)
            if row is None:
                return None
            seats = session.scalars(select(SeatRow).where(SeatRow.game_id == game_id).order_by(SeatRow.seat))
            moves = session.scalars(select(MoveRow).where(MoveRow.game_id == game_id).order_by(MoveRow.ply))
            return StoredGame(
                id=row.id, game=row.game, start_setup=row.start_setup, game_options=row.game_options,
                options=row.options, opponent=row.opponent, status=row.status, winner=row.winner, reason=row.reason,
                rematch_id=row.rematch_id, created_at=utc(row.created_at), updated_at=utc(row.updated_at),
                version=row.version, seats=[StoredSeat(s.seat, s.engine, s.taken) for s in seats],
                moves=[StoredMove(m.ply, m.move, m.by, m.score, m.score_text, m.depth, m.clock_ms) for m in moves],
                turn_started_at=None if row.turn_started_at is None else utc(row.turn_started_at),
                offers=row.offers,
            )

    def version_of(self, game_id: str) -> int | None:
        """The stored game's version (``games.version``, one more with every change) in one indexed read, or None
        for an unknown id. A web node compares it with its copy's to learn whether another node changed the game
        since."""
        with self.engine.connect() as connection:
            version: int | None = connection.execute(_VERSION_QUERY, {"game_id": game_id}).scalar_one_or_none()
            return version

    def add_move(self, game_id: str, move: StoredMove, to_move: int | None, status: str = "active",
                 winner: int | None = None, reason: str | None = None, record: str | None = None,
                 turn_started_at: dt.datetime | None = None, offers: dict[str, Any] | None = None) -> dt.datetime:
        """Store ``move``, its search ``record`` (JSON text, for an engine move) and the game's new turn/status (with
        ``turn_started_at``, when the next turn's clock began, and the ``offers`` still pending) in one transaction;
        returns the update time.

        Raises ``PlyTakenError`` (and writes nothing) when ply ``move.ply`` already has a move, or when the stored
        game is no longer active at ply ``move.ply - 1`` (another server took moves back or ended it meanwhile).
        (Prepared Core statements, not the ORM: this is the one write on the path of every move.)
        """
        now = self.database.now()
        try:
            with self.engine.begin() as connection:
                connection.execute(_INSERT_MOVE, {
                    "game_id": game_id, "ply": move.ply, "move": move.move, "by": move.by, "score": move.score,
                    "score_text": move.score_text, "depth": move.depth, "clock_ms": move.clock_ms, "created_at": now})
                if record is not None:
                    connection.execute(_INSERT_RECORD, {"game_id": game_id, "ply": move.ply, "record": record})
                turn = connection.execute(_UPDATE_GAME_TURN, {
                    "b_game_id": game_id, "b_previous_ply": move.ply - 1, "ply": move.ply, "to_move": to_move,
                    "status": status, "winner": winner, "reason": reason, "updated_at": now,
                    "turn_started_at": turn_started_at, "offers": offers})
                if turn.rowcount != 1:
                    raise _StaleTurnError
        except _StaleTurnError:
            raise PlyTakenError(f"game {game_id} is no longer active at ply {move.ply - 1}") from None
        except IntegrityError as error:
            if not is_duplicate_key(error):
                raise
            raise PlyTakenError(f"ply {move.ply} of game {game_id} already has a move") from None
        return now

    def truncate_moves(self, game_id: str, ply: int, to_move: int | None,
                       turn_started_at: dt.datetime | None = None) -> dt.datetime:
        """Delete every move after ``ply`` and reopen the game (takeback) without pending offers, its turn's clock
        beginning at ``turn_started_at``; returns the update time."""
        now = self.database.now()
        with self._transaction() as session:
            session.execute(delete(MoveRow).where(MoveRow.game_id == game_id, MoveRow.ply > ply))
            session.execute(update(GameRow).where(GameRow.id == game_id).values(
                ply=ply, to_move=to_move, status="active", winner=None, reason=None, updated_at=now,
                turn_started_at=turn_started_at, offers=None, version=GameRow.version + 1))
        return now

    def finish_game(self, game_id: str, winner: int | None, reason: str, at_ply: int | None = None) -> dt.datetime:
        """Mark the game finished with its result (resignation, a clock fallen), dropping pending offers; returns
        the update time. With
        ``at_ply``, only a game still active at that ply is finished: otherwise nothing is written and
        ``PlyTakenError`` is raised (a move or another server got there first)."""
        now = self.database.now()
        condition = [GameRow.id == game_id]
        if at_ply is not None:
            condition += [GameRow.ply == at_ply, GameRow.status == "active"]
        with self._transaction() as session:
            result = session.execute(update(GameRow).where(*condition).values(
                status="finished", to_move=None, winner=winner, reason=reason, updated_at=now, offers=None,
                version=GameRow.version + 1))
            if at_ply is not None and rows_changed(result) != 1:
                raise PlyTakenError(f"game {game_id} is no longer active at ply {at_ply}")
        return now

    def clocked_game_ids(self) -> list[str]:
        """Ids of the unfinished games whose clock has a turn start (their clocks may be running)."""
        with self._sessions() as session:
            return list(session.scalars(select(GameRow.id).where(
                GameRow.status == "active", GameRow.turn_started_at.is_not(None))))

    def take_seat(self, game_id: str, seat: int) -> bool:
        """Mark a free human seat taken; False when it was already taken (or is the engine's)."""
        with self._transaction() as session:
            result = session.execute(update(SeatRow).where(
                SeatRow.game_id == game_id, SeatRow.seat == seat, SeatRow.taken.is_(False), SeatRow.engine.is_(None)
            ).values(taken=True))
            if rows_changed(result) != 1:
                return False
            session.execute(update(GameRow).where(GameRow.id == game_id).values(version=GameRow.version + 1))
            return True

    def remember_seat(self, player_id: str, game_id: str, seat: int) -> None:
        """Record that browser ``player_id`` holds ``seat`` of ``game_id`` (replacing what it held there before)."""
        self.remember_seats(player_id, {game_id: seat})

    def remember_seats(self, player_id: str, seats: Mapping[str, int]) -> None:
        """Record that browser ``player_id`` holds each game's seat in ``seats`` (game id to seat, replacing what it
        held there before), all in one transaction."""
        for attempt in (1, 2):
            try:
                with self._transaction() as session:
                    for game_id, seat in seats.items():
                        session.merge(PlayerSeatRow(player_id=player_id, game_id=game_id, seat=seat))
                    session.flush()
                    trim(session, player_id, self.history_limit)
                return
            except IntegrityError as error:  # the same browser recorded it at the same moment: once more
                if attempt == 2 or not is_duplicate_key(error):
                    raise

    def seat_of(self, player_id: str, game_id: str) -> int | None:
        """The seat browser ``player_id`` holds in ``game_id``, or None."""
        with self._sessions() as session:
            row = session.get(PlayerSeatRow, (player_id, game_id))
            return None if row is None else row.seat

    def set_offers(self, game_id: str, offers: dict[str, Any]) -> None:
        """Replace the game's pending offers (``games.offers``), one version more."""
        with self._transaction() as session:
            session.execute(update(GameRow).where(GameRow.id == game_id).values(
                offers=offers, version=GameRow.version + 1))

    def set_options(self, game_id: str, options: dict[str, Any]) -> None:
        """Replace the arena's options of the game (``games.options``), one version more."""
        with self._transaction() as session:
            session.execute(update(GameRow).where(GameRow.id == game_id).values(
                options=options, version=GameRow.version + 1))

    def set_rematch(self, game_id: str, rematch_id: str) -> None:
        """Remember the rematch of a game (its rematch offer is answered)."""
        with self._transaction() as session:
            session.execute(update(GameRow).where(GameRow.id == game_id).values(
                rematch_id=rematch_id, offers=None, version=GameRow.version + 1))

    def search_record(self, game_id: str, ply: int) -> str | None:
        """The search record (JSON text) of the move at ``ply`` of ``game_id``, or None (a person's move, a move
        stored before records were kept, or no such move)."""
        with self.engine.connect() as connection:
            return connection.execute(select(SearchRecordRow.record).where(
                SearchRecordRow.game_id == game_id, SearchRecordRow.ply == ply)).scalar_one_or_none()

    def last_search_record(self, game_id: str) -> str | None:
        """The search record (JSON text) of the game's latest move that has one, or None."""
        with self.engine.connect() as connection:
            return connection.execute(select(SearchRecordRow.record).where(SearchRecordRow.game_id == game_id)
                                      .order_by(SearchRecordRow.ply.desc()).limit(1)).scalar_one_or_none()

    def live_game_ids(self, limit: int = 50, changed_since: dt.datetime | None = None,
                      also: Sequence[str] = ()) -> list[str]:
        """Ids of unfinished games, most recently updated first: those changed since ``changed_since`` (aware UTC;
        all when None) and those of ``also`` (say, games being watched), at most ``limit``."""
        query = select(GameRow.id).where(GameRow.status == "active")
        if changed_since is not None:
            query = query.where((GameRow.updated_at >= changed_since) | GameRow.id.in_(list(also)))
        with self._sessions() as session:
            return list(session.scalars(query.order_by(GameRow.updated_at.desc()).limit(limit)))

    def delete_games_without_moves(self, before: dt.datetime) -> int:
        """Delete every unfinished game last changed before ``before`` (aware UTC) that is not another game's
        rematch and in which nobody moved: without a move (``ply`` 0), or with a person's seat whose players never
        moved (only the engine did, as when the engine opens a game its creator never came back to). Its seats,
        moves and search records and the browsers' records of its seats go with it; returns how many."""
        rematches = select(GameRow.rematch_id).where(GameRow.rematch_id.is_not(None))
        people_moved = select(MoveRow.game_id).join(SeatRow, (SeatRow.game_id == MoveRow.game_id) & (
            SeatRow.seat == MoveRow.by)).where(SeatRow.engine.is_(None))
        with_people = select(SeatRow.game_id).where(SeatRow.engine.is_(None))
        nobody_moved = (GameRow.ply == 0) | (GameRow.id.in_(with_people) & GameRow.id.not_in(people_moved))
        query = select(GameRow.id).where(GameRow.status == "active", GameRow.updated_at < before, nobody_moved,
                                         GameRow.id.not_in(rematches))
        with self._transaction() as session:
            game_ids = list(session.scalars(query))
            for start in range(0, len(game_ids), DELETE_BATCH):
                batch = game_ids[start:start + DELETE_BATCH]
                session.execute(delete(PlayerSeatRow).where(PlayerSeatRow.game_id.in_(batch)))
                session.execute(delete(SearchRecordRow).where(SearchRecordRow.game_id.in_(batch)))
                session.execute(delete(MoveRow).where(MoveRow.game_id.in_(batch)))
                session.execute(delete(SeatRow).where(SeatRow.game_id.in_(batch)))
                session.execute(delete(GameRow).where(GameRow.id.in_(batch)))
        return len(game_ids)

    def engine_turn_game_ids(self) -> list[str]:
        """Ids of unfinished games whose side to move is an engine seat (searches to restart after a restart)."""
        with self._sessions() as session:
            query = select(GameRow.id).join(SeatRow, (SeatRow.game_id == GameRow.id) & (
                SeatRow.seat == func.coalesce(GameRow.to_move, -1))).where(
                GameRow.status == "active", SeatRow.engine.is_not(None))
            return list(session.scalars(query))
