"""The JSON API (blueprint ``api``, under ``/api``): create, list and read games, play moves, take seats,
resign, take back, rematch. Errors answer ``{error, message}`` with the status of docs/protocol.md."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request
from flask_limiter import RateLimitExceeded
from werkzeug.exceptions import HTTPException, InternalServerError, MethodNotAllowed, RequestEntityTooLarge

from engine import BUILD as ENGINE_BUILD
from engine.game import InvalidSetupError
from webapp.arena.analysis import position
from webapp.arena.assemble import Arena
from webapp.arena.steps import MAX_STEP_DEPTH
from webapp.errors import ArenaError, ErrorCode, logged_failure
from webapp.seats import BadTokenError, invite_code, issue_token, read_token, stop_code
from webapp.transport.message_queue import ResilientRedisManager
from webapp.transport.sockets import socketio
from webapp.validation import GAME_ID, check_body, check_new_game
from webapp.views import address_limits, csrf, history, training
from webapp.views.address_limits import (
    charge_reads,
    extra_reads,
    limit_create,
    limit_lab,
    limit_moves,
    limit_reads,
    limit_seats,
)
from webapp.views.chess_import import chess_setup
from webapp.views.players import Players

API_PREFIX = "/api"
bp = Blueprint("api", __name__, url_prefix=API_PREFIX)
csrf.protect(bp)
bp.register_blueprint(history.bp)
bp.register_blueprint(training.bp)


def _arena() -> Arena:
    return current_app.extensions["arena"]


def _players() -> Players:
    return current_app.extensions["players"]


def _client() -> str:
    """The caller's address (behind ``ARENA_PROXY_HOPS`` proxies, the one they saw): whose share of the engines
    the searches it causes take."""
    return request.remote_addr or ""


def _body() -> dict[str, Any]:
    """The request's JSON object body (``webapp.views.csrf`` has already checked that it says it is JSON)."""
    try:
        data = request.get_json(silent=True)
    except RecursionError:
        raise ArenaError(ErrorCode.BAD_REQUEST, "the body is nested too deeply") from None
    if not isinstance(data, dict):
        raise ArenaError(ErrorCode.BAD_REQUEST, "the body must be a JSON object (Content-Type: application/json)")
    return data


def _checked_id(game_id: str) -> str:
    """``game_id`` if such a game exists, else ``not_found``."""
    if not GAME_ID.fullmatch(game_id):
        raise ArenaError(ErrorCode.NOT_FOUND, f"there is no game {game_id!r}")
    _arena().cache.get(game_id)
    return game_id


def _seat(game_id: str, token: object) -> int:
    """The caller's seat in ``game_id`` from the body's token, else from the seats its browser holds."""
    if token is None:
        seat = _players().seat_in(game_id)
        if seat is None:
            raise ArenaError(ErrorCode.BAD_TOKEN,
                "send the seat token of this game (field 'token' or the player cookie)")
        return seat
    try:
        claim = read_token(current_app.config["SECRET_KEY"], token)
    except BadTokenError as error:
        raise ArenaError(ErrorCode.BAD_TOKEN, str(error)) from None
    if claim.game_id != game_id:
        raise ArenaError(ErrorCode.BAD_TOKEN, "that token belongs to another game")
    return claim.seat


def _you(game_id: str) -> int | None:
    return _players().seat_in(game_id)


def _invitation(game_id: str) -> dict[str, str | None]:
    """``invite`` and ``invite_url`` of a friend game (for its players only), None for other games."""
    if not _arena().reads.is_friend_game(game_id):
        return {"invite": None, "invite_url": None}
    code = invite_code(current_app.config["SECRET_KEY"], game_id)
    return {"invite": code, "invite_url": f"/g/{game_id}?invite={code}"}


def _seat_answer(game_id: str, seat: int, token: str, status: int = 200, **extra: Any) -> tuple[Response, int]:
    """``{...extra, seat, token, invite, invite_url}``; the caller's browser now holds the seat."""
    _players().remember(game_id, seat)
    return _seat_json(game_id, seat, token, status, **extra)


def _seat_json(game_id: str, seat: int, token: str, status: int, **extra: Any) -> tuple[Response, int]:
    """``{...extra, seat, token, invite, invite_url}`` for a seat the caller's browser already holds."""
    return jsonify({**extra, "seat": seat, "token": token, **_invitation(game_id)}), status


@bp.errorhandler(ArenaError)
def arena_error(error: ArenaError) -> tuple[Response, int]:
    return jsonify(error.to_dict()), error.status


@bp.errorhandler(RequestEntityTooLarge)
def too_large(_error: RequestEntityTooLarge) -> tuple[Response, int]:
    return arena_error(ArenaError(ErrorCode.TOO_LARGE, "the body is larger than 16 KB"))


@bp.errorhandler(HTTPException)
def http_error(error: HTTPException) -> tuple[Response, int]:
    """Werkzeug's errors as ``{error, message}``; a server error (an exception no handler expected) is ``500
    internal_error`` with a request id, logged once with its traceback under that id."""
    if isinstance(error, InternalServerError):
        request_id = logged_failure(error)
        return jsonify({"error": ErrorCode.INTERNAL_ERROR,
                        "message": f"the server failed on this request (id {request_id}); it is logged"}), 500
    codes = {404: ErrorCode.NOT_FOUND, 405: ErrorCode.METHOD_NOT_ALLOWED, 413: ErrorCode.TOO_LARGE}
    code = codes.get(error.code or 400, ErrorCode.BAD_REQUEST)
    answer = jsonify({"error": code, "message": error.description or error.name})
    if isinstance(error, MethodNotAllowed) and error.valid_methods:
        answer.headers["Allow"] = ", ".join(error.valid_methods)  # as HTTP requires of a 405
    return answer, code.status or 500


@bp.errorhandler(RateLimitExceeded)
def rate_limited(error: RateLimitExceeded) -> tuple[Response, int]:
    """429 ``{error: "rate_limited", message}``; the limiter adds ``Retry-After`` (seconds)."""
    return arena_error(ArenaError(ErrorCode.RATE_LIMITED, address_limits.message(error)))


@bp.post("/games")
@limit_create
def create_game() -> tuple[Response, int]:
    """Create a game: 201 ``{id, url, seat, token, invite, invite_url, stop_code}``; the caller's browser holds the
    seat; ``stop_code`` (engine against engine only) stops the game. A chess ``setup`` may be a PGN."""
    new_game = check_new_game(_body())
    if new_game.game == "chess" and new_game.setup is not None:
        try:
            new_game = replace(new_game, setup=chess_setup(new_game.setup))
        except InvalidSetupError as error:
            raise ArenaError(ErrorCode.BAD_GAME, str(error)) from None
    game_id, seat, token = _arena().creation.create(new_game, _client(), _players().identity)
    if seat is None or token is None:
        return jsonify({"id": game_id, "url": f"/g/{game_id}", "seat": None, "token": None, "invite": None,
                        "invite_url": None,
                        "stop_code": stop_code(current_app.config["SECRET_KEY"], game_id)}), 201
    return _seat_json(game_id, seat, token, 201, id=game_id, url=f"/g/{game_id}", stop_code=None)


@bp.get("/health")
def health() -> Response:
    """Which server answered and whether it reaches the others: ``node`` (``ARENA_NODE``, else the host name and
    the instance folder's name), ``message_queue`` ("none" when ``SOCKETIO_MESSAGE_QUEUE`` is unset, else "up"
    or "down"), ``database`` ("up", or "down" while it does not answer: moves and new games are then refused with
    ``database_unavailable``), ``games_in_memory`` (how many games this node holds in memory) and ``engine``
    (whether its engine runs compiled: ``engine.native``)."""
    server = socketio.server  # type: ignore[attr-defined]  # set by init_app; the stubs lack it
    manager = server.manager if server is not None else None
    queue = "none"
    if isinstance(manager, ResilientRedisManager):
        queue = "up" if manager.available else "down"
    database = "up" if _arena().store.database.availability.probe() else "down"
    return jsonify({"status": "ok", "node": current_app.config["ARENA_NODE"], "message_queue": queue,
                    "database": database, "games_in_memory": _arena().cache.count(), "engine": ENGINE_BUILD.to_dict()})


@bp.get("/games")
@limit_reads
def list_games() -> Response:
    """The unfinished games, most recently active first."""
    return jsonify({"games": _arena().reads.live_games()})


@bp.get("/games/<game_id>")
@limit_reads
def get_game(game_id: str) -> Response:
    """One game's state, with ``you``: the seat of it the caller's browser holds, or null. A long game's costs
    more reads (``extra_reads``)."""
    charge_reads(extra_reads(_arena().reads.record_length(_checked_id(game_id))))
    return jsonify(_arena().reads.game_state(game_id, _you(game_id)))


@bp.get("/analysis/<game>")
@limit_reads
def get_analysis_node(game: str) -> Response:
    """A node of the analysis board (``?setup=&moves=``, both optional): its board, legal moves and path, as the
    Socket.IO ``analysis_node`` has it (``node`` ""). Nothing is stored; a long path costs more reads."""
    setup, moves_text = request.args.get("setup", ""), request.args.get("moves", "")
    found = position(game, setup, moves_text)
    charge_reads(extra_reads(len(found.moves)))
    return jsonify(found.payload)


@bp.get("/steps/<game>")
@limit_lab
def get_steps(game: str) -> Response:
    """A search of the analysis board's node ``?setup=&moves=`` to ``?depth=`` with the lab's ``?preset=``, recorded
    node by node (``webapp.arena.steps``; docs/protocol.md, "The search stepper"). Waits for the engines."""
    found = position(game, request.args.get("setup", ""), request.args.get("moves", ""))
    depth_text = request.args.get("depth", "")
    if not depth_text.isdecimal() or not 1 <= int(depth_text) <= MAX_STEP_DEPTH:
        raise ArenaError(ErrorCode.BAD_REQUEST, f"depth must be a whole number from 1 to {MAX_STEP_DEPTH}")
    body = _arena().stepper.recording(found, request.args.get("preset", "everything"), int(depth_text), _client())
    return Response(body, mimetype="application/json")


@bp.get("/games/<game_id>/positions/<int:ply>")
@limit_reads
def get_position(game_id: str, ply: int) -> Response:
    """The position after ``ply`` moves, read-only. A long game's costs more reads (``extra_reads``)."""
    charge_reads(extra_reads(_arena().reads.record_length(_checked_id(game_id))))
    return jsonify(_arena().reads.position(game_id, ply))


@bp.get("/games/<game_id>/searches/<int:ply>")
@limit_reads
def get_search(game_id: str, ply: int) -> Response:
    """The search record of the engine move that made ply ``ply``: its final ``search`` event as streamed."""
    return jsonify(_arena().reads.search_record(_checked_id(game_id), ply))


@bp.get("/games/<game_id>/pgn")
@limit_reads
def get_pgn(game_id: str) -> Response:
    """A chess game's PGN with the engine's evaluations and depths as ``[%eval ...]`` comments. A long game's
    costs more reads (``extra_reads``)."""
    charge_reads(extra_reads(_arena().reads.record_length(_checked_id(game_id))))
    text = _arena().reads.pgn(game_id)
    return Response(text, mimetype="application/x-chess-pgn")


@bp.post("/games/<game_id>/moves")
@limit_moves
def post_move(game_id: str) -> Response:
    """Play ``{move, token}``; answers the new state."""
    _checked_id(game_id)
    data = check_body("playMove", _body())
    return jsonify(_arena().moves.play(game_id, _seat(game_id, data.get("token")), data["move"], client=_client()))


@bp.post("/games/<game_id>/seats")
@limit_seats
def take_seat(game_id: str) -> tuple[Response, int]:
    """Restore a seat from ``{token}``, return the seat the caller's browser already holds, or take the free seat
    with ``{invite}`` (the code of the share link; not needed in a game open to anyone)."""
    arena = _arena()
    _checked_id(game_id)
    data = check_body("takeSeat", _body())
    if data.get("token") is not None:
        seat = _seat(game_id, data["token"])
        return _seat_answer(game_id, seat, data["token"])
    held = _players().seat_in(game_id)
    if held is not None and arena.reads.is_person_seat(game_id, held):
        return _seat_answer(game_id, held, issue_token(current_app.config["SECRET_KEY"], game_id, held))
    seat, token = arena.creation.take_seat(game_id, data.get("invite"))
    return _seat_answer(game_id, seat, token)


@bp.post("/games/<game_id>/resign")
@limit_moves
def resign(game_id: str) -> Response:
    """Resign with the caller's seat; answers the final state."""
    _checked_id(game_id)
    data = check_body("resign", _body())
    return jsonify(_arena().endings.resign(game_id, _seat(game_id, data.get("token"))))


@bp.post("/games/<game_id>/stop")
@limit_moves
def stop(game_id: str) -> Response:
    """Stop an engine-against-engine game with ``{stop_code}`` (its creator's); answers the final state."""
    _checked_id(game_id)
    data = check_body("stopGame", _body())
    return jsonify(_arena().engine_games.stop(game_id, data["stop_code"]))


@bp.post("/games/<game_id>/takeback")
@limit_moves
def takeback(game_id: str) -> Response:
    """Take back the caller's last move (and the engine's reply); answers the new state."""
    _checked_id(game_id)
    data = check_body("takeback", _body())
    return jsonify(_arena().moves.takeback(game_id, _seat(game_id, data.get("token"))))


@bp.post("/games/<game_id>/rematch")
@limit_create
def rematch(game_id: str) -> tuple[Response, int]:
    """Create (once) the rematch; 201 ``{id, url, seat, token, invite, invite_url}`` for the caller, whose browser
    holds the seat. Between two players the first ask offers it: 202 with the state."""
    _checked_id(game_id)
    data = check_body("rematch", _body())
    seat = _seat(game_id, data.get("token"))
    made = _arena().agreements.rematch(game_id, seat, _client())
    if made is None:  # between two players: offered, made once the other player asks too
        return jsonify(_arena().reads.game_state(game_id, seat)), 202
    new_id, seat, token = made
    return _seat_answer(new_id, seat, token, 201, id=new_id, url=f"/g/{new_id}", stop_code=None)


@bp.get("/games/<game_id>/review")
@limit_reads
def get_review(game_id: str) -> Response:
    """The game's review: ``{game_id, status}`` ("none", "running" with ``done``/``total``, "done" with the
    verdicts, "cancelled", "failed")."""
    return jsonify(_arena().reviews.status(_checked_id(game_id)))


@bp.post("/games/<game_id>/review")
@limit_create
@limit_lab
def start_review(game_id: str) -> tuple[Response, int]:
    """Start the review of a finished game (anyone holding the link; once for all); 202 with its status."""
    _checked_id(game_id)
    check_body("startReview", _body())
    return jsonify(_arena().reads.review(game_id, _client())), 202


@bp.post("/games/<game_id>/review/cancel")
@limit_moves
def cancel_review(game_id: str) -> Response:
    """Stop the game's review running on this server, for the address that asked for it; it may be asked for
    again."""
    _checked_id(game_id)
    check_body("cancelReview", _body())
    return jsonify(_arena().reviews.cancel(game_id, _client()))


@bp.post("/games/<game_id>/positions/<int:ply>/analysis")
@limit_lab
def analyse_position(game_id: str, ply: int) -> tuple[Response, int]:
    """What the engine would do in the position after ``ply`` moves of a finished game; 202, the answer reaches the
    game's room as ``analysis``."""
    _checked_id(game_id)
    check_body("analysePosition", _body())
    return jsonify(_arena().reads.analyse_position(game_id, ply, _client())), 202


@bp.post("/games/<game_id>/searches/<int:ply>/every-move")
@limit_lab
def score_every_move(game_id: str, ply: int) -> tuple[Response, int]:
    """Every move of the engine search behind ply ``ply`` scored exactly at its depth: 200 with the answer when it
    is known, else 202 ("running"); the answer reaches the game's room as ``every_move``."""
    _checked_id(game_id)
    check_body("scoreEveryMove", _body())
    answer = _arena().reads.score_every_move(game_id, ply, _client())
    return jsonify(answer), 200 if answer["status"] == "done" else 202


@bp.post("/games/<game_id>/hints")
@limit_moves
def set_hints(game_id: str) -> Response:
    """Turn hints on or off with ``{on, token}`` (between two people, on once both asked); answers the state."""
    _checked_id(game_id)
    data = check_body("setHints", _body())
    return jsonify(_arena().agreements.set_hints(game_id, _seat(game_id, data.get("token")), data["on"], _client()))


@bp.post("/games/<game_id>/abort")
@limit_moves
def abort(game_id: str) -> Response:
    """Abort with the caller's seat while neither side has moved twice; answers the final state."""
    _checked_id(game_id)
    data = check_body("abort", _body())
    return jsonify(_arena().endings.abort(game_id, _seat(game_id, data.get("token"))))


@bp.post("/games/<game_id>/alone")
@limit_moves
def play_alone(game_id: str) -> Response:
    """The player of a friend game waiting for the friend plays on alone; answers the state."""
    _checked_id(game_id)
    data = check_body("playAlone", _body())
    return jsonify(_arena().agreements.play_alone(game_id, _seat(game_id, data.get("token"))))


@bp.post("/games/<game_id>/offers")
@limit_moves
def offer(game_id: str) -> Response:
    """Offer ``{kind}`` ("draw", "takeback", "rematch") to the other player, or accept the other player's; answers
    the state."""
    _checked_id(game_id)
    data = check_body("offer", _body())
    return jsonify(_arena().agreements.offer(game_id, _seat(game_id, data.get("token")), data["kind"], _client()))


@bp.post("/games/<game_id>/offers/decline")
@limit_moves
def decline_offer(game_id: str) -> Response:
    """Decline the other player's pending ``{kind}`` offer, or withdraw one's own; answers the state."""
    _checked_id(game_id)
    data = check_body("declineOffer", _body())
    return jsonify(_arena().agreements.decline(game_id, _seat(game_id, data.get("token")), data["kind"]))


@bp.post("/games/<game_id>/engines")
@limit_moves
def direct_engines(game_id: str) -> Response:
    """Pause, resume (``paused``) or pace (``pace`` seconds) an engine-against-engine game with ``{stop_code}``
    (its creator's); answers the state."""
    _checked_id(game_id)
    data = check_body("directEngines", _body())
    return jsonify(_arena().engine_games.direct(game_id, data["stop_code"], data.get("paused"), data.get("pace")))
