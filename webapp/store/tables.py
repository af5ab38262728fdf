"""The database's tables (SQLAlchemy rows) and the ``Database`` they live in: the engine of a SQLite file or a
PostgreSQL server, its connection pool and its sessions; its schema is migrated when it is opened
(``webapp.store.migrate``)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, cast

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    ForeignKey,
    ForeignKeyConstraint,
    Integer,
    String,
    Text,
    create_engine,
    event,
)
from sqlalchemy.engine import URL, CursorResult, Engine, Result, make_url
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker

from webapp.clock import Clock
from webapp.store.availability import Availability
from webapp.store.migrate import migrate


class Base(DeclarativeBase):
    """The tables of the arena's database."""


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
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), index=True)
    turn_started_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    """When the clock of the current turn began (``webapp.game_clocks``); moved on by the service's down time."""
    offers: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True), nullable=True)
    """The pending offers between the players (``webapp.arena.offers``): kind -> the seat that made it."""


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
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))


class SearchRecordRow(Base):
    """The engine's search behind an engine move: the ``search`` event of its final ``SearchInfo`` as streamed, as
    JSON text (``webapp.search.records``). Deleted with its move (a takeback)."""

    __tablename__ = "search_records"
    __table_args__ = (ForeignKeyConstraint(["game_id", "ply"], ["moves.game_id", "moves.ply"], ondelete="CASCADE"),)

    game_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    ply: Mapped[int] = mapped_column(Integer, primary_key=True)
    """The ply of the move (``moves.ply``)."""
    record: Mapped[str] = mapped_column(Text)


class ReviewRow(Base):
    """The review of a game (``webapp.arena.reviews``): asked once, stored for everyone holding the link."""

    __tablename__ = "reviews"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    status: Mapped[str] = mapped_column(String(16))
    """"running", "done", "cancelled" or "failed"."""
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True), nullable=True)
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))


class TrainingRow(Base):
    """An exercise of a browser's training queue (``webapp.store.training``): a mistake of one of its reviewed games
    (the move at ``ply``), when it is due again, and how it went."""

    __tablename__ = "training"

    player_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    ply: Mapped[int] = mapped_column(Integer, primary_key=True)
    game: Mapped[str] = mapped_column(String(32))
    step: Mapped[int] = mapped_column(Integer, default=0)
    """How many right answers in a row: the interval it waits next (``webapp.store.training.INTERVAL_DAYS``)."""
    due_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True, index=True)
    """When it comes back; None once learned."""
    tries: Mapped[int] = mapped_column(Integer, default=0)
    solved: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))


class SolvedRow(Base):
    """The exact values of a position's moves, found once (``webapp.search.solved``) and read before solving it
    again, by every node."""

    __tablename__ = "solved_positions"

    game: Mapped[str] = mapped_column(String(16), primary_key=True)
    position: Mapped[str] = mapped_column(String(64), primary_key=True)
    """The position's key in its game (``engine.truth.kept_key``)."""
    moves: Mapped[dict[str, Any]] = mapped_column(JSON)
    """``{move: [result, plies]}`` (``engine.truth.values_to_pairs``)."""
    stored_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), index=True)


class HeartbeatRow(Base):
    """The last moment some node of the service was known to run (``webapp.arena.downtime``): one row."""

    __tablename__ = "heartbeat"

    name: Mapped[str] = mapped_column(String(16), primary_key=True)
    at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))


class PlayerSeatRow(Base):
    """A seat held by a browser: ``player_id`` is the random identity in its ``arena_player`` cookie."""

    __tablename__ = "player_seats"

    player_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    game_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)


def utc(value: dt.datetime) -> dt.datetime:
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
"""Extra connections opened while more than ``POOL_SIZE`` requests (greenlets, or threads) are in the database at
once: a node holds at most 32 connections, so several nodes fit PostgreSQL's default ``max_connections`` (100).
A request finding all 32 busy waits (every store call is a short transaction) up to ``POOL_TIMEOUT`` seconds."""
POOL_TIMEOUT = 30
CONNECT_TIMEOUT = 5
"""Seconds a new connection to a database server may take (libpq's ``connect_timeout``): an unreachable server
costs a request that long, not the system's TCP timeout."""

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
                         pool_pre_ping=True, connect_args={"connect_timeout": CONNECT_TIMEOUT})


def rows_changed(result: Result[Any]) -> int:
    """How many rows an UPDATE or DELETE changed (SQLAlchemy types ``Session.execute``'s answer as the general
    ``Result``; for these statements it is a ``CursorResult``)."""
    return cast("CursorResult[Any]", result).rowcount


def is_duplicate_key(error: IntegrityError) -> bool:
    """Whether ``error`` is a primary key or unique violation (not, say, a missing game)."""
    cause = error.orig
    return getattr(cause, "sqlstate", None) == "23505" or getattr(cause, "sqlite_errorname", None) in (
        "SQLITE_CONSTRAINT_PRIMARYKEY", "SQLITE_CONSTRAINT_UNIQUE")


class Database:
    """One database (SQLite file or PostgreSQL, see ``database_url``) with its tables created. Thread-safe: each
    transaction or session is its own."""

    def __init__(self, url: str, clock: Clock) -> None:
        """Open the database at ``url`` and bring its schema to the newest revision (``webapp.store.migrate``); the
        times it stores are
        ``clock``'s (``now``)."""
        self.now = clock.now
        self.engine = _create_engine(database_url(url))
        migrate(self.engine)
        self.availability = Availability(self.engine, clock)
        """Whether the database answers; while it does not, every call raises ``DatabaseUnavailableError``."""
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """A session in a transaction, committed when the block ends without an exception, else rolled back."""
        with self.sessions() as session, session.begin():
            yield session

    def close(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()
