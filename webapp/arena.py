"""The games being played: creating them, moves from people and engines through one path, resignations,
takebacks, rematches, and who is watching. HTTP routes and Socket.IO handlers are thin layers over ``Arena``.

Every change to a game happens under that game's lock, is committed to the store, and only then is broadcast
(``emit(event, payload, to=room)``; the room of a game is its id). Engine moves come back from the runner and go
through the same ``_commit_move`` as a person's move.

Several web nodes may share one store. Each keeps its own copy of the games it serves, so before every action and
every join the copy is compared with the store's cheap version of the game (``stored_version``) and loaded again
when another node changed it. Two nodes writing the same ply race on the store's unique ``(game, ply)`` key: one
move lands, the other is refused (a person gets ``not_your_turn``; an engine's move is dropped quietly).
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import logging
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import bindparam, select

from engine.game import GameError, State, describe_score, play_moves
from engine.games import game_class, new_game
from webapp.clocks import TIMEOUT, TIMEOUT_DRAW, Clocks, TimeControl, clock_comment, clocks_of, result_on_time
from webapp.config import DEFAULT_IDLE_GAMES, DEFAULT_UNTOUCHED_GAME_SECONDS, DEFAULT_UNWATCHED_PAUSE
from webapp.downtime import Heartbeat
from webapp.errors import ArenaError
from webapp.flag_watch import FlagWatch
from webapp.hints import Hints
from webapp.lab import Lab
from webapp.offers import ABORTED, AGREED_DRAW, after_move, check_kind, check_offer, may_abort, pending
from webapp.reviews import Reviews
from webapp.search.jobs import CEILING_SECONDS, Runner, SearchJob
from webapp.search.leases import SearchLeases
from webapp.search_records import encode_record
from webapp.seats import is_invite, is_stop_code, issue_token
from webapp.store import GameRow, PlyTakenError, Store, StoredGame, StoredMove, StoredSeat
from webapp.touches import Touches
from webapp.validation import NewGameRequest
from webapp.watcher_counts import WatcherCounts

TREE_GAMES = {"tictactoe": 3000, "nim": 3000}
"""Games whose searches record their tree for the browser, with the node cap."""
SEARCH_RETRIES = 1
"""How many times a failed search (engine error, worker process died) is started again for the same move."""
LIVE_LIST_SIZE = 50
PACES = (0.0, 0.5, 2.0, 5.0)
"""The seconds between two moves of an engine-against-engine game its creator may choose (the default is the
server's ``pace``)."""
LIVE_RECENT_SECONDS = 300
"""The live list shows a game changed this recently (or watched now): "being played"."""
RECHECK_INTERVAL = 1.0
"""Seconds between two checks, while this server's engine searches a game, that no other server changed the game
(which cancels the search)."""
SWEEP_SECONDS = 2.0
"""How often a node with search leases renews them and looks for engine turns nobody searches."""
CHANGED_ELSEWHERE = "the game changed on another server"
"""The reason of a search cancelled because another server changed its game."""
RESUMED_MINIMUM_SECONDS = 2.0
"""The least time a resumed engine turn gets, even when the ceiling of its start has passed."""
log = logging.getLogger(__name__)

Emit = Callable[..., None]


_VERSION_QUERY = select(GameRow.version).where(GameRow.id == bindparam("game_id"))
"""Built once: constructing the statement costs more than running it."""


def stored_version(store: Store, game_id: str) -> int | None:
    """The stored game's version (``games.version``, one more with every change) in one indexed read, or None for
    an unknown id. A web node compares it with its copy's to learn whether another node changed the game since."""
    with store.engine.connect() as connection:
        return connection.execute(_VERSION_QUERY, {"game_id": game_id}).scalar_one_or_none()


@dataclass(slots=True)
class LiveGame:
    """A game in memory: what the store holds, the start position and the current one. Past positions are
    replayed from the start when asked for (``position_at``), so a long game costs one position, not hundreds.

    ``evicted`` is set (under ``lock``) when the game is dropped from memory; whoever then holds this object
    must load the game again (``Arena._locked`` does).
    """

    stored: StoredGame
    start: State
    state: State
    lock: threading.RLock = field(default_factory=threading.RLock)
    job_id: int | None = None
    last_search: dict[str, Any] | None = None
    failed_searches: int = 0
    evicted: bool = False
    checked_at: float = 0.0
    """``time.monotonic()`` of the last comparison with the store."""
    watched_at: float = field(default_factory=time.monotonic)
    """``time.monotonic()`` when somebody last watched the game (or it was created or loaded)."""
    paused: bool = False
    """An engine-against-engine game waiting for a watcher before its next engine turn."""
    last_record: str | None = None
    """The search record (JSON text) of the game's latest engine move, when ``record_known``."""
    record_known: bool = False
    """Whether ``last_record`` is up to date with the store (else it is read from the store when needed)."""
    client: str = ""
    """Who pays for the engine's next turn in the engine capacity's fair share (``webapp.search.fair_queue``): the
    address of the last person to move, or of the game's creator; empty for a game loaded from the store (a
    restart), whose turns then share one client's part."""

    @property
    def id(self) -> str:
        return self.stored.id

    @property
    def ply(self) -> int:
        return len(self.stored.moves)

    def position_at(self, ply: int) -> State:
        """The position after the first ``ply`` moves (replayed in time linear in ``ply``)."""
        return play_moves(self.start, [move.move for move in self.stored.moves[:ply]])

    @property
    def active(self) -> bool:
        return self.stored.status == "active"

    def engine_of(self, seat: int) -> dict[str, Any] | None:
        return self.stored.seats[seat].engine

    def engine_to_move(self) -> bool:
        return self.active and self.engine_of(self.state.to_move) is not None

    @property
    def version(self) -> int:
        """This copy's version, equal to ``stored_version`` of the store unless another node changed the game. Each
        change this node makes raises it by one, as the store does in the same write."""
        return self.stored.version


class Rooms:
    """Who is in which game's room: ``sid -> seat`` (None for a spectator) per game. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._members: dict[str, dict[str, int | None]] = {}

    def join(self, game_id: str, sid: str, seat: int | None) -> int:
        """Add ``sid``; returns the room's new size."""
        with self._lock:
            members = self._members.setdefault(game_id, {})
            members[sid] = seat
            return len(members)

    def leave(self, game_id: str, sid: str) -> int | None:
        """Remove ``sid``; returns the room's new size, or None if it was not there."""
        with self._lock:
            members = self._members.get(game_id)
            if members is None or members.pop(sid, "absent") == "absent":
                return None
            if not members:
                del self._members[game_id]
            return len(members)

    def rooms_of(self, sid: str) -> list[str]:
        """The games whose room ``sid`` is in."""
        with self._lock:
            return [game_id for game_id, members in self._members.items() if sid in members]

    def count(self, game_id: str) -> int:
        with self._lock:
            return len(self._members.get(game_id, {}))

    def counts(self) -> dict[str, int]:
        """The size of every room with someone in it."""
        with self._lock:
            return {game_id: len(members) for game_id, members in self._members.items()}

    def members(self, game_id: str) -> dict[str, int | None]:
        with self._lock:
            return dict(self._members.get(game_id, {}))


def _seat0_text(score: int, by: int, text: str | None) -> str | None:
    """The engine's score text re-said from seat 0's point of view."""
    if text is None or by == 0:
        return text
    for mine, theirs in (("win in", "loss in"), ("loss in", "win in")):
        if text.startswith(mine):
            return theirs + text[len(mine):]
    return describe_score(-score, 1) if "." not in text else f"{-score / 100:+.2f}"


def _iso(value: dt.datetime) -> str:
    return value.isoformat(timespec="seconds")


class Arena:
    """All games of this server. ``emit(event, payload, to=room_or_sid)`` sends Socket.IO messages."""

    def __init__(self, store: Store, secret: str, emit: Emit, runner: Runner, pace: float = 0.5, shared: bool = True,
                 leases: SearchLeases | None = None, watcher_counts: WatcherCounts | None = None,
                 idle_games: int = DEFAULT_IDLE_GAMES, unwatched_pause: float = DEFAULT_UNWATCHED_PAUSE,
                 untouched_seconds: float = DEFAULT_UNTOUCHED_GAME_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """``runner`` runs the engine searches. ``shared`` says other nodes
        may change the store's games too: each action then first checks the stored version of its game; a node
        alone with its store (False) trusts its own copies and saves that read. With ``leases``, an engine turn
        is searched by one node at a time, and a turn no node holds (its node died) is taken over by this one.
        With ``watcher_counts``, the watcher counts add up the watchers of every node. At most ``idle_games``
        finished games nobody watches stay in memory, the least recently used leaving first. A game nobody touched
        for ``untouched_seconds`` on ``clock`` leaves memory too (``expire_untouched``, run by a thread every half
        of that time; 0 keeps games until they finish). An engine-against-engine game nobody has watched for
        ``unwatched_pause`` seconds pauses until somebody does."""
        self.store = store
        self.shared = shared
        self.leases = leases
        self.watcher_counts = watcher_counts
        self._watching_elsewhere: dict[str, int] = {}
        self._closing = threading.Event()
        self.secret = secret
        self.emit = emit
        self.pace = pace
        self.unwatched_pause = unwatched_pause
        self.rooms = Rooms()
        self.runner = runner
        self._games: dict[str, LiveGame] = {}
        self._games_lock = threading.Lock()
        self._loading: dict[str, threading.Lock] = {}
        """One lock per game being loaded: concurrent requests for a game not in memory wait for one load."""
        self._idle: OrderedDict[str, None] = OrderedDict()
        """Finished games nobody watches, least recently used first (at most ``idle_games`` stay in memory)."""
        self.idle_games = idle_games
        self.untouched_seconds = untouched_seconds
        self._touches = Touches(clock)
        """When each game in memory was last used: any request or event for it, a watcher in its room here, a
        search of it queued or running here. A game enters and leaves it under ``_games_lock``, with ``_games``."""
        self._job_ids = itertools.count(1)
        self._heartbeat = Heartbeat(store)
        self._flags = FlagWatch(self._on_clock_due)
        self.lab = Lab(self.runner, emit, lambda: next(self._job_ids))
        self.reviews = Reviews(store, self.runner, emit, lambda: next(self._job_ids))
        self.hints = Hints(self.runner, emit, lambda: next(self._job_ids))
        if leases is not None or watcher_counts is not None:
            threading.Thread(target=self._keep_shared_state, name="shared-upkeep", daemon=True).start()
        if untouched_seconds > 0:
            threading.Thread(target=self._expire_untouched_games, name="untouched-games", daemon=True).start()

    def close(self) -> None:
        """Stop the engine workers and close the database."""
        self._closing.set()
        self._flags.close()
        self.runner.close()
        self._heartbeat.close()
        self.store.close()

    # --- loading ----------------------------------------------------------------------------------------------

    def get(self, game_id: str) -> LiveGame:
        """The live game ``game_id`` (loaded from the store on first use); unknown ids raise ``not_found``.
        To read or change it, use ``_locked`` instead, which also handles a game dropped from memory meanwhile."""
        with self._games_lock:
            live = self._games.get(game_id)
            if live is not None:
                self._touches.touch(game_id)
                return live
            loading = self._loading.setdefault(game_id, threading.Lock())
        with loading:  # the first request loads the game, the others wait for it
            with self._games_lock:
                live = self._games.get(game_id)
                if live is not None:
                    self._touches.touch(game_id)
            if live is not None:
                return live
            try:
                loaded = self._load(game_id)
            finally:
                with self._games_lock:
                    if self._loading.get(game_id) is loading:
                        del self._loading[game_id]
            with self._games_lock:
                live = self._games.setdefault(game_id, loaded)
                self._touches.touch(game_id)
            return live

    def _load(self, game_id: str) -> LiveGame:
        stored = self.store.load_game(game_id)
        if stored is None:
            raise ArenaError("not_found", f"there is no game {game_id!r}")
        start = game_class(stored.game).from_setup(stored.start_setup)
        loaded = LiveGame(stored, start, start)
        loaded.state = loaded.position_at(len(stored.moves))
        self._watch_clock(loaded)
        return loaded

    @contextmanager
    def _locked(self, game_id: str, fresh: bool = True) -> Iterator[LiveGame]:
        """The live game ``game_id`` with its lock held (loaded again if it was dropped from memory meanwhile).
        With ``fresh``, it is first brought up to date with the store, where another node may have changed it."""
        while True:
            live = self.get(game_id)
            with live.lock:
                if not live.evicted:
                    if fresh:
                        self._refresh(live)
                    yield live
                    return

    def _refresh(self, live: LiveGame) -> None:
        """Load the game again if the store's version differs from this copy's (only when ``shared``). Lock held."""
        if not self.shared:
            return
        live.checked_at = time.monotonic()
        if stored_version(self.store, live.id) != live.version:
            self._reload(live)

    def _reload(self, live: LiveGame) -> None:
        """Replace this copy's stored game and position with the store's. A search of this node for a position
        that is no longer the game's (another node moved, took back or ended the game) is cancelled. Lock held."""
        stored = self.store.load_game(live.id)
        if stored is None:
            raise ArenaError("not_found", f"there is no game {live.id!r}")
        known = live.stored.moves
        moves_changed = stored.moves != known
        live.stored = stored
        if moves_changed:
            if stored.moves[:len(known)] == known:
                live.state = play_moves(live.state, [move.move for move in stored.moves[len(known):]])
            else:
                live.state = live.position_at(len(stored.moves))
            live.failed_searches = 0
            live.last_search = None
            live.record_known = False
            self._watch_clock(live)
        if live.job_id is not None and (moves_changed or not live.active):
            self._cancel_search(live, CHANGED_ELSEWHERE)

    def _is_idle(self, live: LiveGame) -> bool:
        return not live.active and live.job_id is None and not self.rooms.count(live.id)

    def _evict_if_idle(self, live: LiveGame) -> None:
        """Mark a finished game nobody is watching as the most recently used idle game, and drop the least recently
        used ones beyond ``idle_games`` from memory (they stay in the store). ``live``'s lock held; the lock of a game
        to drop is only tried, never waited for (a game whose lock is held is in use anyway)."""
        if not self._is_idle(live):
            return
        with self._games_lock:
            self._idle[live.id] = None
            self._idle.move_to_end(live.id)
            surplus = [self._games.get(game_id) for game_id in list(self._idle)[:-self.idle_games or None]]
        for other in surplus:
            if other is None or not other.lock.acquire(blocking=False):
                continue
            try:
                idle = self._is_idle(other) and not other.evicted
                with self._games_lock:
                    self._idle.pop(other.id, None)  # dropped now, or in use again
                    if idle and self._games.get(other.id) is other:
                        del self._games[other.id]
                        self._touches.forget(other.id)
                other.evicted = other.evicted or idle
            finally:
                other.lock.release()

    def _expire_untouched_games(self) -> None:
        """The thread that runs ``expire_untouched`` every half of ``untouched_seconds`` until ``close``."""
        while not self._closing.wait(self.untouched_seconds / 2):
            try:
                self.expire_untouched()
            except Exception:
                log.exception("dropping untouched games from memory failed")

    def expire_untouched(self) -> int:
        """Drop from memory (not from the store) every game nobody touched for ``untouched_seconds``; returns how
        many left. A game whose lock is held, with a watcher in this node's room, or with a search of this node
        queued or running counts as touched now instead. Call it holding no game's lock: a game's lock is only
        tried, never waited for. The next request for a dropped game loads it again (``_locked``)."""
        dropped = 0
        for game_id in self._touches.due(self.untouched_seconds):
            with self._games_lock:
                live = self._games.get(game_id)
                if live is None:  # already gone (the finished games' LRU dropped it)
                    self._touches.forget(game_id)
            if live is None:
                continue
            if not live.lock.acquire(blocking=False):
                self._touches.touch(game_id)
                continue
            try:
                if not self._touches.is_due(game_id, self.untouched_seconds) or live.evicted:
                    continue  # used since due() listed it
                if live.job_id is not None or self.rooms.count(game_id):
                    self._touches.touch(game_id)
                    continue
                with self._games_lock:
                    if self._games.get(game_id) is live:
                        del self._games[game_id]
                        self._touches.forget(game_id)
                    self._idle.pop(game_id, None)
                live.evicted = True
                self.hints.forget(game_id)
                dropped += 1
            finally:
                live.lock.release()
        return dropped

    def cached_games(self) -> int:
        """How many games are held in memory."""
        with self._games_lock:
            return len(self._games)

    def broadcast_cached_games(self) -> int:
        """Send ``state`` to the room of every unfinished game held in memory, first brought up to date with the
        store; returns how many. After a message queue outage, this lets other servers' clients catch up."""
        with self._games_lock:
            game_ids = [game_id for game_id, live in self._games.items() if live.active]
        for game_id in game_ids:
            with self._locked(game_id) as live:
                self.emit("state", self.state_payload(live), to=game_id)
        return len(game_ids)

    def resume(self) -> int:
        """Watch the running clock of every unfinished game with one (loading a game watches its clock), and restart
        the search of every unfinished game whose turn is the engine's, within the ceiling that began with the turn
        (see ``_start_engine_if_its_turn``); returns how many engine turns were looked at. A game that cannot be
        loaded (say, its game module is gone) is logged and left alone."""
        for game_id in self.store.clocked_game_ids():
            try:
                self.get(game_id)
            except (GameError, ImportError):
                log.exception("game %s cannot be loaded; its clock is not watched", game_id)
        started = 0
        for game_id in self.store.engine_turn_game_ids():
            try:
                with self._locked(game_id) as live:
                    self._start_engine_if_its_turn(live, resumed=True)
            except (GameError, ImportError):
                log.exception("game %s cannot be loaded; its engine turn is not resumed", game_id)
                continue
            started += 1
        return started

    # --- reading ----------------------------------------------------------------------------------------------

    def state_payload(self, live: LiveGame, you: int | None = None, include_you: bool = False) -> dict[str, Any]:
        """The game state of docs/protocol.md; ``you`` is added when ``include_you``."""
        stored, state = live.stored, live.state
        history = [{"ply": m.ply, "move": m.move, "by": m.by, "score": m.score, "score_text": m.score_text,
                    "depth": m.depth, "clock_ms": m.clock_ms}
                   for m in stored.moves]
        evals = [{"ply": m.ply, "score": m.score if m.by == 0 else -m.score,
                  "score_text": _seat0_text(m.score, m.by, m.score_text)}
                 for m in stored.moves if m.score is not None]
        result = None if stored.status == "active" else {"winner": stored.winner, "reason": stored.reason}
        payload = {
            "id": stored.id,
            "url": f"/g/{stored.id}",
            "game": stored.game,
            "title": state.title,
            "players": list(state.players),
            "score_unit": state.score_unit,
            "move_notation": state.move_notation,
            "options": stored.options,
            "game_options": stored.game_options,
            "start_setup": stored.start_setup,
            "setup": state.setup(),
            "moves": [m.move for m in stored.moves],
            "ply": live.ply,
            "history": history,
            "evals": evals,
            "status": stored.status,
            "result": result,
            "to_move": state.to_move if live.active else None,
            "seats": [self._seat_payload(live, seat) for seat in stored.seats],
            "opponent": stored.opponent,
            "legal_moves": [state.move_text(m) for m in state.legal_moves()] if live.active else [],
            "view": state.view(),
            "watchers": self.watcher_count(stored.id),
            "search_state": "paused" if live.paused or stored.options.get("paused_by_creator")
            else self.runner.state_of(stored.id),
            "clock": None if (clocks := self._clocks(live)) is None else clocks.to_payload(time.time()),
            "rematch_id": stored.rematch_id,
            "offers": pending(stored.offers),
            "waiting_for_opponent": self._waiting_for_opponent(live),
            "version": stored.version,
            "created_at": _iso(stored.created_at),
            "updated_at": _iso(stored.updated_at),
        }
        if include_you:
            payload["you"] = you
        return payload

    @staticmethod
    def _seat_payload(live: LiveGame, seat: StoredSeat) -> dict[str, Any]:
        engine = seat.engine
        if engine is None:
            label = live.state.players[seat.seat] + (" (player)" if seat.taken else " (free seat)")
        elif "level" in engine:
            label = f"Engine level {engine['level']}"
        else:
            limits = [f"depth {engine['depth']}" if engine.get("depth") else "",
                      f"{engine['time']:g} s" if engine.get("time") else ""]
            label = f"Engine {engine['algorithm']} " + ", ".join(x for x in limits if x)
        if engine is not None and engine.get("personality"):
            label += f" · {engine['personality']}"
        return {"seat": seat.seat, "kind": "human" if engine is None else "engine", "taken": seat.taken or
                engine is not None, "label": label}

    def game_state(self, game_id: str, you: int | None) -> dict[str, Any]:
        """The state of game ``game_id`` with ``you``; unknown ids raise ``not_found``."""
        with self._locked(game_id) as live:
            payload = self.state_payload(live, you, include_you=True)
            self._evict_if_idle(live)
            return payload

    def search_record(self, game_id: str, ply: int) -> dict[str, Any]:
        """The search record of the engine move that made ply ``ply`` (``webapp.search_records``): the final
        ``search`` event as the room received it. ``not_found`` for an unknown game, or a ply without one (a
        person's move, a move older than records, a ply beyond the game)."""
        with self._locked(game_id) as live:
            known = 1 <= ply <= live.ply
        record = self.store.search_record(game_id, ply) if known else None
        if record is None:
            raise ArenaError("not_found", f"game {game_id} has no engine search recorded for ply {ply}")
        answer: dict[str, Any] = json.loads(record)
        return answer

    def pgn(self, game_id: str) -> str:
        """A chess game's PGN, each engine move followed by its evaluation from White's side and its search depth
        (``[%eval 0.35,12]``), and in a game with a clock each move by its player's time left (``[%clk 0:02:53]``).
        ``not_found`` for an unknown game or a game without PGN (all but chess)."""
        with self._locked(game_id) as live:
            state = live.state
            if not hasattr(state, "pgn"):
                raise ArenaError("not_found", f"game {game_id} is not a chess game; only chess games have a PGN")
            evals = {move.ply: state.eval_comment(move.score if move.by == 0 else -move.score, move.depth)
                     for move in live.stored.moves if move.score is not None}
            clocks = {move.ply: clock_comment(move.clock_ms) for move in live.stored.moves if move.clock_ms is not None}
            comments = {ply: " ".join(part for part in (evals.get(ply), clocks.get(ply)) if part)
                        for ply in evals.keys() | clocks.keys()}
            comments = {ply: comment for ply, comment in comments.items() if comment}
            text: str = state.pgn(comments)
            return text

    def _last_record(self, live: LiveGame) -> str | None:
        """The record of the game's latest engine move (read from the store once). Lock held."""
        if not live.record_known:
            live.last_record = self.store.last_search_record(live.id)
            live.record_known = True
        return live.last_record

    def position(self, game_id: str, ply: int) -> dict[str, Any]:
        """The position after ``ply`` moves (read-only view); a ply beyond the game raises ``not_found``."""
        with self._locked(game_id) as live:
            if not 0 <= ply <= live.ply:
                raise ArenaError("not_found", f"game {game_id} has plies 0 to {live.ply}, not {ply}")
            state = live.position_at(ply)
            move = live.stored.moves[ply - 1] if ply else None
            self._evict_if_idle(live)
            return {"id": game_id, "game": live.stored.game, "ply": ply, "setup": state.setup(), "view": state.view(),
                    "move": move.move if move else None, "by": move.by if move else None}

    def live_games(self, now: dt.datetime | None = None) -> list[dict[str, Any]]:
        """Summaries of the games being played at ``now`` (default: now), most recently active first: unfinished
        games changed (a move, a seat taken...) in the last ``LIVE_RECENT_SECONDS``, or watched right now on any
        node. An abandoned game leaves the list; its link still works."""
        since = (now or dt.datetime.now(dt.UTC)) - dt.timedelta(seconds=LIVE_RECENT_SECONDS)
        watched = set(self.rooms.counts()) | {game_id for game_id, count in self._watching_elsewhere.copy().items()
                                              if count}
        summaries = []
        for game_id in self.store.live_game_ids(LIVE_LIST_SIZE, since, sorted(watched)):
            with self._locked(game_id) as live:
                stored = live.stored
                seats = [self._seat_payload(live, seat) for seat in stored.seats]
                summaries.append({
                    "id": stored.id, "url": f"/g/{stored.id}", "game": stored.game, "title": live.state.title,
                    "ply": live.ply, "to_move": live.state.to_move, "status": stored.status,
                    "opponent": stored.opponent, "seats": seats, "watchers": self.watcher_count(stored.id),
                    "free_seat": bool(stored.opponent.get("open")) and not all(seat["taken"] for seat in seats),
                    "updated_at": _iso(stored.updated_at),
                })
        return summaries

    # --- creating ---------------------------------------------------------------------------------------------

    def create(self, request: NewGameRequest, client: str = "") -> tuple[str, int | None, str | None]:
        """Create a game as the request says for ``client`` (an address: its engine turns count against that
        client's share of the engines); returns ``(id, creator's seat, token)`` (None, None for engines)."""
        try:
            cls = game_class(request.game)
            if request.setup is not None and request.game_options:
                raise ArenaError("bad_game", "give either a setup or game options, not both")
            state = new_game(request.game, request.setup, **request.game_options)
        except GameError as error:
            raise ArenaError("bad_game", str(error)) from None
        except TypeError as error:
            raise ArenaError("bad_game", f"bad options for {request.game}: {error}") from None
        if state.outcome() is not None:
            raise ArenaError("bad_game", "that position is already finished")
        side = request.side
        if side == "random":
            side = secrets.randbelow(2)
        engines = request.engines if side != 1 else (request.engines[1], request.engines[0])
        options: dict[str, Any] = {"takeback": request.takeback, "hints": request.hints}
        if request.clock is not None:
            options["clock"] = request.clock.to_option()
        return self._insert(cls.name, state, request.game_options, options, request.opponent, engines, side, client)

    def _insert(self, game: str, state: State, game_options: dict[str, Any], options: dict[str, Any],
                opponent: dict[str, Any], engines: tuple[dict[str, Any] | None, ...],
                creator: int | None, client: str) -> tuple[str, int | None, str | None]:
        now = dt.datetime.now(dt.UTC)
        game_id = secrets.token_urlsafe(6)
        seats = [StoredSeat(i, engines[i], engines[i] is None and i == creator) for i in (0, 1)]
        stored = StoredGame(id=game_id, game=game, start_setup=state.setup(), game_options=game_options,
                            options=options, opponent=opponent, status="active", winner=None, reason=None,
                            rematch_id=None, created_at=now, updated_at=now, seats=seats)
        self.store.create_game(stored, state.to_move)
        live = LiveGame(stored, state, state, client=client)
        with self._games_lock:
            self._games[game_id] = live
            self._touches.touch(game_id)
        with live.lock:
            self._start_engine_if_its_turn(live)
            self._ask_hints(live)
        if creator is None:
            return game_id, None, None
        return game_id, creator, issue_token(self.secret, game_id, creator)

    def take_seat(self, game_id: str, invite: object = None) -> tuple[int, str]:
        """Take the first free human seat of the game with the invitation code of its share link (none needed when
        the game is open to anyone); returns ``(seat, token)``. Errors: no_free_seat, bad_invite."""
        with self._locked(game_id) as live:
            for seat in live.stored.seats:
                if seat.engine is not None or seat.taken:
                    continue
                if not live.stored.opponent.get("open") and not is_invite(self.secret, game_id, invite):
                    raise ArenaError("bad_invite", "this seat is kept for the invited player: open the invitation "
                                                   "link the game's creator shared")
                won = self.store.take_seat(game_id, seat.seat)
                seat.taken = True  # by this request, or by another server's a moment ago
                if won:
                    live.stored.version += 1
                    self._broadcast_state(live)
                    return seat.seat, issue_token(self.secret, game_id, seat.seat)
        raise ArenaError("no_free_seat", "both seats of this game are taken; you can watch it")

    # --- acting -----------------------------------------------------------------------------------------------

    def _check_player(self, live: LiveGame, seat: int | None) -> int:
        if seat is None:
            raise ArenaError("forbidden", "spectators cannot act in a game; take a free seat first")
        if live.engine_of(seat) is not None:
            raise ArenaError("forbidden", "that seat is played by the engine")
        return seat

    def play(self, game_id: str, seat: int | None, move_text: str, answer: bool = True,
             client: str = "") -> dict[str, Any] | None:
        """A person's move with ``seat`` from ``client`` (an address: the engine's reply counts against its share
        of the engines); returns the new state (None unless ``answer``). Errors: forbidden, game_over,
        not_your_turn, illegal_move."""
        with self._locked(game_id) as live:
            seat = self._check_player(live, seat)
            if not live.active:
                raise ArenaError("game_over", "the game is over")
            if live.state.to_move != seat:
                raise ArenaError("not_your_turn", "it is not your turn")
            if self._end_if_clock_fell(live):
                raise ArenaError("game_over", "your time ran out before this move arrived")
            if self._waiting_for_opponent(live):
                raise ArenaError("waiting_for_opponent", "your friend has not taken the other seat yet: send them the "
                                                         "invitation link, or choose to play on alone")
            live.client = client
            try:
                self._commit_move(live, move_text, seat)
            except PlyTakenError:
                raise ArenaError("not_your_turn", "another move was played first") from None
            return self.state_payload(live, seat, include_you=True) if answer else None

    def _commit_move(self, live: LiveGame, move_text: str, by: int, search: dict[str, Any] | None = None) -> None:
        """Validate, store (with the score, depth and record of ``search``, the engine's final event, if given), then
        broadcast ``search`` and ``moved``; start the engine if it is to move next. Lock held. Raises
        ``illegal_move``, or ``PlyTakenError`` after loading the game again when another server stored a move for
        this ply first."""
        state = live.state
        try:
            move = state.parse_move(move_text)
            after = state.play(move)
        except GameError as error:
            raise ArenaError("illegal_move", str(error)) from None
        text = state.move_text(move)
        outcome = after.outcome()
        info = search["info"] if search is not None else {}
        searched = info.get("source") in (None, "search") and info.get("depth")
        now = time.time()
        clocks = self._clocks(live)
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
            self._reload(live)
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
            self.emit("search", search, to=live.id)
        self.emit("moved", {"game_id": live.id, "move": text, "by": by, "ply": stored_move.ply,
                            "version": live.version, "state": self.state_payload(live), "sent_at": time.time()},
                  to=live.id)
        self._watch_clock(live)
        self._start_engine_if_its_turn(live)
        self._ask_hints(live)
        self._evict_if_idle(live)

    def _ask_hints(self, live: LiveGame) -> None:
        """In a game with hints on, have the hints of its current position worked out (``webapp.hints``); a game
        that ended, or whose hints were turned off, drops them. Lock held."""
        if not live.stored.options.get("hints"):
            self.hints.forget(live.id)
            return
        if live.active:
            self.hints.request(live.id, live.ply, live.state, live.client)
        else:
            self.hints.forget(live.id)

    # --- clocks -----------------------------------------------------------------------------------------------

    @staticmethod
    def _clocks(live: LiveGame) -> Clocks | None:
        """The game's clocks now, or None in a game without a clock."""
        control = TimeControl.from_options(live.stored.options)
        if control is None:
            return None
        started = live.stored.turn_started_at
        fallen = live.state.to_move if live.stored.reason in (TIMEOUT, TIMEOUT_DRAW) else None
        return clocks_of(control, live.stored.moves, live.state.to_move if live.active else None,
                         None if started is None else started.timestamp(), fallen)

    def _watch_clock(self, live: LiveGame) -> None:
        """Have ``_on_clock_due`` called when the running clock of the game falls, if one runs."""
        clocks = self._clocks(live)
        falls_at = None if clocks is None else clocks.falls_at()
        if falls_at is not None:
            self._flags.watch(live.id, falls_at)

    def _on_clock_due(self, game_id: str) -> None:
        """The flag watch's callback: end the game if its running clock fell, else watch its new fall time."""
        with self._locked(game_id) as live:
            if not self._end_if_clock_fell(live):
                self._watch_clock(live)

    def _end_if_clock_fell(self, live: LiveGame) -> bool:
        """If the running clock has reached zero, end the game on time (``clocks.result_on_time``), cancelling the
        engine's search, and broadcast it; returns whether the game ended so. Lock held."""
        clocks = self._clocks(live)
        if clocks is None or clocks.running is None or not clocks.has_fallen(time.time()):
            return False
        winner, reason = result_on_time(live.state, clocks.running)
        try:
            live.stored.updated_at = self.store.finish_game(live.id, winner, reason, at_ply=live.ply)
        except PlyTakenError:  # another server stored a move or ended the game first
            self._reload(live)
            return not live.active
        self._cancel_search(live, reason)
        self._finished(live, winner, reason)
        self._broadcast_state(live)
        self._evict_if_idle(live)
        return True

    @staticmethod
    def _finished(live: LiveGame, winner: int | None, reason: str) -> None:
        """This copy of a game the store has just finished (``Store.finish_game``). Lock held."""
        live.stored.version += 1
        live.stored.status, live.stored.winner, live.stored.reason = "finished", winner, reason
        live.stored.offers = None

    def _end(self, game_id: str, seat: int | None, winner: int | None, reason: str,
             allowed: Callable[[LiveGame], None] = lambda live: None) -> dict[str, Any]:
        """End the game by ``seat``'s act (``winner``, ``reason``), once ``allowed(live)`` has not refused it;
        returns the final state. Errors: forbidden, game_over, and those of ``allowed``."""
        with self._locked(game_id) as live:
            seat = self._check_player(live, seat)
            if not live.active:
                raise ArenaError("game_over", "the game is over")
            allowed(live)
            self._cancel_search(live, reason)
            live.stored.updated_at = self.store.finish_game(game_id, winner, reason)
            self._finished(live, winner, reason)
            answer = self._broadcast_state(live, seat)
            self._evict_if_idle(live)
            return answer

    def resign(self, game_id: str, seat: int | None) -> dict[str, Any]:
        """``seat`` resigns; returns the final state. Errors: forbidden, game_over."""
        return self._end(game_id, seat, None if seat is None else 1 - seat, "resigned")

    def abort(self, game_id: str, seat: int | None) -> dict[str, Any]:
        """``seat`` aborts the game while neither side has moved twice (``offers.may_abort``): no winner, reason
        "aborted"; returns the final state. Errors: forbidden, game_over, not_allowed."""
        def allowed(live: LiveGame) -> None:
            if not may_abort(live.ply):
                raise ArenaError("not_allowed", "a game is aborted only before either side has moved twice; resign "
                                                "instead")
        return self._end(game_id, seat, None, ABORTED, allowed)

    def play_alone(self, game_id: str, seat: int | None) -> dict[str, Any]:
        """The player of a friend game still waiting for the friend chooses to play on alone (the free seat stays
        open to the invited friend); returns the new state. Errors: forbidden, game_over, not_allowed."""
        with self._locked(game_id) as live:
            seat = self._check_player(live, seat)
            if not live.active:
                raise ArenaError("game_over", "the game is over")
            if not self._waiting_for_opponent(live):
                raise ArenaError("not_allowed", "this game is not waiting for a second player")
            options = {**live.stored.options, "alone": True}
            self.store.set_options(game_id, options)
            live.stored.options = options
            live.stored.version += 1
            return self._broadcast_state(live, seat)

    @staticmethod
    def _waiting_for_opponent(live: LiveGame) -> bool:
        """Whether a game between two people waits for its second player before any move (until the player
        present chooses to play on alone)."""
        seats = live.stored.seats
        return (live.active and live.ply == 0 and live.stored.opponent.get("type") == "friend"
                and not all(seat.taken for seat in seats) and not live.stored.options.get("alone"))

    def offer(self, game_id: str, seat: int | None, kind: object, client: str = "") -> dict[str, Any]:
        """``seat`` offers ``kind`` ("draw", "takeback", "rematch"; ``webapp.offers``) to the other player of a game
        between two people, or accepts it when the other player offered it already; returns the new state (the
        rematch's creation also sends ``rematch``). Errors: bad_request, forbidden, not_allowed, game_over."""
        kind = check_kind(kind)
        with self._locked(game_id) as live:
            seat = self._check_player(live, seat)
            if any(other.engine is not None or not other.taken for other in live.stored.seats):
                raise ArenaError("not_allowed", "offers are made between two players; against the engine, take back "
                                                "or resign")
            offers = pending(live.stored.offers)
            if offers[kind] == 1 - seat:
                return self._accept(live, seat, kind, client)
            check_offer(kind, live.active, live.stored.reason == "resigned",
                        any(move.by == seat for move in live.stored.moves))
            if kind == "rematch" and live.stored.rematch_id is not None:
                raise ArenaError("not_allowed", "the rematch exists already")
            return self._set_offers(live, seat, offers | {kind: seat})

    def decline(self, game_id: str, seat: int | None, kind: object) -> dict[str, Any]:
        """``seat`` declines the other player's pending offer of ``kind`` (or withdraws its own); returns the new
        state. Errors: bad_request, forbidden, not_allowed (nothing pending)."""
        kind = check_kind(kind)
        with self._locked(game_id) as live:
            seat = self._check_player(live, seat)
            offers = pending(live.stored.offers)
            if offers[kind] is None:
                raise ArenaError("not_allowed", f"there is no {kind} offer to decline")
            return self._set_offers(live, seat, offers | {kind: None})

    def _set_offers(self, live: LiveGame, seat: int, offers: dict[str, int | None]) -> dict[str, Any]:
        self.store.set_offers(live.id, offers)
        live.stored.offers = offers
        live.stored.version += 1
        return self._broadcast_state(live, seat)

    def _accept(self, live: LiveGame, seat: int, kind: str, client: str) -> dict[str, Any]:
        """``seat`` accepts the other player's ``kind`` offer: the draw ends the game, the takeback undoes the
        moves back to the asker's turn, the rematch is made. Lock held."""
        if kind == "draw":
            if not live.active:
                raise ArenaError("game_over", "the game is over")
            self._cancel_search(live, AGREED_DRAW)
            live.stored.updated_at = self.store.finish_game(live.id, None, AGREED_DRAW)
            self._finished(live, None, AGREED_DRAW)
            return self._broadcast_state(live, seat)
        if kind == "takeback":
            return self._take_back(live, 1 - seat, seat)
        self._make_rematch(live, client)
        return self.state_payload(live, seat, include_you=True)

    def stop(self, game_id: str, code: object) -> dict[str, Any]:
        """End an engine-against-engine game with the stop code its creator got (``seats.stop_code``): its search is
        cancelled and it finishes without a winner, reason "stopped"; returns the final state. Errors: forbidden
        (not the code, or not an engine-against-engine game), game_over."""
        with self._locked(game_id) as live:
            if not all(seat.engine is not None for seat in live.stored.seats):
                raise ArenaError("forbidden", "only a game between two engines can be stopped; players resign")
            if not is_stop_code(self.secret, game_id, code):
                raise ArenaError("forbidden", "only the game's creator can stop it (with the stop code it got)")
            if not live.active:
                raise ArenaError("game_over", "the game is over")
            self._cancel_search(live, "stopped")
            live.paused = False
            live.stored.updated_at = self.store.finish_game(game_id, None, "stopped")
            live.stored.version += 1
            live.stored.status, live.stored.winner, live.stored.reason = "finished", None, "stopped"
            answer = self._broadcast_state(live)
            self._evict_if_idle(live)
            return answer

    def direct_engines(self, game_id: str, code: object, paused: object = None, pace: object = None) -> dict[str, Any]:
        """The creator of an engine-against-engine game (with the stop code it got) pauses or resumes it
        (``paused``) or sets the seconds between its moves (``pace``, one of ``PACES``); kept in its options, so
        every node and a restart keep them. A pause cancels the running search; resuming starts it again. Returns
        the new state. Errors: bad_request, forbidden, game_over."""
        if paused is not None and not isinstance(paused, bool):
            raise ArenaError("bad_request", "paused must be true or false")
        if pace is not None and (isinstance(pace, bool) or pace not in PACES):
            raise ArenaError("bad_request", f"pace must be one of {', '.join(f'{p:g}' for p in PACES)} seconds")
        with self._locked(game_id) as live:
            if not all(seat.engine is not None for seat in live.stored.seats):
                raise ArenaError("forbidden", "only a game between two engines is paused or paced by its creator")
            if not is_stop_code(self.secret, game_id, code):
                raise ArenaError("forbidden", "only the game's creator can direct it (with the stop code it got)")
            if not live.active:
                raise ArenaError("game_over", "the game is over")
            options = dict(live.stored.options)
            if paused is not None:
                options["paused_by_creator"] = paused
            if pace is not None:
                options["pace"] = float(pace)
            if options != live.stored.options:
                self.store.set_options(game_id, options)
                live.stored.options = options
                live.stored.version += 1
                if paused:
                    self._cancel_search(live, "paused by its creator")
                elif live.job_id is None:
                    self._start_engine_if_its_turn(live)
            return self._broadcast_state(live)

    def takeback(self, game_id: str, seat: int | None) -> dict[str, Any]:
        """Against the engine with ``options.takeback``: undo back to ``seat``'s last turn (its move and the engine's
        reply). Between two people a takeback is asked with ``offer``. Errors: forbidden, not_allowed."""
        with self._locked(game_id) as live:
            seat = self._check_player(live, seat)
            if live.stored.opponent.get("type") != "engine" or not live.stored.options.get("takeback"):
                raise ArenaError("not_allowed", "takeback is not enabled in this game")
            return self._take_back(live, seat, seat)

    def _take_back(self, live: LiveGame, asker: int, you: int) -> dict[str, Any]:
        """Undo the moves back to ``asker``'s last turn; returns the new state for ``you``. Errors: not_allowed.
        Lock held."""
        if live.stored.reason == "resigned":
            raise ArenaError("not_allowed", "a resigned game cannot be taken back")
        if live.stored.rematch_id is not None:
            raise ArenaError("not_allowed", "the players moved on to a rematch; this game cannot be taken back")
        mine = [m.ply for m in live.stored.moves if m.by == asker]
        if not mine:
            raise ArenaError("not_allowed", "you have no move to take back")
        keep = mine[-1] - 1
        state = live.position_at(keep)
        self._cancel_search(live, "takeback")
        turn_started = dt.datetime.now(dt.UTC) if "clock" in live.stored.options else None
        live.stored.updated_at = self.store.truncate_moves(live.id, keep, state.to_move, turn_started)
        live.stored.turn_started_at = turn_started
        live.stored.version += 1
        live.state = state
        del live.stored.moves[keep:]
        live.record_known = False
        live.stored.status, live.stored.winner, live.stored.reason = "active", None, None
        live.stored.offers = None
        self._watch_clock(live)
        self._ask_hints(live)
        return self._broadcast_state(live, you)

    def rematch(self, game_id: str, seat: int | None, client: str = "") -> tuple[str, int, str] | None:
        """A new game with the same settings and the seats swapped (made once per game, once it is over); returns
        the caller's ``(new id, seat, token)``. Between two players who both held their seats it is made only when
        both want it: the first call offers it (``offer`` "rematch"; returns None, the room gets ``state``), the
        other player's call makes it. See ``_make_rematch`` for what the room gets. Errors: forbidden,
        not_allowed (the game is still being played)."""
        with self._locked(game_id) as live:
            seat = self._check_player(live, seat)
            stored = live.stored
            if live.active:
                raise ArenaError("not_allowed", "a rematch can only start once this game is over")
            two_players = all(other.engine is None and other.taken for other in stored.seats)
            if two_players and stored.rematch_id is None and pending(stored.offers)["rematch"] != 1 - seat:
                if pending(stored.offers)["rematch"] != seat:
                    self._set_offers(live, seat, pending(stored.offers) | {"rematch": seat})
                return None
            new_id = self._make_rematch(live, client)
            return new_id, 1 - seat, issue_token(self.secret, new_id, 1 - seat)

    def _make_rematch(self, live: LiveGame, client: str) -> str:
        """Make the rematch (once) and send ``rematch`` to the room: to this node's members with each player's
        token for players, and when the rematch is new, to members on other nodes (message queue) without tokens,
        with the old game's ``state``. A human seat of the rematch is taken only if its player held the old seat;
        a seat nobody took stays free. Its engine turns count against ``client``'s share. Returns its id. Lock
        held."""
        stored, game_id = live.stored, live.id
        created = stored.rematch_id is None
        if created:
            start = game_class(stored.game).from_setup(stored.start_setup)
            engines = (stored.seats[1].engine, stored.seats[0].engine)
            new_id, _, _ = self._insert(stored.game, start, stored.game_options,
                                        {key: value for key, value in stored.options.items() if key != "alone"},
                                        stored.opponent, engines, None, client)
            self.store.set_rematch(game_id, new_id)
            stored.rematch_id = new_id
            stored.version += 1
            stored.offers = None
            with self._locked(new_id) as new_live:
                for old_seat in (0, 1):
                    held = stored.seats[old_seat].engine is None and stored.seats[old_seat].taken
                    if held and self.store.take_seat(new_id, 1 - old_seat):
                        new_live.stored.seats[1 - old_seat].taken = True
                        new_live.stored.version += 1
        new_id = stored.rematch_id
        assert new_id is not None
        link: dict[str, Any] = {"game_id": game_id, "new_id": new_id, "url": f"/g/{new_id}"}
        members = self.rooms.members(game_id)
        for sid, member_seat in members.items():
            payload = dict(link)
            if member_seat is not None and stored.seats[member_seat].engine is None:
                payload |= {"seat": 1 - member_seat, "token": issue_token(self.secret, new_id, 1 - member_seat)}
            self.emit("rematch", payload, to=sid)
        if created:
            # Watchers connected to other nodes get the link; a player among them asks its own node for the
            # rematch, which answers it with its seat's token as above.
            self.emit("rematch", link, to=game_id, skip_sid=list(members))
            # The state says it too (with its new version): a client that missed the link still learns it.
            self.emit("state", self.state_payload(live), to=game_id)
        return new_id

    def set_hints(self, game_id: str, seat: int | None, on: bool, client: str = "") -> dict[str, Any]:
        """Turn the game's hints on or off for ``seat``'s player; returns the new state. Against the engine the
        player decides alone; between two people, hints come on once both have asked (the first ask is kept in
        ``options.hints_asked_by`` and shown to both), and either may turn them off. Errors: forbidden
        (spectators), game_over."""
        with self._locked(game_id) as live:
            seat = self._check_player(live, seat)
            if not live.active:
                raise ArenaError("game_over", "the game is over")
            old = {**live.stored.options, "hints_asked_by": live.stored.options.get("hints_asked_by")}
            options = dict(old)
            humans = sum(1 for other in live.stored.seats if other.engine is None)
            asked = options["hints_asked_by"]
            if not on:
                options["hints"], options["hints_asked_by"] = False, None
            elif humans == 1 or (asked is not None and asked != seat) or options.get("hints"):
                options["hints"], options["hints_asked_by"] = True, None
            else:
                options["hints_asked_by"] = seat
            if options == old:
                return self.state_payload(live, seat, include_you=True)
            self.store.set_options(game_id, options)
            live.stored.options = options
            live.stored.version += 1
            live.client = client
            self._ask_hints(live)
            return self._broadcast_state(live, seat)

    def review(self, game_id: str, client: str = "") -> dict[str, Any]:
        """Start (once) the review of a finished game for ``client``'s share of the engines (``webapp.reviews``);
        returns its status. Errors: not_allowed (the game is still being played)."""
        with self._locked(game_id) as live:
            if live.active:
                raise ArenaError("not_allowed", "a game is reviewed once it is over")
            start, moves = live.start, [move.move for move in live.stored.moves]
        return self.reviews.start(game_id, start, moves, client)

    def analyse_position(self, game_id: str, ply: int, client: str = "") -> dict[str, Any]:
        """"What would the engine do here?" for the position after ``ply`` moves of a finished game, for
        ``client``'s share of the engines (``Reviews.analyse``). Errors: not_allowed (still being played),
        not_found (no such ply)."""
        with self._locked(game_id) as live:
            if live.active:
                raise ArenaError("not_allowed", "positions of a game are analysed once it is over")
            if not 0 <= ply <= live.ply:
                raise ArenaError("not_found", f"game {game_id} has no position after {ply} moves")
            state = live.position_at(ply)
        if state.outcome() is not None:
            raise ArenaError("not_allowed", "the game is over in that position: there is nothing to play")
        return self.reviews.analyse(game_id, ply, state, client)

    def _broadcast_state(self, live: LiveGame, you: int | None = None) -> dict[str, Any]:
        if not live.active:
            self.hints.forget(live.id)
        self.emit("state", self.state_payload(live), to=live.id)
        return self.state_payload(live, you, include_you=True)

    # --- rooms ------------------------------------------------------------------------------------------------

    def join(self, game_id: str, sid: str, seat: int | None) -> None:
        """Put ``sid`` in the game's room: send it the state and the running search's last event, or, when no
        search runs, the search record of the latest engine move (as its final ``search`` event); and the new
        watcher count to the room."""
        with self._locked(game_id) as live:
            count = self.rooms.join(game_id, sid, seat)
            live.watched_at = time.monotonic()
            if live.job_id is None and live.engine_to_move():  # paused, or loaded again after leaving memory
                self._start_engine_if_its_turn(live)
            self.emit("state", self.state_payload(live, seat, include_you=True), to=sid)
            job = self.runner.current_job(game_id)
            if job is not None and live.last_search is not None:
                self.emit("search", {"game_id": game_id, "ply": job.ply, "seat": job.seat, "info": live.last_search},
                          to=sid)
            elif job is None and (record := self._last_record(live)) is not None:
                self.emit("search", json.loads(record), to=sid)
            if live.stored.options.get("hints") and live.active:
                hints = self.hints.latest(game_id, live.ply)
                if hints is not None:
                    self.emit("hints", hints, to=sid)
                elif not self.hints.is_worked_out(game_id):
                    self._ask_hints(live)
        self._announce_watchers(game_id, count)

    def watcher_count(self, game_id: str) -> int:
        """How many watch the game: this node's room, plus what the other nodes last reported."""
        return self.rooms.count(game_id) + self._watching_elsewhere.get(game_id, 0)

    def _announce_watchers(self, game_id: str, local: int) -> None:
        """Report this node's room size (with ``watcher_counts``) and send the room the total."""
        if self.watcher_counts is not None and not self._closing.is_set():
            self._watching_elsewhere[game_id] = self.watcher_counts.exchange({game_id: local}).get(game_id, 0)
        self.emit("watchers", {"game_id": game_id, "count": self.watcher_count(game_id)}, to=game_id)

    def leave(self, game_id: str, sid: str) -> None:
        """Take ``sid`` out of the game's room and tell the room the new watcher count; a finished game nobody
        watches any more is dropped from memory."""
        count = self.rooms.leave(game_id, sid)
        if count is None:
            return
        self._announce_watchers(game_id, count)
        with self._games_lock:
            live = self._games.get(game_id)
        if live is not None:
            with live.lock:
                live.watched_at = time.monotonic()
                if not live.evicted:
                    self._touches.touch(game_id)  # its untouched time starts when its last watcher leaves
                    self._evict_if_idle(live)

    # --- engine -----------------------------------------------------------------------------------------------

    def _start_engine_if_its_turn(self, live: LiveGame, resumed: bool = False) -> None:
        """Submit the search of the engine to move, if one is; an engine-against-engine game nobody has watched
        for ``unwatched_pause`` seconds pauses instead (``join`` starts it again). A ``resumed`` turn (after a
        restart, or taken over from a node that died) keeps the ceiling that began with the turn: it must end
        ``CEILING_SECONDS`` after the game's last change, or within ``RESUMED_MINIMUM_SECONDS`` if that is past.
        Lock held."""
        live.paused = False
        if not live.engine_to_move() or live.stored.options.get("paused_by_creator"):
            return
        both_engines = all(s.engine is not None for s in live.stored.seats)
        now = time.monotonic()
        if self.watcher_count(live.id):
            live.watched_at = now
        elif both_engines and now - live.watched_at >= self.unwatched_pause:
            live.paused = True
            return
        if self.leases is not None and not self.leases.claim(live.id):
            return  # another node is searching this turn
        seat = live.state.to_move
        clocks = self._clocks(live)
        deadline = self._resumed_deadline(live) if resumed else None
        if clocks is not None:  # the engine thinks on its own clock
            started = clocks.turn_started if clocks.turn_started is not None else time.time()
            on_clock = started + clocks.engine_seconds(seat, started)
            deadline = on_clock if deadline is None else min(deadline, on_clock)
        job = SearchJob(
            id=next(self._job_ids), key=live.id, ply=live.ply, seat=seat, state=live.state,
            engine=live.engine_of(seat), record_tree=TREE_GAMES.get(live.stored.game, 0),
            not_before=time.time() + live.stored.options.get("pace", self.pace) if both_engines else 0.0,
            seed=secrets.randbits(32), client=live.client, deadline=deadline)
        live.job_id = job.id
        live.last_search = None
        self.runner.submit(job, self._on_search_event)

    @staticmethod
    def _resumed_deadline(live: LiveGame) -> float:
        """The wall-clock time by which a resumed engine turn must end (see ``_start_engine_if_its_turn``)."""
        turn_began = live.stored.updated_at.timestamp()
        return max(turn_began + CEILING_SECONDS, time.time() + RESUMED_MINIMUM_SECONDS)

    def _cancel_search(self, live: LiveGame, reason: str) -> None:
        live.job_id = None
        live.last_search = None
        self.runner.cancel(live.id, reason)
        self._release_lease(live.id)

    def _release_lease(self, game_id: str) -> None:
        if self.leases is not None:
            self.leases.release(game_id)

    def _keep_shared_state(self) -> None:
        """The upkeep thread of a node sharing its store: every ``SWEEP_SECONDS``, take care of the engine turns
        (with ``leases``) and of the watcher counts (with ``watcher_counts``)."""
        while not self._closing.wait(SWEEP_SECONDS):
            try:
                if self.leases is not None:
                    self._keep_engine_turns(self.leases)
                if self.watcher_counts is not None:
                    self._keep_watcher_counts(self.watcher_counts)
            except Exception:
                if self._closing.is_set():
                    return
                log.exception("the upkeep of what this node shares with the others failed")

    def _keep_engine_turns(self, leases: SearchLeases) -> None:
        """Renew the leases of this node's searches and take over the engine turns no node holds a lease for
        (the node searching them died or lost Redis), except those of games this node paused (nobody watches)."""
        with self._games_lock:
            searching = [live.id for live in self._games.values() if live.job_id is not None]
        for game_id in leases.renew(searching):
            with self._locked(game_id) as live:
                log.warning("game %s: another server took its engine turn over; this one stops searching it", game_id)
                self._cancel_search(live, "another server searches this turn")
        waiting = [game_id for game_id in self.store.engine_turn_game_ids() if game_id not in searching]
        for game_id in leases.unclaimed(waiting):
            with self._locked(game_id) as live:
                if live.job_id is None and live.engine_to_move() and not live.paused:
                    log.warning("game %s: no server is searching its engine turn; this one takes it over", game_id)
                    self._start_engine_if_its_turn(live, resumed=True)

    def _keep_watcher_counts(self, counts: WatcherCounts) -> None:
        """Renew this node's reports of its rooms and send each room whose total changed its new count."""
        local = self.rooms.counts()
        elsewhere = counts.exchange(local)
        for game_id in set(self._watching_elsewhere.copy()) - set(local):  # copy(): atomic under the GIL
            self._watching_elsewhere.pop(game_id, None)
        for game_id, others in elsewhere.items():
            if self._watching_elsewhere.get(game_id, 0) != others:
                self._watching_elsewhere[game_id] = others
                self.emit("watchers", {"game_id": game_id, "count": self.watcher_count(game_id)}, to=game_id)

    def _on_search_event(self, job: SearchJob, info: dict[str, Any]) -> None:
        """The runner's handler of an engine turn's search: relay the event to the room; play the final event's
        move."""
        kind = info["kind"]
        message = {"game_id": job.key, "ply": job.ply, "seat": job.seat, "info": info}
        if kind in ("cancelled", "queued"):
            self.emit("search", message, to=job.key)
            return
        with self._locked(job.key, fresh=False) as live:
            if live.job_id != job.id:
                return
            if kind == "final" or time.monotonic() - live.checked_at >= RECHECK_INTERVAL:
                self._refresh(live)
                if live.job_id != job.id:
                    if kind == "final":  # the runner had already let go of the job, so it sent no "cancelled"
                        self.emit("search", message | {"info": {"kind": "cancelled", "reason": CHANGED_ELSEWHERE}},
                                  to=job.key)
                    return
            if kind == "final":
                live.job_id = None
                self._release_lease(job.key)
                if self._end_if_clock_fell(live):
                    self.emit("search", message | {"info": {"kind": "cancelled", "reason": TIMEOUT}}, to=job.key)
                    return
                try:
                    self._commit_move(live, info["best"], job.seat, search=message)
                except PlyTakenError:
                    log.info("game %s: another server stored ply %d first; this server's engine move is dropped",
                             job.key, job.ply + 1)
                    self.emit("search", message | {"info": {"kind": "cancelled", "reason": CHANGED_ELSEWHERE}},
                              to=job.key)
                except ArenaError as error:
                    self.emit("search", message, to=job.key)
                    self.emit("error", {"code": error.code, "message": f"engine move refused: {error.message}",
                                        "event": "search"}, to=job.key)
                return
            self.emit("search", message, to=job.key)
            if kind == "failed":
                live.job_id = None
                self._release_lease(job.key)
                if live.failed_searches < SEARCH_RETRIES:
                    live.failed_searches += 1
                    self._start_engine_if_its_turn(live)
                else:
                    self.emit("error", {"code": "engine_failed", "message": f"the engine failed: {info['message']}",
                                        "event": "search"}, to=job.key)
            else:
                live.last_search = info
