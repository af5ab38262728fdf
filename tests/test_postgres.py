"""The app on a real PostgreSQL server (``DATABASE_URL=postgresql://...``): URLs without a driver, times in UTC
whatever the server's time zone, one seat for two racing takers, a bounded pool under 64 threads, connections
dropped by the server replaced unseen, tables created once by stores and by gunicorn nodes starting together, and
a whole game against the engine surviving a SIGKILL. The store's contract on PostgreSQL is tests/test_store.py
(run on both databases)."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy.exc import IntegrityError
from support.helpers import new_game
from support.servers import EventClient, LiveServer

from webapp.store import PlyTakenError, Store, StoredGame, StoredMove, StoredSeat, database_url

pytestmark = pytest.mark.servers


def run_together(count: int, action: Callable[[int], Any]) -> list[Any]:
    """``action(0)`` ... ``action(count - 1)`` in threads released at one moment; their results (or exceptions)."""
    barrier = threading.Barrier(count)
    results: list[Any] = [None] * count

    def run(index: int) -> None:
        barrier.wait()
        try:
            results[index] = action(index)
        except Exception as error:
            results[index] = error

    threads = [threading.Thread(target=run, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


@pytest.fixture
def url(postgres_server) -> str:
    return postgres_server.create_database()


def test_urls_without_a_driver_are_served_by_psycopg(url):
    assert database_url("postgres://arena@db.example:5432/arena").drivername == "postgresql+psycopg"
    assert database_url("postgresql://arena@db.example/arena").drivername == "postgresql+psycopg"
    assert database_url("postgresql+psycopg://arena@db.example/arena").drivername == "postgresql+psycopg"
    assert database_url("sqlite:///arena.sqlite3").drivername == "sqlite"
    store = Store(url.replace("postgresql://", "postgres://", 1))
    new_game(store, "g1")
    assert store.engine.dialect.driver == "psycopg" and store.load_game("g1").status == "active"


def test_times_come_back_in_utc_whatever_the_server_time_zone(url):
    with psycopg.connect(url) as connection:
        connection.execute(f"ALTER DATABASE {url.rsplit('/', 1)[1]} SET timezone TO 'America/New_York'")
    store = Store(url)
    new_game(store, "g1")
    game = store.load_game("g1")
    assert game.created_at.tzinfo is dt.UTC and game.updated_at.tzinfo is dt.UTC
    assert abs(game.created_at - dt.datetime.now(dt.UTC)) < dt.timedelta(minutes=1)
    updated = store.add_move("g1", StoredMove(1, "5", 0), to_move=1)
    assert store.load_game("g1").updated_at == updated


def test_two_racing_takers_of_one_seat_one_gets_it(url):
    store = Store(url)
    now = dt.datetime.now(dt.UTC)
    store.create_game(StoredGame(
        id="g1", game="nim", start_setup="", game_options={"piles": [1, 2]}, options={}, opponent={"type": "friend"},
        status="active", winner=None, reason=None, rematch_id=None, created_at=now, updated_at=now,
        seats=[StoredSeat(0, None, True), StoredSeat(1, None, False)]), to_move=0)
    assert sorted(run_together(8, lambda _: store.take_seat("g1", 1))) == [False] * 7 + [True]
    assert [seat.taken for seat in store.load_game("g1").seats] == [True, True]


def test_stores_opening_one_new_database_at_once_create_the_tables_once(url):
    stores = run_together(6, lambda _: Store(url))
    assert all(isinstance(store, Store) for store in stores), stores
    new_game(stores[0], "g1")
    assert all(store.load_game("g1") is not None for store in stores)


def test_64_threads_at_once_share_at_most_32_connections(url):
    store = Store(url)
    new_game(store, "g1")
    assert all(game.id == "g1" for game in run_together(64, lambda _: store.load_game("g1")))
    with psycopg.connect(url) as connection:
        opened = connection.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                                    "AND pid <> pg_backend_pid()").fetchone()[0]
    assert 1 <= opened <= 32


def test_connections_dropped_by_the_server_are_replaced_unseen(url):
    store = Store(url)
    new_game(store, "g1")
    with psycopg.connect(url, autocommit=True) as connection:
        dropped = connection.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                                     "WHERE datname = current_database() AND pid <> pg_backend_pid()").fetchone()[0]
    assert dropped >= 1
    store.add_move("g1", StoredMove(1, "5", 0), to_move=1)
    assert [move.move for move in store.load_game("g1").moves] == ["5"]


def test_a_move_for_a_missing_game_is_not_reported_as_a_taken_ply(url):
    with pytest.raises(IntegrityError) as raised:
        Store(url).add_move("nope", StoredMove(1, "5", 0), to_move=1)
    assert not isinstance(raised.value, PlyTakenError) and "foreign key" in str(raised.value)


def play_against_the_engine(server: LiveServer) -> tuple[str, dict[str, Any]]:
    """A whole tic-tac-toe game on ``server`` (the player takes the last legal move each turn); its id and final
    state."""
    created = server.post("/api/games", {"game": "tictactoe", "opponent": {"type": "engine", "level": 2},
                                         "side": 0}).json()
    game_id = created["id"]
    player = EventClient(server.url, created["token"])
    player.emit("join", {"game_id": game_id})
    state = player.wait_for("state")
    while state["status"] == "active":
        ply = state["ply"]
        player.emit("move", {"game_id": game_id, "move": state["legal_moves"][-1]})
        state = player.wait_for("moved", lambda m, ply=ply: m["ply"] == ply + 1)["state"]
        if state["status"] == "active":
            state = player.wait_for("moved", lambda m, ply=ply: m["ply"] == ply + 2)["state"]
    assert player.received("error") == []
    player.close()
    return game_id, state


def test_a_game_against_the_engine_survives_sigkill(url, tmp_path: Path):
    server = LiveServer(tmp_path / "instance", env={"DATABASE_URL": url})
    try:
        server.start()
        game_id, final = play_against_the_engine(server)
        before = server.get(f"/api/games/{game_id}").json()
        server.kill()
        server.start()
        after = server.get(f"/api/games/{game_id}").json()
    finally:
        server.stop()
    assert after["moves"] == final["moves"] == before["moves"] and len(after["moves"]) >= 5
    assert after["status"] == "finished" and after["result"] == final["result"]
    assert after["evals"] == before["evals"] and [e["ply"] for e in after["evals"]] == list(
        range(2, len(after["moves"]) + 1, 2))


def test_two_nodes_starting_together_on_a_new_database_both_come_up(url, tmp_path: Path):
    nodes = [LiveServer(tmp_path / f"node{index}", env={"DATABASE_URL": url}) for index in range(2)]
    try:
        started = run_together(2, lambda index: nodes[index].start())
        assert started == nodes, [node.log.read_text() for node in nodes]
        created = nodes[0].post("/api/games", {"game": "tictactoe", "opponent": {"type": "friend"}}).json()
        assert nodes[1].get(f"/api/games/{created['id']}").json()["status"] == "active"
    finally:
        for node in nodes:
            node.stop()
