"""Search records: every engine move keeps the final ``search`` event the room received, for late joiners, the
move list and ``GET /api/games/<id>/searches/<ply>``; a takeback removes them; a big tree is cut to the cap."""

from __future__ import annotations

import io
import json
import threading

import chess.pgn
from support.fakes import HandArena
from support.helpers import connect
from support.inbox import Inbox

from engine.games import new_game
from webapp.clock import SYSTEM_CLOCK
from webapp.search.execution import run_job
from webapp.search.jobs import SearchJob
from webapp.search.records import RECORD_MAX_BYTES, encode_record, fit_info
from webapp.validation import check_new_game

NIM = {"game": "nim", "options": {"piles": [3, 4, 5]},
       "opponent": {"type": "engine", "depth": 6, "algorithm": "alphabeta"}, "side": 0}
"""A Nim game whose player moves first, so that the engine's first search starts after the player has joined."""


def streamed_finals(inbox: Inbox, count: int) -> list[dict]:
    return [inbox.next("search", lambda message: message["info"]["kind"] == "final") for _ in range(count)]


ENGINE_PLIES = (2, 4)
"""The plies of the engine's moves the tests play to: taking one counter at a time from piles 3, 4 and 5, nobody
can take the last counter before ply 5."""


def taking_one(state: dict) -> str:
    """A legal move of ``state`` that takes one counter."""
    return next(move for move in state["legal_moves"] if move.endswith(":1"))


def test_every_engine_move_keeps_the_final_event_the_room_received(app):
    client = app.test_client()
    created = client.post("/api/games", json=NIM).json
    game_id, token = created["id"], created["token"]
    player = connect(app, token)
    player.emit("join", {"game_id": game_id})
    state = player.next("state")
    finals = []
    for engine_ply in ENGINE_PLIES:
        player.emit("move", {"game_id": game_id, "move": taking_one(state)})
        finals += streamed_finals(player, 1)
        state = player.next("moved", lambda moved, ply=engine_ply: moved["ply"] == ply)["state"]
    for move_ply, streamed in zip(ENGINE_PLIES, finals, strict=True):
        stored = client.get(f"/api/games/{game_id}/searches/{move_ply}")
        assert stored.status_code == 200 and stored.json == streamed
        assert stored.json["ply"] == move_ply - 1 and stored.json["seat"] == 1
        depths = [iteration["depth"] for iteration in stored.json["info"]["iterations"]]
        assert depths == list(range(1, stored.json["info"]["depth"] + 1))
        assert stored.json["info"]["iterations"][-1]["best"] == stored.json["info"]["best"]
    assert "token" not in json.dumps(finals)


def test_a_late_joiner_sees_the_last_engine_search_and_a_takeback_removes_it(app):
    client = app.test_client()
    created = client.post("/api/games", json=NIM | {"options": {"piles": [3, 4, 5], "takeback": True}}).json
    game_id, token = created["id"], created["token"]
    player = connect(app, token)
    player.emit("join", {"game_id": game_id})
    state = player.next("state")
    for engine_ply in ENGINE_PLIES:
        player.emit("move", {"game_id": game_id, "move": taking_one(state)})
        state = player.next("moved", lambda moved, ply=engine_ply: moved["ply"] == ply)["state"]
    last = client.get(f"/api/games/{game_id}/searches/4").json

    late = connect(app)
    late.emit("join", {"game_id": game_id})
    late.next("state")
    assert late.next("search") == last

    player.emit("takeback", {"game_id": game_id})
    player.next("state", lambda state: state["ply"] == 2)
    assert client.get(f"/api/games/{game_id}/searches/4").status_code == 404
    assert client.get(f"/api/games/{game_id}/searches/2").status_code == 200
    again = connect(app)
    again.emit("join", {"game_id": game_id})
    assert again.next("search")["ply"] == 1


def test_an_engine_move_stored_while_a_client_joins_reaches_it_once_after_its_state(hand_arena: HandArena):
    """The join enters the room with the game's lock held, so the engine's final event, handed over the moment the
    client enters, is stored and sent after the joiner's ``state``: the joiner gets ``state`` (ply 0), then one
    ``final`` and ``moved`` (ply 1), and no replayed record."""
    arena, runner, emitted = hand_arena.arena, hand_arena.runner, hand_arena.emitted
    game_id, _, _ = arena.creation.create(check_new_game(NIM | {"side": 1}))
    entered: list[int] = []
    lock_taken_elsewhere: list[bool] = []
    engine_move = threading.Thread(target=runner.answer, args=({"kind": "final", "best": "3:1", "score": 0,
                                                                "depth": 1},))

    def try_the_lock() -> None:
        lock = arena.cache.find(game_id).lock
        taken = lock.acquire(blocking=False)
        if taken:
            lock.release()
        lock_taken_elsewhere.append(taken)

    def enter_room() -> None:
        entered.append(len(emitted))
        attempt = threading.Thread(target=try_the_lock)
        attempt.start()
        attempt.join()
        engine_move.start()

    arena.membership.join(game_id, "sid-1", 1, enter_room)
    engine_move.join()
    assert lock_taken_elsewhere == [False]
    received = [(event, payload) for event, payload, to in emitted[entered[0]:] if to in ("sid-1", game_id)]
    names = [event for event, _ in received if event != "watchers"]
    assert names == ["state", "search", "moved"]
    payloads = dict(received)
    assert payloads["state"]["ply"] == 0 and payloads["moved"]["ply"] == 1
    assert payloads["search"]["ply"] == 0 and payloads["search"]["info"]["kind"] == "final"


def test_a_person_s_move_and_plies_outside_the_game_have_no_record(app):
    client = app.test_client()
    created = client.post("/api/games", json={"game": "tictactoe", "opponent": {"type": "friend"}}).json
    client.post(f"/api/games/{created['id']}/moves", json={"move": "5", "token": created["token"]})
    for ply in (0, 1, 2, 10**30):
        answer = client.get(f"/api/games/{created['id']}/searches/{ply}")
        assert answer.status_code == 404 and answer.json["error"] == "not_found"
    for path in ("/api/games/nosuchgame/searches/1", f"/api/games/{created['id']}/searches/-1",
                 f"/api/games/{created['id']}/searches/x"):
        assert client.get(path).status_code == 404


def test_a_big_tree_is_cut_where_the_search_ran_and_every_other_field_is_kept():
    state = new_game("nim", piles=[5, 6, 7])
    job = SearchJob(1, "g", 0, 0, state, {"depth": 5, "time": None, "algorithm": "minimax"}, record_tree=3000)

    class Collected:
        def __init__(self):
            self.sent: list[dict] = []

        def send(self, message):
            self.sent.append(message[1])

    results = Collected()
    run_job(job, results, threading.Event(), SYSTEM_CLOCK)
    final = results.sent[-1]
    assert len(encode_record({"game_id": "game id", "ply": 100, "seat": 1, "info": final})) <= RECORD_MAX_BYTES
    tree = final["tree"]
    assert tree["truncated"] and tree["kept_depth"] >= 2

    def height(node):
        return 1 + max((height(child) for child in node["children"]), default=0)

    assert height(tree) == tree["kept_depth"] + 1
    trees = [iteration["tree"] for iteration in final["iterations"]]  # each earlier iteration keeps its own
    assert len(trees) == 5 and trees[-1] is None and all(tree["depth"] == depth for depth, tree in
                                                            enumerate(trees[:-1], start=1))
    whole = dict(final, tree={"children": [], "pruned": []})
    assert fit_info(whole) == whole and fit_info(dict(final, tree=None))["tree"] is None
    message = {"game_id": "g", "ply": 0, "seat": 0, "info": final}
    assert json.loads(encode_record(message)) == message


def test_a_chess_pgn_carries_each_engine_move_s_evaluation_and_depth(app):
    client = app.test_client()
    created = client.post("/api/games", json={"game": "chess", "side": 0, "opponent": {
        "type": "engine", "depth": 3, "algorithm": "alphabeta"}}).json
    game_id, token = created["id"], created["token"]
    player = connect(app, token)
    player.emit("join", {"game_id": game_id})
    player.emit("move", {"game_id": game_id, "move": "e2e4"})
    state = player.next("moved", lambda moved: moved["ply"] == 2)["state"]
    reply = state["history"][1]
    assert reply["depth"] == 3 and state["history"][0]["depth"] is None

    answer = client.get(f"/api/games/{game_id}/pgn")
    assert answer.status_code == 200 and answer.mimetype == "application/x-chess-pgn"
    game = chess.pgn.read_game(io.StringIO(answer.get_data(as_text=True)))
    first, second = list(game.mainline())
    assert first.move.uci() == "e2e4" and first.eval() is None
    assert second.eval().white().score() == -reply["score"] and second.eval_depth() == 3

    other = client.post("/api/games", json={"game": "tictactoe", "opponent": {"type": "friend"}}).json
    refused = client.get(f"/api/games/{other['id']}/pgn")
    assert refused.status_code == 404 and refused.json["error"] == "not_found"


def test_eval_comments_say_mate_in_moves_for_the_side_that_mates():
    from engine.game import WIN
    from engine.games.chess import ChessState

    assert ChessState.eval_comment(35, 12) == "[%eval 0.35,12]"
    assert ChessState.eval_comment(-120) == "[%eval -1.20]"
    assert ChessState.eval_comment(WIN - 5, 9) == "[%eval #2,9]"  # this move, Black, White, Black, White mates
    assert ChessState.eval_comment(-(WIN - 4), 9) == "[%eval #-2,9]"
    assert ChessState.eval_comment(WIN - 1, 9) is None
