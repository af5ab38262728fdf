"""The search stepper's recordings: a position searched to a depth with a lab preset, every node recorded in the
order the engine visited it (``engine.stepper``), for ``GET /api/steps/<game>``.

A recording runs on the engine workers as background work of the asking address (after every live game's engine
turn, within the address's share: ``webapp.search.fair_queue``) and its answer goes back to the waiting request.
The same position, preset and depth give the same recording every time (a fresh, depth-limited search), so none is
stored: a link names one, and the last ``RECORDINGS_KEPT`` answers stay ready for the next visitor of this node.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from engine.search.info import SearchOptions
from webapp import schema
from webapp.arena.analysis import AnalysedPosition
from webapp.arena.lab import PRESETS
from webapp.errors import ArenaError, ErrorCode
from webapp.search.fair_queue import BACKGROUND
from webapp.search.jobs import CEILING_SECONDS, Runner, SearchJob

MAX_STEP_DEPTH: int = schema.component("Depth")["maximum"]
"""The deepest search a recording may ask for (the API description's ``Depth``); the node limit usually binds
first."""
RECORDINGS_KEPT = 8
"""Answers kept ready (each at most a few MB of JSON: docs/stepper.md measures them)."""
WAIT_SECONDS = CEILING_SECONDS + 30
"""How long a request waits for its recording: the engines' ceiling, plus time in the queue."""
MINIMAX_AS = dataclasses.replace(PRESETS["alphabeta"][2], alphabeta=False)
"""The minimax preset, stepped: the alpha-beta searcher with cut-offs off visits minimax's tree (as negamax)."""


def step_options(preset: str) -> SearchOptions:
    """The search options a preset is stepped with; ``ArenaError`` "bad_request" for MCTS or an unknown preset."""
    if preset == "minimax":
        return MINIMAX_AS
    if preset not in PRESETS or PRESETS[preset][2].algorithm != "alphabeta":
        choices = ", ".join(name for name, row in PRESETS.items() if row[2].algorithm != "mcts")
        raise ArenaError(ErrorCode.BAD_REQUEST, f"preset {preset!r} cannot be stepped through; presets: {choices}")
    return PRESETS[preset][2]


class Stepper:
    """Recordings on the shared ``runner``; ``job_ids()`` numbers the jobs."""

    def __init__(self, runner: Runner, job_ids: Callable[[], int]) -> None:
        self.runner = runner
        self._job_ids = job_ids
        self._kept: OrderedDict[tuple[str, ...], bytes] = OrderedDict()
        self._making: dict[tuple[str, ...], _Making] = {}
        self._lock = threading.Lock()

    def recording(self, position: AnalysedPosition, preset: str, depth: int, client: str) -> bytes:
        """The JSON answer (``engine.stepper.SteppedSearch.to_dict`` with the position and settings) for
        ``position`` searched to ``depth`` with ``preset``, as background work of ``client``; waits for it
        (``WAIT_SECONDS`` at most: then "engine_busy", as for a recording stopped before its end). Requests for a
        recording already being made wait for that one. A finished position, MCTS or an unknown preset raise
        ``ArenaError``."""
        options = step_options(preset)
        state = position.state
        if state.outcome() is not None:
            raise ArenaError(ErrorCode.NOT_ALLOWED, "the game is over in this position: there is nothing to search")
        key = (state.name, position.start.setup(), " ".join(position.moves), preset, str(depth))
        with self._lock:
            if key in self._kept:
                self._kept.move_to_end(key)
                return self._kept[key]
            making = self._making.get(key)
            first = making is None
            if making is None:
                making = self._making[key] = _Making()
        if not first:
            if not making.done.wait(WAIT_SECONDS):
                raise ArenaError(ErrorCode.ENGINE_BUSY, f"the recording did not finish within {WAIT_SECONDS:g} s")
            if making.error is not None:
                raise making.error
            return making.body
        try:
            making.body = self._record(position, preset, depth, options, client)
            with self._lock:
                self._kept[key] = making.body
                while len(self._kept) > RECORDINGS_KEPT:
                    self._kept.popitem(last=False)
            return making.body
        except ArenaError as error:
            making.error = error
            raise
        finally:
            with self._lock:
                del self._making[key]
            making.done.set()

    def _record(self, position: AnalysedPosition, preset: str, depth: int, options: SearchOptions,
                client: str) -> bytes:
        """Run the recording job and wait for its answer; ``ArenaError`` "engine_busy" when it does not come, fails
        or was stopped before its end."""
        state = position.state
        done = threading.Event()
        final: dict[str, Any] = {}
        job_id = self._job_ids()
        job = SearchJob(id=job_id, key=f"steps:{job_id}", ply=len(position.moves),
                        seat=state.to_move, state=state, client=client, priority=BACKGROUND,
                        engine={"steps": {"depth": depth, "options": dataclasses.asdict(options)}})
        self.runner.submit(job, functools.partial(_on_event, final, done))
        if not done.wait(WAIT_SECONDS):
            self.runner.cancel(job.key, "timed out")
            raise ArenaError(ErrorCode.ENGINE_BUSY, f"the recording did not finish within {WAIT_SECONDS:g} s")
        if final.get("kind") != "final":
            raise ArenaError(ErrorCode.ENGINE_BUSY, f"the recording failed: {final.get('message', 'cancelled')}")
        steps = final["steps"]
        if steps["record"] is None and not steps["too_large"]:
            raise ArenaError(ErrorCode.ENGINE_BUSY, "the recording was stopped before its end (the engines' ceiling)")
        return json.dumps({"game": state.name, "setup": position.start.setup(), "moves": list(position.moves),
                           "preset": preset, "depth": depth, **steps}, separators=(",", ":")).encode()


@dataclasses.dataclass
class _Making:
    """A recording being made: set ``done`` once it has its ``body`` or its ``error``."""

    done: threading.Event = dataclasses.field(default_factory=threading.Event)
    body: bytes = b""
    error: ArenaError | None = None


def _on_event(final: dict[str, Any], done: threading.Event, job: SearchJob, info: dict[str, Any]) -> None:
    """The runner's handler of a recording job: keep its last event and wake the request."""
    if info["kind"] in ("final", "failed", "cancelled"):
        final.update(info)
        done.set()
