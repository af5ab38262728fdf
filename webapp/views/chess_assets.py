"""Chess piece images, drawn by python-chess (``chess.svg.piece``) and served as SVG documents.

``GET /chess/pieces/<colour><piece>.svg`` with colour ``w`` or ``b`` and piece one of ``PNBRQK`` (``wK.svg``,
``bq`` is refused: the piece letter is upper case). Register with ``app.register_blueprint(bp)``.
"""

from __future__ import annotations

from functools import lru_cache

import chess
import chess.svg
from flask import Blueprint, Response, abort

bp = Blueprint("chess_assets", __name__, url_prefix="/chess")

PIECE_LETTERS = "PNBRQK"


@lru_cache(maxsize=12)
def piece_svg(colour: str, letter: str) -> str:
    """The SVG document of one piece: ``colour`` "w" or "b", ``letter`` one of "PNBRQK"."""
    symbol = letter if colour == "w" else letter.lower()
    return chess.svg.piece(chess.Piece.from_symbol(symbol))


@bp.get("/pieces/<name>.svg")
def piece(name: str) -> Response:
    """One piece image; an unknown name is a 404."""
    if len(name) != 2 or name[0] not in "wb" or name[1] not in PIECE_LETTERS:
        abort(404, description=f"no piece {name!r}: use w or b followed by one of {PIECE_LETTERS}, e.g. wK")
    response = Response(piece_svg(name[0], name[1]), mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "public, max-age=86400"
    return response
