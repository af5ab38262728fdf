"""Games nobody touched for ``untouched_seconds`` leave memory and come back from the store intact; games in use
(watched, searched by the engine, recently moved) stay. A real Arena on a real SQLite store, with a clock the test
moves forward instead of waiting and a hand runner whose searches never end unless answered."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from support.clocks import ManualClock
from support.fakes import HandArena

from webapp.arena.assemble import Arena, ArenaSettings
from webapp.arena.touches import Touches
from webapp.seats import invite_code
from webapp.validation import check_new_game

UNTOUCHED = 600.0


@pytest.fixture
def arena(tmp_path: Path, clock: ManualClock):
    setup = HandArena.open(tmp_path, ArenaSettings(shared=False, untouched_seconds=UNTOUCHED), clock)
    yield setup.arena
    setup.close()


def friend_game(arena: Arena) -> str:
    """A tic-tac-toe game between two people, both seats taken, with the moves 1 and 5 played."""
    game_id, creator, _ = arena.creation.create(check_new_game({"game": "tictactoe", "opponent": {"type": "friend"},
                                                      "side": 0}))
    assert creator == 0
    arena.creation.take_seat(game_id, invite_code(arena.creation.secret, game_id))
    arena.moves.play(game_id, 0, "1")
    arena.moves.play(game_id, 1, "5")
    return game_id


def test_an_untouched_game_leaves_memory_after_the_stated_time_and_comes_back_intact(arena: Arena, clock: ManualClock):
    game_id = friend_game(arena)
    before = arena.reads.game_state(game_id, 0)
    clock.advance(UNTOUCHED - 1)
    assert arena.cache.expire_untouched() == 0
    assert arena.cache.count() == 1
    clock.advance(1)
    assert arena.cache.expire_untouched() == 1
    assert arena.cache.count() == 0
    assert arena.store.load_game(game_id) is not None  # still in the database
    after = arena.reads.game_state(game_id, 0)
    assert arena.cache.count() == 1
    for key in ("moves", "history", "seats", "version", "status", "to_move", "setup", "legal_moves"):
        assert after[key] == before[key], key
    arena.moves.play(game_id, 0, "2")  # and it is played on as before
    assert arena.reads.game_state(game_id, 1)["moves"] == ["1", "5", "2"]


def test_a_game_that_left_memory_is_loaded_again_by_an_action(arena: Arena, clock: ManualClock):
    game_id = friend_game(arena)
    clock.advance(UNTOUCHED)
    assert arena.cache.expire_untouched() == 1
    state = arena.moves.play(game_id, 0, "9")
    assert state is not None and state["moves"] == ["1", "5", "9"]
    assert state["version"] == arena.cache.get(game_id).version


def test_a_recently_moved_game_stays(arena: Arena, clock: ManualClock):
    game_id = friend_game(arena)
    clock.advance(UNTOUCHED - 10)
    arena.moves.play(game_id, 0, "2")
    clock.advance(20)  # UNTOUCHED + 10 since it was created, 20 since its last move
    assert arena.cache.expire_untouched() == 0
    assert arena.cache.count() == 1


def test_a_watched_game_stays_and_leaves_once_its_last_watcher_is_gone_for_the_stated_time(arena: Arena,
                                                                                           clock: ManualClock):
    game_id = friend_game(arena)
    arena.membership.join(game_id, "watcher", None, lambda: None)
    clock.advance(10 * UNTOUCHED)
    assert arena.cache.expire_untouched() == 0  # watched: counts as touched now
    assert arena.cache.count() == 1
    clock.advance(UNTOUCHED - 10)  # still watched
    arena.membership.leave(game_id, "watcher")
    clock.advance(UNTOUCHED - 1)
    assert arena.cache.expire_untouched() == 0  # the time counts from the watcher's leaving
    clock.advance(1)
    assert arena.cache.expire_untouched() == 1
    assert arena.cache.count() == 0


def test_a_game_whose_engine_search_is_queued_or_running_stays(arena: Arena, clock: ManualClock):
    # Engine against engine: the hand runner keeps the first search submitted, unanswered, all along.
    game_id, _, _ = arena.creation.create(check_new_game({"game": "tictactoe", "opponent": {"type": "engines",
                                                                                    "levels": [1, 1]}}))
    assert arena.cache.get(game_id).job_id is not None
    clock.advance(10 * UNTOUCHED)
    assert arena.cache.expire_untouched() == 0
    assert arena.cache.count() == 1
    assert arena.cache.get(game_id).job_id is not None


def test_a_game_whose_lock_is_held_stays(arena: Arena, clock: ManualClock):
    game_id = friend_game(arena)
    clock.advance(UNTOUCHED)
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with arena.cache.locked(game_id, fresh=False):
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(10)
    clock.advance(UNTOUCHED)
    assert arena.cache.expire_untouched() == 0
    release.set()
    holder.join()
    assert arena.cache.count() == 1


def test_touches_lists_the_due_games_oldest_first(clock: ManualClock):
    touches = Touches(clock.monotonic)
    for game_id in "abc":
        touches.touch(game_id)
        clock.advance(10)
    touches.touch("a")  # now the most recent
    assert touches.due(10) == ["b", "c"] and touches.due(15) == ["b"]
    assert touches.is_due("b", 15) and not touches.is_due("a", 15) and not touches.is_due("zz", 0)
    touches.forget("b")
    assert touches.due(0) == ["c", "a"]


def test_health_reports_the_games_in_memory(app):
    client = app.test_client()
    assert client.get("/api/health").json["games_in_memory"] == 0
    client.post("/api/games", json={"game": "tictactoe", "opponent": {"type": "friend"}})
    assert client.get("/api/health").json["games_in_memory"] == 1
