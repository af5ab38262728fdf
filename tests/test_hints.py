"""Hints: a game created with them gets, after every change, every legal move's value for the side to move, worked
out on the engine workers and sent to its room; exact where the truth is known, else a search scoring every move."""

from __future__ import annotations

import threading

from support.clocks import TickingClock
from support.fakes import HandArena
from support.helpers import assert_error, connect, create, friend_game

from engine.games import new_game
from engine.games.chess import ChessState
from engine.hints import HINT_SETTINGS, move_hints
from engine.truth import Exact, kept_key
from webapp.arena.hints import job_key as hints_job_key
from webapp.validation import check_new_game


def hints_heard(watcher, ply: int) -> dict:
    return hints_heard_in(watcher, None, ply)


def hints_heard_in(watcher, game_id: str | None, ply: int) -> dict:
    """The hints of ``ply`` (of ``game_id``, or of any game) the watcher heard, waiting for them if need be."""
    return watcher.wait_for("hints", lambda hints: hints["ply"] == ply and game_id in (None, hints["game_id"]))


def test_every_move_gets_its_exact_value_after_every_move(app, client):
    created = create(client, {"game": "tictactoe", "opponent": {"type": "friend", "open": True}, "side": 0,
                              "options": {"hints": True}})
    game_id = created["id"]
    assert client.get(f"/api/games/{game_id}").json["options"]["hints"] is True
    watcher = connect(app)
    watcher.emit("join", {"game_id": game_id})  # the latest hints come with the join, or once worked out
    first = hints_heard(watcher, 0)
    assert first["how"] == "exact" and first["seat"] == 0 and len(first["moves"]) == 9
    assert all(hint["value"] == "draw" for hint in first["moves"].values())
    client.post(f"/api/games/{game_id}/moves", json={"move": "5"})
    after = hints_heard(watcher, 1)
    expected = move_hints(new_game("tictactoe", "5"))["moves"]
    assert after["moves"] == expected and after["moves"]["2"]["value"] == "loss in 3"
    late = connect(app)
    late.emit("join", {"game_id": game_id})  # somebody joining now gets the latest hints at once
    assert [hints["ply"] for hints in late.take("hints")] == [1]


def test_a_search_scores_every_move_where_no_truth_is_known():
    chess = move_hints(new_game("chess"))
    assert chess["how"] == "search" and chess["depth"] >= 1 and len(chess["moves"]) == 20
    assert all(isinstance(hint["score"], int) for hint in chess["moves"].values())
    assert chess["moves"]["g1f3"]["shown"] == "Nf3"


def test_search_hints_are_the_same_for_a_position_however_long_they_take():
    """A fixed depth, not a time budget: the values of a chess middlegame's moves do not depend on the machine."""
    middlegame = ChessState.from_setup("r2q1rk1/pp2bppp/2np1n2/4p3/2B1P3/2N2N2/PPP2PPP/R2QR1K1 w - - 0 10")
    first, second = move_hints(middlegame), move_hints(middlegame)
    assert first["depth"] == HINT_SETTINGS.depth and first == second


def test_connect_four_hints_are_exact_from_the_empty_board():
    """The solver proves every first move (in about 0.2 s with the compiled engine: ``HINT_TRUTH_SECONDS`` is 1 s;
    the time it takes is ``bench/connect4_exact_by_ply.py``'s to measure, so this test's clock stands still)."""
    hints = move_hints(new_game("connect4"), clock=TickingClock(0.0))
    assert hints["how"] == "exact" and hints["depth"] is None
    assert [hints["moves"][column]["value"] for column in "1234567"] == [
        "loss in 20", "loss in 21", "draw", "win in 21", "draw", "loss in 21", "loss in 20"]


KEPT_SETUP = "4444443333335555"
"""Sixteen stones, the first player to move: a position worth keeping once solved, and solved at once however
loaded the machine is."""
OTHER_SETUP = "1111117777775555"


def test_solved_hints_are_kept_and_read_before_solving_again(app, client):
    """The first viewer's hints, exact, are stored; the next game at that position gets what the store holds, so a
    row planted with false values (every move a draw) is what it shows: the store is read before the solver."""
    store = app.extensions["arena"].store
    key = kept_key(new_game("connect4", KEPT_SETUP))
    assert key is not None and store.solved.load("connect4", key) is None
    body = {"game": "connect4", "setup": KEPT_SETUP, "opponent": {"type": "friend", "open": True}, "side": 0,
            "options": {"hints": True}}
    first = create(client, body)
    watcher = connect(app)
    watcher.emit("join", {"game_id": first["id"]})
    solved = hints_heard(watcher, 0)
    assert solved["how"] == "exact"
    kept = store.solved.load("connect4", key)
    assert {move: Exact(*pair).text for move, pair in kept.items()} == {
        move: hint["value"] for move, hint in solved["moves"].items()}
    other_key = kept_key(new_game("connect4", OTHER_SETUP))
    assert other_key not in (None, key)
    store.solved.save("connect4", other_key, {column: ["draw", None] for column in "1234567"})
    planted = create(client, {**body, "setup": OTHER_SETUP})
    watcher.emit("join", {"game_id": planted["id"]})
    assert {hint["value"] for hint in hints_heard_in(watcher, planted["id"], 0)["moves"].values()} == {"draw"}


def test_hints_are_off_unless_asked_and_checked(app, client):
    game_id = create(client)["id"]
    assert client.get(f"/api/games/{game_id}").json["options"]["hints"] is False
    client.post(f"/api/games/{game_id}/moves", json={"move": "5"})
    assert app.extensions["arena"].runner.state_of(hints_job_key(game_id)) == "idle"  # nothing was asked of the workers
    answer = client.post("/api/games", json={"game": "nim", "opponent": {"type": "friend"}, "options": {"hints": 1}})
    assert_error(answer, 400, "bad_game")


def test_hints_come_on_later_when_both_people_ask(app, client):
    game_id, first, second = friend_game(app)
    asked = client.post(f"/api/games/{game_id}/hints", json={"on": True, "token": first}).json
    assert asked["options"]["hints"] is False and asked["options"]["hints_asked_by"] == 0
    again = client.post(f"/api/games/{game_id}/hints", json={"on": True, "token": first}).json
    assert again["version"] == asked["version"]  # asking twice changes nothing
    agreed = client.post(f"/api/games/{game_id}/hints", json={"on": True, "token": second}).json
    assert agreed["options"]["hints"] is True and agreed["options"]["hints_asked_by"] is None
    off = client.post(f"/api/games/{game_id}/hints", json={"on": False, "token": second}).json
    assert off["options"]["hints"] is False
    assert_error(app.test_client().post(f"/api/games/{game_id}/hints", json={"on": True}), 403, "bad_token")
    assert_error(client.post(f"/api/games/{game_id}/hints", json={"on": "yes", "token": first}), 400, "bad_request")


def test_against_the_engine_the_player_turns_hints_on_alone(app, client):
    created = create(client, {"game": "nim", "options": {"piles": [3, 4, 5]}, "side": 0,
                              "opponent": {"type": "engine", "level": 1}})
    watcher = connect(app)
    watcher.emit("join", {"game_id": created["id"]})
    state = client.post(f"/api/games/{created['id']}/hints", json={"on": True}).json
    assert state["options"]["hints"] is True
    assert hints_heard(watcher, 0)["how"] == "exact"


def test_hints_worked_out_while_a_client_joins_reach_it_after_its_state(hand_arena: HandArena):
    """The hints are stored and sent with the game's lock held, as the join is: hints handed over the moment the
    client enters the room reach it after its ``state``, not before."""
    arena, runner = hand_arena.arena, hand_arena.runner
    game_id, _, _ = arena.creation.create(check_new_game({"game": "tictactoe", "side": 0, "options": {"hints": True},
                                                          "opponent": {"type": "friend", "open": True}}))
    (job, on_event), = [submitted for submitted in runner.submitted if submitted[0].key == hints_job_key(game_id)]
    worked_out = threading.Thread(target=on_event, args=(job, {"kind": "final", "hints": move_hints(job.state)}))
    entered: list[int] = []

    def enter_room() -> None:
        entered.append(len(hand_arena.emitted))
        worked_out.start()
        worked_out.join(timeout=0.5)  # the hints wait for the game's lock unless the join's order is broken

    arena.membership.join(game_id, "sid-1", 0, enter_room)
    worked_out.join()
    received = [event for event, _, to in hand_arena.emitted[entered[0]:] if to in ("sid-1", game_id)]
    assert [event for event in received if event != "watchers"] == ["state", "hints"]
    assert hand_arena.payloads("hints")[-1]["ply"] == 0
