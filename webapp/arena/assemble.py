"""The arena: all games of a web node, assembled from its parts (``assemble``). HTTP routes and Socket.IO handlers
are thin layers over these parts: ``creation``, ``moves``, ``endings``, ``agreements``, ``engine_games``,
``reads``, ``membership``; docs/architecture.md follows a move through them.

Every change to a game happens under that game's lock (``GameCache.locked``), is committed to the store, and only
then is broadcast (``Outbox``).
"""

from __future__ import annotations

import itertools
import logging
from dataclasses import dataclass

from engine.game import GameError
from webapp.alarms import Alarms
from webapp.arena.agreements import Agreements
from webapp.arena.analysis import Analysis
from webapp.arena.cache import GameCache, Reloaded
from webapp.arena.creation import Creation
from webapp.arena.downtime import Heartbeat
from webapp.arena.endings import Endings
from webapp.arena.engine_games import EngineGames
from webapp.arena.every_move import EveryMove
from webapp.arena.hints import Hints
from webapp.arena.lab import Lab
from webapp.arena.live import LiveGame
from webapp.arena.membership import Membership
from webapp.arena.moves import Moves
from webapp.arena.outbox import Emit, Outbox
from webapp.arena.payloads import Payloads
from webapp.arena.presence import Presence
from webapp.arena.reads import Reads
from webapp.arena.reviews import Reviews
from webapp.arena.steps import Stepper
from webapp.arena.turn_flow import TurnFlow
from webapp.arena.turns import EngineTurns
from webapp.arena.upkeep import Upkeep
from webapp.arena.watcher_counts import WatcherCounts
from webapp.clock import SYSTEM_CLOCK, Clock
from webapp.config import DEFAULT_IDLE_GAMES, DEFAULT_UNTOUCHED_GAME_SECONDS, DEFAULT_UNWATCHED_PAUSE
from webapp.search.jobs import Runner
from webapp.search.leases import SearchLeases
from webapp.store import Store

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ArenaSettings:
    """How a node runs its games. ``pace``: seconds between two moves of an engine-against-engine game;
    ``shared``: other nodes may change the store's games too (each action first checks its game's version);
    ``idle_games``: how many finished games nobody watches stay in memory; ``untouched_seconds``: a game nobody
    touched that long leaves memory (0 keeps games until they finish); ``unwatched_pause``: an
    engine-against-engine game nobody watched that long pauses until somebody does."""

    pace: float = 0.5
    shared: bool = True
    idle_games: int = DEFAULT_IDLE_GAMES
    untouched_seconds: float = DEFAULT_UNTOUCHED_GAME_SECONDS
    unwatched_pause: float = DEFAULT_UNWATCHED_PAUSE


@dataclass(frozen=True, slots=True)
class Arena:
    """The parts of a node's arena. ``close`` stops its threads, the engine workers and the store."""

    store: Store
    runner: Runner
    cache: GameCache
    presence: Presence
    turns: EngineTurns
    flow: TurnFlow
    creation: Creation
    moves: Moves
    endings: Endings
    agreements: Agreements
    engine_games: EngineGames
    reads: Reads
    membership: Membership
    lab: Lab
    analysis: Analysis
    stepper: Stepper
    reviews: Reviews
    hints: Hints
    flags: Alarms
    heartbeat: Heartbeat
    upkeep: Upkeep

    def resume(self) -> int:
        """After a start: watch the running clock of every unfinished game with one (loading a game watches its
        clock) and restart every engine turn (``TurnFlow.resume``); returns how many engine turns were looked
        at. A game that cannot be loaded is logged and left alone."""
        for game_id in self.store.clocked_game_ids():
            try:
                self.cache.get(game_id)
            except (GameError, ImportError):
                log.exception("game %s cannot be loaded; its clock is not watched", game_id)
        return self.flow.resume()

    def close(self) -> None:
        """Stop the upkeep, the flag watch, the engine workers, the heartbeat and the store."""
        self.upkeep.close()
        self.presence.close()
        self.flags.close()
        self.runner.close()
        self.heartbeat.close()
        self.store.close()


def assemble(store: Store, secret: str, emit: Emit, runner: Runner, settings: ArenaSettings = ArenaSettings(),
             leases: SearchLeases | None = None, watcher_counts: WatcherCounts | None = None,
             clock: Clock = SYSTEM_CLOCK) -> Arena:
    """The arena of a node: its games in ``store``, its searches on ``runner``, its messages sent by ``emit(event,
    payload, to=room_or_sid)``, its seat tokens and codes signed with ``secret``. With ``leases``, an engine turn
    is searched by one node at a time, and a turn no node holds (its node died) is taken over by this one; with
    ``watcher_counts``, the watcher counts add up the watchers of every node. Every part reads the time from
    ``clock``. Starts the upkeep threads and the heartbeat."""
    next_id = itertools.count(1).__next__  # one counter of job ids for every kind of search
    counts_due = Alarms(clock, "watcher-counts", monotonic=True)
    presence = Presence(emit, counts_due, clock, watcher_counts)
    counts_due.start(presence.send_count)
    cache = GameCache(store, presence.rooms, settings.shared, settings.idle_games, settings.untouched_seconds, clock)
    payloads = Payloads(presence, runner, clock, settings.pace)
    outbox = Outbox(emit, payloads)
    hints = Hints(runner, emit, next_id, cache.find)
    turns = EngineTurns(store, cache, runner, presence, next_id, leases, settings.pace, settings.unwatched_pause,
                        clock)
    flags = Alarms(clock, "flag-watch")
    endings = Endings(store, cache, turns, hints, outbox, flags, clock)
    flow = TurnFlow(store, cache, turns, endings, hints, outbox, clock)
    moves = Moves(store, cache, flow, turns, endings, hints, outbox, clock)
    creation = Creation(store, cache, flow, hints, outbox, presence.rooms, secret, clock)
    flags.start(endings.on_clock_due)
    cache.listen(loaded=endings.watch_clock, reloaded=_on_reloaded(turns, endings), dropped=hints.forget)
    reviews = Reviews(store, runner, emit, next_id, clock)
    upkeep = Upkeep(cache, flow, presence)
    upkeep.start(shared=leases is not None or watcher_counts is not None)
    return Arena(
        store=store, runner=runner, cache=cache, presence=presence, turns=turns, flow=flow, creation=creation,
        moves=moves, endings=endings,
        agreements=Agreements(store, cache, moves, endings, creation, hints, outbox, secret),
        engine_games=EngineGames(store, cache, flow, turns, endings, outbox, secret),
        reads=Reads(store, cache, payloads, presence, reviews, outbox, EveryMove(runner, emit, next_id), clock),
        membership=Membership(store, cache, presence, flow, runner, hints, outbox, clock),
        lab=Lab(runner, emit, next_id), analysis=Analysis(runner, emit, next_id),
        stepper=Stepper(runner, next_id), reviews=reviews, hints=hints,
        flags=flags, heartbeat=Heartbeat(store), upkeep=upkeep)


def _on_reloaded(turns: EngineTurns, endings: Endings) -> Reloaded:
    """What follows a game loaded again because another node changed it: its search stops if its position is
    gone, and its clock is watched anew."""
    def reloaded(live: LiveGame, moves_changed: bool) -> None:
        turns.reloaded(live, moves_changed)
        if moves_changed:
            endings.watch_clock(live)
    return reloaded
