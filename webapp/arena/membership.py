"""Joining and leaving a game's room: a newcomer gets the state, the running search's last event (or the latest
engine move's record) and the current hints; the room gets the new watcher count."""

from __future__ import annotations

from collections.abc import Callable

from webapp.arena.cache import GameCache
from webapp.arena.hints import Hints
from webapp.arena.live import LiveGame
from webapp.arena.outbox import Outbox
from webapp.arena.presence import Presence
from webapp.arena.turn_flow import TurnFlow
from webapp.clock import Clock
from webapp.search.jobs import Runner
from webapp.search.records import read_record
from webapp.store import Store


class Membership:
    """The rooms of this node's games."""

    def __init__(self, store: Store, cache: GameCache, presence: Presence, flow: TurnFlow, runner: Runner,
                 hints: Hints, outbox: Outbox, clock: Clock) -> None:
        self.store = store
        self.cache = cache
        self.presence = presence
        self.flow = flow
        self.runner = runner
        self.hints = hints
        self.outbox = outbox
        self.clock = clock

    def join(self, game_id: str, sid: str, seat: int | None, enter_room: Callable[[], None]) -> None:
        """Put ``sid`` in the game's room: send it the state and the running search's last event, or, when no
        search runs, the search record of the latest engine move (as its final ``search`` event), and the hints;
        send the room the new watcher count. ``enter_room`` (which makes the connection a member of the room its
        transport sends to) is called with the game's lock held, so every event this node sends the room with that
        lock held (``state``, ``moved``, ``search``, ``hints`` and the game's ``error``) reaches ``sid`` after its
        ``state`` and none before it; the room's other events (``watchers``, ``review``, ``analysis``,
        ``every_move``, ``rematch``) are not ordered with the join. Whatever the store must give is read before
        ``state`` is sent, so a client that has its state has a join that no longer waits on the database."""
        with self.cache.locked(game_id) as live:
            enter_room()
            count = self.presence.rooms.join(game_id, sid, seat)
            live.watched_at = self.clock.monotonic()
            if live.job_id is None and live.engine_to_move():  # paused, or loaded again after leaving memory
                self.flow.start_engine_turn(live)
            job = self.runner.current_job(game_id)
            record = self._last_record(live) if job is None else None  # the store is read before ``state`` is sent
            self.outbox.emit("state", self.outbox.payloads.state(live, seat, include_you=True), to=sid)
            if job is not None and live.last_search is not None:
                self.outbox.emit("search", {"game_id": game_id, "ply": job.ply, "seat": job.seat,
                                            "info": live.last_search}, to=sid)
            elif record is not None:
                self.outbox.emit("search", read_record(record), to=sid)
            if live.stored.options.get("hints") and live.active:
                hints = self.hints.latest(game_id, live.ply)
                if hints is not None:
                    self.outbox.emit("hints", hints, to=sid)
                elif not self.hints.is_worked_out(game_id):
                    self.hints.follow(live)
        self.presence.announce(game_id, count)

    def leave(self, game_id: str, sid: str) -> None:
        """Take ``sid`` out of the game's room and tell the room the new watcher count; a finished game nobody
        watches any more is dropped from memory."""
        count = self.presence.rooms.leave(game_id, sid)
        if count is None:
            return
        self.presence.announce(game_id, count)
        live = self.cache.find(game_id)
        if live is not None:
            with live.lock:
                live.watched_at = self.clock.monotonic()
                if not live.evicted:
                    self.cache.touch(game_id)  # its untouched time starts when its last watcher leaves
                    self.cache.evict_if_idle(live)

    def leave_all(self, sid: str) -> None:
        """Take ``sid`` out of every room it is in (its connection ended)."""
        for game_id in self.presence.rooms.rooms_of(sid):
            self.leave(game_id, sid)

    def _last_record(self, live: LiveGame) -> str | None:
        """The record of the game's latest engine move (read from the store once). Lock held."""
        if not live.record_known:
            live.last_record = self.store.last_search_record(live.id)
            live.record_known = True
        return live.last_record
