"""The path of every move, top to bottom, whoever plays it:

1. ``commit``: the move is checked, stored with the game's new turn in one transaction, then sent to the room.
2. Then the game goes on (``_go_on``): its running clock is watched, the engine's search starts if an engine is to
   move (``start_engine_turn``, through ``EngineTurns``), hints are asked for.
3. The search's events come back to ``on_search_event``: each is relayed to the room; the final event's move is
   committed (step 1) unless the engine's clock fell first; a failed search is started once more, then reported.

Two nodes writing the same ply race on the store's unique ``(game, ply)`` key: one move lands, the other is refused
(``PlyTakenError``: a person gets ``not_your_turn``, an engine's move is dropped quietly).
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from typing import Any

from engine.game import GameError
from webapp.arena.cache import GameCache
from webapp.arena.endings import Endings
from webapp.arena.hints import Hints
from webapp.arena.live import LiveGame
from webapp.arena.offers import after_move
from webapp.arena.outbox import Outbox
from webapp.arena.turns import CHANGED_ELSEWHERE, EngineTurns
from webapp.clock import Clock
from webapp.errors import DATABASE_RETRY_SECONDS, ArenaError, ErrorCode
from webapp.game_clocks import TIMEOUT
from webapp.search.jobs import SearchJob
from webapp.search.records import encode_record
from webapp.store import DatabaseUnavailableError, PlyTakenError, Store, StoredMove

UNSTORED = "the database did not answer: the move was not stored"
"""The reason of a search cancelled because its move could not be stored."""
SEARCH_RETRIES = 1
"""How many times a failed search (engine error, worker process died) is started again for the same move."""
RECHECK_INTERVAL = 1.0
"""Seconds between two checks, while this node's engine searches a game, that no other node changed the game
(which cancels the search)."""
log = logging.getLogger(__name__)


class TurnFlow:
    """Commits the moves of this node's games and carries each game on to its next turn (see the module)."""

    def __init__(self, store: Store, cache: GameCache, turns: EngineTurns, endings: Endings, hints: Hints,
                 outbox: Outbox, clock: Clock) -> None:
        self.store = store
        self.cache = cache
        self.turns = turns
        self.endings = endings
        self.hints = hints
        self.outbox = outbox
        self.clock = clock

    def commit(self, live: LiveGame, move_text: str, by: int, search: dict[str, Any] | None = None) -> None:
        """Validate, store (with the score, depth and record of ``search``, the engine's final event, if given), then
        broadcast ``search`` and ``moved``, and go on to the next turn. Lock held. Raises ``illegal_move``, or
        ``PlyTakenError`` after loading the game again when another node stored a move for this ply first."""
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
        if search is not None:
            self.outbox.search(search)
        self.outbox.emit("moved", {"game_id": live.id, "move": stored_move.move, "by": stored_move.by,
                                   "ply": stored_move.ply, "version": live.version,
                                   "state": self.outbox.payloads.state(live), "sent_at": self.clock.time()},
                         to=live.id)
        self._go_on(live)

    def _go_on(self, live: LiveGame) -> None:
        """After a move: watch the running clock, start the engine's turn, ask for hints, let go of the game if
        nothing more needs it in memory. Lock held."""
        self.endings.watch_clock(live)
        self.start_engine_turn(live)
        self.hints.follow(live)
        self.cache.evict_if_idle(live)

    def start_engine_turn(self, live: LiveGame, resumed: bool = False) -> None:
        """Start the search of the engine to move, if one is (``EngineTurns.start``); its events come to
        ``on_search_event``. Lock held."""
        self.turns.start(live, self.on_search_event, resumed)

    def on_search_event(self, job: SearchJob, info: dict[str, Any]) -> None:
        """The runner's handler of an engine turn's search: relay the event to the room; commit the final event's
        move; start a failed search again (``SEARCH_RETRIES``), then report ``engine_failed``.

        Called from the runner's relay thread, except "queued" when the search must wait from the start (from the
        thread that started it, holding the game's lock, which is re-entrant) and "cancelled" (from the thread that
        cancelled it, holding the lock): "cancelled" is only relayed; "queued" is also kept as the search's last
        event until another kind comes, so that a client joining while the search waits is told where it waits."""
        kind = info["kind"]
        message = {"game_id": job.key, "ply": job.ply, "seat": job.seat, "info": info}
        if kind == "cancelled":
            self.outbox.search(message)
            return
        if kind == "queued":
            with self.cache.locked(job.key, fresh=False) as live:
                if live.job_id == job.id and (live.last_search is None or live.last_search["kind"] == "queued"):
                    live.last_search = info
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

    def resume(self) -> int:
        """Restart the search of every unfinished game whose turn is the engine's, within the ceiling that began
        with the turn; returns how many engine turns were looked at. A game that cannot be loaded (say, its game
        module is gone) is logged and left alone."""
        started = 0
        for game_id in self.store.engine_turn_game_ids():
            try:
                with self.cache.locked(game_id) as live:
                    self.start_engine_turn(live, resumed=True)
            except (GameError, ImportError):
                log.exception("game %s cannot be loaded; its engine turn is not resumed", game_id)
                continue
            started += 1
        return started

    def keep_leases(self) -> None:
        """Renew the leases of this node's searches (``EngineTurns.renew_leases``) and take over the engine turns
        no node holds, except those of games this node paused (nobody watches)."""
        for game_id in self.turns.renew_leases():
            with self.cache.locked(game_id) as live:
                if live.job_id is None and live.engine_to_move() and not live.paused:
                    log.warning("game %s: no server is searching its engine turn; this one takes it over", game_id)
                    self.start_engine_turn(live, resumed=True)

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
        """Commit the move of a final event, unless the engine's clock fell first or another node moved. Lock
        held."""
        self.turns.ended(live)
        if self.endings.end_if_clock_fell(live):
            self.outbox.search(message, info={"kind": "cancelled", "reason": TIMEOUT})
            return
        try:
            self.commit(live, message["info"]["best"], job.seat, message)
        except PlyTakenError:
            log.info("game %s: another server stored ply %d first; this server's engine move is dropped",
                     live.id, job.ply + 1)
            self.outbox.search(message, info={"kind": "cancelled", "reason": CHANGED_ELSEWHERE})
        except ArenaError as error:
            self.outbox.search(message)
            self.outbox.error(live.id, error.code, f"engine move refused: {error.message}", "search")
        except DatabaseUnavailableError:
            self.outbox.search(message, info={"kind": "cancelled", "reason": UNSTORED})
            self.outbox.error(live.id, ErrorCode.DATABASE_UNAVAILABLE,
                              "the engine's move could not be stored: the database does not answer; the engine "
                              "searches again once it does", "search")
            threading.Thread(target=self._search_again_when_stored, args=(live.id,), name="engine-turn-retry",
                             daemon=True).start()

    def _search_again_when_stored(self, game_id: str) -> None:
        """Once the database answers again (looked at every ``DATABASE_RETRY_SECONDS``), start the engine's turn
        of ``game_id`` again, unless something else has meanwhile (a restart, another node, a move)."""
        while True:
            self.clock.sleep(DATABASE_RETRY_SECONDS)
            if self.store.database.availability.probe():
                break
        try:
            with self.cache.locked(game_id) as live:
                if live.job_id is None:
                    self.start_engine_turn(live)
        except (ArenaError, DatabaseUnavailableError):
            log.warning("game %s: its engine turn could not be started again after the database came back", game_id)

    def _retry_or_report(self, live: LiveGame, info: dict[str, Any]) -> None:
        """After a failed search: search again, or when the retries are spent, tell the room. Lock held."""
        self.turns.ended(live)
        if live.failed_searches < SEARCH_RETRIES:
            live.failed_searches += 1
            self.start_engine_turn(live)
        else:
            self.outbox.error(live.id, ErrorCode.ENGINE_FAILED, f"the engine failed: {info['message']}", "search")
