"""The HTML pages, the browser code they load, and the whitelisted route to npm's files (Flask test client)."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
import requests
from flask.testing import FlaskClient

from engine.games import game_class, game_names
from webapp import schema
from webapp.views.pages import VENDOR_FILES, node_modules_dir

pytestmark = pytest.mark.servers

STATIC = Path(__file__).resolve().parent.parent / "static"


@pytest.mark.parametrize(("field", "component", "attribute"), [
    ("depth", "Depth", None), ("time", "MoveSeconds", None),
    ("clock_minutes", "TimeControl", "minutes"), ("clock_increment", "TimeControl", "increment")])
def test_the_home_forms_ranges_are_the_api_descriptions(client: FlaskClient, field: str, component: str,
                                                        attribute: str | None) -> None:
    described = schema.component(component)
    if attribute is not None:
        described = described["properties"][attribute]
    html = client.get("/").get_data(as_text=True)
    field_html = re.search(rf'<input type="number" name="{field}"[^>]*>', html, re.S)
    assert field_html is not None
    assert f'min="{described["minimum"]}"' in field_html.group(0)
    assert f'max="{described["maximum"]}"' in field_html.group(0)


def test_home_page_offers_every_game_with_a_drawing(client: FlaskClient) -> None:
    response = client.get("/")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    for name in game_names():
        card = re.search(rf'<button type="button" class="card game-card" data-game="{name}".*?</button>', html, re.S)
        assert card, f"no card for {name}"
        assert game_class(name).title.replace("&", "&amp;") in card.group(0)
        assert "<svg" in card.group(0)
        assert 'data-levels="[{&#34;depth&#34;:' in card.group(0)
    assert 'id="play"' in html
    for opponent in ("engine", "custom", "friend", "engines"):
        assert f'name="opponent" value="{opponent}"' in html
    assert "/assets/js/home.js" in html


def test_game_page_names_the_game_and_has_no_token_for_a_visitor(app, client: FlaskClient) -> None:
    created = client.post("/api/games", json={"game": "tictactoe", "opponent": {"type": "friend"}, "side": 0}).json
    response = app.test_client().get(created["url"])  # another browser
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert f'data-game-id="{created["id"]}"' in html
    assert 'data-token=""' in html
    assert "/assets/js/game.js" in html


def test_game_page_embeds_the_seat_token_from_the_cookie(client: FlaskClient) -> None:
    created = client.post("/api/games", json={"game": "tictactoe", "opponent": {"type": "friend"}, "side": 0})
    assert created.status_code == 201
    body = created.get_json()
    html = client.get(body["url"]).get_data(as_text=True)
    assert f'data-token="{body["token"]}"' in html


@pytest.mark.parametrize("path", ["/g/Ab3_x-9", "/g/" + "a" * 33, "/nothing-here", "/lab/more"])
def test_unknown_games_and_pages_get_the_sites_404_page(client: FlaskClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404 and response.mimetype == "text/html"
    html = response.get_data(as_text=True)
    assert "<h1>Page not found</h1>" in html and 'class="topbar"' in html and 'href="/"' in html
    assert "Werkzeug" not in html and "Traceback" not in html


def test_errors_under_the_api_stay_json(client: FlaskClient) -> None:
    for path in ("/api/nope", "/api/games/Ab3_x-9"):
        response = client.get(path)
        assert response.status_code == 404 and response.json["error"] == "not_found", path
    response = client.post("/lab", data="")
    assert response.status_code == 405 and response.mimetype == "text/html"
    assert "<h1>Not a way to ask for this page</h1>" in response.get_data(as_text=True)
    assert set(response.headers["Allow"].split(", ")) == {"GET", "HEAD", "OPTIONS"}
    response = client.delete("/api/games")
    assert response.status_code == 405 and response.json["error"] == "method_not_allowed"
    assert set(response.headers["Allow"].split(", ")) == {"GET", "HEAD", "OPTIONS", "POST"}


def test_a_server_failure_gets_a_page_naming_only_a_request_id(live_server) -> None:
    """The games table dropped behind a real server's back: a page that must read it fails; the page says so with
    the id under which the traceback is logged, and shows nothing of the failure itself."""
    database = sqlite3.connect(live_server.instance / "arena.sqlite3")
    database.execute("DROP TABLE games")
    database.commit()
    database.close()
    response = requests.get(live_server.url + "/g/Zz9_unknown", timeout=10)
    assert response.status_code == 500 and response.headers["Content-Type"].startswith("text/html")
    request_id = re.search(r"Request id <code>([0-9a-f]{12})</code>", response.text).group(1)
    assert "<h1>Something went wrong on our side</h1>" in response.text
    assert "sqlite" not in response.text.lower() and "Traceback" not in response.text
    log = live_server.log.read_text()
    assert f"request {request_id} (GET /g/Zz9_unknown) failed" in log and "no such table: games" in log


def test_game_page_refuses_malformed_ids(client: FlaskClient) -> None:
    assert client.get("/g/" + "a" * 33).status_code == 404
    assert client.get("/g/bad.id").status_code == 404
    assert client.get("/g/bad%20id").status_code == 404


@pytest.mark.parametrize("path", sorted(VENDOR_FILES))
def test_vendor_serves_whitelisted_files(client: FlaskClient, path: str) -> None:
    with client.application.app_context():
        installed = (node_modules_dir() / path).is_file()
    assert installed, "the browser libraries are not installed: run make install (npm ci)"
    response = client.get(f"/vendor/{path}")
    assert response.status_code == 200
    expected = "text/javascript" if path.endswith(".js") else "application/json"
    assert response.mimetype == expected
    assert len(response.get_data()) > 1000
    response.close()


@pytest.mark.parametrize("path", [
    "socket.io-client/package.json",
    "socket.io-client/dist/socket.io.js",
    "ws/index.js",
    "../package.json",
    "socket.io-client/dist/../package.json",
    ".package-lock.json",
    "",
])
def test_vendor_refuses_every_other_path(client: FlaskClient, path: str) -> None:
    assert client.get(f"/vendor/{path}").status_code == 404


def _module_graph(entry: str) -> set[str]:
    """Every module reachable from ``entry`` (a path under static/js) through relative static imports."""
    seen: set[str] = set()
    todo = [entry]
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        source = (STATIC / "js" / module).read_text()
        for target in re.findall(r'^import [^;]*? from "(\./[^"]+)";', source, re.M):
            todo.append(str((Path(module).parent / target).as_posix()).removeprefix("./"))
    return seen


def test_every_script_a_page_loads_is_served(client: FlaskClient) -> None:
    modules = _module_graph("game.js") | _module_graph("home.js") | {"theme.js"}
    modules |= {f"boards/{name}.js" for name in ("tictactoe", "nim", "connect4", "generic")}
    for module in sorted(modules):
        for imported in _module_graph(module):
            response = client.get(f"/assets/js/{imported}")
            assert response.status_code == 200, imported
            response.close()
    css = client.get("/assets/css/arena.css")
    assert css.status_code == 200 and css.mimetype == "text/css"
    css.close()


SHARED_BOARD_HELPERS = {"svg.js", "grid8.js", "grid.js"}
"""Modules in static/js/boards that board modules import, not boards themselves."""


def test_board_modules_export_the_documented_interface() -> None:
    for path in (STATIC / "js" / "boards").glob("*.js"):
        if path.name in SHARED_BOARD_HELPERS:
            continue
        assert "export function createBoard(container, {" in path.read_text(), path.name


def test_chess_piece_images_are_served_with_the_pages(client: FlaskClient) -> None:
    response = client.get("/chess/pieces/wK.svg")
    assert response.status_code == 200
    assert response.mimetype == "image/svg+xml"
    assert client.get("/chess/pieces/xK.svg").status_code == 404


def test_every_page_has_one_top_heading(client: FlaskClient) -> None:
    created = client.post("/api/games", json={"game": "chess", "opponent": {"type": "friend"}, "side": 0}).json
    for path in ("/", "/lab", created["url"], "/nothing-here"):
        assert client.get(path).get_data(as_text=True).count("<h1") == 1, path
