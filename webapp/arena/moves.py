"""A person's moves: playing one (checked for the seat and the turn, then committed by ``TurnFlow.commit``, the
path an engine's move takes too) and taking moves back against the engine.
"""

from __future__ import annotations

from webapp.arena.cache import GameCache
from webapp.arena.endings import Endings
from webapp.arena.hints import Hints
from webapp.arena.live import LiveGame
from webapp.arena.outbox import Outbox
from webapp.arena.payloads import StatePayload
from webapp.arena.turn_flow import TurnFlow
from webapp.arena.turns import EngineTurns
from webapp.clock import Clock
from webapp.errors import ArenaError, ErrorCode
from webapp.store import PlyTakenError, Store


class Moves:
    """Plays and takes back the moves of this node's games."""

    def __init__(self, store: Store, cache: GameCache, flow: TurnFlow, turns: EngineTurns, endings: Endings,
                 hints: Hints, outbox: Outbox, clock: Clock) -> None:
        self.store = store
        self.cache = cache
        self.flow = flow
        self.turns = turns
        self.endings = endings
        self.hints = hints
        self.outbox = outbox
        self.clock = clock

    def play(self, game_id: str, seat: int | None, move_text: str, answer: bool = True,
             client: str = "") -> StatePayload | None:
        """A person's move with ``seat`` from ``client`` (an address: the engine's reply counts against its share
        of the engines); returns the new state (None unless ``answer``). Errors: forbidden, game_over,
        not_your_turn, illegal_move, waiting_for_opponent."""
        with self.cache.locked(game_id) as live:
            seat = live.check_player(seat)
            if not live.active:
                raise ArenaError(ErrorCode.GAME_OVER, "the game is over")
            if live.state.to_move != seat:
                raise ArenaError(ErrorCode.NOT_YOUR_TURN, "it is not your turn")
            if self.endings.end_if_clock_fell(live):
                raise ArenaError(ErrorCode.GAME_OVER, "your time ran out before this move arrived")
            if live.waiting_for_opponent():
                raise ArenaError(ErrorCode.WAITING_FOR_OPPONENT,
                    "your friend has not taken the other seat yet: send them the "
                    "invitation link, or choose to play on alone")
            live.client = client
            try:
                self.flow.commit(live, move_text, seat)
            except PlyTakenError:
                raise ArenaError(ErrorCode.NOT_YOUR_TURN, "another move was played first") from None
            return self.outbox.payloads.state(live, seat, include_you=True) if answer else None

    def takeback(self, game_id: str, seat: int | None) -> StatePayload:
        """Against the engine with ``options.takeback``, while the game is on: undo back to ``seat``'s last turn (its
        move and the engine's reply). Between two people a takeback is asked with an offer. Errors: forbidden,
        not_allowed, game_over."""
        with self.cache.locked(game_id) as live:
            seat = live.check_player(seat)
            if live.stored.opponent.get("type") != "engine" or not live.stored.options.get("takeback"):
                raise ArenaError(ErrorCode.NOT_ALLOWED, "takeback is not enabled in this game")
            return self.take_back(live, seat, seat)

    def take_back(self, live: LiveGame, asker: int, you: int) -> StatePayload:
        """Undo the moves back to ``asker``'s last turn in a game still on; returns the new state for ``you``.
        Errors: game_over (a game's end, whatever ended it, is final), not_allowed. Lock held."""
        if not live.active:
            raise ArenaError(ErrorCode.GAME_OVER, "the game is over: its end is final and cannot be taken back")
        mine = [m.ply for m in live.stored.moves if m.by == asker]
        if not mine:
            raise ArenaError(ErrorCode.NOT_ALLOWED, "you have no move to take back")
        keep = mine[-1] - 1
        state = live.position_at(keep)
        self.turns.cancel(live, "takeback")
        turn_started = self.clock.now() if "clock" in live.stored.options else None
        live.stored.updated_at = self.store.truncate_moves(live.id, keep, state.to_move, turn_started)
        live.stored.turn_started_at = turn_started
        live.stored.version += 1
        live.state = state
        del live.stored.moves[keep:]
        live.record_known = False
        live.stored.offers = None
        self.endings.watch_clock(live)
        self.hints.follow(live)
        return self.outbox.state(live, you)
