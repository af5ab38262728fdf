"""What the creator of an engine-against-engine game may do with the stop code it got: stop the game, pause and
resume it, and set the seconds between its moves."""

from __future__ import annotations

from webapp.arena.cache import GameCache
from webapp.arena.endings import Endings
from webapp.arena.live import LiveGame
from webapp.arena.outbox import Outbox
from webapp.arena.payloads import StatePayload
from webapp.arena.turn_flow import TurnFlow
from webapp.arena.turns import EngineTurns
from webapp.errors import ArenaError, ErrorCode
from webapp.seats import is_stop_code
from webapp.store import Store


class EngineGames:
    """Directs this node's engine-against-engine games. Stop codes are checked with ``secret``."""

    def __init__(self, store: Store, cache: GameCache, flow: TurnFlow, turns: EngineTurns, endings: Endings,
                 outbox: Outbox, secret: str) -> None:
        self.store = store
        self.cache = cache
        self.flow = flow
        self.turns = turns
        self.endings = endings
        self.outbox = outbox
        self.secret = secret

    def stop(self, game_id: str, code: object) -> StatePayload:
        """End an engine-against-engine game with the stop code its creator got (``seats.stop_code``): its search is
        cancelled and it finishes without a winner, reason "stopped"; returns the final state. Errors: forbidden
        (not the code, or not an engine-against-engine game), game_over."""
        with self.cache.locked(game_id) as live:
            self._check_creator(live, code, "stop", "only a game between two engines can be stopped; players resign")
            live.paused = False
            return self.endings.finish(live, None, "stopped")

    def direct(self, game_id: str, code: object, paused: bool | None = None,
               pace: float | None = None) -> StatePayload:
        """The creator (with the stop code it got) pauses or resumes the game (``paused``) or sets the seconds
        between its moves (``pace``, checked against the API description's choices by the caller); kept in its
        options, so every node and a restart keep them. None changes nothing. A pause cancels the running search;
        resuming starts it again. Returns the new state. Errors: forbidden, game_over."""
        with self.cache.locked(game_id) as live:
            self._check_creator(live, code, "direct",
                               "only a game between two engines is paused or paced by its creator")
            options = dict(live.stored.options)
            if paused is not None:
                options["paused_by_creator"] = paused
            if pace is not None:
                options["pace"] = float(pace)
            if options != live.stored.options:
                self.store.set_options(game_id, options)
                live.set_options(options)
                if paused:
                    self.turns.cancel(live, "paused by its creator")
                elif live.job_id is None:
                    self.flow.start_engine_turn(live)
            return self.outbox.state(live)

    def _check_creator(self, live: LiveGame, code: object, verb: str, not_engines: str) -> None:
        """Refuse (to ``verb`` the game) unless ``live`` is an unfinished engine-against-engine game and ``code``
        its stop code; ``not_engines`` says why a game with a person's seat is refused."""
        if not live.between_engines:
            raise ArenaError(ErrorCode.FORBIDDEN, not_engines)
        if not is_stop_code(self.secret, live.id, code):
            raise ArenaError(ErrorCode.FORBIDDEN, f"only the game's creator can {verb} it (with the stop code it got)")
        if not live.active:
            raise ArenaError(ErrorCode.GAME_OVER, "the game is over")
