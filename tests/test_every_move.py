"""Scoring every move of an engine search: the engine's full-window search (``engine.search.every_move``) and the
web app's ``POST /api/games/<id>/searches/<ply>/every-move`` that runs it on the engine workers."""

from __future__ import annotations

import pytest
from support.helpers import assert_error, connect, wait_for_ply

from engine.game import is_decided
from engine.games import new_game
from engine.search import make_searcher
from engine.search.every_move import score_every_move
from engine.search.info import Limits, SearchOptions

WAIT = 60.0


@pytest.mark.parametrize(("game", "position", "depth"), [
    ("tictactoe", "2", 3), ("nim", "3,4,5", 2), ("nim", "3,4,5", 6), ("connect4", "4444", 4), ("wolves", None, 4)])
def test_every_move_gets_the_exact_score_its_bound_allows(game: str, position: str | None, depth: int) -> None:
    """The same search with a full window for every root move: every score exact, the best move's score the
    search's own, each bound of the plain search holding the exact score (an upper bound is at least it), except
    where the bound is a proven result and the exact score a heuristic one: the plain search then proved more than
    its depth shows (a position solved to the end elsewhere in the search, kept in the transposition table), as
    Nim after 2:4 at depth 6 ("at most a loss in 4", the truth, against an evaluation of 0)."""
    state = new_game(game, position)
    *_, plain = make_searcher(state, Limits(depth=depth), SearchOptions()).search()
    scored = score_every_move(state, depth)
    assert {root.bound for root in scored.root_moves} == {"exact"}
    assert scored.depth == depth and scored.score == plain.score
    exact = {root.move: root.score for root in scored.root_moves}
    assert sorted(exact) == sorted(root.move for root in plain.root_moves)
    for root in plain.root_moves:
        assert root.score is not None
        if is_decided(root.score) and not is_decided(exact[root.move]):
            continue
        if root.bound == "upper":
            assert exact[root.move] <= root.score
        elif root.bound == "lower":
            assert exact[root.move] >= root.score
        else:
            assert exact[root.move] == root.score


def test_only_alpha_beta_is_scored_again() -> None:
    with pytest.raises(ValueError, match="mcts"):
        score_every_move(new_game("tictactoe"), 2, SearchOptions(algorithm="mcts"))


def engine_game(client, body: dict, move: str | None) -> str:
    """A game against the engine, after the human's ``move`` (None: the engine moves first) and the engine's reply."""
    created = client.post("/api/games", json={"side": 0 if move else 1, **body}).json
    if move:
        assert client.post(f"/api/games/{created['id']}/moves",
                           json={"move": move, "token": created["token"]}).status_code == 200
    assert wait_for_ply(client, created["id"], 2 if move else 1)["ply"] == (2 if move else 1)
    return created["id"]


def test_the_web_app_scores_every_move_of_a_stored_search(app, client) -> None:
    game_id = engine_game(client, {"game": "nim", "options": {"piles": [3, 4, 5]},
                                   "opponent": {"type": "engine", "depth": 2, "algorithm": "alphabeta"}}, "1:1")
    record = client.get(f"/api/games/{game_id}/searches/2").json["info"]
    assert any(root["bound"] == "upper" for root in record["root_moves"])
    watcher = connect(app, join=game_id)  # the answer reaches the game's room
    answer = client.post(f"/api/games/{game_id}/searches/2/every-move", json={})
    assert answer.status_code == 202 and answer.json == {"game_id": game_id, "ply": 2, "status": "running"}
    payload = watcher.next("every_move", timeout=WAIT)
    expected = score_every_move(new_game("nim", "2,4,5"), 2)
    assert payload["status"] == "done" and payload["depth"] == payload["asked_depth"] == 2
    assert {move["move"]: move["score"] for move in payload["moves"]} == {
        root.move: root.score for root in expected.root_moves}
    scores = [move["score"] for move in payload["moves"]]
    assert scores == sorted(scores, reverse=True)  # best first
    again = client.post(f"/api/games/{game_id}/searches/2/every-move", json={})
    assert again.status_code == 200 and again.json == payload


def test_moves_without_bounds_to_score_are_refused(app, client) -> None:
    table = engine_game(client, {"game": "tictactoe", "opponent": {"type": "engine", "level": 8}}, None)
    assert_error(client.post(f"/api/games/{table}/searches/1/every-move", json={}), 409, "not_allowed")
    mcts = engine_game(client, {"game": "tictactoe", "opponent": {
        "type": "engine", "algorithm": "mcts", "time": 0.1}}, None)
    assert_error(client.post(f"/api/games/{mcts}/searches/1/every-move", json={}), 409, "not_allowed")
    assert_error(client.post(f"/api/games/{mcts}/searches/2/every-move", json={}), 404, "not_found")
    assert_error(client.post(f"/api/games/{mcts}/searches/1/every-move", json={"depth": 3}), 400, "bad_request")
    assert_error(client.post("/api/games/nope/searches/1/every-move", json={}), 404, "not_found")
