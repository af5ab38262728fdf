"""webapp/openapi.yaml checked against a real gunicorn with schemathesis: requests generated from the description
(valid ones, and the coverage phase's edge and invalid ones) get no server error, only documented statuses and
content types, and bodies that match the documented schemas. Path ids and tokens are sometimes swapped for those
of real games (a friend game under way, one against the engine, a finished one, one with a free seat), so the
answers of existing games are checked too, not only 404s and 403s."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from support.fuzz_strategies import GAME_KINDS, TOKEN_KINDS, Games, Post, new_games, token_for
from support.servers import GENEROUS_CONNECTIONS, LiveServer

pytestmark = pytest.mark.servers

SPEC = Path(__file__).resolve().parent.parent / "webapp" / "openapi.yaml"
SECRET = "openapi-test-secret"
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]

schema = schemathesis.openapi.from_path(SPEC)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """gunicorn serving the app; engine-against-engine games paced a minute apart, so generated ones stay idle;
    per-address limits out of the way of the hundreds of generated requests (tests/test_address_limits.py)."""
    live = LiveServer(tmp_path_factory.mktemp("openapi") / "instance",
                      env={"SECRET_KEY": SECRET, "ARENA_PACE": "60", **GENEROUS_CONNECTIONS}).start()
    yield live
    live.stop()


def requests_post(url: str) -> Post:
    """``Post`` over HTTP to the server at ``url``."""
    def post(path: str, body: dict[str, Any]) -> tuple[int, Any]:
        answer = requests.post(url + path, json=body, timeout=10)
        return answer.status_code, answer.json()

    return post


@pytest.fixture(scope="module")
def games(server: LiveServer) -> Games:
    """One game of each kind, made on the server once (later examples see them as earlier ones left them)."""
    ids, tokens = new_games(requests_post(server.url))
    return Games(ids, tokens)


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_generated_requests_get_documented_answers(case, server):
    case.call_and_validate(base_url=server.url, checks=CHECKS, timeout=20)


@schema.parametrize()
@schema.given(kind=st.sampled_from(GAME_KINDS), token=st.sampled_from(TOKEN_KINDS))
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), phases=[Phase.generate])
def test_requests_about_real_games_with_real_tokens_get_documented_answers(case, kind, token, server, games):
    if "game_id" in (case.path_parameters or {}):
        case.path_parameters["game_id"] = games.ids[kind]
    if isinstance(case.body, dict) and "token" in case.body:
        value = token_for(token, kind, games.ids, games.tokens, SECRET)
        case.body = {name: item for name, item in case.body.items() if name != "token"}
        if value is not None:
            case.body["token"] = value
    case.call_and_validate(base_url=server.url, checks=CHECKS, timeout=20)
