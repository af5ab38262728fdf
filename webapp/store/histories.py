"""The games each browser played (``player_seats`` joined with its games and their reviews): read a page of them,
forget them, or move them to another browser.

A browser's history is the seats its identity holds (``webapp.views.players``); forgetting it deletes those rows only:
the games stay for everyone else holding their links. It keeps the newest ``HISTORY_LIMIT`` games (``trim``, in the
transaction that records a seat): about 40 bytes a game, at most 80 KB a browser.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, delete, func, or_, select, update
from sqlalchemy.orm import Session

from webapp.store.tables import Database, GameRow, MoveRow, PlayerSeatRow, ReviewRow, SeatRow, rows_changed, utc

HISTORY_LIMIT = 2000
"""The most games a browser's history keeps: recording one more forgets its oldest (and its seat there)."""


def trim(session: Session, player_id: str, limit: int) -> None:
    """Within ``session``'s transaction, forget ``player_id``'s oldest games beyond its newest ``limit``."""
    count = session.scalar(select(func.count()).where(PlayerSeatRow.player_id == player_id)) or 0
    if count <= limit:
        return
    oldest = (select(PlayerSeatRow.game_id).join(GameRow, GameRow.id == PlayerSeatRow.game_id)
              .where(PlayerSeatRow.player_id == player_id)
              .order_by(GameRow.created_at, GameRow.id).limit(count - limit))
    session.execute(delete(PlayerSeatRow).where(PlayerSeatRow.player_id == player_id,
                                                PlayerSeatRow.game_id.in_(oldest.scalar_subquery())))


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """One game of a browser's history: the game row's facts, the seat the browser held, every seat's engine
    settings (None for a person), the moves played, and the review's status and stored result (None when never
    asked for)."""

    game_id: str
    game: str
    seat: int
    status: str
    winner: int | None
    reason: str | None
    ply: int
    start_setup: str
    opponent: dict[str, Any]
    engines: tuple[dict[str, Any] | None, ...]
    moves: tuple[str, ...]
    created_at: dt.datetime
    review_status: str | None
    review_result: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class HistoryPage:
    """A page of a history, newest first, and the position after its last game (None on the last page)."""

    games: list[PlayedGame]
    after: tuple[dt.datetime, str] | None


class HistoryRecords:
    """The ``player_seats`` rows of each browser, read with their games."""

    def __init__(self, database: Database) -> None:
        self._database = database

    def page(self, player_id: str, limit: int, game: str | None = None,
             after: tuple[dt.datetime, str] | None = None) -> HistoryPage:
        """At most ``limit`` games of ``player_id``, newest first (by creation, then id), only of ``game`` when
        given, starting after the position ``after`` (a previous page's ``after``)."""
        query = (select(PlayerSeatRow.seat, GameRow, ReviewRow.status, ReviewRow.result)
                 .join(GameRow, GameRow.id == PlayerSeatRow.game_id)
                 .outerjoin(ReviewRow, ReviewRow.game_id == GameRow.id)
                 .where(PlayerSeatRow.player_id == player_id))
        if game is not None:
            query = query.where(GameRow.game == game)
        if after is not None:
            created, game_id = after
            query = query.where(or_(GameRow.created_at < created,
                                    and_(GameRow.created_at == created, GameRow.id < game_id)))
        query = query.order_by(GameRow.created_at.desc(), GameRow.id.desc()).limit(limit + 1)
        with self._database.sessions() as session:
            rows = list(session.execute(query).all())
            more = len(rows) > limit
            rows = rows[:limit]
            ids = [row[1].id for row in rows]
            engines: dict[str, dict[int, dict[str, Any] | None]] = {}
            for seat in session.scalars(select(SeatRow).where(SeatRow.game_id.in_(ids))):
                engines.setdefault(seat.game_id, {})[seat.seat] = seat.engine
            moves: dict[str, list[str]] = {}
            for move in session.scalars(select(MoveRow).where(MoveRow.game_id.in_(ids)).order_by(MoveRow.ply)):
                moves.setdefault(move.game_id, []).append(move.move)
            games = [PlayedGame(
                game_id=row.id, game=row.game, seat=seat, status=row.status, winner=row.winner, reason=row.reason,
                ply=row.ply, start_setup=row.start_setup, opponent=dict(row.opponent),
                engines=tuple(engines.get(row.id, {}).get(index) for index in range(2)),
                moves=tuple(moves.get(row.id, [])), created_at=utc(row.created_at), review_status=review_status,
                review_result=review_result) for seat, row, review_status, review_result in rows]
        last = games[-1] if games and more else None
        return HistoryPage(games, None if last is None else (last.created_at, last.game_id))

    def forget(self, player_id: str) -> int:
        """Delete ``player_id``'s history (the seats it holds; the games stay); returns how many games it had."""
        with self._database.transaction() as session:
            return rows_changed(session.execute(delete(PlayerSeatRow).where(PlayerSeatRow.player_id == player_id)))

    def move(self, from_player: str, to_player: str) -> int:
        """Give ``from_player``'s history to ``to_player`` (a game both hold keeps ``to_player``'s seat); returns
        how many games moved."""
        if from_player == to_player:
            return 0
        with self._database.transaction() as session:
            held = select(PlayerSeatRow.game_id).where(PlayerSeatRow.player_id == to_player)
            session.execute(delete(PlayerSeatRow).where(PlayerSeatRow.player_id == from_player,
                                                        PlayerSeatRow.game_id.in_(held)))
            return rows_changed(session.execute(update(PlayerSeatRow).where(PlayerSeatRow.player_id == from_player)
                                                .values(player_id=to_player)))
