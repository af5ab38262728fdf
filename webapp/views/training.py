"""Your training queue: the mistakes of this browser's reviewed games as exercises that come back (blueprint
``training``, nested in the API under ``/api/me/training``; the page is ``/me/training``).

A mistake is a move of the browser's own side that makes an exercise in its game's review (``engine.review.Exercise``:
it threw away a win or a draw, is a chess mistake or blunder, or gave away more than ``SLOW_PLIES`` plies of
distance). Reading the queue first adds those of the newest ``GAMES_LOOKED_AT`` reviewed games it does not have
(``webapp.store.training``); each exercise is the analysis board's exercise on the position before the mistake
(``?exercise=&better=&within=&value=&train=``), which reports its first answer back
(``POST /api/me/training/result``).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request

from engine.games import game_class
from engine.review import Exercise
from webapp.arena.reviews import exercises_of, summaries_of
from webapp.errors import ArenaError, ErrorCode
from webapp.store import Store
from webapp.store.histories import PlayedGame
from webapp.validation import check_body
from webapp.views.address_limits import limit_reads, limit_seats
from webapp.views.history import analyse_link
from webapp.views.players import Players

bp = Blueprint("training", __name__, url_prefix="/me/training")

GAMES_LOOKED_AT = 200
DUE_SHOWN = 50


def _store() -> Store:
    return current_app.extensions["arena"].store


def _players() -> Players:
    return current_app.extensions["players"]


def mistakes_of(played: PlayedGame) -> dict[int, tuple[Exercise, dict[str, Any]]]:
    """By ply, the exercises that the moves of the browser's side make in ``played``'s done review, each with its
    verdict."""
    if played.review_status != "done" or played.review_result is None:
        return {}
    verdicts = played.review_result["verdicts"]
    return {exercise.ply: (exercise, verdicts[exercise.ply - 1]) for exercise in exercises_of(played.review_result)
            if verdicts[exercise.ply - 1]["by"] == played.seat}


def exercise_url(played: PlayedGame, exercise: Exercise) -> str | None:
    """The analysis board's exercise on the position before ``exercise``'s move, reporting to the queue; None when
    its moves are too long for a link."""
    optional = {"better": exercise.better, "within": exercise.within, "value": exercise.value}
    return analyse_link(played, exercise.ply - 1, exercise=exercise.played,
                        **{name: str(value) for name, value in optional.items() if value is not None},
                        train=f"{played.game_id}:{exercise.ply}")


@bp.get("")
@limit_reads
def queue() -> Response:
    """``{due, waiting, rates, accuracy}``: the exercises due now (the longest waiting first, at most
    ``DUE_SHOWN``), how many come back later, per game the answers given and right, and the browser's side's
    accuracy in each reviewed game, oldest first (for the chart)."""
    player = _players().current()
    if player is None:
        return jsonify({"due": [], "waiting": 0, "rates": [], "accuracy": []})
    games = _store().histories.page(player, GAMES_LOOKED_AT).games
    mistakes = {played.game_id: mistakes_of(played) for played in games}
    _store().training.add(player, ((played.game_id, ply, played.game)
                                   for played in games for ply in mistakes[played.game_id]))
    by_id = {played.game_id: played for played in games}
    due = []
    for item in _store().training.due(player, DUE_SHOWN):
        found = mistakes.get(item.game_id, {}).get(item.ply)
        if found is None:
            continue
        exercise, verdict = found
        due.append({"game_id": item.game_id, "ply": item.ply, "game": item.game, "title": game_class(item.game).title,
                    "move_shown": verdict["move_shown"], "verdict": verdict["verdict"], "step": item.step,
                    "tries": item.tries, "solved": item.solved, "url": exercise_url(by_id[item.game_id], exercise)})
    rates = [{"game": game, "title": game_class(game).title, "tries": tries, "solved": solved}
             for game, (tries, solved) in sorted(_store().training.rates(player).items())]
    accuracy = []
    for played in reversed(games):
        if played.review_status == "done" and played.review_result is not None:
            mine = summaries_of(played.review_result)[played.seat]
            if mine.accuracy is not None:
                accuracy.append({"game_id": played.game_id, "game": played.game,
                                 "title": game_class(played.game).title,
                                 "created_at": played.created_at.isoformat(timespec="seconds"),
                                 "accuracy": mine.accuracy, "method": mine.method})
    return jsonify({"due": due, "waiting": _store().training.waiting(player), "rates": rates, "accuracy": accuracy})


@bp.post("/result")
@limit_seats
def result() -> Response:
    """Body ``{game_id, ply, right}``: this browser's answer to one of its exercises; answers the exercise as it now
    stands (``{game_id, ply, step, due_at, tries, solved}``), ``not_found`` when it has no such exercise."""
    data = check_body("recordTraining", request.get_json(silent=True))
    player = _players().current()
    item = None if player is None else _store().training.record(player, data["game_id"], data["ply"], data["right"])
    if item is None:
        raise ArenaError(ErrorCode.NOT_FOUND, "this browser has no such exercise")
    return jsonify({"game_id": item.game_id, "ply": item.ply, "step": item.step, "tries": item.tries,
                    "solved": item.solved,
                    "due_at": None if item.due_at is None else item.due_at.isoformat(timespec="seconds")})
