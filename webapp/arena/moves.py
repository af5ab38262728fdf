"""Moves: a person's move and an engine's go through one path (``commit``): checked, stored with the game's new
turn in one transaction, then sent to the room; then the engine starts if it is to move, and hints are asked for.
Two nodes writing the same ply race on the store's unique ``(game, ply)`` key: one move lands, the other is refused
(a person gets ``not_your_turn``; an engine's move is dropped quietly). Takebacks undo moves the same way.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from engine.game import GameError
from webapp.arena.cache import GameCache
from webapp.arena.endings import Endings
from webapp.arena.hints import Hints
from webapp.arena.live import LiveGame
from webapp.arena.outbox import Outbox
from webapp.arena.payloads import StatePayload
from webapp.arena.turns import EngineTurns
from webapp.clock import Clock
from webapp.errors import ArenaError, ErrorCode
from webapp.offers import after_move
from webapp.search.records import encode_record
from webapp.store import PlyTakenError, Store, StoredMove


class Moves:
    """Plays and takes back the moves of this node's games."""

    def __init__(self, store: Store, cache: GameCache, turns: EngineTurns, endings: Endings, hints: Hints,
                 outbox: Outbox, clock: Clock) -> None:
        self.store = store
        self.cache = cache
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
                self.commit(live, move_text, seat)
            except PlyTakenError:
                raise ArenaError(ErrorCode.NOT_YOUR_TURN, "another move was played first") from None
            return self.outbox.payloads.state(live, seat, include_you=True) if answer else None

    def commit(self, live: LiveGame, move_text: str, by: int, search: dict[str, Any] | None = None) -> None:
        """Validate, store (with the score, depth and record of ``search``, the engine's final event, if given), then
        broadcast ``search`` and ``moved``; start the engine if it is to move next. Lock held. Raises
        ``illegal_move``, or ``PlyTakenError`` after loading the game again when another node stored a move for
        this ply first."""
        state = live.state
        try:
            move = state.parse_move(move_text)
            after = state.play(move)
        except GameError as error:
            raise ArenaError(ErrorCode.ILLEGAL_MOVE, str(error)) from None
        text = state.move_text(move)
        outcome = after.outcome()
        info = search["info"] if search is not None else {}
        searched = info.get("source") in (None, "search") and info.get("depth")
        now = self.clock.time()
        clocks = live.clocks()
        stored_move = StoredMove(live.ply + 1, text, by, info.get("score"), info.get("score_text"),
                                 info["depth"] if searched else None,
                                 None if clocks is None else clocks.after_move(by, live.ply + 1, now))
        turn_started = dt.datetime.fromtimestamp(now, dt.UTC) if clocks is not None and outcome is None else None
        record = encode_record(search) if search is not None else None
        offers = None if outcome else after_move(live.stored.offers, by)
        try:
            live.stored.updated_at = self.store.add_move(
                live.id, stored_move, None if outcome else after.to_move, "finished" if outcome else "active",
                outcome.winner if outcome else None, outcome.reason if outcome else None, record, turn_started,
                offers)
        except PlyTakenError:
            self.cache.reload(live)
            raise
        live.stored.turn_started_at = turn_started
        live.stored.offers = offers
        live.state = after
        live.stored.version += 1
        live.stored.moves.append(stored_move)
        if record is not None:
            live.last_record, live.record_known = record, True
        live.failed_searches = 0
        if outcome is not None:
            live.stored.status, live.stored.winner, live.stored.reason = "finished", outcome.winner, outcome.reason
        live.last_search = None
        self._announce(live, stored_move, search)

    def _announce(self, live: LiveGame, move: StoredMove, search: dict[str, Any] | None) -> None:
        """Send the room a move just stored (and the search that found it), then go on: the clock, the engine's
        turn, hints, memory. Lock held."""
        if search is not None:
            self.outbox.search(search)
        self.outbox.emit("moved", {"game_id": live.id, "move": move.move, "by": move.by, "ply": move.ply,
                                   "version": live.version, "state": self.outbox.payloads.state(live),
                                   "sent_at": self.clock.time()}, to=live.id)
        self.endings.watch_clock(live)
        self.turns.start_if_its_turn(live)
        self.hints.follow(live)
        self.cache.evict_if_idle(live)

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
