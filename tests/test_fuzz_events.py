"""Property-based tests of every Socket.IO event with generated payloads (hypothesis, Flask-SocketIO's test
client): any JSON value, near-valid payloads with one field wrong, extra arguments, every kind of token in the
connect ``auth``, joined or not. Never an unhandled exception (the test client runs the handler in the test's
thread, so one would reach the test); every event is answered (its success event or an ``error``); an ``error``
has a known code, a message and the event's name, and changes nothing: the games' public state, their stored rows
and the set of stored games are the same afterwards."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import event as note
from hypothesis import strategies as st
from support.fakes import ThreadRunner
from support.fuzz_strategies import (
    GAME_KINDS,
    GAMES,
    TOKEN_KINDS,
    arbitrary_json,
    game_ids,
    make_games,
    move_texts,
    setups,
    snapshot,
    stored_ids,
    token_for,
)
from support.inbox import SocketTestClient
from support.servers import GENEROUS_LIMITS

from webapp.errors import ErrorCode
from webapp.transport.sockets import socketio

FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ANSWER_OF_EVENT = {"join": "state", "move": "moved", "resign": "state", "takeback": "state", "rematch": "rematch",
                   "lab_start": "lab_started"}
"""What an accepted event sends to its sender (for game events, when it is in the game's room); ``leave`` and
``lab_stop`` of something absent do nothing."""
GAME_EVENTS = ("join", "leave", "move", "resign", "takeback", "rematch")
HERE = "<the game>"
"""Stands for the id of the example's game in generated payloads."""


@pytest.fixture(scope="module")
def fuzz_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One app for the module, its event rate limit out of the way (the flood test covers it), engine-against-engine
    games paced a minute apart."""
    from webapp import create_app

    instance = tmp_path_factory.mktemp("fuzz_events") / "instance"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ARENA_INSTANCE", str(instance))
        for name in ("DATABASE_URL", "SECRET_KEY", "SOCKETIO_MESSAGE_QUEUE", "ARENA_SEARCH_QUEUE"):
            patch.delenv(name, raising=False)
        app = create_app({"TESTING": True, "ARENA_WORKERS": 1, "ARENA_PACE": 60, "ARENA_EVENT_RATE": 10_000,
                          "ARENA_EVENT_BURST": 100_000, **GENEROUS_LIMITS}, runner=ThreadRunner())
    yield app
    app.extensions["arena"].close()


game_id_fields = st.sampled_from([HERE, HERE, HERE, "other"]).flatmap(lambda kind: st.just(HERE) if kind == HERE
                                                                       else game_ids)
lab_configs = st.fixed_dictionaries({}, optional={
    "preset": st.sampled_from(["minimax", "alphabeta", "ordering", "tt", "iterative", "everything", "mcts", "x"])
    | arbitrary_json(2),
    "depth": st.integers(min_value=0, max_value=65) | arbitrary_json(2),
    "time": st.sampled_from([0.05, 0.01, 1, 31, "", None]) | arbitrary_json(2),
    "playouts": st.integers(min_value=0, max_value=200_001) | arbitrary_json(2),
    "colour": arbitrary_json(2)})
lab_payloads = st.fixed_dictionaries({
    "game": st.sampled_from(GAMES) | arbitrary_json(2), "setup": setups,
    "moves": st.lists(move_texts, max_size=4) | arbitrary_json(3),
    "configs": st.lists(lab_configs, max_size=5) | arbitrary_json(3)})


def exact_payloads(event: str) -> st.SearchStrategy[Any]:
    """Objects with exactly the fields of ``event``, each right or wrong."""
    if event == "lab_start":
        return lab_payloads
    if event == "lab_stop":
        return st.fixed_dictionaries({"run": st.text(max_size=40) | arbitrary_json(2)})
    return st.fixed_dictionaries({"game_id": game_id_fields, **({"move": move_texts} if event == "move" else {})})


def resolve(value: Any, game_id: str) -> Any:
    """``value`` with ``HERE`` replaced by ``game_id`` (at any depth)."""
    if value == HERE:
        return game_id
    if isinstance(value, dict):
        return {name: resolve(item, game_id) for name, item in value.items()}
    if isinstance(value, list):
        return [resolve(item, game_id) for item in value]
    return value


def connect(app: Any, auth: Any) -> SocketTestClient:
    """A Socket.IO test client connected with ``auth`` (maybe refused)."""
    return SocketTestClient(socketio.test_client(app, auth=auth))


def check_errors(received: list[tuple[str, Any]], event: str) -> list[dict[str, Any]]:
    """The ``error`` payloads among ``received`` (``(name, payload)``), each checked: a known code, a message, the
    event's name."""
    errors = [payload for name, payload in received if name == "error"]
    for error in errors:
        assert set(error) == {"code", "message", "event"}, error
        assert error["code"] in set(ErrorCode) and error["event"] == event, error
        assert isinstance(error["message"], str) and error["message"]
    return errors


@st.composite
def event_cases(draw: st.DrawFn) -> tuple[str, Any, tuple[Any, ...]]:
    """``(event, payload, extra arguments)``: mostly the event's exact fields, else one field too many, any JSON
    value, or more than one argument."""
    event = draw(st.sampled_from([*GAME_EVENTS, "lab_start", "lab_stop"]))
    shape = draw(st.sampled_from(["exact", "exact", "exact", "exact", "field too many", "any", "arguments"]))
    payload = draw(arbitrary_json() if shape == "any" else exact_payloads(event))
    if shape == "field too many":
        payload[draw(st.sampled_from(["token", "seat", "extra"]))] = draw(arbitrary_json(2))
    extra = tuple(draw(st.lists(arbitrary_json(2), min_size=1, max_size=2))) if shape == "arguments" else ()
    return event, payload, extra


# 200 examples take 11-12 s alone and 120 s beside twelve busy loops on two cores; two suites at once took it past
# the default guard against hanging (300 s), so its guard is set far above what such a share of the cores needs.
@pytest.mark.timeout(1800)
@FUZZ
@given(case=event_cases(), kind=st.sampled_from(GAME_KINDS),
       auth=st.sampled_from(["seat0", "seat1", "other_game", "absent"]), joined=st.booleans())
def test_every_event_with_generated_payloads(fuzz_app, case, kind, auth, joined):
    event, payload, extra = case
    games = make_games(fuzz_app)
    ids, tokens = games.ids, games.tokens
    token = token_for(auth, kind, ids, tokens, fuzz_app.config["SECRET_KEY"])
    client = connect(fuzz_app, {"token": token} if token is not None else None)
    assert client.is_connected()
    if joined and kind != "missing":
        client.emit("join", {"game_id": ids[kind]})
        client.forget()
    payload = resolve(payload, ids[kind])
    before = snapshot(fuzz_app, games)
    client.emit(event, payload, *extra)
    received = client.drain()
    errors = check_errors(received, event)
    names = [name for name, _ in received]
    note(f"{event}: {errors[0]['code'] if errors else 'accepted'}")
    for started in (payload for name, payload in received if name == "lab_started"):
        client.emit("lab_stop", {"run": started["run"]})
    if errors:
        assert len(errors) == 1 and snapshot(fuzz_app, games) == before, (event, payload, errors)
    elif event in ("join", "lab_start") or (joined and kind != "missing" and event in ANSWER_OF_EVENT):
        assert ANSWER_OF_EVENT[event] in names, (event, payload, names)
    client.disconnect()


auths = st.one_of(
    arbitrary_json().filter(lambda value: not isinstance(value, int | float)),
    st.fixed_dictionaries({"token": st.sampled_from(TOKEN_KINDS) | arbitrary_json(3)},
                          optional={"extra": arbitrary_json(2)}),
)
"""Connect ``auth`` values. A bare number cannot be sent: Socket.IO's packet format reads leading digits after the
packet type as the packet id, so no client can deliver it (the server's decoder drops such a packet)."""


@settings(FUZZ, max_examples=40)
@given(auth=auths)
def test_connecting_with_generated_auth_is_accepted_or_refused_and_changes_nothing(fuzz_app, auth):
    games = make_games(fuzz_app)
    ids, tokens = games.ids, games.tokens
    if isinstance(auth, dict) and auth.get("token") in TOKEN_KINDS:
        auth = {**auth, "token": token_for(auth["token"], "friends", ids, tokens, fuzz_app.config["SECRET_KEY"])}
    before = snapshot(fuzz_app, games)
    client = connect(fuzz_app, auth)
    if client.is_connected():
        client.emit("join", {"game_id": ids["friends"]})
        [state] = client.take("state")
        assert state["id"] == ids["friends"] and state["you"] in (0, 1, None)
        client.disconnect()
    else:
        assert snapshot(fuzz_app, games) == before
    assert stored_ids(fuzz_app) == before[2]
