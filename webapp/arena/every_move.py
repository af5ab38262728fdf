"""Scoring every move of an engine search: alpha-beta leaves most candidates of a stored search as bounds ("at most
this"); asked for it, the same search is run again at the same depth with a full window for every root move
(``engine.search.every_move``) on the engine workers, and each move's exact score reaches the game's room as
``every_move``, for the panel to show beside the bounds.

A job is background work of whoever asked; its key is ``every-move:<game id>:<ply>``, so asking again while it runs
adds nothing. The last ``KEPT`` answers are kept and given at once to whoever asks again.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, NotRequired, TypedDict

from engine.game import State
from engine.levels import level_for
from engine.search.info import SearchOptions
from webapp.search.fair_queue import BACKGROUND
from webapp.search.jobs import Runner, SearchJob

EVERY_MOVE_SECONDS = 10.0
"""The longest a search that scores every move may run; the deepest depth it completed within it is the answer."""
KEPT = 256
"""How many answers this node keeps (the most recently made)."""


class ScoredMove(TypedDict):
    """One root move and its exact score at the answer's depth (``score_text`` written as the search writes it)."""

    move: str
    text: str | None
    score: int | None
    score_text: str | None


class EveryMovePayload(TypedDict):
    """The ``every_move`` message and answer about the engine search of the move that made ``ply``: "running",
    "failed" (with ``message``) or "done" with ``moves`` (best first), the ``depth`` they were scored at (the
    search's own, ``asked_depth``, unless the time ran out first), and the ``nodes`` and ``time_ms`` it took."""

    game_id: str
    ply: int
    status: str
    message: NotRequired[str | None]
    depth: NotRequired[int]
    asked_depth: NotRequired[int]
    moves: NotRequired[list[ScoredMove]]
    nodes: NotRequired[int]
    time_ms: NotRequired[float]


def search_options(game: str, engine: dict[str, Any]) -> SearchOptions:
    """The search options an engine search ran with, from its settings (a search record's ``engine``: a level, or
    an algorithm with a personality); ``ValueError`` for settings that have no alpha-beta search to repeat."""
    if "level" in engine:
        options = level_for(game, engine["level"]).options
    else:
        options = SearchOptions(algorithm=engine.get("algorithm", "alphabeta"))
    options = dataclasses.replace(options, personality=engine.get("personality"))
    if options.algorithm != "alphabeta":
        raise ValueError(f"a {options.algorithm} search leaves no bounds: its moves' scores are all it has")
    return options


class EveryMove:
    """The every-move scores asked of this node. ``emit(event, payload, to=room)`` sends Socket.IO messages."""

    def __init__(self, runner: Runner, emit: Callable[..., None], job_ids: Callable[[], int]) -> None:
        self.runner = runner
        self.emit = emit
        self._job_ids = job_ids
        self._done: OrderedDict[tuple[str, int], EveryMovePayload] = OrderedDict()
        self._lock = threading.Lock()

    def request(self, game_id: str, ply: int, state: State, options: SearchOptions, depth: int,
                client: str) -> EveryMovePayload:
        """Score every move of ``state`` (the position before the move that made ``ply``) at ``depth`` with
        ``options``, as background work of ``client``; the answer reaches the game's room as ``every_move``.
        Returns it at once when it is known, else ``{game_id, ply, status: "running"}``."""
        with self._lock:
            known = self._done.get((game_id, ply))
        if known is not None:
            return known
        engine = {"every_move": {"depth": depth, "seconds": EVERY_MOVE_SECONDS,
                                 "options": dataclasses.asdict(options)}}
        self.runner.submit(SearchJob(id=self._job_ids(), key=f"every-move:{game_id}:{ply}", ply=ply,
                                     seat=state.to_move, state=state, engine=engine, client=client,
                                     priority=BACKGROUND),
                           functools.partial(self._on_event, game_id, depth))
        return {"game_id": game_id, "ply": ply, "status": "running"}

    def _on_event(self, game_id: str, asked_depth: int, job: SearchJob, info: dict[str, Any]) -> None:
        """The runner's handler: keep a final answer and send it (or the failure) to the room."""
        if info["kind"] == "failed":
            failed: EveryMovePayload = {"game_id": game_id, "ply": job.ply, "status": "failed",
                                        "message": info.get("message")}
            self.emit("every_move", failed, to=game_id)
            return
        if info["kind"] != "final":
            return
        found = info["every_move"]
        roots = sorted(found["root_moves"], key=lambda root: (root["score"] is None, -(root["score"] or 0)))
        moves: list[ScoredMove] = [{"move": root["move"], "text": root["text"], "score": root["score"],
                                    "score_text": root["score_text"]} for root in roots]
        done: EveryMovePayload = {"game_id": game_id, "ply": job.ply, "status": "done", "depth": found["depth"],
                                  "asked_depth": asked_depth, "moves": moves, "nodes": found["nodes"],
                                  "time_ms": found["time_ms"]}
        with self._lock:
            self._done[(game_id, job.ply)] = done
            while len(self._done) > KEPT:
                self._done.popitem(last=False)
        self.emit("every_move", done, to=game_id)
