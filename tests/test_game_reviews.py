"""Reviews of finished games through the web app: asked over HTTP, run on the engine workers, stored once, and
equal to what ``python -m engine review`` prints for the same moves."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
import threading
from typing import Any

from support.fakes import HandArena
from support.helpers import assert_error, connect, friend_game
from support.waiting import eventually

from engine.games import new_game
from webapp.search.jobs import SearchJob
from webapp.validation import check_new_game

REVIEW_WAIT = 120.0


def play(app, game_id: str, tokens: list[str], moves: list[str]) -> None:
    client = app.test_client()
    for index, move in enumerate(moves):
        answer = client.post(f"/api/games/{game_id}/moves", json={"move": move, "token": tokens[index % 2]})
        assert answer.status_code == 200, answer.json


def wait_for_review(client, game_id: str, status: str = "done") -> dict:
    def review_reached() -> dict | None:
        review = client.get(f"/api/games/{game_id}/review").json
        return review if review["status"] == status else None

    return eventually(review_reached, f"the review of {game_id} reaching {status!r}", REVIEW_WAIT)


def command_line_verdicts(game: str, moves: list[str]) -> list[dict]:
    printed = subprocess.run([sys.executable, "-m", "engine", "review", game, "--moves", " ".join(moves), "--json"],
                             capture_output=True, text=True, check=True).stdout
    return [json.loads(line) for line in printed.splitlines()]


def test_a_finished_game_is_reviewed_once_as_the_command_line_reviews_it(app, client):
    game_id, first, second = friend_game(app)
    moves = ["5", "2", "1", "9", "3", "7", "4", "6", "8"]  # errors on both sides, then a full board
    assert_error(client.post(f"/api/games/{game_id}/review", json={}), 409, "not_allowed")  # still being played
    play(app, game_id, [first, second], moves)
    assert client.get(f"/api/games/{game_id}").json["status"] == "finished"
    assert client.get(f"/api/games/{game_id}/review").json == {"game_id": game_id, "status": "none"}
    started = client.post(f"/api/games/{game_id}/review", json={})
    assert started.status_code == 202 and started.json["status"] in ("running", "done")
    again = client.post(f"/api/games/{game_id}/review", json={})
    assert again.status_code == 202 and again.json["status"] in ("running", "done")
    review = wait_for_review(client, game_id)
    assert review["verdicts"] == command_line_verdicts("tictactoe", moves)
    assert [(verdict["verdict"], verdict["before"], verdict["after"], verdict["best"])
            for verdict in review["verdicts"]][1:5] == [
        ("threw away a draw", "draw", "loss in 3", "1"), ("best", "win in 3", "win in 3", None),
        ("best", "loss in 2", "loss in 2", None), ("threw away a win", "win in 2", "draw", "7")]
    assert review["summaries"] == [  # X kept the best result in 3 of 5 moves, O in 2 of 4
        {"moves": 5, "accuracy": 60.0, "counted": 5, "method": "best result kept", "kept": 3, "plies_given": 0,
         "average_loss": None},
        {"moves": 4, "accuracy": 50.0, "counted": 4, "method": "best result kept", "kept": 2, "plies_given": 0,
         "average_loss": None}]
    assert app.test_client().get(f"/api/games/{game_id}/review").json == review  # the same for everyone
    store = app.extensions["arena"].store
    assert not store.reviews.claim(game_id, dt.datetime.now(dt.UTC))  # done: never started again


def test_a_review_is_cancelled_and_asked_for_again(app, client):
    game_id, first, second = friend_game(app)
    play(app, game_id, [first, second], ["5", "1", "9", "3", "7", "2"])
    client.post(f"/api/games/{game_id}/resign", json={"token": first})
    assert_error(client.post(f"/api/games/{game_id}/review/cancel", json={}), 409, "not_allowed")
    reviews = app.extensions["arena"].reviews
    runner = app.extensions["arena"].runner
    # The one engine worker busy with a search that runs until cancelled: the review waits for it.
    runner.submit(SearchJob(0, "hog", 0, 0, new_game("nim", piles=[9, 9, 9, 9]),
                            {"depth": None, "time": 60.0, "algorithm": "minimax"}), lambda job, info: None)
    assert client.post(f"/api/games/{game_id}/review", json={}).json["status"] == "running"
    assert client.post(f"/api/games/{game_id}/review/cancel", json={}).json["status"] == "cancelled"
    assert client.get(f"/api/games/{game_id}/review").json["status"] == "cancelled"
    runner.cancel("hog", "the test is done with it")
    client.post(f"/api/games/{game_id}/review", json={})
    assert len(wait_for_review(client, game_id)["verdicts"]) == 6
    assert game_id not in reviews._runs


def test_bad_review_requests_change_nothing(app, client):
    assert_error(client.get("/api/games/nope/review"), 404, "not_found")
    game_id, _, _ = friend_game(app)
    assert_error(client.post(f"/api/games/{game_id}/review", json={"depth": 30}), 400, "bad_request")
    assert client.get(f"/api/games/{game_id}/review").json["status"] == "none"


def test_a_position_of_a_finished_game_is_analysed(app, client):
    game_id, first, second = friend_game(app)
    assert_error(client.post(f"/api/games/{game_id}/positions/0/analysis", json={}), 409, "not_allowed")
    play(app, game_id, [first, second], ["5", "2", "1"])
    client.post(f"/api/games/{game_id}/resign", json={"token": second})
    assert_error(client.post(f"/api/games/{game_id}/positions/9/analysis", json={}), 404, "not_found")
    watcher = connect(app, join=game_id)  # a spectator in the game's room hears the answer
    answer = client.post(f"/api/games/{game_id}/positions/1/analysis", json={})
    assert answer.status_code == 202 and answer.json == {"game_id": game_id, "ply": 1, "status": "running"}
    payload = watcher.next("analysis", timeout=REVIEW_WAIT)
    assert payload["status"] == "done" and payload["how"] == "exact" and payload["value"] == "draw"
    assert payload["best"] in ("1", "3", "7", "9")  # after X takes the centre only a corner holds the draw


def test_only_the_address_that_asked_may_cancel_a_review(app, client):
    """A chess game's review (a search of every position) is running; another address cannot stop it, the one
    that asked can."""
    created = client.post("/api/games", json={"game": "chess", "opponent": {"type": "friend", "open": True},
                                              "side": 0}).json
    game_id = created["id"]
    black = app.test_client().post(f"/api/games/{game_id}/seats", json={}).json["token"]
    play(app, game_id, [created["token"], black], ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"])
    assert client.post(f"/api/games/{game_id}/review", json={}).json["status"] == "running"
    other = app.test_client().post(f"/api/games/{game_id}/review/cancel", json={},
                                   environ_base={"REMOTE_ADDR": "127.0.0.2"})
    assert_error(other, 403, "forbidden")
    assert client.get(f"/api/games/{game_id}/review").json["status"] == "running"
    assert client.post(f"/api/games/{game_id}/review/cancel", json={}).json["status"] == "cancelled"
    assert client.get(f"/api/games/{game_id}/review").json["status"] == "cancelled"


def test_a_progress_stored_as_a_cancel_comes_leaves_the_review_cancelled(hand_arena: HandArena):
    """A position's result arrives as the review is cancelled: the cancel, which waits for the progress being
    stored, has the last word, in the store and in the room."""
    arena, runner = hand_arena.arena, hand_arena.runner
    game_id, _, _ = arena.creation.create(check_new_game({"game": "tictactoe", "opponent": {"type": "friend"}}))
    arena.reviews.start(game_id, new_game("tictactoe"), ["5", "1"], "127.0.0.1")
    records = arena.store.reviews
    store_status = records.save
    cancel = threading.Thread(target=arena.reviews.cancel, args=(game_id, "127.0.0.1"))

    def cancel_while_storing(game: str, status: str, result: dict[str, Any] | None = None) -> None:
        if status == "running" and cancel.ident is None:  # the first progress only
            cancel.start()
            cancel.join(timeout=2)  # the cancel ends here unless the progress holds the review's lock
        store_status(game, status, result)

    records.save = cancel_while_storing
    job, handler = runner.submitted[0]
    handler(job, {"kind": "final", "view": {"exact": None, "score": 0, "score_text": "+0", "best": "1"}})
    cancel.join()
    assert arena.reviews.status(game_id)["status"] == "cancelled"
    assert [payload["status"] for payload in hand_arena.payloads("review")][-1] == "cancelled"
