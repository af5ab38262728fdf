"""The searches of engine turns: when the side to move is an engine, its search is submitted to the runner
(``start``), and cancelled when the game moves on without it. With several nodes, a turn is searched by the node
holding its lease (``webapp.search.leases``), and a turn nobody holds is found for taking over. What happens to a
search's events (relayed, its move played, the next turn started) is ``webapp.arena.turn_flow``.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable

from webapp.arena.cache import GameCache
from webapp.arena.live import LiveGame
from webapp.arena.presence import Presence
from webapp.clock import Clock
from webapp.display import tree_nodes
from webapp.search.jobs import CEILING_SECONDS, EventHandler, Runner, SearchJob
from webapp.search.leases import SearchLeases
from webapp.store import Store

CHANGED_ELSEWHERE = "the game changed on another server"
"""The reason of a search cancelled because another node changed its game."""
RESUMED_MINIMUM_SECONDS = 2.0
"""The least time a resumed engine turn gets, even when the ceiling of its start has passed."""
log = logging.getLogger(__name__)


class EngineTurns:
    """The engine turns' searches of this node's games. ``pace`` is the seconds between two moves of an
    engine-against-engine game (unless its creator chose another); such a game nobody has watched for
    ``unwatched_pause`` seconds pauses until somebody does."""

    def __init__(self, store: Store, cache: GameCache, runner: Runner, presence: Presence,
                 job_ids: Callable[[], int], leases: SearchLeases | None, pace: float,
                 unwatched_pause: float, clock: Clock) -> None:
        self.store = store
        self.cache = cache
        self.runner = runner
        self.presence = presence
        self.leases = leases
        self.pace = pace
        self.unwatched_pause = unwatched_pause
        self.clock = clock
        self._job_ids = job_ids

    def start(self, live: LiveGame, on_event: EventHandler, resumed: bool = False) -> None:
        """Submit the search of the engine to move, if one is, its events to go to ``on_event``; an
        engine-against-engine game nobody has watched for ``unwatched_pause`` seconds pauses instead (a join starts
        it again). A ``resumed`` turn (after a restart, or taken over from a node that died) keeps the ceiling that
        began with the turn: it must end ``CEILING_SECONDS`` after the game's last change, or within
        ``RESUMED_MINIMUM_SECONDS`` if that is past. Lock held."""
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
        self.runner.submit(job, on_event)

    def cancel(self, live: LiveGame, reason: str) -> None:
        """Stop this node's search of the game (the runner sends "cancelled") and give its lease back. Lock held."""
        live.job_id = None
        live.last_search = None
        self.runner.cancel(live.id, reason)
        self.release_lease(live.id)

    def ended(self, live: LiveGame) -> None:
        """The game's search has ended by itself (its final or failed event came): it is no longer under way, and
        its lease is given back. Lock held."""
        live.job_id = None
        self.release_lease(live.id)

    def reloaded(self, live: LiveGame, moves_changed: bool) -> None:
        """Another node changed the game: a search of this node for a position that is no longer the game's
        (another node moved, took back or ended the game) is cancelled. Lock held."""
        if live.job_id is not None and (moves_changed or not live.active):
            self.cancel(live, CHANGED_ELSEWHERE)

    def renew_leases(self) -> list[str]:
        """Renew the leases of this node's searches and stop those another node took over; returns the games
        whose engine turn no node holds a lease for (the node searching them died or lost Redis), to be taken
        over. Nothing without leases."""
        if self.leases is None:
            return []
        searching = self.cache.searching_ids()
        for game_id in self.leases.renew(searching):
            with self.cache.locked(game_id) as live:
                log.warning("game %s: another server took its engine turn over; this one stops searching it", game_id)
                self.cancel(live, "another server searches this turn")
        waiting = [game_id for game_id in self.store.engine_turn_game_ids() if game_id not in searching]
        return self.leases.unclaimed(waiting)

    def _deadline(self, live: LiveGame, seat: int, resumed: bool) -> float | None:
        """The wall-clock time by which the search must end: a resumed turn's ceiling (see ``start``), and the
        engine's own clock in a game with clocks; None when only the search's ceiling applies."""
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

    def release_lease(self, game_id: str) -> None:
        """Give back this node's lease on the game's engine turn, if it holds one."""
        if self.leases is not None:
            self.leases.release(game_id)
