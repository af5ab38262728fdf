"""The analysis board's server side: a node is any position (``GET /api/analysis/<game>`` and the Socket.IO
``analyse``), nothing is stored, the engine's search on it equals ``python -m engine analyse`` with the same
settings, its exact values equal the truth's, a new node stops the old one's events at once, and bad input gets a
clear error and changes nothing."""

from __future__ import annotations

import pytest
from support.helpers import analyse_json, connect
from support.inbox import Inbox, anything, having
from support.waiting import eventually

from engine.game import play_moves
from engine.games import game_class
from engine.search.every_move import score_every_move
from engine.truth import move_values
from webapp.arena.analysis import search_key, truth_key
from webapp.transport.sockets import socketio


def node_event(node: str, game: str, moves: str = "", setup: str = "", **engine) -> dict:
    return {"node": node, "game": game, "setup": setup, "moves": moves,
            "engine": {"on": True, "preset": "everything", **engine}}


def search_final(inbox: Inbox, node: str) -> dict:
    """The final event of the search of ``node``."""
    return inbox.wait_for("analysis_search", lambda payload: payload["node"] == node
                          and payload["info"]["kind"] == "final", timeout=60)["info"]


def test_a_node_over_http_names_its_moves_and_stores_nothing(app, client) -> None:
    answer = client.get("/api/analysis/chess", query_string={"moves": "e2e4 e7e5 g1f3"})
    assert answer.status_code == 200
    node = answer.get_json()
    assert node["shown"] == ["e4", "e5", "Nf3"] and node["ply"] == 3 and node["to_move"] == 1
    assert {"move": "b8c6", "shown": "Nc6"} in node["legal"] and node["outcome"] is None
    assert node["view"]["fen"] == "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
    finished = client.get("/api/analysis/tictactoe", query_string={"moves": "1 4 2 5 3"}).get_json()
    assert finished["outcome"] == {"winner": 0, "reason": finished["outcome"]["reason"]} and finished["legal"] == []
    nim = client.get("/api/analysis/nim", query_string={"setup": "1,3,5 misere"}).get_json()
    assert nim["setup"] == "1,3,5 misere" and nim["position"] == "1,3,5 misere"
    assert app.extensions["arena"].reads.live_games() == []


@pytest.mark.parametrize(("game", "query", "code", "words"), [
    ("checkers", {}, "bad_game", "unknown game"),
    ("chess", {"moves": "e2e4 e2e4"}, "bad_game", "move 2"),
    ("chess", {"setup": "not a fen"}, "bad_game", "FEN"),
    ("connect4", {"moves": " ".join(["4"] * 10_000)}, "bad_request", "at most"),
    ("connect4", {"moves": "4 4 4 4 4 4 4"}, "bad_game", "move 7"),
])
def test_bad_nodes_over_http_are_refused_with_a_reason(client, game: str, query: dict, code: str, words: str) -> None:
    answer = client.get(f"/api/analysis/{game}", query_string=query)
    assert answer.status_code == 400
    assert answer.get_json()["error"] == code and words in answer.get_json()["message"]


def test_the_engine_on_a_node_equals_the_analyse_command(app, capsys: pytest.CaptureFixture[str]) -> None:
    """Tic-tac-toe after 5 1, "+ ordering + TT" to depth 5: the panel's numbers are the command's; the truth judges
    the search as in a game; the node comes first, with the board and the moves as players read them."""
    expected = analyse_json("tictactoe", "51", 5, "tt", capsys)
    inbox = connect(app)
    inbox.emit("analyse", node_event("n1", "tictactoe", "5 1", preset="tt", depth=5))
    final = search_final(inbox, "n1")
    names = [event for event, _ in inbox.read()]
    assert names[0] == "analysis_node"
    node = inbox.read()[0][1]
    assert node["node"] == "n1" and node["moves"] == ["5", "1"] and len(node["legal"]) == 7
    for field in ("nodes", "cutoffs", "pruned", "tt_hits", "score", "best", "depth", "pv"):
        assert final[field] == expected[field], field
    assert final["tree"] is not None  # tic-tac-toe draws its tree
    assert set(final["truth"]) == {entry["move"] for entry in node["legal"]}


@pytest.mark.parametrize(("game", "setup", "moves"), [
    ("tictactoe", "", "5"), ("nim", "1,3,5", "3:2"), ("connect4", "", ""), ("connect4", "", "4 4 3 5 2"),
])
def test_the_exact_values_of_a_node_are_the_truths(app, game: str, setup: str, moves: str) -> None:
    """Every move's exact value, from the empty Connect Four board on, is what ``engine.truth`` says."""
    inbox = connect(app)
    inbox.emit("analyse", node_event("t", game, moves, setup, on=False))
    truth = inbox.wait_for("analysis_truth", having(node="t"), timeout=60)
    cls = game_class(game)
    state = play_moves(cls.from_setup(setup) if setup else cls.initial(), moves.split())
    expected = move_values(state, 30.0)
    assert truth["how"] == "exact" and truth["source"]
    assert {move: hint["value"] for move, hint in truth["moves"].items()} == {
        move: value.text for move, value in expected.items()}
    assert not any(event == "analysis_search" for event, _ in inbox.read())  # the engine was off


def test_chess_has_no_exact_values_and_says_why(app) -> None:
    inbox = connect(app)
    inbox.emit("analyse", node_event("c", "chess", "e2e4", on=False))
    truth = inbox.wait_for("analysis_truth", having(node="c"), timeout=60)
    assert truth["how"] == "unknown" and "chess" in truth["source"] and truth["moves"] == {}


def test_a_new_node_stops_the_old_ones_events_at_once(app) -> None:
    """A search without limits on one node, then another node: once the second node's ``analysis_node`` arrives,
    no event of the first follows; the first's search was cancelled, and the second's runs."""
    inbox = connect(app)
    inbox.emit("analyse", node_event("old", "chess", "e2e4"))
    inbox.wait_for("analysis_search", having(node="old"), timeout=60)
    inbox.emit("analyse", node_event("new", "chess", "d2d4", depth=3))
    search_final(inbox, "new")
    messages = inbox.read()
    switch = next(i for i, (event, payload) in enumerate(messages)
                  if event == "analysis_node" and payload["node"] == "new")
    assert all(payload.get("node") != "old" for _, payload in messages[switch:])
    old_kinds = [payload["info"]["kind"] for event, payload in messages[:switch]
                 if event == "analysis_search" and payload["node"] == "old"]
    assert old_kinds[-1] == "cancelled" and "final" not in old_kinds


def test_leaving_the_page_cancels_its_searches(app) -> None:
    client = connect(app)
    client.emit("analyse", node_event("n", "chess", ""))
    client.wait_for("analysis_search", having(node="n"), timeout=60)
    runner = app.extensions["arena"].runner
    sid = next(sid for sid in socketio.server.manager.rooms["/"][None])  # the test client's only connection
    assert runner.state_of(search_key(sid)) != "idle"
    client.disconnect()
    eventually(lambda: runner.state_of(search_key(sid)) == "idle" and runner.state_of(truth_key(sid)) == "idle",
               "the searches of a closed page cancelled")


def test_analyse_stop_cancels_the_search(app) -> None:
    inbox = connect(app)
    inbox.emit("analyse", node_event("n", "connect4", "4"))
    inbox.wait_for("analysis_search", having(node="n"), timeout=60)
    inbox.emit("analyse_stop", {})
    eventually(lambda: any(event == "analysis_search" and payload["info"]["kind"] == "cancelled"
                           for event, payload in inbox.read()), "the cancelled event")


@pytest.mark.parametrize(("game", "moves"), [("chess", "e2e4 e7e5"), ("connect4", "4 4"), ("tictactoe", "5")])
def test_several_lines_score_every_move_with_a_full_window(app, game: str, moves: str) -> None:
    """Three lines: every root move's score is exact (as ``score_every_move`` has them at that depth), and each
    has its own line, its move first (SAN in chess)."""
    inbox = connect(app)
    inbox.emit("analyse", node_event("l", game, moves, depth=3, lines=3))
    final = search_final(inbox, "l")
    cls = game_class(game)
    state = play_moves(cls.initial(), moves.split())
    expected = score_every_move(state, 3)
    assert {row["move"]: row["score"] for row in final["root_moves"]} == {
        row.move: row.score for row in expected.root_moves}
    for row in final["root_moves"]:
        assert row["bound"] == "exact" and row["pv"][0] == row["move"]
        assert (row["pv_text"] is not None) == (game == "chess")
    if game == "chess":
        assert all(row["pv_text"][0] == row["text"] for row in final["root_moves"])


SCHOLARS_THREAT = "e2e4 e7e5 d1h5 b8c6 f1c4"
"""Black to move; every move but g6, Qe7, Qf6 (and the like) allows Qxf7 mate."""


def check_event(node: str, answer: str, value: int = -30, better: str | None = "g7g6", **changes) -> dict:
    return {"node": node, "game": "chess", "setup": "", "moves": SCHOLARS_THREAT, "answer": answer,
            "value": value, "better": better, **changes}


def test_a_chess_answer_is_judged_as_the_review_would_judge_it(app) -> None:
    """The review's own choice is right ("best"); a move allowing mate in one is a blunder, its win chance 0 %;
    the answer may be written in SAN; opening another node meanwhile does not stop the check."""
    inbox = connect(app)
    inbox.emit("exercise_check", check_event("e", "g6"))
    inbox.emit("analyse", node_event("other", "chess", "d2d4", on=False))
    right = inbox.wait_for("exercise_verdict", having(answer="g7g6"), timeout=60)
    assert right["node"] == "e" and right["right"] is True and right["verdict"]["verdict"] == "best"
    assert right["verdict"]["move_shown"] == "g6" and right["searched"] == "a search of 0.5 s (up to depth 64)"
    inbox.emit("exercise_check", check_event("e", "a7a6"))
    wrong = inbox.wait_for("exercise_verdict", having(answer="a7a6"), timeout=60)
    assert wrong["right"] is False and wrong["verdict"]["verdict"] == "blunder"
    assert wrong["verdict"]["after"] == "loss in 1" and wrong["verdict"]["win_after"] == 0.0
    assert wrong["verdict"]["win_before"] == 47.2  # the review's value, -30 centipawns, as a win chance


@pytest.mark.parametrize(("event", "payload", "code"), [
    ("analyse", node_event("x", "checkers"), "bad_game"),
    ("analyse", node_event("x", "chess", "e2e5"), "bad_game"),
    ("analyse", node_event("x", "chess", setup="8/8/8 w - - 0 1"), "bad_game"),
    ("analyse", node_event("x", "chess", preset="mcts"), "bad_request"),
    ("analyse", node_event("x", "chess", preset="nonsense"), "bad_request"),
    ("analyse", node_event("x", "chess", depth=0), "bad_request"),
    ("analyse", {**node_event("x", "chess"), "extra": 1}, "bad_request"),
    ("analyse", node_event("", "chess"), "bad_request"),
    ("analyse", node_event("x", "connect4", " ".join(["4"] * 2000)), "bad_request"),
    ("analyse", "not an object", "bad_request"),
    ("exercise_check", check_event("x", "e7e4"), "bad_game"),
    ("exercise_check", check_event("x", "g6", better="h1h8"), "bad_game"),
    ("exercise_check", {**check_event("x", "g6"), "game": "connect4", "moves": "4", "answer": "4"}, "bad_game"),
    ("exercise_check", check_event("x", "g6", value="much"), "bad_request"),
    ("exercise_check", {**check_event("x", "g6"), "extra": 1}, "bad_request"),
    ("exercise_check", {key: value for key, value in check_event("x", "g6").items() if key != "value"}, "bad_request"),
    ("exercise_check", check_event("x", "g6", moves=" ".join(["e2e4"] * 1000)), "bad_request"),
])
def test_bad_events_are_refused_with_a_reason_and_change_nothing(app, event: str, payload: object, code: str) -> None:
    inbox = connect(app)
    inbox.emit(event, payload)
    error = inbox.wait_for("error", anything, timeout=10)
    assert error["code"] == code and error["event"] == event and error["message"]
    assert [name for name, _ in inbox.read()] == ["error"]
