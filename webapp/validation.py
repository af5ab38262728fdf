"""Checks of everything a client sends: HTTP bodies and Socket.IO payloads. Their shapes and limits are those of the
API description (webapp/openapi.yaml, checked by ``webapp.schema``); what a schema cannot say is checked here after
it: a personality the game offers, a personality only with alpha-beta, no clock between engines. Each check returns
clean values or raises ``ArenaError`` whose message says what was wrong; nothing is changed before a payload passes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from engine.game import UnknownGameError
from engine.games import game_class
from webapp import schema
from webapp.errors import ArenaError, ErrorCode
from webapp.game_clocks import TimeControl

GAME_ID = re.compile(schema.component("GameId")["pattern"])
"""A game id (``fullmatch``), as the API description gives it."""
MAX_EVENT_BYTES = 4096
ARENA_OPTIONS = tuple(schema.component("NewGame")["properties"]["options"]["properties"])
"""The options of a new game that are the arena's (``takeback``, ``hints``), not the game's."""
NEW_GAME_CODES = {"game": ErrorCode.BAD_GAME, "options": ErrorCode.BAD_GAME, "setup": ErrorCode.BAD_GAME,
                  "clock": ErrorCode.BAD_GAME, "opponent": ErrorCode.BAD_OPPONENT, "side": ErrorCode.BAD_OPPONENT}
"""The error code of a fault in each field of a new game (other faults are ``bad_request``)."""
EVENT_FIELDS = {"game_id": "GameId", "move": "MoveText"}
"""The Socket.IO payload fields with a schema of the API description; the handlers check the others."""


@dataclass(frozen=True, slots=True)
class NewGameRequest:
    """A checked ``POST /api/games`` body. ``engines`` holds the engine settings of each seat (None = human)."""

    game: str
    game_options: dict[str, Any]
    takeback: bool
    setup: str | None
    opponent: dict[str, Any]
    engines: tuple[dict[str, Any] | None, dict[str, Any] | None]
    side: int | str | None
    clock: TimeControl | None = None
    hints: bool = False


BODY_CODES = {"token": ErrorCode.BAD_TOKEN, "invite": ErrorCode.BAD_INVITE}
"""Error codes of a fault in these fields of any request body (a seat token, an invitation code); other faults are
``bad_request``."""


def check_body(operation_id: str, body: object) -> dict[str, Any]:
    """``body`` if it is the JSON request body the API description gives the operation ``operation_id``, else
    ``ArenaError``: ``bad_token`` or ``bad_invite`` for a fault in ``token`` or ``invite`` (``BODY_CODES``), else
    ``bad_request``."""
    return schema.check(schema.request_body(operation_id), body, BODY_CODES)


def check_event(data: object, required: tuple[str, ...]) -> dict[str, Any]:
    """A Socket.IO payload: at most 4 KB of JSON, exactly the ``required`` fields, ``game_id`` and ``move`` as the
    API description has them."""
    try:
        size = len(json.dumps(data))
    except (TypeError, ValueError):
        raise ArenaError(ErrorCode.BAD_REQUEST, "the payload is not JSON") from None
    if size > MAX_EVENT_BYTES:
        raise ArenaError(ErrorCode.BAD_REQUEST, f"the payload is {size} bytes; at most {MAX_EVENT_BYTES} are accepted")
    return schema.check(_event_schema(required), data)


@cache
def _event_schema(required: tuple[str, ...]) -> dict[str, Any]:
    """The schema of a Socket.IO payload with exactly the ``required`` fields (made once per event kind)."""
    properties = {name: schema.component_ref(EVENT_FIELDS[name]) if name in EVENT_FIELDS else True
                  for name in required}
    return {"type": "object", "required": list(required), "properties": properties, "additionalProperties": False}


def check_personalities(game: str, engines: tuple[dict[str, Any] | None, ...]) -> None:
    """Refuse an engine personality that ``game`` does not offer (a game may offer none)."""
    asked = [engine["personality"] for engine in engines if engine and "personality" in engine]
    if not asked:
        return
    try:
        choices = tuple(getattr(game_class(game), "personalities", ()))
    except UnknownGameError as error:
        raise ArenaError(ErrorCode.BAD_GAME, str(error)) from None
    if not choices:
        raise ArenaError(ErrorCode.BAD_OPPONENT, f"{game} has no engine personalities; leave personality out")
    for name in asked:
        if name not in choices:
            raise ArenaError(ErrorCode.BAD_OPPONENT, f"unknown personality {name!r} for {game}; choose one of "
                             f"{', '.join(choices)}")


def _style(personality: str | None) -> dict[str, str]:
    return {} if personality is None else {"personality": personality}


def engine_settings(opponent: dict[str, Any]) -> dict[str, Any]:
    """The settings of a schema-checked ``engine`` opponent: ``{level}`` or ``{depth, time, algorithm}``, each with
    its ``personality`` if it has one (only alpha-beta has personalities)."""
    style = _style(opponent.get("personality"))
    if "level" in opponent:
        return {"level": int(opponent["level"]), **style}
    depth, time_limit = opponent.get("depth"), opponent.get("time")
    algorithm = opponent.get("algorithm", "alphabeta")
    if style and algorithm != "alphabeta":
        raise ArenaError(ErrorCode.BAD_OPPONENT, f"a personality needs the alphabeta algorithm, not {algorithm}")
    return {"depth": None if depth is None else int(depth), "time": None if time_limit is None else float(time_limit),
            "algorithm": algorithm, **style}


def _opponent(
    opponent: dict[str, Any], side: int | str
) -> tuple[dict[str, Any], tuple[dict[str, Any] | None, dict[str, Any] | None], int | str | None]:
    """The normalised schema-checked opponent, the engine settings of each seat (seat 0 first), and the creator's
    side (None when engines play each other)."""
    if opponent["type"] == "friend":
        return {"type": "friend", "open": opponent.get("open", False)}, (None, None), side
    if opponent["type"] == "engine":
        settings = engine_settings(opponent)
        return {"type": "engine", **settings}, (None, settings), side
    levels = [int(level) for level in opponent["levels"]]
    styles = opponent.get("personalities", [None, None])
    seats = [{"level": level, **_style(style)} for level, style in zip(levels, styles, strict=True)]
    normalised = {"type": "engines", "levels": levels, **({"personalities": styles} if any(styles) else {})}
    return normalised, (seats[0], seats[1]), None


def check_new_game(body: object) -> NewGameRequest:
    """A ``POST /api/games`` body (see docs/protocol.md). Engine seats are given for side 0 here; the caller
    swaps them once the creator's side is drawn."""
    data = schema.check(schema.request_body("createGame"), body, NEW_GAME_CODES)
    opponent, engines, side = _opponent(data["opponent"], data.get("side", 0))
    check_personalities(data["game"], engines)
    clock = data.get("clock")
    if clock is not None and opponent["type"] == "engines":
        raise ArenaError(ErrorCode.BAD_GAME,
            "clocks are for games with a person in them; an engine-against-engine game "
            "is paced instead")
    options = data.get("options") or {}
    takeback = options.get("takeback")
    if takeback is None:
        takeback = opponent["type"] == "engine"
    game_options = {name: value for name, value in options.items() if name not in ARENA_OPTIONS}
    return NewGameRequest(data["game"], game_options, takeback, data.get("setup"), opponent, engines, side,
                          None if clock is None else TimeControl(float(clock["minutes"]), int(clock["increment"])),
                          options.get("hints", False))
