"""Engine turns: when the side to move is an engine, its search is submitted to the runner; its events are relayed
to the game's room, its final move is played through the same path as a person's (``play``), a failed search is
started once more and then reported. With several nodes, a turn is searched by the node holding its lease
(``webapp.search.leases``), and a turn nobody holds is taken over.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from typing import Any

from engine.game import GameError
from webapp.arena.cache import GameCache
from webapp.arena.live import LiveGame
from webapp.arena.outbox import Outbox
from webapp.arena.presence import Presence
from webapp.clock import Clock
from webapp.clocks import TIMEOUT
from webapp.display import tree_nodes
from webapp.errors import ArenaError, ErrorCode
from webapp.search.jobs import CEILING_SECONDS, Runner, SearchJob
from webapp.search.leases import SearchLeases
from webapp.store import PlyTakenError, Store

SEARCH_RETRIES = 1
"""How many times a failed search (engine error, worker process died) is started again for the same move."""
RECHECK_INTERVAL = 1.0
"""Seconds between two checks, while this node's engine searches a game, that no other node changed the game
(which cancels the search)."""
CHANGED_ELSEWHERE = "the game changed on another server"
"""The reason of a search cancelled because another node changed its game."""
RESUMED_MINIMUM_SECONDS = 2.0
"""The least time a resumed engine turn gets, even when the ceiling of its start has passed."""
log = logging.getLogger(__name__)

PlayMove = Callable[[LiveGame, str, int, dict[str, Any]], None]
"""Plays an engine's move: ``play(live, move, seat, search)`` with the search's final event (``Moves.commit``)."""
ClockCheck = Callable[[LiveGame], bool]
"""Ends the game if its running clock fell; returns whether it did (``Endings.end_if_clock_fell``)."""


class EngineTurns:
    """The engine turns of this node's games. ``pace`` is the seconds between two moves of an engine-against-engine
    game (unless its creator chose another); such a game nobody has watched for ``unwatched_pause`` seconds pauses
    until somebody does. ``play`` and ``clock_fell`` are given by ``connect``."""

    def __init__(self, store: Store, cache: GameCache, runner: Runner, outbox: Outbox, presence: Presence,
                 job_ids: Callable[[], int], leases: SearchLeases | None, pace: float,
                 unwatched_pause: float, clock: Clock) -> None:
        self.store = store
        self.cache = cache
        self.runner = runner
        self.outbox = outbox
        self.presence = presence
        self.leases = leases
        self.pace = pace
        self.unwatched_pause = unwatched_pause
        self.clock = clock
        self._job_ids = job_ids
        self._play: PlayMove | None = None
        self._clock_fell: ClockCheck | None = None

    def connect(self, play: PlayMove, clock_fell: ClockCheck) -> None:
        """Give the turns how to play an engine's move and how to end a game on time (they are built after)."""
        self._play, self._clock_fell = play, clock_fell

    def start_if_its_turn(self, live: LiveGame, resumed: bool = False) -> None:
        """Submit the search of the engine to move, if one is; an engine-against-engine game nobody has watched
        for ``unwatched_pause`` seconds pauses instead (a join starts it again). A ``resumed`` turn (after a
        restart, or taken over from a node that died) keeps the ceiling that began with the turn: it must end
        ``CEILING_SECONDS`` after the game's last change, or within ``RESUMED_MINIMUM_SECONDS`` if that is past.
        Lock held."""
        live.paused = False
        if not live.engine_to_move() or live.stored.options.get("paused_by_creator"):
            return
        now = self.clock.monotonic()
        if self.presence.count(live.id):
            live.watched_at = now
        elif live.between_engines and now - live.watched_at >= self.unwatched_pause:
            live.paused = True
            return
        if self.leases is not None and not self.leases.claim(live.id):
            return  # another node is searching this turn
        seat = live.state.to_move
        engine = live.engine_of(seat)
        assert engine is not None
        job = SearchJob(
            id=self._job_ids(), key=live.id, ply=live.ply, seat=seat, state=live.state, engine=engine,
            record_tree=tree_nodes(live.stored.game),
            not_before=self.clock.time() + live.pace(self.pace) if live.between_engines else 0.0,
            seed=secrets.randbits(32), client=live.client, deadline=self._deadline(live, seat, resumed))
        live.job_id = job.id
        live.last_search = None
        self.runner.submit(job, self.on_event)

    def cancel(self, live: LiveGame, reason: str) -> None:
        """Stop this node's search of the game (the runner sends "cancelled") and give its lease back. Lock held."""
        live.job_id = None
        live.last_search = None
        self.runner.cancel(live.id, reason)
        self._release_lease(live.id)

    def reloaded(self, live: LiveGame, moves_changed: bool) -> None:
        """Another node changed the game: a search of this node for a position that is no longer the game's
        (another node moved, took back or ended the game) is cancelled. Lock held."""
        if live.job_id is not None and (moves_changed or not live.active):
            self.cancel(live, CHANGED_ELSEWHERE)

    def resume(self) -> int:
        """Restart the search of every unfinished game whose turn is the engine's, within the ceiling that began
        with the turn; returns how many engine turns were looked at. A game that cannot be loaded (say, its game
        module is gone) is logged and left alone."""
        started = 0
        for game_id in self.store.engine_turn_game_ids():
            try:
                with self.cache.locked(game_id) as live:
                    self.start_if_its_turn(live, resumed=True)
            except (GameError, ImportError):
                log.exception("game %s cannot be loaded; its engine turn is not resumed", game_id)
                continue
            started += 1
        return started

    def keep_leases(self) -> None:
        """Renew the leases of this node's searches, stop those another node took over, and take over the engine
        turns no node holds a lease for (the node searching them died or lost Redis), except those of games this
        node paused (nobody watches). Nothing without leases."""
        if self.leases is None:
            return
        searching = self.cache.searching_ids()
        for game_id in self.leases.renew(searching):
            with self.cache.locked(game_id) as live:
                log.warning("game %s: another server took its engine turn over; this one stops searching it", game_id)
                self.cancel(live, "another server searches this turn")
        waiting = [game_id for game_id in self.store.engine_turn_game_ids() if game_id not in searching]
        for game_id in self.leases.unclaimed(waiting):
            with self.cache.locked(game_id) as live:
                if live.job_id is None and live.engine_to_move() and not live.paused:
                    log.warning("game %s: no server is searching its engine turn; this one takes it over", game_id)
                    self.start_if_its_turn(live, resumed=True)

    def on_event(self, job: SearchJob, info: dict[str, Any]) -> None:
        """The runner's handler of an engine turn's search: relay the event to the room; play the final event's
        move; start a failed search again (``SEARCH_RETRIES``), then report ``engine_failed``."""
        kind = info["kind"]
        message = {"game_id": job.key, "ply": job.ply, "seat": job.seat, "info": info}
        if kind in ("cancelled", "queued"):
            self.outbox.search(message)
            return
        with self.cache.locked(job.key, fresh=False) as live:
            if live.job_id != job.id or not self._still_wanted(live, job, message):
                return
            if kind == "final":
                self._play_final(live, job, message)
                return
            self.outbox.search(message)
            if kind == "failed":
                self._retry_or_report(live, info)
            else:
                live.last_search = info

    def _still_wanted(self, live: LiveGame, job: SearchJob, message: dict[str, Any]) -> bool:
        """Whether the search is still the game's after comparing the game with the store (for a final event,
        or once every ``RECHECK_INTERVAL``). Lock held."""
        final = message["info"]["kind"] == "final"
        if final or self.clock.monotonic() - live.checked_at >= RECHECK_INTERVAL:
            self.cache.refresh(live)
            if live.job_id != job.id:
                if final:  # the runner had already let go of the job, so it sent no "cancelled"
                    self.outbox.search(message, info={"kind": "cancelled", "reason": CHANGED_ELSEWHERE})
                return False
        return True

    def _play_final(self, live: LiveGame, job: SearchJob, message: dict[str, Any]) -> None:
        """Play the move of a final event, unless the engine's clock fell first or another node moved. Lock
        held."""
        assert self._play is not None and self._clock_fell is not None, "connect() first"
        live.job_id = None
        self._release_lease(live.id)
        if self._clock_fell(live):
            self.outbox.search(message, info={"kind": "cancelled", "reason": TIMEOUT})
            return
        try:
            self._play(live, message["info"]["best"], job.seat, message)
        except PlyTakenError:
            log.info("game %s: another server stored ply %d first; this server's engine move is dropped",
                     live.id, job.ply + 1)
            self.outbox.search(message, info={"kind": "cancelled", "reason": CHANGED_ELSEWHERE})
        except ArenaError as error:
            self.outbox.search(message)
            self.outbox.error(live.id, error.code, f"engine move refused: {error.message}", "search")

    def _retry_or_report(self, live: LiveGame, info: dict[str, Any]) -> None:
        """After a failed search: search again, or when the retries are spent, tell the room. Lock held."""
        live.job_id = None
        self._release_lease(live.id)
        if live.failed_searches < SEARCH_RETRIES:
            live.failed_searches += 1
            self.start_if_its_turn(live)
        else:
            self.outbox.error(live.id, ErrorCode.ENGINE_FAILED, f"the engine failed: {info['message']}", "search")

    def _deadline(self, live: LiveGame, seat: int, resumed: bool) -> float | None:
        """The wall-clock time by which the search must end: a resumed turn's ceiling (see
        ``start_if_its_turn``), and the engine's own clock in a game with clocks; None when only the search's
        ceiling applies."""
        deadline = None
        if resumed:
            turn_began = live.stored.updated_at.timestamp()
            deadline = max(turn_began + CEILING_SECONDS, self.clock.time() + RESUMED_MINIMUM_SECONDS)
        clocks = live.clocks()
        if clocks is not None:  # the engine thinks on its own clock
            started = clocks.turn_started if clocks.turn_started is not None else self.clock.time()
            on_clock = started + clocks.engine_seconds(seat, started)
            deadline = on_clock if deadline is None else min(deadline, on_clock)
        return deadline

    def _release_lease(self, game_id: str) -> None:
        if self.leases is not None:
            self.leases.release(game_id)
