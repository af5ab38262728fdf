"""An engine turn whose search fails is searched once more, then the room is told the engine failed; a final move
the game refuses is reported too. A runner of this test's own hands the events to the arena, so each failure
happens exactly when the test says."""

from __future__ import annotations

from support.fakes import HandArena

from webapp.arena.assemble import Arena
from webapp.validation import check_new_game


def engine_game(arena: Arena) -> str:
    """A tic-tac-toe game against the level-1 engine, which moves first."""
    game_id, _, _ = arena.creation.create(check_new_game(
        {"game": "tictactoe", "opponent": {"type": "engine", "level": 1}, "side": 1}))
    return game_id


def test_a_failed_search_is_run_once_more_then_the_room_is_told(hand_arena: HandArena):
    arena, runner = hand_arena.arena, hand_arena.runner
    game_id = engine_game(arena)
    assert len(runner.submitted) == 1
    first = runner.answer({"kind": "failed", "message": "boom"})
    assert len(runner.submitted) == 2  # searched again
    second = runner.submitted[-1][0]
    assert (second.key, second.ply, second.seat) == (first.key, first.ply, first.seat) and second.id != first.id
    assert not hand_arena.payloads("error")
    runner.answer({"kind": "failed", "message": "boom again"})
    assert len(runner.submitted) == 2  # no third try
    errors = hand_arena.payloads("error")
    assert errors == [{"code": "engine_failed", "message": "the engine failed: boom again", "event": "search"}]
    state = arena.reads.game_state(game_id, None)
    assert state["ply"] == 0 and state["status"] == "active"


def test_a_join_after_the_failure_starts_the_search_again_and_its_move_is_played(hand_arena: HandArena):
    arena, runner = hand_arena.arena, hand_arena.runner
    game_id = engine_game(arena)
    runner.answer({"kind": "failed", "message": "boom"})
    runner.answer({"kind": "failed", "message": "boom"})
    arena.membership.join(game_id, "sid-1", None, lambda: None)
    assert len(runner.submitted) == 3
    runner.answer({"kind": "final", "best": "5", "score": 0, "depth": 1})
    state = arena.reads.game_state(game_id, None)
    assert state["moves"] == ["5"]


def test_a_final_move_the_game_refuses_is_reported_and_changes_nothing(hand_arena: HandArena):
    arena, runner = hand_arena.arena, hand_arena.runner
    game_id = engine_game(arena)
    runner.answer({"kind": "final", "best": "10", "score": 0, "depth": 1})
    errors = hand_arena.payloads("error")
    assert errors and errors[0]["code"] == "illegal_move" and errors[0]["message"].startswith("engine move refused")
    assert arena.reads.game_state(game_id, None)["ply"] == 0
