"""The chess piece images route (a blueprint of its own)."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from webapp.views.chess_assets import bp


def client() -> FlaskClient:
    app = Flask(__name__)
    app.register_blueprint(bp)
    return app.test_client()


def test_every_piece_is_an_svg_drawn_by_python_chess() -> None:
    web = client()
    for colour in "wb":
        for letter in "PNBRQK":
            response = web.get(f"/chess/pieces/{colour}{letter}.svg")
            assert response.status_code == 200 and response.mimetype == "image/svg+xml"
            assert response.data.startswith(b"<svg") and b"viewBox" in response.data
            assert "max-age" in response.headers["Cache-Control"]
    assert web.get("/chess/pieces/wK.svg").data != web.get("/chess/pieces/bK.svg").data


def test_unknown_pieces_are_not_found() -> None:
    web = client()
    for name in ("xK", "wk", "wKK", "w", "bZ"):
        assert web.get(f"/chess/pieces/{name}.svg").status_code == 404
