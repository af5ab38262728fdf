"""Your games: the games this browser played, read a page at a time, exported, forgotten, or moved to another
browser by a signed link (blueprint ``history``, nested in the API under ``/api/me``; the page is ``/me/games``).

The key is the browser's identity (``webapp.views.players``): no account. A browser without one has an empty history.
The move link carries the identity signed with the app's ``SECRET_KEY`` (itsdangerous, its own salt) and expires
after ``MOVE_LINK_SECONDS``; opening it shows a page whose button (a POST, so a link alone moves nothing) gives that
history to the browser that opened it.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any, TypedDict
from urllib.parse import urlencode

from flask import Blueprint, Response, current_app, jsonify, request
from itsdangerous import BadSignature, SignatureExpired, TimestampSigner, URLSafeTimedSerializer

from engine.games import game_class, game_names
from webapp.arena.analysis import MAX_MOVES_TEXT, MAX_SETUP_TEXT
from webapp.arena.reviews import summaries_of
from webapp.clock import Clock
from webapp.display import engine_label
from webapp.errors import ArenaError, ErrorCode
from webapp.store import Store
from webapp.store.histories import PlayedGame
from webapp.validation import check_body
from webapp.views.address_limits import charge_reads, limit_reads, limit_seats
from webapp.views.players import Players

bp = Blueprint("history", __name__, url_prefix="/me")

PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
EXPORT_LIMIT = 1000
"""The most games one export holds (the newest)."""
MOVE_LINK_SECONDS = 24 * 3600
_AFTER = re.compile(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?\+00:00)\|([A-Za-z0-9_-]{1,32})")


class HistoryGame(TypedDict):
    """One line of ``GET /api/me/games``."""

    id: str
    url: str
    game: str
    title: str
    seat: int
    side: str
    opponent: str
    status: str
    result: str | None
    reason: str | None
    plies: int
    created_at: str
    review: dict[str, Any]
    analyse_url: str | None


def _store() -> Store:
    return current_app.extensions["arena"].store


def _players() -> Players:
    return current_app.extensions["players"]


def _serializer() -> URLSafeTimedSerializer:
    """The move links' serializer, its timestamps on the app's clock (``app.extensions["clock"]``)."""
    clock: Clock = current_app.extensions["clock"]

    class ClockedSigner(TimestampSigner):
        def get_timestamp(self) -> int:
            return int(clock.time())

    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt="arena-history-move", signer=ClockedSigner)


def describe(played: PlayedGame) -> HistoryGame:
    """A game of a history as the page lists it: the side the browser played, its opponent in words, the result
    for that side ("won", "lost", "drawn"; None while it goes on), the review's status and that side's accuracy,
    and the analysis board's link to the last position (None when its moves are too long for a link)."""
    cls = game_class(played.game)
    other = 1 - played.seat
    engine = played.engines[other]
    opponent = f"Engine {engine_label(engine)}" if engine is not None else "a person"
    result = None
    if played.status == "finished":
        result = "drawn" if played.winner is None else "won" if played.winner == played.seat else "lost"
    review: dict[str, Any] = {"status": played.review_status or "none", "accuracy": None, "method": None}
    if played.review_status == "done" and played.review_result is not None:
        mine = summaries_of(played.review_result)[played.seat]
        review |= {"accuracy": mine.accuracy, "method": mine.method}
    return {"id": played.game_id, "url": f"/g/{played.game_id}", "game": played.game, "title": cls.title,
            "seat": played.seat, "side": cls.players[played.seat], "opponent": opponent, "status": played.status,
            "result": result, "reason": played.reason, "plies": played.ply,
            "created_at": played.created_at.isoformat(timespec="seconds"), "review": review,
            "analyse_url": analyse_link(played, played.ply)}


def analyse_link(played: PlayedGame, plies: int, **extra: str) -> str | None:
    """The analysis board's link to ``played``'s position after ``plies`` moves, with ``extra`` parameters (empty
    ones left out); None when its moves or its start are too long for a link."""
    moves = " ".join(played.moves[:plies])
    if len(moves) > MAX_MOVES_TEXT or len(played.start_setup) > MAX_SETUP_TEXT:
        return None
    query = {key: value for key, value in {"setup": played.start_setup, "moves": moves, **extra}.items() if value}
    return f"/analyse/{played.game}" + (f"?{urlencode(query)}" if query else "")


def _filters() -> tuple[str | None, tuple[dt.datetime, str] | None, int]:
    """``game``, ``after`` and ``limit`` of the query string, checked (``bad_request`` otherwise)."""
    game = request.args.get("game") or None
    if game is not None and game not in game_names():
        raise ArenaError(ErrorCode.BAD_REQUEST, f"game must be one of {', '.join(game_names())}")
    after = None
    if request.args.get("after"):
        match = _AFTER.fullmatch(request.args["after"])
        if match is None:
            raise ArenaError(ErrorCode.BAD_REQUEST, "after must be a page's 'after' value")
        after = (dt.datetime.fromisoformat(match[1]), match[2])
    text = request.args.get("limit", str(PAGE_SIZE))
    if not text.isdigit() or not 1 <= int(text) <= MAX_PAGE_SIZE:
        raise ArenaError(ErrorCode.BAD_REQUEST, f"limit must be a whole number from 1 to {MAX_PAGE_SIZE}")
    return game, after, int(text)


@bp.get("/games")
@limit_reads
def list_games() -> Response:
    """A page of this browser's games, newest first: ``{games, after}`` (``after``: the value that asks for the
    next page, or null on the last)."""
    game, after, limit = _filters()
    player = _players().current()
    if player is None:
        return jsonify({"games": [], "after": None})
    page = _store().histories.page(player, limit, game, after)
    cursor = None if page.after is None else f"{page.after[0].isoformat()}|{page.after[1]}"
    return jsonify({"games": [describe(played) for played in page.games], "after": cursor})


@bp.get("/games/export")
@limit_reads
def export_games() -> Response:
    """The newest ``EXPORT_LIMIT`` games of this browser (of ``game`` when given) as text: a chess game as its PGN
    (its ``Site`` the game's link), any other as a header line and its moves. Each game counts as a read."""
    game, _, _ = _filters()
    player = _players().current()
    games = [] if player is None else _store().histories.page(player, EXPORT_LIMIT, game).games
    charge_reads(len(games))
    reads = current_app.extensions["arena"].reads
    parts = []
    for played in games:
        line = describe(played)
        if played.game == "chess":
            site = f'[Site "{request.host_url}g/{played.game_id}"]'
            parts.append(reads.pgn(played.game_id).replace('[Site "?"]', site, 1))
        else:
            result = line["result"] or "unfinished"
            setup = f" from {played.start_setup}" if played.start_setup else ""
            parts.append(f"# {line['title']} {line['created_at']} {line['url']}: {line['side']} against "
                         f"{line['opponent']}{setup}, {result}\n{' '.join(played.moves)}\n")
    answer = Response("\n".join(parts), mimetype="text/plain")
    answer.headers["Content-Disposition"] = 'attachment; filename="alphabeta-arena-games.txt"'
    return answer


@bp.post("/forget")
@limit_seats
def forget_games() -> Response:
    """Forget this browser's history and its training queue (the games stay for everyone else): ``{forgotten}``,
    how many games."""
    check_body("forgetYourGames", request.get_json(silent=True))
    player = _players().current()
    if player is None:
        return jsonify({"forgotten": 0})
    _store().training.forget(player)
    return jsonify({"forgotten": _store().histories.forget(player)})


@bp.post("/move-link")
@limit_seats
def move_link() -> Response:
    """A link that gives this browser's history to the browser that opens it and confirms: ``{url, expires_in}``
    (seconds)."""
    check_body("makeMoveLink", request.get_json(silent=True))
    token = _serializer().dumps(_players().identity())
    return jsonify({"url": f"/me/move/{token}", "expires_in": MOVE_LINK_SECONDS})


@bp.post("/move")
@limit_seats
def accept_move() -> Response:
    """Body ``{"token"}`` from a move link: that browser's history and training queue become this one's
    (``{moved}``, how many games). ``bad_token`` for a link that is forged or expired."""
    token = check_body("acceptMove", request.get_json(silent=True))["token"]
    try:
        source = _serializer().loads(token, max_age=MOVE_LINK_SECONDS)
    except SignatureExpired:
        raise ArenaError(ErrorCode.BAD_TOKEN, "this link has expired; make a new one") from None
    except BadSignature:
        raise ArenaError(ErrorCode.BAD_TOKEN, "this is not a link this site made") from None
    target = _players().identity()
    _store().training.move(str(source), target)
    return jsonify({"moved": _store().histories.move(str(source), target)})
