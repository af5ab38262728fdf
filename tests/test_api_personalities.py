"""Engine personalities in the web app: ``POST /api/games`` accepts, stores and shows them; the worker uses them."""

from __future__ import annotations

import threading

import pytest

from engine.games import new_game
from engine.search import final_event, make_searcher
from engine.search.info import Limits, SearchOptions
from webapp.clock import SYSTEM_CLOCK
from webapp.search.execution import search_events
from webapp.search.jobs import SearchJob

EXPOSED_KING = "r1bqkb1r/pppp1ppp/2n5/4N3/3nP3/8/PPPPKPPP/RNBQ1B1R w kq - 0 5"


def create(client, opponent: dict) -> dict:
    response = client.post("/api/games", json={"game": "chess", "opponent": opponent, "side": 0})
    assert response.status_code == 201, response.json
    return client.get(f"/api/games/{response.json['id']}").json


def test_an_engine_personality_is_stored_and_shown_in_the_seat_label(client):
    state = create(client, {"type": "engine", "level": 5, "personality": "aggressive"})
    assert state["opponent"] == {"type": "engine", "level": 5, "personality": "aggressive"}
    assert state["seats"][1]["label"] == "Engine level 5 · aggressive"
    plain = create(client, {"type": "engine", "depth": 2, "personality": "solid"})
    assert plain["seats"][1]["label"] == "Engine alphabeta · depth 2 · solid"
    assert create(client, {"type": "engine", "level": 5})["seats"][1]["label"] == "Engine level 5"


def test_engines_may_have_one_personality_each(client):
    response = client.post("/api/games", json={"game": "chess", "opponent": {
        "type": "engines", "levels": [1, 1], "personalities": ["solid", None]}})
    assert response.status_code == 201, response.json
    seats = client.get(f"/api/games/{response.json['id']}").json["seats"]
    assert [seat["label"] for seat in seats] == ["Engine level 1 · solid", "Engine level 1"]


@pytest.mark.parametrize(("game", "opponent", "message"), [
    ("chess", {"type": "engine", "level": 5, "personality": "reckless"}, "choose one of balanced, aggressive, solid"),
    ("chess", {"type": "engine", "level": 5, "personality": 3}, "personality must be the name of a style"),
    ("chess", {"type": "engine", "depth": 2, "algorithm": "mcts", "personality": "solid"}, "alphabeta"),
    ("chess", {"type": "engines", "levels": [1, 2], "personalities": ["solid"]}, "two names"),
    ("tictactoe", {"type": "engine", "level": 5, "personality": "solid"}, "tictactoe has no engine personalities"),
    ("nim", {"type": "engines", "levels": [1, 2], "personalities": [None, "solid"]}, "nim has no engine personal"),
])
def test_a_bad_personality_is_400_and_creates_nothing(client, game, opponent, message):
    response = client.post("/api/games", json={"game": game, "opponent": opponent})
    assert response.status_code == 400 and response.json["error"] == "bad_opponent", response.json
    assert message in response.json["message"]
    assert client.get("/api/games").json["games"] == []


@pytest.mark.parametrize("personality", ["aggressive", "solid"])
def test_the_worker_searches_with_the_seats_personality(personality):
    state = new_game("chess", EXPOSED_KING)
    job = SearchJob(1, "g", 0, 0, state, {"level": 1, "personality": personality}, seed=1)
    final = list(search_events(job, threading.Event(), SYSTEM_CLOCK))[-1]
    expected = final_event(make_searcher(state, Limits(depth=1), SearchOptions(personality=personality)).search())
    assert final.final and final.score == expected.score
