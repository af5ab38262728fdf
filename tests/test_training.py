"""The training queue (``/api/me/training``): a browser's own mistakes from its reviewed games become exercises,
due at once; an answer, right or wrong, sends one away for a day; a failed one is due again after the clock moves a
day (a test clock); the success rate counts the answers; another browser's queue is its own; forgetting the history
empties the queue."""

from __future__ import annotations

from support.helpers import assert_error, create
from support.waiting import WAIT, eventually

REVIEWED = ["5", "2", "1", "9", "3", "7", "4", "6", "8"]
"""X (the creator) threw away a win with 3. 3 (ply 5) and a draw with 4. 4 (ply 7)."""


def reviewed_game(app, client, game: str = "tictactoe", moves: list[str] = REVIEWED) -> tuple[str, dict]:
    """A friend game of ``game`` whose creator (``client``, first to move) and friend played ``moves``, reviewed:
    its id and its done review."""
    created = create(client, {"game": game, "opponent": {"type": "friend"}, "side": 0}, alone=False)
    friend = app.test_client().post(f"/api/games/{created['id']}/seats", json={"invite": created["invite"]}).json
    for index, move in enumerate(moves):
        token = created["token"] if index % 2 == 0 else friend["token"]
        assert client.post(f"/api/games/{created['id']}/moves", json={"move": move, "token": token}).status_code == 200
    assert client.post(f"/api/games/{created['id']}/review", json={}).status_code == 202
    review = eventually(lambda: (answer := client.get(f"/api/games/{created['id']}/review").json)["status"] == "done"
                        and answer, "the review", WAIT)
    return created["id"], review


def test_mistakes_come_back_as_exercises(app, client, clock) -> None:
    game_id, _ = reviewed_game(app, client)
    queue = client.get("/api/me/training").json
    assert [(item["ply"], item["move_shown"], item["verdict"]) for item in queue["due"]] == [
        (5, "3", "threw away a win"), (7, "4", "threw away a draw")]
    assert queue["due"][0]["url"] == (f"/analyse/tictactoe?moves=5+2+1+9&exercise=3&better=7&train={game_id}%3A5")
    assert queue["accuracy"] == [{"game_id": game_id, "game": "tictactoe", "title": "Tic-tac-toe",
                                  "created_at": queue["accuracy"][0]["created_at"], "accuracy": 60.0,
                                  "method": "best result kept"}]
    solved = client.post("/api/me/training/result", json={"game_id": game_id, "ply": 5, "right": True}).json
    assert solved["step"] == 1 and solved["solved"] == 1
    failed = client.post("/api/me/training/result", json={"game_id": game_id, "ply": 7, "right": False}).json
    assert failed["step"] == 0 and failed["solved"] == 0 and failed["tries"] == 1
    later = client.get("/api/me/training").json
    assert later["due"] == [] and later["waiting"] == 2
    assert later["rates"] == [{"game": "tictactoe", "title": "Tic-tac-toe", "tries": 2, "solved": 1}]
    clock.advance(24 * 3600 + 1)
    due = client.get("/api/me/training").json["due"]
    assert [(item["ply"], item["step"], item["solved"]) for item in due] == [(5, 1, 1), (7, 0, 0)]
    again = client.post("/api/me/training/result", json={"game_id": game_id, "ply": 5, "right": True}).json
    assert again["step"] == 2  # next after 3 days
    clock.advance(24 * 3600 + 1)
    assert [item["ply"] for item in client.get("/api/me/training").json["due"]] == [7]

    other = app.test_client()
    assert other.get("/api/me/training").json == {"due": [], "waiting": 0, "rates": [], "accuracy": []}
    assert_error(other.post("/api/me/training/result", json={"game_id": game_id, "ply": 7, "right": True}), 404,
                 "not_found")
    assert_error(client.post("/api/me/training/result", json={"game_id": game_id, "ply": 7}), 400, "bad_request")
    assert client.post("/api/me/forget", json={}).json == {"forgotten": 1}
    assert client.get("/api/me/training").json["due"] == []


def test_a_much_slower_win_is_an_exercise_too(app, client) -> None:
    """4. 5 keeps Red's win but in 15 moves where 3 won at once: more than ``SLOW_PLIES`` given away, so the
    review lists it among its exercises (an answer must come within 10 plies of the quickest) and it is due."""
    _, review = reviewed_game(app, client, "connect4", list("47546753554444355222222111111777733"))
    slow = next(exercise for exercise in review["exercises"] if exercise["ply"] == 7)
    assert slow == {"ply": 7, "played": "5", "better": "3", "within": 10, "value": None}
    assert review["verdicts"][6]["verdict"] == "kept the result" and review["verdicts"][6]["after"] == "win in 15"
    due = {item["ply"]: item for item in client.get("/api/me/training").json["due"]}
    assert due[7]["verdict"] == "kept the result" and "&within=10&" in due[7]["url"]
