"""Forged requests from other origins: every state-changing API route wants JSON from this site's own pages."""

from __future__ import annotations

import pytest
from support.helpers import assert_error, create, friend_game

ACTIONS = ("resign", "takeback", "rematch", "seats")


@pytest.mark.parametrize("action", ACTIONS)
def test_an_empty_body_without_the_json_type_changes_nothing(app, client, action):
    game_id, _, _ = friend_game(app)
    before = client.get(f"/api/games/{game_id}").json
    response = client.post(f"/api/games/{game_id}/{action}")
    assert_error(response, 415, "unsupported_media_type")
    assert client.get(f"/api/games/{game_id}").json == before


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"])
def test_form_encodings_a_page_can_send_anywhere_are_refused(app, client, content_type):
    game_id, token, _ = friend_game(app)
    response = client.post(f"/api/games/{game_id}/resign", data=f'{{"token": "{token}"}}', content_type=content_type)
    assert_error(response, 415, "unsupported_media_type")
    assert client.get(f"/api/games/{game_id}").json["status"] == "active"


@pytest.mark.parametrize("headers", [
    {"Origin": "http://localhost:9999"},
    {"Origin": "http://evil.example"},
    {"Origin": "null"},
    {"Sec-Fetch-Site": "same-site"},
    {"Sec-Fetch-Site": "cross-site"},
])
def test_requests_from_another_origin_or_site_are_403(app, client, headers):
    game_id, token, _ = friend_game(app)
    response = client.post(f"/api/games/{game_id}/resign", json={"token": token}, headers=headers)
    assert_error(response, 403, "cross_origin")
    assert client.get(f"/api/games/{game_id}").json["status"] == "active"
    assert_error(client.post("/api/games", json={"game": "nim", "opponent": {"type": "friend"}}, headers=headers),
                 403, "cross_origin")
    assert client.get("/api/games").json["games"][0]["id"] == game_id


@pytest.mark.parametrize("headers", [
    {},
    {"Origin": "http://localhost"},
    {"Sec-Fetch-Site": "same-origin"},
    {"Sec-Fetch-Site": "none"},
    {"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"},
])
def test_own_pages_and_clients_without_a_browser_pass(client, headers):
    created = create(client)
    response = client.post(f"/api/games/{created['id']}/moves", json={"move": "5", "token": created["token"]},
                           headers=headers)
    assert response.status_code == 200, response.json


def test_reading_needs_neither_json_nor_the_origin(client):
    created = create(client)
    assert client.get(f"/api/games/{created['id']}", headers={"Origin": "http://evil.example"}).status_code == 200
