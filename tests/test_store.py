"""The store on a real SQLite file and on a real PostgreSQL server: moves survive a reopen, a ply takes one move
only (even from two writers at once), takebacks and results, and the list of games whose turn is the engine's."""

from __future__ import annotations

import threading

import pytest
from support.helpers import new_game
from support.waiting import WAIT

from webapp.errors import ArenaError
from webapp.store import PlyTakenError, Store, StoredMove

pytestmark = pytest.mark.servers


def test_a_game_and_its_moves_survive_reopening(database_url):
    store = Store(database_url)
    new_game(store, "g1")
    store.add_move("g1", StoredMove(1, "5", 0), to_move=1)
    store.add_move("g1", StoredMove(2, "1", 1, score=3, score_text="+3"), to_move=0)
    store.close()
    game = Store(database_url).load_game("g1")
    assert [(m.ply, m.move, m.by, m.score) for m in game.moves] == [(1, "5", 0, None), (2, "1", 1, 3)]
    assert [s.engine for s in game.seats] == [None, None] and game.status == "active"
    assert game.created_at.tzinfo is not None


def test_the_same_ply_is_stored_once(database_url):
    store = Store(database_url)
    new_game(store, "g1")
    store.add_move("g1", StoredMove(1, "5", 0), to_move=1)
    with pytest.raises(PlyTakenError):
        store.add_move("g1", StoredMove(1, "1", 0), to_move=1)
    assert [m.move for m in store.load_game("g1").moves] == ["5"]


def test_a_move_that_no_longer_follows_the_stored_game_is_refused(database_url):
    store = Store(database_url)
    new_game(store, "g1")
    for ply, move in enumerate("513", start=1):
        store.add_move("g1", StoredMove(ply, move, (ply - 1) % 2), to_move=ply % 2)
    store.truncate_moves("g1", 1, to_move=1)
    with pytest.raises(PlyTakenError):  # a move for ply 4, computed before the takeback
        store.add_move("g1", StoredMove(4, "9", 1), to_move=0)
    store.finish_game("g1", 0, "resigned")
    with pytest.raises(PlyTakenError):
        store.add_move("g1", StoredMove(2, "9", 1), to_move=0)
    game = store.load_game("g1")
    assert [m.move for m in game.moves] == ["5"] and game.status == "finished"


def test_two_writers_racing_for_one_ply_one_wins(database_url):
    first, second = Store(database_url), Store(database_url)
    new_game(first, "g1")
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def write(store: Store, move: str) -> None:
        barrier.wait()
        try:
            store.add_move("g1", StoredMove(1, move, 0), to_move=1)
            outcomes.append("stored")
        except PlyTakenError:
            outcomes.append("refused")

    threads = [threading.Thread(target=write, args=args) for args in ((first, "5"), (second, "1"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["refused", "stored"]
    assert len(first.load_game("g1").moves) == 1


def test_takeback_deletes_later_moves_and_reopens_the_game(database_url):
    store = Store(database_url)
    new_game(store, "g1")
    for ply, move in enumerate("514", start=1):
        store.add_move("g1", StoredMove(ply, move, (ply - 1) % 2), to_move=ply % 2)
    store.finish_game("g1", 0, "resigned")
    store.truncate_moves("g1", 1, to_move=1)
    game = store.load_game("g1")
    assert [m.move for m in game.moves] == ["5"] and game.status == "active" and game.winner is None
    store.add_move("g1", StoredMove(2, "9", 1), to_move=0)
    assert [m.move for m in store.load_game("g1").moves] == ["5", "9"]


def test_search_records_are_stored_with_their_move_and_leave_with_it(database_url):
    store = Store(database_url)
    new_game(store, "g1", engine_seat=1)
    store.add_move("g1", StoredMove(1, "5", 0), to_move=1)
    store.add_move("g1", StoredMove(2, "1", 1, score=0, score_text="0"), to_move=0, record='{"ply": 1}')
    store.add_move("g1", StoredMove(3, "9", 0), to_move=1)
    with pytest.raises(PlyTakenError):  # a refused move stores no record either
        store.add_move("g1", StoredMove(3, "7", 1), to_move=0, record='{"ply": 2}')
    reopened = Store(database_url)
    assert reopened.search_record("g1", 2) == '{"ply": 1}' and reopened.search_record("g1", 1) is None
    assert reopened.search_record("g1", 3) is None and reopened.last_search_record("g1") == '{"ply": 1}'
    reopened.truncate_moves("g1", 1, to_move=1)
    assert reopened.search_record("g1", 2) is None and reopened.last_search_record("g1") is None


def test_engine_turn_games_are_the_unfinished_ones_where_an_engine_is_to_move(database_url):
    store = Store(database_url)
    new_game(store, "engine-first", engine_seat=0)
    new_game(store, "engine-second", engine_seat=1)
    new_game(store, "friends")
    new_game(store, "over", engine_seat=0)
    store.finish_game("over", 1, "resigned")
    assert store.engine_turn_game_ids() == ["engine-first"]
    store.add_move("engine-second", StoredMove(1, "5", 0), to_move=1)
    assert sorted(store.engine_turn_game_ids()) == ["engine-first", "engine-second"]
    assert not store.take_seat("engine-first", 0) and not store.take_seat("friends", 0)


def test_the_seats_of_a_browser_are_kept_per_game_and_replaced_not_doubled(database_url):
    store = Store(database_url)
    store.remember_seat("browser-a", "g1", 0)
    store.remember_seat("browser-a", "g2", 1)
    store.remember_seat("browser-b", "g1", 1)
    store.remember_seat("browser-a", "g1", 1)  # the same browser now holds the other seat
    assert [store.seat_of("browser-a", game) for game in ("g1", "g2", "g3")] == [1, 1, None]
    assert store.seat_of("browser-b", "g1") == 1 and store.seat_of("browser-c", "g1") is None
    store.close()
    assert Store(database_url).seat_of("browser-a", "g2") == 1


def test_one_browser_recording_one_seat_from_many_threads_at_once_stores_one_row(database_url):
    stores = [Store(database_url) for _ in range(2)]
    barrier = threading.Barrier(8)
    errors: list[Exception] = []

    def remember(index: int) -> None:
        barrier.wait()
        try:
            stores[index % 2].remember_seat("browser-a", "g1", 0)
        except Exception as error:
            errors.append(error)

    threads = [threading.Thread(target=remember, args=(index,)) for index in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and stores[0].seat_of("browser-a", "g1") == 0


def test_concurrent_moves_through_the_arena_accept_exactly_one(app):
    arena = app.extensions["arena"]
    created = app.test_client().post("/api/games", json={"game": "tictactoe", "opponent": {"type": "friend"}}).json
    arena.agreements.play_alone(created["id"], 0)
    barrier = threading.Barrier(8)
    accepted: list[str] = []
    refused: list[str] = []

    def play(move: str) -> None:
        barrier.wait()
        try:
            arena.moves.play(created["id"], 0, move)
            accepted.append(move)
        except ArenaError as error:
            refused.append(error.code)

    threads = [threading.Thread(target=play, args=(str(cell),)) for cell in range(1, 9)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(accepted) == 1 and refused == ["not_your_turn"] * 7
    assert arena.store.load_game(created["id"]).moves[0].move == accepted[0]


def test_finished_games_leave_memory_when_nobody_watches_and_come_back_from_the_store(app):
    arena = app.extensions["arena"]
    arena.cache.idle_games = 0  # no finished game is kept
    client = app.test_client()
    created = client.post("/api/games", json={"game": "tictactoe", "opponent": {"type": "friend"}}).json
    second = app.test_client().post(f"/api/games/{created['id']}/seats", json={"invite": created["invite"]}).json
    arena.membership.join(created["id"], "watcher-sid", None, lambda: None)
    for move, token in zip("14253", [created["token"], second["token"]] * 3, strict=False):
        arena.moves.play(created["id"], 0 if token == created["token"] else 1, move)
    assert arena.cache.count() == 1  # finished, but watched
    arena.membership.leave(created["id"], "watcher-sid")
    assert arena.cache.count() == 0
    state = client.get(f"/api/games/{created['id']}").json
    assert state["moves"] == list("14253") and state["result"]["winner"] == 0
    assert client.get(f"/api/games/{created['id']}/positions/3").json["setup"] == "142"
    assert arena.cache.count() == 0  # reading a finished game nobody watches does not keep it in memory
    # acting on a game that left memory loads it again: the rematch is offered
    arena.agreements.rematch(created["id"], 1)
    assert client.get(f"/api/games/{created['id']}").json["offers"]["rematch"] == 1


def finished_game(client) -> str:
    """A tic-tac-toe game against the engine, resigned at once: finished and watched by nobody."""
    created = client.post("/api/games", json={"game": "tictactoe", "opponent": {"type": "engine", "level": 1},
                                              "side": 0}).json
    client.post(f"/api/games/{created['id']}/resign", json={"token": created["token"]})
    return created["id"]


def test_the_least_recently_used_finished_games_leave_memory_first(app):
    arena = app.extensions["arena"]
    arena.cache.idle_games = 2
    client = app.test_client()
    first, second, third = (finished_game(client) for _ in range(3))
    assert arena.cache.count() == 2
    client.get(f"/api/games/{second}")  # loaded again? no: still in memory, now the most recently used
    assert arena.cache.count() == 2
    client.get(f"/api/games/{first}")  # back from the store; the least recently used one (third) leaves
    assert arena.cache.count() == 2
    loads: list[str] = []
    real_load = arena.store.load_game
    arena.store.load_game = lambda game_id: loads.append(game_id) or real_load(game_id)
    for game_id in (first, second):
        client.get(f"/api/games/{game_id}")
    assert loads == []
    client.get(f"/api/games/{third}")
    assert loads == [third]


def test_parallel_requests_for_a_game_not_in_memory_load_it_once(app):
    arena = app.extensions["arena"]
    arena.cache.idle_games = 0
    client = app.test_client()
    game_id = finished_game(client)
    assert arena.cache.count() == 0
    loads: list[str] = []
    real_load = arena.store.load_game
    arrived = threading.Semaphore(0)

    def slow_load(wanted: str):
        loads.append(wanted)
        for _ in range(8):  # a long game takes a while to replay: every request arrives meanwhile
            assert arrived.acquire(timeout=WAIT)
        return real_load(wanted)

    def request() -> None:
        arrived.release()
        arena.cache.get(game_id)

    arena.store.load_game = slow_load
    threads = [threading.Thread(target=request) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert loads == [game_id]


def test_solved_positions_are_shared_kept_once_and_bounded(database_url):
    """Two stores on one database (two nodes) see each other's solved positions; a position stored twice keeps its
    first row; past the limit the oldest rows go."""
    first, second = Store(database_url), Store(database_url)
    values = {"4": ["win", 41], "3": ["draw", None]}
    first.solved.save("connect4", "177537024", values)
    assert second.solved.load("connect4", "177537024") == values
    second.solved.save("connect4", "177537024", {"4": ["draw", None]})
    assert first.solved.load("connect4", "177537024") == values
    assert first.solved.load("connect4", "1") is None and first.solved.load("tictactoe", "177537024") is None
    first.solved.limit = 3
    for position in ("1", "2", "3"):
        first.solved.save("connect4", position, values)
    assert first.solved.load("connect4", "177537024") is None
    assert [first.solved.load("connect4", position) for position in ("1", "2", "3")] == [values] * 3
    first.close()
    second.close()
