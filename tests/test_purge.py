"""``python -m webapp.purge`` on a real SQLite store: abandoned empty games go, every other game stays."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from sqlalchemy import update

from webapp.purge import main
from webapp.store import GameRow, Store, StoredGame, StoredMove, StoredSeat

NOW = dt.datetime.now(dt.UTC)


def add_game(store: Store, game_id: str, days_old: float, status: str = "active",
             engine_seat: int | None = None) -> None:
    when = NOW - dt.timedelta(days=days_old)
    engine = {"level": 1}
    seats = [StoredSeat(seat, engine if seat == engine_seat else None, seat != 1) for seat in (0, 1)]
    store.create_game(StoredGame(id=game_id, game="tictactoe", start_setup="", game_options={}, options={},
                                 opponent={"type": "engine" if engine_seat is not None else "friend"}, status=status,
                                 winner=None, reason=None, rematch_id=None, created_at=when, updated_at=when,
                                 seats=seats), 0)
    store.remember_seat("browser", game_id, 0)


def age(store: Store, game_id: str, days_old: float) -> None:
    with store.engine.begin() as connection:
        connection.execute(update(GameRow).where(GameRow.id == game_id).values(
            updated_at=NOW - dt.timedelta(days=days_old)))


def test_purge_deletes_only_old_unfinished_games_without_a_move(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]):
    url = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    store = Store(url)
    add_game(store, "empty_old", 40)
    add_game(store, "empty_new", 10)
    add_game(store, "moved_old", 40)
    store.add_move("moved_old", StoredMove(1, "5", 0, None, None), 1)
    age(store, "moved_old", 40)
    add_game(store, "engine_opened_old", 40, engine_seat=0)  # the engine moved; its player never came
    store.add_move("engine_opened_old", StoredMove(1, "5", 0, None, None), 1, record='{"info": {}}')
    age(store, "engine_opened_old", 40)
    add_game(store, "engine_answered_old", 40, engine_seat=1)  # its player moved: a game
    store.add_move("engine_answered_old", StoredMove(1, "5", 0, None, None), 1)
    store.add_move("engine_answered_old", StoredMove(2, "1", 1, None, None), 0)
    age(store, "engine_answered_old", 40)
    add_game(store, "finished_old", 40, status="finished")
    add_game(store, "rematch_old", 40)  # the rematch of finished_old: its link must keep working
    store.set_rematch("finished_old", "rematch_old")
    age(store, "finished_old", 40)
    store.close()

    monkeypatch.setenv("DATABASE_URL", url)
    main(["--days", "30"])
    assert "deleted 2 unfinished games" in capsys.readouterr().out

    store = Store(url)
    try:
        for deleted in ("empty_old", "engine_opened_old"):
            assert store.load_game(deleted) is None and store.seat_of("browser", deleted) is None
            assert store.search_record(deleted, 1) is None
        for kept in ("empty_new", "moved_old", "engine_answered_old", "finished_old", "rematch_old"):
            assert store.load_game(kept) is not None, kept
            assert store.seat_of("browser", kept) == 0
    finally:
        store.close()


def test_purge_refuses_less_than_a_day(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'arena.sqlite3'}")
    with pytest.raises(SystemExit):
        main(["--days", "0.5"])
