"""Persistence of games, their seats and their moves with SQLAlchemy (SQLite by default, PostgreSQL through
``DATABASE_URL``). Every write is its own committed transaction: when a method returns, the change is durable.

A move is a row keyed by ``(game_id, ply)``, so two writers racing for the same ply cannot both succeed: the loser
gets ``PlyTakenError`` and nothing is written.

``postgresql://`` and ``postgres://`` URLs are served by psycopg 3 (``postgresql+psycopg://``). Several nodes may
open one PostgreSQL database at the same moment: the tables are created under an advisory lock.

How it stays bounded. Per game the database holds one ``games`` row (its start setup, at most 8,000 characters, and
small JSON settings), two ``seats`` rows, one ``moves`` row per ply played (a takeback deletes rows), and one
``player_seats`` row per seat a browser took (``webapp.players``): about 0.5 KiB per game (plus its setup text, if
any) and 75 bytes per move (docs/scale.md, "Many games"). Nothing here deletes a finished game or a move: the games
played are the site's history and grow with play. Nothing in the store caps that growth; the rate of requests does
(Socket.IO events are limited per connection, HTTP game creation, seat taking and moves per address), and every
game but chess ends by its rules within a few dozen plies. The games that cost nothing to make, unfinished ones
without a single move, are removed after a while by ``python -m webapp.purge`` (``delete_games_without_moves``).
A web node's memory is bounded separately (``ARENA_IDLE_GAMES``, ``ARENA_UNTOUCHED_GAME_SECONDS``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    ForeignKey,
    ForeignKeyConstraint,
    Integer,
    String,
    Text,
    bindparam,
    create_engine,
    delete,
    event,
    func,
    inspect,
    select,
    text,
    update,
)
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker


class PlyTakenError(Exception):
    """The move cannot follow the stored game: another move was stored for this ply first, or the game moved on
    without it meanwhile (taken back, resigned)."""


class _StaleTurnError(Exception):
    """Raised inside ``add_move``'s transaction to roll it back; reported as ``PlyTakenError``."""


class Base(DeclarativeBase):
    pass


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class GameRow(Base):
    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    game: Mapped[str] = mapped_column(String(32))
    start_setup: Mapped[str] = mapped_column(Text)
    game_options: Mapped[dict[str, Any]] = mapped_column(JSON)
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    opponent: Mapped[dict[str, Any]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(16), index=True)
    ply: Mapped[int] = mapped_column(Integer, default=0)
    to_move: Mapped[int | None] = mapped_column(Integer, nullable=True)
    winner: Mapped[int | None] = mapped_column(Integer, nullable=True)
    reason: Mapped[str | None] = mapped_column(String(200), nullable=True)
    rematch_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """One more with every change: a move, a takeback, a resignation, a seat taken, a rematch."""
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=_now)
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=_now, index=True)
    turn_started_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    """When the clock of the current turn began (``webapp.clocks``); moved on by the service's down time."""
    offers: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True), nullable=True)
    """The pending offers between the players (``webapp.offers``): kind -> the seat that made it."""


class SeatRow(Base):
    __tablename__ = "seats"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    engine: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True), nullable=True)
    taken: Mapped[bool] = mapped_column(Boolean, default=False)


class MoveRow(Base):
    __tablename__ = "moves"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    ply: Mapped[int] = mapped_column(Integer, primary_key=True)
    move: Mapped[str] = mapped_column(String(32))
    by: Mapped[int] = mapped_column(Integer)
    score: Mapped[int | None] = mapped_column(Integer, nullable=True)
    score_text: Mapped[str | None] = mapped_column(String(40), nullable=True)
    depth: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The depth of the engine's search behind the move (null for a person's move, a book or table move)."""
    clock_ms: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The mover's time left after the move, its increment included (null in a game without a clock)."""
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=_now)


class SearchRecordRow(Base):
    """The engine's search behind an engine move: the ``search`` event of its final ``SearchInfo`` as streamed, as
    JSON text (``webapp.search_records``). Deleted with its move (a takeback)."""

    __tablename__ = "search_records"
    __table_args__ = (ForeignKeyConstraint(["game_id", "ply"], ["moves.game_id", "moves.ply"], ondelete="CASCADE"),)

    game_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    ply: Mapped[int] = mapped_column(Integer, primary_key=True)
    """The ply of the move (``moves.ply``)."""
    record: Mapped[str] = mapped_column(Text)


class ReviewRow(Base):
    """The review of a game (``webapp.reviews``): asked once, stored for everyone holding the link."""

    __tablename__ = "reviews"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    status: Mapped[str] = mapped_column(String(16))
    """"running", "done", "cancelled" or "failed"."""
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True), nullable=True)
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=_now)


class HeartbeatRow(Base):
    """The last moment some node of the service was known to run (``webapp.downtime``): one row."""

    __tablename__ = "heartbeat"

    name: Mapped[str] = mapped_column(String(16), primary_key=True)
    at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))


class PlayerSeatRow(Base):
    """A seat held by a browser: ``player_id`` is the random identity in its ``arena_player`` cookie."""

    __tablename__ = "player_seats"

    player_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    game_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)


_HEARTBEAT = "service"
_INSERT_MOVE = MoveRow.__table__.insert()
_INSERT_RECORD = SearchRecordRow.__table__.insert()
_UPDATE_GAME_TURN = GameRow.__table__.update().where(
    GameRow.__table__.c.id == bindparam("b_game_id"), GameRow.__table__.c.ply == bindparam("b_previous_ply"),
    GameRow.__table__.c.status == "active").values(version=GameRow.__table__.c.version + 1)
"""The turn update of a move: it changes a row only if the game is still active at the ply before the move."""
_VERSION_QUERY = select(GameRow.version).where(GameRow.id == bindparam("game_id"))
"""Built once: constructing the statement costs more than running it."""


@dataclass(slots=True)
class StoredMove:
    """One move as stored: ply (1-based), text, the seat that played it, and the engine's score and search depth
    if any."""

    ply: int
    move: str
    by: int
    score: int | None = None
    score_text: str | None = None
    depth: int | None = None
    clock_ms: int | None = None
    """The mover's time left after the move (``webapp.clocks``), None without a clock."""


@dataclass(slots=True)
class StoredSeat:
    """A seat: ``engine`` settings (None for a human seat) and whether a human holds it."""

    seat: int
    engine: dict[str, Any] | None
    taken: bool


@dataclass(slots=True)
class StoredGame:
    """A game with its seats and moves, as loaded from the database."""

    id: str
    game: str
    start_setup: str
    game_options: dict[str, Any]
    options: dict[str, Any]
    opponent: dict[str, Any]
    status: str
    winner: int | None
    reason: str | None
    rematch_id: str | None
    created_at: dt.datetime
    updated_at: dt.datetime
    version: int = 0
    """The stored ``games.version``: one more with every change of the game."""
    turn_started_at: dt.datetime | None = None
    """When the current turn's clock began (``webapp.clocks``)."""
    offers: dict[str, Any] | None = None
    """The pending offers between the players (``webapp.offers``)."""
    seats: list[StoredSeat] = field(default_factory=list)
    moves: list[StoredMove] = field(default_factory=list)


def _utc(value: dt.datetime) -> dt.datetime:
    """``value`` in UTC: SQLite gives naive UTC datetimes back, PostgreSQL aware ones in the session's time zone."""
    return value.astimezone(dt.UTC) if value.tzinfo else value.replace(tzinfo=dt.UTC)


def _tune_sqlite(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


POOL_SIZE = 8
"""Connections a server database's pool keeps open (per process)."""
POOL_OVERFLOW = 24
"""Extra connections opened while more than ``POOL_SIZE`` threads are in the database at once: with 64 request
threads a node holds at most 32 connections, so several nodes fit PostgreSQL's default ``max_connections`` (100).
A thread finding all 32 busy waits (every store call is a short transaction) up to ``POOL_TIMEOUT`` seconds."""
POOL_TIMEOUT = 30
DELETE_BATCH = 500
"""Game ids per ``DELETE ... WHERE id IN (...)`` statement (SQLite allows 32,766 parameters, PostgreSQL 65,535)."""
_SCHEMA_LOCK = 0x4172656E61
"""PostgreSQL advisory lock key held while the tables are created (nodes starting together take turns)."""


def database_url(url: str) -> URL:
    """``url`` parsed, with ``postgres://`` and ``postgresql://`` (no driver named) given the psycopg 3 driver.

    Raises ``sqlalchemy.exc.ArgumentError`` for text that is not a database URL.
    """
    parsed = make_url(url)
    if parsed.drivername in ("postgres", "postgresql"):
        return parsed.set(drivername="postgresql+psycopg")
    return parsed


def _create_engine(url: URL) -> Engine:
    if url.get_backend_name() == "sqlite":
        engine = create_engine(url, connect_args={"check_same_thread": False})
        event.listen(engine, "connect", _tune_sqlite)
        return engine
    return create_engine(url, pool_size=POOL_SIZE, max_overflow=POOL_OVERFLOW, pool_timeout=POOL_TIMEOUT,
                         pool_pre_ping=True)


def _create_tables(engine: Engine) -> None:
    """Create the missing tables. On PostgreSQL the check and the creation run in one transaction holding an
    advisory lock, so nodes starting at once against a new database do not both try to create a table."""
    with engine.begin() as connection:
        if engine.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _SCHEMA_LOCK})
        Base.metadata.create_all(connection)
        _add_missing_columns(connection)


ADDED_COLUMNS = (("games", "version", "INTEGER NOT NULL DEFAULT 0"), ("moves", "depth", "INTEGER"),
                 ("moves", "clock_ms", "INTEGER"), ("games", "turn_started_at", "TIMESTAMP WITH TIME ZONE"),
                 ("games", "offers", "JSON"))
"""Columns added to tables after their first release: ``(table, column, SQL type and default)``. ``create_all``
creates missing tables but never alters an existing one, so each of these is added where it is missing."""


def _add_missing_columns(connection: Connection) -> None:
    """Add every column of ``ADDED_COLUMNS`` that an existing table lacks (SQLite and PostgreSQL)."""
    inspector = inspect(connection)
    for table, column, definition in ADDED_COLUMNS:
        if column not in {existing["name"] for existing in inspector.get_columns(table)}:
            connection.execute(text(f"ALTER TABLE {table} ADD COLUMN {column} {definition}"))


def _is_duplicate_key(error: IntegrityError) -> bool:
    """Whether ``error`` is a primary key or unique violation (not, say, a missing game)."""
    cause = error.orig
    return getattr(cause, "sqlstate", None) == "23505" or getattr(cause, "sqlite_errorname", None) in (
        "SQLITE_CONSTRAINT_PRIMARYKEY", "SQLITE_CONSTRAINT_UNIQUE")


class Store:
    """The database of games. Thread-safe: each method opens its own session."""

    def __init__(self, url: str) -> None:
        """Open the database at ``url`` (SQLite file or PostgreSQL, see ``database_url``) and create its tables."""
        self.engine = _create_engine(database_url(url))
        _create_tables(self.engine)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)

    @contextmanager
    def _transaction(self) -> Iterator[Session]:
        with self._sessions() as session, session.begin():
            yield session

    def close(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()

    def create_game(self, game: StoredGame, to_move: int | None) -> None:
        """Insert a new game with its seats (and no moves); ``to_move`` is the seat to move at the start."""
        with self._transaction() as session:
            session.add(GameRow(
                id=game.id, game=game.game, start_setup=game.start_setup, game_options=game.game_options,
                options=game.options, opponent=game.opponent, status=game.status, ply=0, to_move=to_move,
                created_at=game.created_at, updated_at=game.updated_at,
            ))
            session.flush()
            session.add_all(SeatRow(game_id=game.id, seat=s.seat, engine=s.engine, taken=s.taken) for s in game.seats)

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
                rematch_id=row.rematch_id, created_at=_utc(row.created_at), updated_at=_utc(row.updated_at),
                version=row.version, seats=[StoredSeat(s.seat, s.engine, s.taken) for s in seats],
                moves=[StoredMove(m.ply, m.move, m.by, m.score, m.score_text, m.depth, m.clock_ms) for m in moves],
                turn_started_at=None if row.turn_started_at is None else _utc(row.turn_started_at),
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
        now = _now()
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
            if not _is_duplicate_key(error):
                raise
            raise PlyTakenError(f"ply {move.ply} of game {game_id} already has a move") from None
        return now

    def truncate_moves(self, game_id: str, ply: int, to_move: int | None,
                       turn_started_at: dt.datetime | None = None) -> dt.datetime:
        """Delete every move after ``ply`` and reopen the game (takeback) without pending offers, its turn's clock
        beginning at ``turn_started_at``; returns the update time."""
        now = _now()
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
        now = _now()
        condition = [GameRow.id == game_id]
        if at_ply is not None:
            condition += [GameRow.ply == at_ply, GameRow.status == "active"]
        with self._transaction() as session:
            result = session.execute(update(GameRow).where(*condition).values(
                status="finished", to_move=None, winner=winner, reason=reason, updated_at=now, offers=None,
                version=GameRow.version + 1))
            if at_ply is not None and result.rowcount != 1:
                raise PlyTakenError(f"game {game_id} is no longer active at ply {at_ply}")
        return now

    def beat(self) -> None:
        """Record that the service runs now (``webapp.downtime``)."""
        with self._transaction() as session:
            session.merge(HeartbeatRow(name=_HEARTBEAT, at=_now()))

    def forgive_down_time(self, slack: float) -> float:
        """Give every running clock back the time the whole service was down: when the last heartbeat is more than
        ``slack`` seconds old, the turn start of each active game with a clock moves on by the time since that
        heartbeat. One node does it (the heartbeat is replaced only if unchanged since it was read, in the same
        transaction). Returns the seconds forgiven (0 when the service was not down or another node did it)."""
        now = _now()
        with self._transaction() as session:
            last = session.get(HeartbeatRow, _HEARTBEAT)
            if last is None:
                session.add(HeartbeatRow(name=_HEARTBEAT, at=now))
                return 0.0
            last_at = _utc(last.at)
            down = (now - last_at).total_seconds()
            if down <= slack:
                return 0.0
            taken = session.execute(update(HeartbeatRow).where(
                HeartbeatRow.name == _HEARTBEAT, HeartbeatRow.at == last.at).values(at=now))
            if taken.rowcount != 1:
                return 0.0
            running = session.execute(select(GameRow.id, GameRow.turn_started_at).where(
                GameRow.status == "active", GameRow.turn_started_at.is_not(None)))
            for game_id, started in running.all():
                started = _utc(started)
                if started < last_at:
                    session.execute(update(GameRow).where(GameRow.id == game_id).values(
                        turn_started_at=started + (now - last_at)))
            return down

    def claim_review(self, game_id: str, stale_before: dt.datetime) -> bool:
        """Record that this node starts the review of ``game_id``; False (nothing written) when a review of it is
        done, or running and heard of since ``stale_before`` (aware UTC). A cancelled, failed or stale review is
        started again. Several nodes racing: one wins."""
        now = _now()
        try:
            with self._transaction() as session:
                row = session.get(ReviewRow, game_id, with_for_update=True)
                if row is None:
                    session.add(ReviewRow(game_id=game_id, status="running", result=None, updated_at=now))
                    return True
                if row.status == "done" or (row.status == "running" and _utc(row.updated_at) >= stale_before):
                    return False
                row.status, row.result, row.updated_at = "running", None, now
                return True
        except IntegrityError as error:
            if not _is_duplicate_key(error):
                raise
            return False

    def save_review(self, game_id: str, status: str, result: dict[str, Any] | None = None) -> None:
        """Record the review's new ``status`` (and its ``result`` once done); a running review's progress only
        renews its time."""
        with self._transaction() as session:
            session.execute(update(ReviewRow).where(ReviewRow.game_id == game_id).values(
                status=status, result=result, updated_at=_now()))

    def review(self, game_id: str) -> tuple[str, dict[str, Any] | None] | None:
        """``(status, result)`` of the game's review, or None when none was asked for."""
        with self._sessions() as session:
            row = session.get(ReviewRow, game_id)
            return None if row is None else (row.status, row.result)

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
            if result.rowcount != 1:
                return False
            session.execute(update(GameRow).where(GameRow.id == game_id).values(version=GameRow.version + 1))
            return True

    def remember_seat(self, player_id: str, game_id: str, seat: int) -> None:
        """Record that browser ``player_id`` holds ``seat`` of ``game_id`` (replacing what it held there before)."""
        for attempt in (1, 2):
            try:
                with self._transaction() as session:
                    session.merge(PlayerSeatRow(player_id=player_id, game_id=game_id, seat=seat))
                return
            except IntegrityError as error:  # the same browser recorded it at the same moment: once more
                if attempt == 2 or not _is_duplicate_key(error):
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
        """Delete every unfinished game without a move (``ply`` 0) last changed before ``before`` (aware UTC) that
        is not another game's rematch, with its seats and the browsers' records of them; returns how many."""
        rematches = select(GameRow.rematch_id).where(GameRow.rematch_id.is_not(None))
        query = select(GameRow.id).where(GameRow.status == "active", GameRow.ply == 0, GameRow.updated_at < before,
                                         GameRow.id.not_in(rematches))
        with self._transaction() as session:
            game_ids = list(session.scalars(query))
            for start in range(0, len(game_ids), DELETE_BATCH):
                batch = game_ids[start:start + DELETE_BATCH]
                session.execute(delete(PlayerSeatRow).where(PlayerSeatRow.game_id.in_(batch)))
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
