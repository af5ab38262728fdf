"""Games through Flask's test client and the Socket.IO test client: creating and playing them, reading their
events, stored games, and the analyse command's answer (the fixtures are in conftest.py)."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from typing import Any

import pytest

from engine.cli import main as engine_command
from engine.commands.analyse import TOGGLES
from webapp.arena.lab import PRESETS
from webapp.store import Store, StoredGame, StoredSeat
from webapp.transport.sockets import socketio

from .inbox import SocketTestClient
from .waiting import eventually

FRIEND = {"game": "tictactoe", "opponent": {"type": "friend"}, "side": 0}


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
    created = create(first, alone=False)
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


def connect(app, token: str | None = None, join: str | None = None, http: Any = None) -> SocketTestClient:
    """A connected Socket.IO test client (with the seat ``token``; over the Flask test client ``http`` if given, for
    its address and cookies), having joined game ``join`` if given (the messages of joining forgotten)."""
    client = SocketTestClient(socketio.test_client(app, auth={"token": token} if token else None,
                                                   flask_test_client=http))
    assert client.is_connected()
    if join:
        client.emit("join", {"game_id": join})
        client.forget()
    return client


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
