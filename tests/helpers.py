"""Helpers shared by the test modules (their fixtures are in conftest.py): waiting for a condition, creating and
playing games through Flask's test client, Socket.IO test clients, and stored games."""

from __future__ import annotations

import datetime as dt
import json
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

import pytest

from engine.cli import main as engine_command
from engine.commands.analyse import TOGGLES
from webapp.arena.lab import PRESETS
from webapp.clock import Clock
from webapp.store import Store, StoredGame, StoredSeat
from webapp.transport.sockets import socketio

T = TypeVar("T")

WAIT = 30.0
"""Seconds a test waits at most for something the server does by itself (an engine's reply, a clock's fall): a
guard against hanging, far above how long it takes, never a timing bound."""
FRIEND = {"game": "tictactoe", "opponent": {"type": "friend"}, "side": 0}


def eventually(condition: Callable[[], T], what: str, timeout: float = WAIT, interval: float = 0.05) -> T:
    """Call ``condition`` until it returns a true value, and return that value; ``AssertionError`` saying that
    ``what`` did not happen once ``timeout`` seconds have passed."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {timeout:g} s")
        time.sleep(interval)


class ManualClock(Clock):
    """A clock that moves only when told: ``advance(seconds)`` moves its Unix and its monotonic time together (its
    Unix time starts at the real one, so what is stored with it looks recent). A wait on it ends when it is advanced
    (its waiters look again every ``REAL_POLL`` real seconds, so none misses an advance)."""

    REAL_POLL = 0.02

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._unix = time.time()
        self._monotonic = 1000.0
        self._waiting: weakref.WeakSet[threading.Condition] = weakref.WeakSet()

    def time(self) -> float:
        with self._lock:
            return self._unix

    def monotonic(self) -> float:
        with self._lock:
            return self._monotonic

    def wait(self, condition: threading.Condition, seconds: float | None) -> None:
        with self._lock:
            self._waiting.add(condition)
        condition.wait(self.REAL_POLL)

    def advance(self, seconds: float) -> None:
        """Move the clock ``seconds`` forward and wake whoever waits on it."""
        with self._lock:
            self._unix += seconds
            self._monotonic += seconds
            waiting = list(self._waiting)
        for condition in waiting:
            with condition:
                condition.notify_all()


class TickingClock:
    """A monotonic clock for the engine (``engine.clock.Monotonic``) that moves ``step`` seconds at every read, so
    that how much of it a search spends depends on the search's work alone, never on the machine's load. With a
    step of 0 it stands still: no time limit on it ever passes."""

    def __init__(self, step: float) -> None:
        self.step = step
        self.now = 0.0

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def create(client, body: dict = FRIEND, alone: bool = True) -> dict:
    """Create a game with Flask test client ``client``; the creator of a friend game plays on ``alone`` (without
    waiting for the friend) unless told not to. Returns the creation's answer."""
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.json
    created = response.json
    if alone and body["opponent"]["type"] == "friend":
        assert client.post(f"/api/games/{created['id']}/alone", json={"token": created["token"]}).status_code == 200
    return created


def friend_game(app) -> tuple[str, str, str]:
    """A friend tic-tac-toe game with both seats taken: ``(id, token of seat 0, token of seat 1)``."""
    first, second = app.test_client(), app.test_client()
    created = create(first)
    taken = second.post(f"/api/games/{created['id']}/seats", json={"invite": created["invite"]})
    assert taken.status_code == 200 and taken.json["seat"] == 1
    return created["id"], created["token"], taken.json["token"]


def assert_error(response, status: int, code: str) -> None:
    """``response`` is the API's JSON error ``code`` with HTTP ``status`` and a message."""
    assert response.status_code == status, response.json
    assert response.json["error"] == code
    assert response.json["message"]


def state_when(client, game_id: str, accept: Callable[[dict], bool], what: str) -> dict:
    """The game's state (``GET /api/games/<id>``) once ``accept(state)`` holds; ``AssertionError`` naming ``what``
    after ``WAIT`` seconds."""
    def accepted() -> dict | None:
        state = client.get(f"/api/games/{game_id}").json
        return state if accept(state) else None

    return eventually(accepted, f"game {game_id}: {what}")


def wait_for_end(client, game_id: str) -> dict:
    """The state of the game once it is finished."""
    return state_when(client, game_id, lambda state: state["status"] == "finished", "the end")


def wait_for_turn(client, game_id: str, seat: int) -> dict:
    """The state of the game once ``seat`` is to move or the game is no longer active."""
    return state_when(client, game_id, lambda state: state["to_move"] == seat or state["status"] != "active",
                      f"seat {seat}'s turn")


def wait_for_ply(client, game_id: str, ply: int) -> dict:
    """The state of the game once it has reached ``ply`` or is no longer active."""
    return state_when(client, game_id, lambda state: state["ply"] >= ply or state["status"] != "active",
                      f"ply {ply}")


def connect(app, token: str | None = None, join: str | None = None):
    """A connected Flask-SocketIO test client (with the seat ``token``), having joined game ``join`` if given (the
    messages of joining already read)."""
    client = socketio.test_client(app, auth={"token": token} if token else None)
    assert client.is_connected()
    if join:
        client.emit("join", {"game_id": join})
        client.get_received()
    return client


def named(client, name: str) -> list[Any]:
    """The payloads of the ``name`` messages ``client`` received since it was last read."""
    return [message["args"][0] for message in client.get_received() if message["name"] == name]


def heard_within(client, name: str, seconds: float) -> list[Any]:
    """The ``name`` messages ``client`` receives, once at least one has come or ``seconds`` have passed."""
    deadline = time.monotonic() + seconds
    heard = named(client, name)
    while not heard and time.monotonic() < deadline:
        time.sleep(0.05)
        heard += named(client, name)
    return heard


def new_game(store: Store, game_id: str, engine_seat: int | None = None, game: str = "tictactoe") -> None:
    """Store a new active ``game`` (tic-tac-toe unless told) ``game_id`` (take-backs allowed) whose ``engine_seat`` is
    an engine's."""
    now = dt.datetime.now(dt.UTC)
    seats = [StoredSeat(i, {"level": 1} if i == engine_seat else None, i != engine_seat) for i in (0, 1)]
    store.create_game(StoredGame(
        id=game_id, game=game, start_setup="", game_options={}, options={"takeback": True},
        opponent={"type": "friend"}, status="active", winner=None, reason=None, rematch_id=None,
        created_at=now, updated_at=now, seats=seats), to_move=0)


def analyse_json(game: str, position: str, depth: int, preset: str, capsys: pytest.CaptureFixture[str]) -> dict:
    """The final event of ``python -m engine analyse`` on ``position`` (the game's setup notation) to ``depth`` with
    the lab preset's options spelled out as flags."""
    options = PRESETS[preset][2]
    flags = [f"--option={name}={'on' if getattr(options, name) else 'off'}" for name in TOGGLES]
    argv = ["analyse", game, "--position", position, "--depth", str(depth), "--json",
            "--algorithm", options.algorithm, *flags]
    assert engine_command(argv) == 0
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])
