"""Hints in games created with them (``options.hints``): after every change of such a game, the value of each legal
move for the side to move (``engine.hints.move_hints``: exact where known, else a search that scores every move) is
worked out on the engine workers and sent to the game's room as ``hints`` ``{game_id, ply, how, depth, moves}``.

A hints job is background work of whoever made the position (the mover's address): a live engine turn goes first.
Its key is ``hints:<game id>``, so a new position's job replaces the last one's. The latest answer of each
game is kept here and sent to whoever joins while it is still the game's position.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
from collections.abc import Callable
from typing import Any, Literal, TypedDict

from engine.game import State
from engine.hints import HINT_SETTINGS, MoveHint
from webapp.arena.live import LiveGame
from webapp.search.fair_queue import BACKGROUND
from webapp.search.jobs import Runner, SearchJob


class HintsPayload(TypedDict):
    """The ``hints`` message: the hints of the position after ``ply`` moves (``engine.hints.move_hints``), for
    ``seat`` to move, and in words where they come from (``source``)."""

    game_id: str
    ply: int
    seat: int
    how: Literal["exact", "search"]
    depth: int | None
    moves: dict[str, MoveHint]
    source: str


def job_key(game_id: str) -> str:
    """The runner's key of the hints search of ``game_id``."""
    return f"hints:{game_id}"


class Hints:
    """The hints of the games this node serves. ``emit(event, payload, to=room)`` sends Socket.IO messages;
    ``find(game_id)`` is the game in memory, if it is (``GameCache.find``): its lock is held while hints are stored
    and sent, as for every event sent to a game's room."""

    def __init__(self, runner: Runner, emit: Callable[..., None], job_ids: Callable[[], int],
                 find: Callable[[str], LiveGame | None]) -> None:
        self.runner = runner
        self.emit = emit
        self._job_ids = job_ids
        self._find = find
        self._latest: dict[str, HintsPayload] = {}
        self._lock = threading.Lock()

    def request(self, game_id: str, ply: int, state: State, client: str) -> None:
        """Work out the hints of the position after ``ply`` moves of ``game_id`` (``state``) for ``client``'s share
        of the engines; nothing for a finished position."""
        if state.outcome() is not None:
            self.forget(game_id)
            return
        engine = {"hints": dataclasses.asdict(HINT_SETTINGS)}
        self.runner.submit(SearchJob(id=self._job_ids(), key=job_key(game_id), ply=ply, seat=state.to_move,
                                     state=state, engine=engine, client=client, priority=BACKGROUND),
                           functools.partial(self._on_event, game_id))

    def follow(self, live: LiveGame) -> None:
        """In a game with hints on, have the hints of its current position worked out; a game that ended, or whose
        hints were turned off, drops them. ``live``'s lock held."""
        if live.stored.options.get("hints") and live.active:
            self.request(live.id, live.ply, live.state, live.client)
        else:
            self.forget(live.id)

    def latest(self, game_id: str, ply: int) -> HintsPayload | None:
        """The hints sent for the position after ``ply`` moves of ``game_id``, if they are the latest."""
        with self._lock:
            hints = self._latest.get(game_id)
        return hints if hints is not None and hints["ply"] == ply else None

    def forget(self, game_id: str) -> None:
        """Stop working out the game's hints and drop the last ones (the game ended or left memory)."""
        self.runner.cancel(job_key(game_id), "game over")
        with self._lock:
            self._latest.pop(game_id, None)

    def is_worked_out(self, game_id: str) -> bool:
        """Whether the hints of ``game_id`` are being worked out now (queued or running)."""
        return self.runner.state_of(job_key(game_id)) != "idle"

    def _on_event(self, game_id: str, job: SearchJob, info: dict[str, Any]) -> None:
        """The runner's handler of a hints search of ``game_id``: keep the final answer and send it to the room,
        with the game's lock held (so a client that joins gets them after its ``state``); nothing for a game no
        longer in memory (nobody is in its room)."""
        if info["kind"] != "final":
            return
        live = self._find(game_id)
        if live is None:
            return
        found = info["hints"]
        settings = f"a search of depth {found['depth']}"
        hints: HintsPayload = {"game_id": game_id, "ply": job.ply, "seat": job.seat, "how": found["how"],
                               "depth": found["depth"], "moves": found["moves"],
                               "source": "the exact value of every move" if found["how"] == "exact" else settings}
        with live.lock:
            if live.evicted:
                return
            with self._lock:
                self._latest[game_id] = hints
            self.emit("hints", hints, to=game_id)
