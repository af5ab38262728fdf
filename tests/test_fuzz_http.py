"""Property-based tests of every HTTP route with generated input (hypothesis, Flask test client): random JSON of
every type, size, nesting and alphabet, near-valid bodies with one field wrong, raw bytes, wrong tokens and
cookies, wrong methods. Never a 500 or an unhandled exception (the app runs with ``TESTING``, so one would reach
the test); every error under ``/api`` is ``{error, message}`` with the status of its code; and a refused request
changes nothing: the game's GET payload, its stored rows and the set of stored games are the same afterwards."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from support.fakes import ThreadRunner
from support.fuzz_strategies import (
    GAME_KINDS,
    TOKEN_KINDS,
    arbitrary_json,
    create_bodies,
    game_ids,
    make_games,
    move_texts,
    snapshot,
    stored_ids,
    token_for,
)
from support.servers import GENEROUS_LIMITS

from webapp.errors import ErrorCode

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ACTIONS = ("moves", "seats", "resign", "takeback", "rematch", "stop")


@pytest.fixture(scope="module")
def fuzz_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One app for the whole module (hypothesis runs many examples per test), engine-against-engine games paced
    a minute apart so a generated valid ``engines`` game costs next to nothing."""
    from webapp import create_app

    instance = tmp_path_factory.mktemp("fuzz_http") / "instance"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ARENA_INSTANCE", str(instance))
        for name in ("DATABASE_URL", "SECRET_KEY", "SOCKETIO_MESSAGE_QUEUE", "ARENA_SEARCH_QUEUE"):
            patch.delenv(name, raising=False)
        app = create_app({"TESTING": True, "ARENA_WORKERS": 1, "ARENA_PACE": 60, **GENEROUS_LIMITS},
                         runner=ThreadRunner())
    yield app
    app.extensions["arena"].close()


def check_answer(response: Any, path: str, method: str = "POST") -> None:
    """No server error; an API error has the documented body (none for HEAD) and the status of its code."""
    assert response.status_code < 500, (path, response.status_code, response.get_data(as_text=True)[:300])
    if path.startswith("/api/") and response.status_code >= 400 and method != "HEAD":
        body = response.get_json(silent=True)
        assert isinstance(body, dict) and set(body) == {"error", "message"}, (path, response.get_data()[:300])
        assert ErrorCode(body["error"]).status == response.status_code, (path, body)
        assert isinstance(body["message"], str) and body["message"]


action_bodies = st.one_of(
    arbitrary_json(),
    st.fixed_dictionaries({}, optional={"move": move_texts, "token": st.sampled_from(TOKEN_KINDS) | arbitrary_json(),
                                        "game_id": game_ids, "seat": arbitrary_json(),
                                        "stop_code": arbitrary_json()}),
)


@FUZZ
@given(action=st.sampled_from(ACTIONS), kind=st.sampled_from(GAME_KINDS), body=action_bodies,
       cookie=st.sampled_from(TOKEN_KINDS))
def test_game_actions_with_generated_bodies_and_tokens(fuzz_app, action, kind, body, cookie):
    games = make_games(fuzz_app)
    game_id = games.ids[kind]
    if isinstance(body, dict) and body.get("token") in TOKEN_KINDS:
        token = token_for(body["token"], kind, games.ids, games.tokens, fuzz_app.config["SECRET_KEY"])
        body = {name: value for name, value in body.items() if name != "token"}
        if token is not None:
            body["token"] = token
    client = fuzz_app.test_client()
    held = token_for(cookie, kind, games.ids, games.tokens, fuzz_app.config["SECRET_KEY"])
    if isinstance(held, str):
        client.set_cookie(f"arena_seat_{game_id}", held)
    before = snapshot(fuzz_app, games)
    path = f"/api/games/{game_id}/{action}"
    response = client.post(path, json=body)
    check_answer(response, path)
    if response.status_code >= 400:
        assert snapshot(fuzz_app, games) == before, (path, body, response.get_json())


@settings(FUZZ, max_examples=200)
@given(body=create_bodies())
@example(body={"game": "chess", "setup": "1. e4 (e5) ) d5", "opponent": {"type": "friend"}})
def test_creating_with_generated_bodies(fuzz_app, body):
    before = stored_ids(fuzz_app)
    response = fuzz_app.test_client().post("/api/games", json=body)
    check_answer(response, "/api/games")
    after = stored_ids(fuzz_app)
    event(f"create: {response.status_code} {(response.get_json() or {}).get('error', '')}")
    if response.status_code >= 400:
        assert after == before, (body, response.get_json())
    else:
        assert response.status_code == 201 and sorted([*before, response.get_json()["id"]]) == after


raw_bodies = st.one_of(
    st.binary(max_size=300),
    st.text(max_size=300).map(str.encode),
    st.integers(min_value=1, max_value=8_000).map(lambda depth: b"[" * depth + b"]" * depth),
    st.integers(min_value=1, max_value=2_700).map(lambda depth: b'{"a":' * depth + b"1" + b"}" * depth),
    st.integers(min_value=16_000, max_value=40_000).map(lambda size: b'{"setup": "' + b"x" * size + b'"}'),
    st.sampled_from([b"NaN", b"Infinity", b'{"game": NaN}', b"1" * 5000, b'{"move": "5", "move": 5}',
                     b"\xef\xbb\xbf{}"]),
)
content_types = st.sampled_from(["application/json", "text/plain", "application/x-www-form-urlencoded",
                                 "multipart/form-data; boundary=x", "application/json; charset=latin-1", ""])


@FUZZ
@given(route=st.sampled_from(("", *ACTIONS)), kind=st.sampled_from(GAME_KINDS), data=raw_bodies,
       content_type=content_types)
def test_raw_bodies_of_any_bytes_size_nesting_and_content_type(fuzz_app, route, kind, data, content_type):
    games = make_games(fuzz_app)
    path = f"/api/games/{games.ids[kind]}/{route}" if route else "/api/games"
    before = snapshot(fuzz_app, games)
    response = fuzz_app.test_client().post(path, data=data, content_type=content_type)
    check_answer(response, path)
    if response.status_code >= 400:
        assert snapshot(fuzz_app, games) == before


path_texts = st.text(min_size=1, max_size=60).filter(lambda text: text not in (".", ".."))


@FUZZ
@given(method=st.sampled_from(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]),
       template=st.sampled_from(["/api/games", "/api/games/{id}", "/api/games/{id}/positions/{ply}",
                                 "/api/games/{id}/searches/{ply}", "/api/games/{id}/pgn",
                                 *(f"/api/games/{{id}}/{action}" for action in ACTIONS), "/api/{text}",
                                 "/", "/g/{id}", "/lab?game={text}&setup={text}", "/vendor/{text}",
                                 "/chess/pieces/{text}.svg"]),
       kind=st.sampled_from(GAME_KINDS), text=path_texts,
       ply=st.integers(min_value=-3, max_value=10**30) | path_texts)
def test_every_route_and_method_with_generated_paths(fuzz_app, method, template, kind, text, ply):
    games = make_games(fuzz_app)
    game_id = games.ids[kind] if text.isascii() and text.isalnum() else text
    path = template.format(id=quote(game_id, safe=""), text=quote(text, safe=""), ply=quote(str(ply), safe=""))
    before = snapshot(fuzz_app, games)
    response = fuzz_app.test_client().open(path, method=method)
    check_answer(response, path, method)
    if response.status_code >= 400 or method in ("GET", "HEAD", "OPTIONS"):
        assert snapshot(fuzz_app, games) == before, (method, path)

