"""Checks of everything a client sends: HTTP bodies and Socket.IO payloads. Each check returns clean values or
raises ``ArenaError`` with a message that says what was wrong; nothing is changed before a payload passes."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from engine.game import UnknownGameError
from engine.games import game_class
from webapp.clocks import TimeControl
from webapp.errors import ArenaError

GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")
MAX_MOVE_LENGTH = 16
MAX_EVENT_BYTES = 4096
MAX_SETUP_LENGTH = 8000
"""Long enough for the PGN of a long chess game."""
MAX_OPTION_ITEMS = 16
MAX_OPTION_STRING = 100
LEVELS = range(1, 9)
MAX_DEPTH = 64
MIN_TIME, MAX_TIME = 0.05, 60.0
ALGORITHMS = ("alphabeta", "minimax", "mcts")
ARENA_OPTIONS = ("takeback", "hints")


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


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def check_game_id(value: object) -> str:
    """A game id: 1-32 characters from ``A-Z a-z 0-9 _ -``."""
    if not isinstance(value, str) or not GAME_ID.fullmatch(value):
        raise ArenaError("bad_request", "game_id must be a string of 1-32 letters, digits, '_' or '-'")
    return value


def check_move_text(value: object) -> str:
    """A move text: a non-empty string of at most 16 characters (legality is the game's to judge)."""
    if not isinstance(value, str) or not 0 < len(value) <= MAX_MOVE_LENGTH:
        raise ArenaError("bad_request", f"move must be a string of 1-{MAX_MOVE_LENGTH} characters, e.g. \"5\"")
    return value


def check_fields(data: object, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict[str, Any]:
    """``data`` as a dict holding every ``required`` key, maybe ``optional`` ones, and nothing else."""
    if not isinstance(data, dict):
        raise ArenaError("bad_request", f"the payload must be a JSON object with {', '.join(required) or 'no fields'}")
    missing = [name for name in required if name not in data]
    if missing:
        raise ArenaError("bad_request", f"missing field(s): {', '.join(missing)}")
    unknown = sorted(str(name) for name in data if name not in required and name not in optional)
    if unknown:
        raise ArenaError("bad_request", f"unknown field(s): {', '.join(unknown)}")
    return data


def check_event(data: object, required: tuple[str, ...]) -> dict[str, Any]:
    """A Socket.IO payload: at most 4 KB of JSON, exactly the ``required`` fields, ``game_id`` and ``move`` checked."""
    try:
        size = len(json.dumps(data))
    except (TypeError, ValueError):
        raise ArenaError("bad_request", "the payload is not JSON") from None
    if size > MAX_EVENT_BYTES:
        raise ArenaError("bad_request", f"the payload is {size} bytes; at most {MAX_EVENT_BYTES} are accepted")
    data = check_fields(data, required)
    if "game_id" in data:
        check_game_id(data["game_id"])
    if "move" in data:
        check_move_text(data["move"])
    return data


def _check_option_value(name: str, value: object) -> None:
    if value is None or isinstance(value, bool) or _is_int(value):
        return
    if isinstance(value, str) and len(value) <= MAX_OPTION_STRING:
        return
    if isinstance(value, list) and len(value) <= MAX_OPTION_ITEMS and all(_is_int(v) for v in value):
        return
    raise ArenaError("bad_game", f"option {name!r} must be a number, true/false, null, a short string or a short "
                                 "list of whole numbers")


def check_game_options(options: object) -> tuple[dict[str, Any], bool | None]:
    """Game options (simple JSON values only) and the arena's ``takeback`` option (None when not given); the
    arena's ``hints`` option is read by ``check_hints``."""
    if options is None:
        return {}, None
    if not isinstance(options, dict) or len(options) > MAX_OPTION_ITEMS:
        raise ArenaError("bad_game", "options must be a JSON object of at most 16 options")
    game_options = {}
    for name, value in options.items():
        if name in ARENA_OPTIONS:
            continue
        if not isinstance(name, str) or not name.isidentifier() or len(name) > 40:
            raise ArenaError("bad_game", f"option name {name!r} is not valid")
        _check_option_value(name, value)
        game_options[name] = value
    takeback = options.get("takeback")
    if takeback is not None and not isinstance(takeback, bool):
        raise ArenaError("bad_game", "option 'takeback' must be true or false")
    return game_options, takeback


def check_engine_settings(data: dict[str, Any]) -> dict[str, Any]:
    """One engine's settings from an ``engine`` opponent: ``{"level": 1-8}`` or depth/time/algorithm, each with an
    optional ``personality`` (a name; whether the game has it is checked by ``check_personalities``)."""
    personality = check_personality_name(data.get("personality"))
    style = {} if personality is None else {"personality": personality}
    if "level" in data:
        check_fields(data, ("type", "level"), ("personality",))
        level = data["level"]
        if not _is_int(level) or level not in LEVELS:
            raise ArenaError("bad_opponent", "level must be a whole number from 1 to 8")
        return {"level": level, **style}
    check_fields(data, ("type",), ("depth", "time", "algorithm", "personality"))
    depth, time_limit = data.get("depth"), data.get("time")
    algorithm = data.get("algorithm", "alphabeta")
    if depth is None and time_limit is None:
        raise ArenaError("bad_opponent", "an engine opponent needs a level (1-8), a depth or a time")
    if depth is not None and (not _is_int(depth) or not 1 <= depth <= MAX_DEPTH):
        raise ArenaError("bad_opponent", f"depth must be a whole number from 1 to {MAX_DEPTH}")
    if time_limit is not None and (not _is_number(time_limit) or not MIN_TIME <= time_limit <= MAX_TIME):
        raise ArenaError("bad_opponent", f"time must be a number of seconds from {MIN_TIME} to {MAX_TIME:g}")
    if algorithm not in ALGORITHMS:
        raise ArenaError("bad_opponent", f"algorithm must be one of {', '.join(ALGORITHMS)}")
    if personality is not None and algorithm != "alphabeta":
        raise ArenaError("bad_opponent", f"a personality needs the alphabeta algorithm, not {algorithm}")
    return {"depth": depth, "time": None if time_limit is None else float(time_limit), "algorithm": algorithm,
            **style}


def check_personality_name(value: object) -> str | None:
    """An optional personality name: None, or a short non-empty string."""
    if value is not None and not (isinstance(value, str) and 0 < len(value) <= MAX_OPTION_STRING):
        raise ArenaError("bad_opponent", 'personality must be the name of a style, e.g. "aggressive"')
    return value


def check_personalities(game: str, engines: tuple[dict[str, Any] | None, ...]) -> None:
    """Refuse an engine personality that ``game`` does not offer (a game may offer none)."""
    asked = [engine["personality"] for engine in engines if engine and "personality" in engine]
    if not asked:
        return
    try:
        choices = tuple(getattr(game_class(game), "personalities", ()))
    except UnknownGameError as error:
        raise ArenaError("bad_game", str(error)) from None
    if not choices:
        raise ArenaError("bad_opponent", f"{game} has no engine personalities; leave personality out")
    for name in asked:
        if name not in choices:
            raise ArenaError("bad_opponent", f"unknown personality {name!r} for {game}; choose one of "
                             f"{', '.join(choices)}")


def check_opponent(
    opponent: object, side: object
) -> tuple[dict[str, Any], tuple[dict[str, Any] | None, dict[str, Any] | None], int | str | None]:
    """The normalised opponent, the engine settings of each seat, and the creator's side (None for engines)."""
    if not isinstance(opponent, dict) or opponent.get("type") not in ("engine", "friend", "engines"):
        raise ArenaError("bad_opponent", 'opponent must be an object whose type is "engine", "friend" or "engines"')
    if opponent["type"] == "engines":
        return check_engines_opponent(opponent)
    if side not in (0, 1, "random") or isinstance(side, bool):
        raise ArenaError("bad_opponent", 'side must be 0, 1 or "random"')
    if opponent["type"] == "friend":
        check_fields(opponent, ("type",), ("open",))
        if not isinstance(opponent.get("open", False), bool):
            raise ArenaError("bad_opponent", "open must be true (anyone may take the free seat) or false")
        return {"type": "friend", "open": opponent.get("open", False)}, (None, None), side
    settings = check_engine_settings(opponent)
    return {"type": "engine", **settings}, (None, settings), side


def check_engines_opponent(
    opponent: dict[str, Any]
) -> tuple[dict[str, Any], tuple[dict[str, Any], dict[str, Any]], None]:
    """An engine-against-engine opponent: ``levels`` [seat 0, seat 1] and optional ``personalities`` (a name or
    None per seat)."""
    check_fields(opponent, ("type", "levels"), ("personalities",))
    levels = opponent["levels"]
    if not (isinstance(levels, list) and len(levels) == 2 and all(_is_int(v) and v in LEVELS for v in levels)):
        raise ArenaError("bad_opponent", "levels must be a list of two levels from 1 to 8")
    styles = opponent.get("personalities", [None, None])
    if not (isinstance(styles, list) and len(styles) == 2):
        raise ArenaError("bad_opponent", "personalities must be a list of two names (or null) for seats 0 and 1")
    styles = [check_personality_name(name) for name in styles]
    seats = tuple({"level": level, **({} if style is None else {"personality": style})}
                  for level, style in zip(levels, styles, strict=True))
    normalised = {"type": "engines", "levels": list(levels)}
    if any(styles):
        normalised["personalities"] = styles
    return normalised, seats, None


def check_new_game(body: object) -> NewGameRequest:
    """A ``POST /api/games`` body (see docs/protocol.md). Engine seats are given for side 0 here; the caller
    swaps them once the creator's side is drawn."""
    data = check_fields(body, ("game", "opponent"), ("options", "side", "setup", "clock"))
    game = data["game"]
    if not isinstance(game, str) or not 0 < len(game) <= 32:
        raise ArenaError("bad_game", "game must be the name of a game, e.g. \"tictactoe\"")
    setup = data.get("setup")
    if setup is not None and (not isinstance(setup, str) or len(setup) > MAX_SETUP_LENGTH):
        raise ArenaError("bad_game", f"setup must be a position text of at most {MAX_SETUP_LENGTH} characters")
    game_options, takeback = check_game_options(data.get("options"))
    opponent, engines, side = check_opponent(data["opponent"], data.get("side", 0))
    check_personalities(game, engines)
    if takeback is None:
        takeback = opponent["type"] == "engine"
    clock = TimeControl.parse(data.get("clock"))
    hints = check_hints(data.get("options"))
    if clock is not None and opponent["type"] == "engines":
        raise ArenaError("bad_game", "clocks are for games with a person in them; an engine-against-engine game "
                                     "is paced instead")
    return NewGameRequest(game, game_options, takeback, setup, opponent, engines, side, clock, hints)


def check_hints(options: object) -> bool:
    """The arena's ``hints`` option of a new game's ``options``: true or false, false when not given."""
    hints = options.get("hints", False) if isinstance(options, dict) else False
    if not isinstance(hints, bool):
        raise ArenaError("bad_game", "option 'hints' must be true or false")
    return hints
