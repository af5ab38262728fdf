"""The algorithm lab: one position searched by up to four search configurations side by side.

A run is started by the Socket.IO event ``lab_start`` ``{game, setup, moves, configs}`` (the position: ``setup``
in the game's notation, empty for the start, then ``moves`` played from it); each config is
``{preset, depth, time, playouts}`` (see ``PRESETS``); the payload's shape and limits are the API description's
``LabStart`` schema (webapp/openapi.yaml). Its searches go through the same engine runner as games
(queued when every worker is busy, the same caps on depth and time, but after every live game's engine turn and
within the client's share of the engines: ``webapp.search.fair_queue``), one job per column. Every event of
those searches reaches the run's room ``lab-<run>`` as ``lab`` ``{run, column, info}``, ``info`` being the
runner's event (``SearchInfo`` fields for progress, depth and final).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import secrets
from collections.abc import Callable
from typing import Any

from engine.game import GameError, play_moves
from engine.games import game_class, game_names
from engine.search.info import Limits, SearchOptions
from webapp import schema
from webapp.errors import ArenaError, ErrorCode
from webapp.search.fair_queue import BACKGROUND
from webapp.search.jobs import Runner, SearchJob

ROOM_PREFIX = "lab-"
"""The Socket.IO room of run ``<run>`` is ``lab-<run>``."""
MAX_CONFIGS: int = schema.component("LabStart")["properties"]["configs"]["maxItems"]
"""How many columns a run may have (the API description's ``LabStart.configs``)."""
DEFAULT_TIME = 5.0
"""Time cap of a config that gives neither a depth nor a time (every search must end)."""

_BARE = SearchOptions(pvs=False, iterative=False, tt=False, ordering=False, killers=False, history=False,
                      aspiration=False, null_move=False, lmr=False, bounds=False)
PRESETS: dict[str, tuple[str, str, SearchOptions]] = {
    "minimax": ("Minimax", "every move searched to the full depth, one pass: the cost alpha-beta saves",
                SearchOptions(algorithm="minimax", iterative=False)),
    "alphabeta": ("Alpha-beta", "one pass at the full depth, moves in the game's order, cutting off refuted moves",
                  _BARE),
    "ordering": ("+ ordering", "alpha-beta with the likeliest best moves first (the game's hint: captures, the centre, "
                 "Nim's winning moves by its theory; then killers and history, except in Nim, where a move that "
                 "refuted one position says nothing of the next)",
                 dataclasses.replace(_BARE, ordering=True, killers=True, history=True)),
    "tt": ("+ ordering + TT", "and a transposition table: a position reached twice is searched once",
           dataclasses.replace(_BARE, ordering=True, killers=True, history=True, tt=True)),
    "iterative": ("+ ordering + TT + iterative deepening",
                  "depth 1, 2, 3 ... in turn, each iteration's best move ordering the next (every pass counted)",
                  dataclasses.replace(_BARE, ordering=True, killers=True, history=True, tt=True, iterative=True)),
    "everything": ("Everything", "the engine as it plays: also PVS, aspiration windows, null move, LMR, mate-distance "
                   "pruning and the game's own rules for decided scores (a win on the spot, moves that lose at once)",
                   SearchOptions()),
    "mcts": ("MCTS", "Monte Carlo tree search: random playouts instead of an evaluation, no depth",
             SearchOptions(algorithm="mcts")),
}
"""Preset name -> (label, one-line description, search options). The rows up to "+ ordering + TT" run one pass at
the given depth, so their node counts compare like with like; "iterative" and "everything" count every pass of
iterative deepening. Only "everything" uses the game's rule-based bounds (``SearchOptions.bounds``), so "Alpha-beta"
is alpha-beta alone. Quiescence and the check extension stay on throughout (they only matter for chess)."""


@dataclasses.dataclass(frozen=True, slots=True)
class LabConfig:
    """One column of a run: a preset and its limits (``playouts`` counts MCTS iterations)."""

    preset: str
    limits: Limits

    @property
    def options(self) -> SearchOptions:
        """The preset's search options."""
        return PRESETS[self.preset][2]


def parse_config(config: dict[str, Any]) -> LabConfig:
    """A schema-checked config ``{preset, depth?, time?, playouts?}``; an unknown preset raises ``ArenaError``
    ("bad_request"). MCTS ignores ``depth``, the others ``playouts``; a config without any limit gets
    ``DEFAULT_TIME``."""
    preset = config["preset"]
    if preset not in PRESETS:
        raise ArenaError(ErrorCode.BAD_REQUEST, f"unknown preset {preset!r}; presets: {', '.join(PRESETS)}")
    depth, seconds, playouts = config.get("depth"), config.get("time"), config.get("playouts")
    if preset == "mcts":
        depth = None
    else:
        playouts = None
    if depth is None and seconds is None and playouts is None:
        seconds = DEFAULT_TIME
    return LabConfig(preset, Limits(depth=None if depth is None else int(depth),
                                    time=None if seconds is None else float(seconds),
                                    nodes=None if playouts is None else int(playouts)))


def parse_run(data: object) -> tuple[Any, list[LabConfig]]:
    """The position (``setup`` then ``moves``) and configs of a ``lab_start`` payload (the ``LabStart`` schema);
    anything wrong raises ``ArenaError``: ``bad_game`` for the game or the position, else ``bad_request``."""
    payload = schema.check(schema.component_ref("LabStart"), data, {"game": ErrorCode.BAD_GAME})
    game, setup = payload["game"], payload["setup"]
    if game not in game_names():
        raise ArenaError(ErrorCode.BAD_GAME, f"unknown game {game!r}")
    cls = game_class(game)
    try:
        state = cls.from_setup(setup) if setup.strip() else cls.initial()
        state = play_moves(state, payload["moves"])
    except GameError as error:
        raise ArenaError(ErrorCode.BAD_GAME, str(error)) from None
    outcome = state.outcome()
    if outcome is not None:
        raise ArenaError(ErrorCode.BAD_GAME, f"the game is over in that position ({outcome.reason})")
    return state, [parse_config(config) for config in payload["configs"]]


def room_of(run: str) -> str:
    """The Socket.IO room of the lab run ``run``."""
    return f"{ROOM_PREFIX}{run}"


def job_key(run: str, column: int) -> str:
    """The runner's key of the search of ``column`` of ``run``."""
    return f"lab:{run}:{column}"


class Lab:
    """The lab's runs: starts their searches on the shared runner and relays their events to the run's room."""

    def __init__(self, runner: Runner, emit: Callable[..., None], job_ids: Callable[[], int]) -> None:
        self.runner = runner
        self.emit = emit
        self._job_ids = job_ids
        self._counter = itertools.count(1)

    def new_run(self) -> str:
        """A fresh run id; join its room (``room_of``) before ``start`` to hear every event."""
        return f"{next(self._counter)}{secrets.token_hex(4)}"

    def start(self, run: str, state: Any, configs: list[LabConfig], client: str = "") -> None:
        """Start (or queue) one search per config, as background work of ``client`` (an address): after every
        live game's engine turn, and within that client's share of the engines."""
        for column, config in enumerate(configs):
            engine = {"lab": {"preset": config.preset, "options": dataclasses.asdict(config.options),
                              "limits": dataclasses.asdict(config.limits)}}
            self.runner.submit(SearchJob(id=self._job_ids(), key=job_key(run, column), ply=0, seat=0, state=state,
                                         engine=engine, client=client, priority=BACKGROUND),
                               functools.partial(self._on_event, run, column))

    def stop(self, run: str) -> None:
        """Cancel every search of the run still queued or running."""
        for column in range(MAX_CONFIGS):
            self.runner.cancel(job_key(run, column), "stopped")

    def _on_event(self, run: str, column: int, job: SearchJob, info: dict[str, Any]) -> None:
        """The runner's handler of the search of ``column`` of ``run``: send the event to the run's room."""
        self.emit("lab", {"run": run, "column": column, "info": info}, to=room_of(run))

    @staticmethod
    def presets() -> list[dict[str, str]]:
        """The presets the page offers: ``{name, label, description}``."""
        return [{"name": name, "label": label, "description": description}
                for name, (label, description, _) in PRESETS.items()]
