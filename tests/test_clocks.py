"""Game clocks: time controls in the API, each side's time stored with its moves, flag falls with the right
result, the engine thinking on its own clock, and clocks kept across a SIGKILL of the server."""

from __future__ import annotations

import time

import pytest
from support.helpers import assert_error, create, wait_for_end, wait_for_turn
from support.servers import GENEROUS_CONNECTIONS, LiveServer

from engine.games import new_game
from webapp.errors import ArenaError
from webapp.game_clocks import TIMEOUT, TIMEOUT_DRAW, Clocks, TimeControl, clocks_of, result_on_time
from webapp.store import StoredMove
from webapp.validation import check_new_game

pytestmark = pytest.mark.servers


def friend_game(app, client, clock: dict | None, game: str = "tictactoe") -> tuple[str, object]:
    """A friend game with ``clock``; returns its id and the friend's test client (seat 1)."""
    created = create(client, {"game": game, "opponent": {"type": "friend"}, "side": 0, "clock": clock})
    friend = app.test_client()
    taken = friend.post(f"/api/games/{created['id']}/seats", json={"invite": created["invite"]})
    assert taken.status_code == 200
    return created["id"], friend


def test_time_controls_are_checked():
    def clock_of(clock: object) -> TimeControl | None:
        return check_new_game({"game": "nim", "opponent": {"type": "friend"}, "clock": clock}).clock

    assert clock_of(None) is None
    assert clock_of({"minutes": 3, "increment": 2}) == TimeControl(3.0, 2)
    assert clock_of({"minutes": 0.25, "increment": 0}).initial_ms == 15_000
    for bad in ({"minutes": 0.1, "increment": 0}, {"minutes": 181, "increment": 0}, {"minutes": 5},
                {"minutes": 5, "increment": 61}, {"minutes": 5, "increment": 1.5}, {"minutes": True, "increment": 0},
                {"minutes": "5", "increment": 0}, [5, 0], {"minutes": 5, "increment": 0, "delay": 1}):
        with pytest.raises(ArenaError, match=r"^clock") as caught:
            clock_of(bad)
        assert caught.value.code == "bad_game"


def test_clocks_follow_the_stored_moves():
    control = TimeControl(1.0, 2)
    moves = [StoredMove(1, "5", 0, clock_ms=60_000), StoredMove(2, "1", 1, clock_ms=60_000),
             StoredMove(3, "9", 0, clock_ms=50_500)]
    clocks = clocks_of(control, moves, to_move=1, turn_started=1000.0)
    assert clocks == Clocks(control, (50_500, 60_000), 1, 1000.0)
    assert clocks.left_at(1010.25) == (50_500, 49_750)
    assert clocks.falls_at() == 1060.0 and not clocks.has_fallen(1059.9) and clocks.has_fallen(1060.0)
    assert clocks.after_move(1, 4, 1010.25) == 49_750 + 2000  # spent time out, increment in
    assert clocks_of(control, moves[:1], to_move=1, turn_started=1000.0).running is None  # not before ply 2
    assert clocks_of(control, moves, to_move=None, turn_started=None, fallen=1).left_ms == (50_500, 0)
    assert clocks.to_payload(1010.25) == {"minutes": 1.0, "increment": 2, "left_ms": [50_500, 49_750],
                                          "running": 1}


def test_the_engine_plans_its_time_on_its_own_clock():
    clocks = Clocks(TimeControl(1.0, 0), (60_000, 60_000), 1, 0.0)
    assert clocks.engine_seconds(1, 0.0) == pytest.approx(60 / 30 - 0.3)
    assert clocks.engine_seconds(1, 59.9) == pytest.approx(0.05)  # almost out: the least it gets
    with_increment = Clocks(TimeControl(3.0, 2), (180_000, 4_000), 1, 0.0)
    assert with_increment.engine_seconds(1, 0.0) == pytest.approx(4 / 30 + 1.5 - 0.3)
    nearly_out = Clocks(TimeControl(3.0, 2), (180_000, 2_000), 1, 0.0)
    assert nearly_out.engine_seconds(1, 0.0) == pytest.approx(1.0 - 0.3)  # never above half of what is left


def test_a_fallen_clock_is_a_draw_when_the_other_side_cannot_mate():
    bare_king = new_game("chess", "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1")  # White: K+P, Black: a lone king
    assert result_on_time(bare_king, 0) == (None, TIMEOUT_DRAW)  # a lone king cannot mate
    assert result_on_time(bare_king, 1) == (0, TIMEOUT)
    assert result_on_time(new_game("tictactoe"), 1) == (0, TIMEOUT)


def test_a_new_game_takes_a_time_control(app, client):
    game_id, _ = friend_game(app, client, {"minutes": 3, "increment": 2})
    state = client.get(f"/api/games/{game_id}").json
    assert state["options"]["clock"] == {"minutes": 3.0, "increment": 2}
    assert state["clock"] == {"minutes": 3.0, "increment": 2, "left_ms": [180_000, 180_000], "running": None}
    assert client.get(f"/api/games/{create(client)['id']}").json["clock"] is None
    answer = client.post("/api/games", json={"game": "nim", "opponent": {"type": "friend"}, "side": 0,
                                             "clock": {"minutes": 0, "increment": 0}})
    assert_error(answer, 400, "bad_game")
    engines = client.post("/api/games", json={"game": "nim", "opponent": {"type": "engines", "levels": [1, 2]},
                                              "clock": {"minutes": 1, "increment": 0}})
    assert_error(engines, 400, "bad_game")


def test_the_pgn_has_each_players_time_left(app, client):
    game_id, friend = friend_game(app, client, {"minutes": 3, "increment": 2}, game="chess")
    for mover, move in ((client, "e4"), (friend, "e5"), (client, "Nf3")):
        assert mover.post(f"/api/games/{game_id}/moves", json={"move": move}).status_code == 200
    pgn = client.get(f"/api/games/{game_id}/pgn").get_data(as_text=True)
    assert "1. e4 { [%clk 0:03:00] } 1... e5 { [%clk 0:03:00] } 2. Nf3 { [%clk 0:03:0" in pgn


def test_clocks_run_from_the_third_move_and_gain_the_increment(app, client, clock):
    game_id, friend = friend_game(app, client, {"minutes": 1, "increment": 2})
    assert client.post(f"/api/games/{game_id}/moves", json={"move": "5"}).json["clock"]["running"] is None
    clock.advance(5)  # the first two moves cost nothing
    after_two = friend.post(f"/api/games/{game_id}/moves", json={"move": "1"}).json
    assert after_two["clock"]["left_ms"] == [60_000, 60_000] and after_two["clock"]["running"] == 0
    clock.advance(0.3)  # White thinks
    after_three = client.post(f"/api/games/{game_id}/moves", json={"move": "9"}).json
    assert after_three["clock"]["left_ms"] == [60_000 - 300 + 2000, 60_000] and after_three["clock"]["running"] == 1
    assert after_three["history"][-1]["move"] == "9"


def test_a_clock_falls_without_anyone_asking(app, client, clock):
    game_id, friend = friend_game(app, client, {"minutes": 0.25, "increment": 0})
    client.post(f"/api/games/{game_id}/moves", json={"move": "5"})
    friend.post(f"/api/games/{game_id}/moves", json={"move": "1"})
    client.post(f"/api/games/{game_id}/moves", json={"move": "9"})  # now the friend's clock runs; nobody moves
    clock.advance(14.9)
    assert client.get(f"/api/games/{game_id}").json["status"] == "active"
    clock.advance(0.2)
    state = wait_for_end(client, game_id)
    assert state["result"] == {"winner": 0, "reason": TIMEOUT}
    assert state["clock"]["left_ms"][1] == 0 and state["clock"]["running"] is None
    assert_error(friend.post(f"/api/games/{game_id}/moves", json={"move": "2"}), 409, "game_over")


def test_the_engine_thinks_on_its_own_clock(app, client):
    """An engine told to think 20 s a move plays within its clock's budget (15 s for the game) instead."""
    created = create(client, {"game": "chess", "opponent": {"type": "engine", "time": 20}, "side": 0,
                              "setup": "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9",
                              "clock": {"minutes": 0.25, "increment": 0}})
    game_id = created["id"]
    client.post(f"/api/games/{game_id}/moves", json={"move": "a3"})
    assert wait_for_turn(client, game_id, 0)["ply"] == 2
    client.post(f"/api/games/{game_id}/moves", json={"move": "h3"})
    state = wait_for_turn(client, game_id, 0)
    assert state["ply"] == 4 and state["status"] == "active"
    # The 20 s of its settings would have run out its whole clock; its two moves were charged, and cheaply.
    assert 10_000 < state["clock"]["left_ms"][1] < 15_000


def test_clocks_survive_a_sigkill(tmp_path):
    server = LiveServer(tmp_path / "instance", env=GENEROUS_CONNECTIONS).start()
    try:
        created = server.post("/api/games", {"game": "tictactoe", "opponent": {"type": "friend", "open": True},
                                             "side": 0, "clock": {"minutes": 1, "increment": 0}}).json()
        game_id, white = created["id"], created["token"]
        black = server.post(f"/api/games/{game_id}/seats", {}).json()["token"]
        for move, token in (("5", white), ("1", black), ("9", white)):
            assert server.post(f"/api/games/{game_id}/moves", {"move": move, "token": token}).status_code == 200
        time.sleep(1.0)  # Black thinks for a second while the server runs
        read_at = time.time()
        before = server.get(f"/api/games/{game_id}").json()["clock"]
        server.kill()
        time.sleep(4.0)  # the server is down: nobody can move, so nobody is charged
        server.start()
        after = server.get(f"/api/games/{game_id}").json()["clock"]
        up_again = time.time()
    finally:
        server.kill()
    assert after["running"] == 1 and after["left_ms"][0] == before["left_ms"][0]  # White's clock stood still
    # Between the two reads Black is charged for what the server ran of them, never for the 4 s it was down; the
    # time since the last heartbeat before the kill (at most one interval, 1 s) is given back.
    charged = before["left_ms"][1] - after["left_ms"][1]
    assert -1100 <= charged <= (up_again - read_at) * 1000 - 4000, (before, after)


def test_a_crash_right_after_a_move_charges_nobody_for_the_outage(tmp_path):
    """Killed within 50 ms of a move, three times (the clocks run from the third ply): the player whose turn it is
    gets back all the down time (the turn began after the last heartbeat, so the time since the turn began is
    forgiven), is charged at most for the time the server ran before the kill and after the restart, and gets back
    at most the part of the turn that passed before the move's answer read the clock."""
    server = LiveServer(tmp_path / "instance", env=GENEROUS_CONNECTIONS).start()
    try:
        created = server.post("/api/games", {"game": "chess", "opponent": {"type": "friend", "open": True},
                                             "side": 0, "clock": {"minutes": 1, "increment": 0}}).json()
        game_id, tokens = created["id"], [created["token"]]
        tokens.append(server.post(f"/api/games/{game_id}/seats", {}).json()["token"])
        for ply, move in enumerate(("e4", "e5", "Nf3", "Nc6", "Bb5")):
            if ply < 2:
                assert server.post(f"/api/games/{game_id}/moves", {"move": move, "token": tokens[ply]}).ok
                continue
            moved_at = time.time()
            answer = server.post(f"/api/games/{game_id}/moves", {"move": move, "token": tokens[ply % 2]}).json()
            answered_at = time.time()
            server.kill()
            killed_at = time.time()
            on_move = (ply + 1) % 2
            before = answer["clock"]["left_ms"][on_move]
            time.sleep(3.5)  # down longer than DOWN_AFTER_SECONDS: no node ran, nobody's time runs
            started_at = time.time()
            server.start()
            after = server.get(f"/api/games/{game_id}").json()["clock"]
            read_at = time.time()
            assert after["running"] == on_move
            charged = before - after["left_ms"][on_move]
            ran = (killed_at - moved_at) + (read_at - started_at)  # what the server ran of this turn, at most
            # The answer's clock was read some time after the turn began, within the request: that much of the
            # turn, forgiven with the outage, may come back.
            assert -(answered_at - moved_at) * 1000 - 50 <= charged <= ran * 1000 + 50, (ply, before, after, ran)
    finally:
        server.kill()
