"""Hypothesis strategies and fresh games shared by the HTTP and Socket.IO fuzz tests.

``arbitrary_json()`` is any JSON value (every type, unicode, huge and tiny numbers, nesting); the other strategies
are near-valid: the right shape with values drawn from both the accepted ones and garbage, so generated input
reaches the deep checks (a game's own options and setup parser, a level range, a token) and not only the first
type check.
"""

from __future__ import annotations

import secrets
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from webapp.seats import issue_token

GAMES = ("tictactoe", "nim", "connect4", "wolves", "chess")
GAME_KINDS = ("friends", "engine", "finished", "open", "missing")
"""The games each example acts on (see ``new_games``)."""
TOKEN_KINDS = ("seat0", "seat1", "other_game", "forged", "garbage", "absent")
"""Which token a request carries, resolved by ``token_for`` once the example's games exist."""

json_numbers = st.one_of(
    st.integers(min_value=-10, max_value=100),
    st.integers(min_value=-(10**60), max_value=10**60),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, -0.0, 0.05, 0.049, 60.0, 60.0001, 1e308, 5e-324, 2**53 + 1, -(2**63)]),
)
json_text = st.one_of(
    st.text(max_size=30),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=8),
    st.sampled_from(["", " ", "\x00", "5", "1:1", "e2e4", "e7e8q", "startpos", "random", "engine", "friend",
                     "engines", "alphabeta", "minimax", "mcts", "aggressive", "balanced", "__proto__", "٥",
                     "𝟓", "Ⅴ", "5" * 17, "a" * 201, *GAMES]),
)


def arbitrary_json(max_leaves: int = 12) -> st.SearchStrategy[Any]:
    """Any JSON value: null, booleans, numbers, strings, and lists and objects of them."""
    scalars = st.none() | st.booleans() | json_numbers | json_text
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(json_text, inner,
                                                                                                max_size=4),
                        max_leaves=max_leaves)


def _or_garbage(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly ``strategy``, sometimes any JSON value."""
    return st.one_of(strategy, strategy, strategy, arbitrary_json(4))


move_texts = _or_garbage(st.sampled_from(["5", "1", "9", "0", "10", "1:1", "4", "e2e4", "a1", " 5", "5 "])
                         | json_text)
game_ids = _or_garbage(st.text(alphabet="abcXYZ019_-", min_size=1, max_size=33) | json_text)
levels = _or_garbage(st.integers(min_value=-1, max_value=9))
personalities = _or_garbage(st.sampled_from(["balanced", "aggressive", "solid", "shy", "", None]))
opponents = st.one_of(
    st.fixed_dictionaries({"type": st.just("engine"), "level": levels}, optional={"personality": personalities}),
    st.fixed_dictionaries({"type": st.just("engine")}, optional={
        "depth": _or_garbage(st.integers(min_value=0, max_value=65)),
        "time": _or_garbage(st.sampled_from([0.05, 0.04, 1, 60, 61])),
        "algorithm": _or_garbage(st.sampled_from(["alphabeta", "minimax", "mcts", "magic"])),
        "personality": personalities, "level": levels}),
    st.fixed_dictionaries({"type": st.just("friend")}, optional={"level": levels}),
    st.fixed_dictionaries({"type": st.just("engines"), "levels": _or_garbage(st.lists(levels, max_size=3))},
                          optional={"personalities": _or_garbage(st.lists(personalities, max_size=3))}),
    arbitrary_json(6),
)
game_options = _or_garbage(st.dictionaries(
    st.sampled_from(["piles", "max_take", "misere", "takeback", "width", "rows", "bad name", "x" * 41]) | json_text,
    _or_garbage(st.lists(st.integers(min_value=-2, max_value=120), max_size=17) | st.integers(-2, 120)
                | st.booleans()),
    max_size=4))
setups = _or_garbage(st.sampled_from([
    "", "5", "51", "123456789", "1:1", "3,4,5", "3,4,5 max=2 misere next=2", "0,0", "4444444", "1234567" * 7,
    "startpos", "startpos moves e2e4", "8/8/8/8/8/8/8/8 w - - 0 1", "k7/8/8/8/8/8/8/7K w - - 0 1",
    "R:d1 W:a8,c8,e8,g8 r", "1. e4 e5 2. Nf3 *", "[FEN \"bad\"]\n\n1. e4", "1. e4 (e5) ) d5", "x" * 8001,
]) | json_text)


def create_bodies() -> st.SearchStrategy[Any]:
    """``POST /api/games`` bodies: the documented fields with right and wrong values, an unknown field, or none."""
    optional = {"options": game_options, "side": _or_garbage(st.sampled_from([0, 1, "random", 2, -1, True, None])),
                "setup": setups}
    return st.one_of(
        st.fixed_dictionaries({"game": _or_garbage(st.sampled_from(GAMES)), "opponent": opponents}, optional=optional),
        st.fixed_dictionaries({}, optional={"game": arbitrary_json(3), "opponent": arbitrary_json(3), **optional,
                                            "colour": arbitrary_json(3)}),
        arbitrary_json(),
    )


Post = Callable[[str, dict[str, Any]], tuple[int, Any]]
"""Sends a JSON body to a path of the app; returns the status and the JSON answer (a fresh client each time)."""


def flask_post(app: Any) -> Post:
    """``Post`` through Flask's test client."""
    def post(path: str, body: dict[str, Any]) -> tuple[int, Any]:
        answer = app.test_client().post(path, json=body)
        return answer.status_code, answer.get_json()

    return post


def new_games(post: Post) -> tuple[dict[str, str], dict[str, tuple[str | None, str | None]]]:
    """Fresh tic-tac-toe games, one of each of ``GAME_KINDS``, made through the API: ``friends`` (both seats
    taken, ``5`` played), ``engine`` (a person, to move, against the engine), ``finished`` (resigned), ``open``
    (seat 1 still free) and ``missing`` (an id no game has). Returns their ids and the tokens the players hold."""
    invites: dict[str, str] = {}

    def create(opponent: dict[str, Any]) -> tuple[str, str]:
        status, answer = post("/api/games", {"game": "tictactoe", "opponent": opponent})
        assert status == 201, answer
        invites[answer["id"]] = answer["invite"]
        return answer["id"], answer["token"]

    ids: dict[str, str] = {}
    tokens: dict[str, tuple[str | None, str | None]] = {}
    ids["friends"], first = create({"type": "friend"})
    status, second = post(f"/api/games/{ids['friends']}/seats", {"invite": invites[ids["friends"]]})
    assert status == 200 and post(f"/api/games/{ids['friends']}/moves", {"move": "5", "token": first})[0] == 200
    tokens["friends"] = (first, second["token"])
    ids["engine"], mine = create({"type": "engine", "level": 1})
    tokens["engine"] = (mine, None)
    ids["finished"], loser = create({"type": "friend"})
    assert post(f"/api/games/{ids['finished']}/resign", {"token": loser})[0] == 200
    tokens["finished"] = (loser, None)
    ids["open"], host = create({"type": "friend"})
    tokens["open"] = (host, None)
    ids["missing"] = "nope" + secrets.token_hex(4)
    tokens["missing"] = (None, None)
    return ids, tokens


def token_for(kind: Any, game: str, ids: dict[str, str], tokens: dict[str, tuple[str | None, str | None]],
              secret: str) -> Any:
    """The token ``kind`` (one of ``TOKEN_KINDS``; anything else is used as it is) for the game of kind ``game``:
    the player's token of seat 0 or 1 (for a seat nobody holds, the one the server with ``secret`` would issue),
    a token of another game, a forged one, a string that is no token, or None for ``absent``."""
    if kind not in TOKEN_KINDS:
        return kind
    if kind in ("seat0", "seat1"):
        seat = int(kind[-1])
        return tokens[game][seat] or issue_token(secret, ids[game], seat)
    if kind == "other_game":
        return issue_token(secret, ids["friends" if game != "friends" else "open"], 0)
    if kind == "forged":
        return issue_token("not the secret", ids[game], 0)
    if kind == "garbage":
        return "eyJnIjoieCJ9.not-a-signature"
    return None


@dataclass(frozen=True, slots=True)
class Games:
    """Fresh games of every kind (``GAME_KINDS``): their ids and the seat tokens their players hold."""

    ids: dict[str, str]
    tokens: dict[str, tuple[str | None, str | None]]


def make_games(app: Any) -> Games:
    """A friend tic-tac-toe game after ``5`` with both seats taken, one against the engine (the person to move),
    one resigned, one waiting for its second player, and an id no game has."""
    ids, tokens = new_games(flask_post(app))
    return Games(ids, tokens)


def stored_ids(app: Any) -> list[str]:
    """Every game id in the database."""
    path = Path(app.instance_path) / "arena.sqlite3"
    with sqlite3.connect(path) as db:
        return sorted(row[0] for row in db.execute("SELECT id FROM games"))


def snapshot(app: Any, games: Games) -> tuple[Any, ...]:
    """What a refused request must leave alone: each game's public state and stored rows, and the game ids."""
    arena = app.extensions["arena"]
    reader = app.test_client()
    states = {kind: reader.get(f"/api/games/{game_id}").get_json() for kind, game_id in games.ids.items()}
    rows = {kind: arena.store.load_game(game_id) for kind, game_id in games.ids.items()}
    return states, rows, stored_ids(app)
