"""Security headers on every page and API answer, and the Secure cookie behind a trusted HTTPS proxy only."""

from __future__ import annotations

import pytest

from webapp import create_app
from webapp.views.headers import SECURITY_HEADERS

FRIEND = {"game": "tictactoe", "opponent": {"type": "friend"}, "side": 0}


def created_game(client) -> dict:
    response = client.post("/api/games", json=FRIEND)
    assert response.status_code == 201
    return response.json


@pytest.mark.parametrize("path", ["/", "/lab", "/g/Ab3_x-9", "/api/games", "/api/health", "/api/nope",
                                  "/assets/js/game.js", "/chess/pieces/wK.svg", "/nothing-here"])
def test_every_answer_carries_the_security_headers(client, path):
    response = client.get(path)
    for name, value in SECURITY_HEADERS.items():
        assert response.headers[name] == value, (path, name)
    policy = response.headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in policy and "unsafe-inline" not in policy and "unsafe-eval" not in policy


def test_pages_and_api_answers_that_may_carry_a_token_are_never_stored(client):
    created = created_game(client)
    for path in ("/", "/lab", f"/g/{created['id']}", f"/api/games/{created['id']}"):
        assert client.get(path).headers["Cache-Control"] == "no-store", path
    answer = client.post("/api/games", json=FRIEND)
    assert answer.headers["Cache-Control"] == "no-store"
    assert "no-store" not in client.get("/assets/js/game.js").headers.get("Cache-Control", "")


def test_pages_have_no_inline_script_or_style_attribute(client):
    created = created_game(client)
    for path in ("/", "/lab", f"/g/{created['id']}"):
        html = client.get(path).get_data(as_text=True)
        for tag in html.split("<script")[1:]:
            assert ' src="' in tag.split(">")[0], (path, tag[:80])
        assert " style=" not in html and "<style" not in html, path


def seat_cookie_header(client) -> str:
    answer = client.post("/api/games", json=FRIEND, base_url="http://arena.example",
                         headers={"X-Forwarded-Proto": "https", "X-Forwarded-Host": "arena.example",
                                  "Origin": "https://arena.example"})
    assert answer.status_code == 201, answer.json
    return answer.headers["Set-Cookie"]


def test_behind_a_trusted_https_proxy_cookies_are_secure(tmp_path, monkeypatch):
    monkeypatch.setenv("ARENA_INSTANCE", str(tmp_path / "instance"))
    monkeypatch.setenv("ARENA_PROXY_HOPS", "1")
    app = create_app({"TESTING": True, "ARENA_WORKERS": 1})
    try:
        cookie = seat_cookie_header(app.test_client())
        assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    finally:
        app.extensions["arena"].close()


def test_forwarded_headers_from_an_untrusted_client_are_ignored(client):
    """Without ARENA_PROXY_HOPS the request stays plain HTTP: no Secure cookie, and the forged HTTPS origin that the
    forwarded headers name is another origin."""
    answer = client.post("/api/games", json=FRIEND, headers={"X-Forwarded-Proto": "https"})
    assert answer.status_code == 201
    assert "Secure" not in answer.headers["Set-Cookie"]
    refused = client.post("/api/games", json=FRIEND, headers={"X-Forwarded-Proto": "https",
                                                               "Origin": "https://localhost"})
    assert refused.status_code == 403 and refused.json["error"] == "cross_origin"


def test_socketio_polling_answers_carry_the_security_headers(client):
    """The Socket.IO server answers its polling requests before Flask sees them; they get the headers too."""
    answer = client.get("/socket.io/?EIO=4&transport=polling")
    assert answer.status_code == 200
    for name, value in SECURITY_HEADERS.items():
        assert answer.headers[name] == value
