"""The store's histories and training queues, on SQLite and on PostgreSQL: a browser's games newest first by page,
forgetting and moving them, and the bound on each browser's history (recording one game more forgets its oldest);
exercises added once, answered, moved, forgotten and bounded."""

from __future__ import annotations

import pytest
from support.helpers import new_game

from webapp.store import Store

pytestmark = pytest.mark.servers


def test_a_history_pages_forgets_moves_and_stays_bounded(database_url) -> None:
    store = Store(database_url, history_limit=3)
    for index in range(5):
        new_game(store, f"g{index}")
        store.remember_seat("alice", f"g{index}", index % 2)
    page = store.histories.page("alice", 2)
    assert [game.game_id for game in page.games] == ["g4", "g3"] and page.after is not None
    rest = store.histories.page("alice", 2, after=page.after)
    assert [game.game_id for game in rest.games] == ["g2"] and rest.after is None  # g0 and g1 were forgotten
    assert [game.seat for game in page.games] == [0, 1]
    assert store.histories.page("bob", 10).games == []
    store.remember_seat("bob", "g3", 0)
    assert store.histories.move("alice", "bob") == 2  # g4 and g2 move; bob keeps his own seat in g3
    assert [(game.game_id, game.seat) for game in store.histories.page("bob", 10).games] == [
        ("g4", 0), ("g3", 0), ("g2", 0)]
    assert store.histories.page("alice", 10).games == []
    assert store.histories.forget("bob") == 3 and store.histories.page("bob", 10).games == []
    assert store.load_game("g3") is not None  # the games stay
    store.close()


def test_a_training_queue_is_kept_and_bounded(database_url) -> None:
    """Exercises are added once, due at once; answers move them on; a queue keeps its newest exercises only."""
    store = Store(database_url, training_limit=3)
    for index in range(3):
        new_game(store, f"g{index}")
    assert store.training.add("alice", [("g0", 5, "tictactoe"), ("g0", 7, "tictactoe")]) == 2
    assert store.training.add("alice", [("g0", 5, "tictactoe"), ("g1", 3, "tictactoe"), ("g2", 1, "tictactoe")]) == 2
    assert [(item.game_id, item.ply) for item in store.training.due("alice", 10)] == [
        ("g0", 7), ("g1", 3), ("g2", 1)]  # the oldest, g0's 5, went first
    assert store.training.record("alice", "g1", 3, right=True).step == 1
    assert store.training.record("bob", "g1", 3, right=True) is None
    assert store.training.waiting("alice") == 1 and store.training.rates("alice") == {"tictactoe": (1, 1)}
    store.training.move("alice", "bob")
    assert store.training.waiting("bob") == 1 and store.training.due("alice", 10) == []
    store.training.forget("bob")
    assert store.training.due("bob", 10) == [] and store.training.waiting("bob") == 0
    store.close()
