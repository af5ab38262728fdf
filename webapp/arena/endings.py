"""How games end other than by a move: resignation, abort, an agreed draw, a creator stopping an engine game, and a
clock that falls (watched by ``Alarms``, checked again before every move)."""

from __future__ import annotations

from collections.abc import Callable

from webapp.alarms import Alarms
from webapp.arena.cache import GameCache
from webapp.arena.hints import Hints
from webapp.arena.live import LiveGame
from webapp.arena.offers import ABORTED, may_abort
from webapp.arena.outbox import Outbox
from webapp.arena.payloads import StatePayload
from webapp.arena.turns import EngineTurns
from webapp.clock import Clock
from webapp.errors import ArenaError, ErrorCode
from webapp.game_clocks import result_on_time
from webapp.store import PlyTakenError, Store


class Endings:
    """Ends this node's games. ``flags`` is the watch of running clocks; whoever starts it gives it ``on_clock_due``
    as its callback."""

    def __init__(self, store: Store, cache: GameCache, turns: EngineTurns, hints: Hints, outbox: Outbox,
                 flags: Alarms, clock: Clock) -> None:
        self.store = store
        self.cache = cache
        self.turns = turns
        self.hints = hints
        self.outbox = outbox
        self.flags = flags
        self.clock = clock

    def finish(self, live: LiveGame, winner: int | None, reason: str, you: int | None = None) -> StatePayload:
        """End the game now (``winner``, ``reason``): its search cancelled, stored, its hints dropped, the room told;
        returns the final state for ``you``. Lock held."""
        self.turns.cancel(live, reason)
        live.stored.updated_at = self.store.finish_game(live.id, winner, reason)
        live.finish(winner, reason)
        return self._after_finish(live, you)

    def end_by(self, game_id: str, seat: int | None, winner: int | None, reason: str,
               allowed: Callable[[LiveGame], None] = lambda live: None) -> StatePayload:
        """End the game by ``seat``'s act (``winner``, ``reason``), once ``allowed(live)`` has not refused it;
        returns the final state. Errors: forbidden, game_over, and those of ``allowed``."""
        with self.cache.locked(game_id) as live:
            seat = live.check_player(seat)
            if not live.active:
                raise ArenaError(ErrorCode.GAME_OVER, "the game is over")
            allowed(live)
            return self.finish(live, winner, reason, seat)

    def resign(self, game_id: str, seat: int | None) -> StatePayload:
        """``seat`` resigns; returns the final state. Errors: forbidden, game_over."""
        return self.end_by(game_id, seat, None if seat is None else 1 - seat, "resigned")

    def abort(self, game_id: str, seat: int | None) -> StatePayload:
        """``seat`` aborts the game while neither side has moved twice (``offers.may_abort``): no winner, reason
        "aborted"; returns the final state. Errors: forbidden, game_over, not_allowed."""
        def allowed(live: LiveGame) -> None:
            if not may_abort(live.ply):
                raise ArenaError(ErrorCode.NOT_ALLOWED,
                    "a game is aborted only before either side has moved twice; resign "
                    "instead")
        return self.end_by(game_id, seat, None, ABORTED, allowed)

    def watch_clock(self, live: LiveGame) -> None:
        """Have ``on_clock_due`` called when the running clock of the game falls, if one runs. Lock held."""
        clocks = live.clocks()
        falls_at = None if clocks is None else clocks.falls_at()
        if falls_at is not None:
            self.flags.call_at(live.id, falls_at)

    def on_clock_due(self, game_id: str) -> None:
        """The flag watch's callback: end the game if its running clock fell, else watch its new fall time."""
        with self.cache.locked(game_id) as live:
            if not self.end_if_clock_fell(live):
                self.watch_clock(live)

    def end_if_clock_fell(self, live: LiveGame) -> bool:
        """If the running clock has reached zero, end the game on time (``clocks.result_on_time``), cancelling the
        engine's search, and broadcast it; returns whether the game ended so. Lock held."""
        clocks = live.clocks()
        if clocks is None or clocks.running is None or not clocks.has_fallen(self.clock.time()):
            return False
        winner, reason = result_on_time(live.state, clocks.running)
        try:
            live.stored.updated_at = self.store.finish_game(live.id, winner, reason, at_ply=live.ply)
        except PlyTakenError:  # another node stored a move or ended the game first
            self.cache.reload(live)
            return not live.active
        self.turns.cancel(live, reason)
        live.finish(winner, reason)
        self._after_finish(live, None)
        return True

    def _after_finish(self, live: LiveGame, you: int | None) -> StatePayload:
        self.hints.forget(live.id)
        answer = self.outbox.state(live, you)
        self.cache.evict_if_idle(live)
        return answer
