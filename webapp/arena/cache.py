"""The games a web node holds in memory (``GameCache``): loaded from the store on first use, one load per game
however many requests wait for it, compared with the store before each action when other nodes share it, and
dropped again when finished and unwatched (least recently used first) or untouched for a while.

Several web nodes may share one store. Each keeps its own copy of the games it serves, so before every action and
every join the copy is compared with the store's version of the game (``Store.version_of``) and loaded again when
another node changed it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from engine.game import play_moves
from engine.games import game_class
from webapp.arena.live import LiveGame
from webapp.arena.presence import Rooms
from webapp.arena.touches import Touches
from webapp.clock import Clock
from webapp.errors import ArenaError, ErrorCode
from webapp.store import DatabaseUnavailableError, Store

Reloaded = Callable[[LiveGame, bool], None]
"""Called (lock held) when a copy was loaded again because another node changed the game, with whether its moves
changed."""


class GameCache:
    """The live games of this node. ``shared`` says other nodes may change the store's games too; a node alone
    with its store (False) trusts its own copies and saves the version read. At most ``idle_games`` finished games
    nobody watches stay in memory. A game nobody touched for ``untouched_seconds`` (``clock``'s monotonic time)
    leaves memory too
    (``expire_untouched``; 0 keeps games until they finish)."""

    def __init__(self, store: Store, rooms: Rooms, shared: bool, idle_games: int, untouched_seconds: float,
                 clock: Clock) -> None:
        self.store = store
        self.shared = shared
        self.idle_games = idle_games
        self.untouched_seconds = untouched_seconds
        self._rooms = rooms
        self._games: dict[str, LiveGame] = {}
        self._lock = threading.Lock()
        self._loading: dict[str, threading.Lock] = {}
        """One lock per game being loaded: concurrent requests for a game not in memory wait for one load."""
        self._idle: OrderedDict[str, None] = OrderedDict()
        """Finished games nobody watches, least recently used first (at most ``idle_games`` stay in memory)."""
        self.clock = clock
        self._touches = Touches(clock.monotonic)
        """When each game in memory was last used: any request or event for it, a watcher in its room here, a
        search of it queued or running here. A game enters and leaves it under ``_lock``, with ``_games``."""
        self._on_loaded: Callable[[LiveGame], None] = lambda live: None
        self._on_reloaded: Reloaded = lambda live, moves_changed: None
        self._on_dropped: Callable[[str], None] = lambda game_id: None

    def listen(self, loaded: Callable[[LiveGame], None], reloaded: Reloaded, dropped: Callable[[str], None]) -> None:
        """Be told when a game is loaded from the store, loaded again after another node changed it (lock held),
        and dropped from memory."""
        self._on_loaded, self._on_reloaded, self._on_dropped = loaded, reloaded, dropped

    def get(self, game_id: str) -> LiveGame:
        """The live game ``game_id`` (loaded from the store on first use); unknown ids raise ``not_found``. To read
        or change it, use ``locked`` instead, which also handles a game dropped from memory meanwhile."""
        with self._lock:
            live = self._games.get(game_id)
            if live is not None:
                self._touches.touch(game_id)
                return live
            loading = self._loading.setdefault(game_id, threading.Lock())
        with loading:  # the first request loads the game, the others wait for it
            with self._lock:
                live = self._games.get(game_id)
                if live is not None:
                    self._touches.touch(game_id)
            if live is not None:
                return live
            try:
                loaded = self._load(game_id)
            finally:
                with self._lock:
                    if self._loading.get(game_id) is loading:
                        del self._loading[game_id]
            with self._lock:
                live = self._games.setdefault(game_id, loaded)
                self._touches.touch(game_id)
            return live

    def add(self, live: LiveGame) -> None:
        """Hold a game just created."""
        with self._lock:
            self._games[live.id] = live
            self._touches.touch(live.id)

    def find(self, game_id: str) -> LiveGame | None:
        """The game if it is in memory (nothing is loaded)."""
        with self._lock:
            return self._games.get(game_id)

    @contextmanager
    def locked(self, game_id: str, fresh: bool = True) -> Iterator[LiveGame]:
        """The live game ``game_id`` with its lock held (loaded again if it was dropped from memory meanwhile).
        With ``fresh``, it is first brought up to date with the store, where another node may have changed it."""
        while True:
            live = self.get(game_id)
            with live.lock:
                if not live.evicted:
                    if fresh:
                        self.refresh(live)
                    yield live
                    return

    def refresh(self, live: LiveGame) -> None:
        """Load the game again if the store's version differs from this copy's (only when ``shared``); while the
        database does not answer, the copy in memory is served as it is. Lock held."""
        if not self.shared:
            return
        live.checked_at = self.clock.monotonic()
        try:
            changed = self.store.version_of(live.id) != live.version
        except DatabaseUnavailableError:
            return
        if changed:
            self.reload(live)

    def reload(self, live: LiveGame) -> None:
        """Replace this copy's stored game and position with the store's, and tell the listener. Lock held."""
        stored = self.store.load_game(live.id)
        if stored is None:
            raise ArenaError(ErrorCode.NOT_FOUND, f"there is no game {live.id!r}")
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
        self._on_reloaded(live, moves_changed)

    def touch(self, game_id: str) -> None:
        """Count the game as used now (its untouched time starts again), if it is in memory."""
        with self._lock:
            if game_id in self._games:
                self._touches.touch(game_id)

    def count(self) -> int:
        """How many games are held in memory."""
        with self._lock:
            return len(self._games)

    def active_ids(self) -> list[str]:
        """The ids of the unfinished games in memory."""
        with self._lock:
            return [game_id for game_id, live in self._games.items() if live.active]

    def searching_ids(self) -> list[str]:
        """The ids of the games in memory whose engine turn this node searches."""
        with self._lock:
            return [game_id for game_id, live in self._games.items() if live.job_id is not None]

    def evict_if_idle(self, live: LiveGame) -> None:
        """Mark a finished game nobody is watching as the most recently used idle game, and drop the least recently
        used ones beyond ``idle_games`` from memory (they stay in the store). ``live``'s lock held; the lock of a
        game to drop is only tried, never waited for (a game whose lock is held is in use anyway)."""
        if not self._is_idle(live):
            return
        with self._lock:
            self._idle[live.id] = None
            self._idle.move_to_end(live.id)
            surplus = [self._games.get(game_id) for game_id in list(self._idle)[:-self.idle_games or None]]
        for other in surplus:
            if other is None or not other.lock.acquire(blocking=False):
                continue
            try:
                idle = self._is_idle(other) and not other.evicted
                with self._lock:
                    self._idle.pop(other.id, None)  # dropped now, or in use again
                    if idle and self._games.get(other.id) is other:
                        del self._games[other.id]
                        self._touches.forget(other.id)
                other.evicted = other.evicted or idle
            finally:
                other.lock.release()

    def expire_untouched(self) -> int:
        """Drop from memory (not from the store) every game nobody touched for ``untouched_seconds``; returns how
        many left.
        A game whose lock is held, with a watcher in this node's room, or with a search of this node queued or
        running counts as touched now instead. Call it holding no game's lock: a game's lock is only tried, never
        waited for. The next request for a dropped game loads it again (``locked``)."""
        dropped, seconds = 0, self.untouched_seconds
        for game_id in self._touches.due(seconds):
            with self._lock:
                live = self._games.get(game_id)
                if live is None:  # already gone (the finished games' LRU dropped it)
                    self._touches.forget(game_id)
            if live is None:
                continue
            if not live.lock.acquire(blocking=False):
                self._touches.touch(game_id)
                continue
            try:
                if self._drop_untouched(live, seconds):
                    dropped += 1
            finally:
                live.lock.release()
        return dropped

    def _drop_untouched(self, live: LiveGame, seconds: float) -> bool:
        """Drop ``live`` if it is still untouched for ``seconds`` and unused; returns whether it was. Lock held."""
        game_id = live.id
        if not self._touches.is_due(game_id, seconds) or live.evicted:
            return False  # used since due() listed it
        if live.job_id is not None or self._rooms.count(game_id):
            self._touches.touch(game_id)
            return False
        with self._lock:
            if self._games.get(game_id) is live:
                del self._games[game_id]
                self._touches.forget(game_id)
            self._idle.pop(game_id, None)
        live.evicted = True
        self._on_dropped(game_id)
        return True

    def _is_idle(self, live: LiveGame) -> bool:
        return not live.active and live.job_id is None and not self._rooms.count(live.id)

    def _load(self, game_id: str) -> LiveGame:
        stored = self.store.load_game(game_id)
        if stored is None:
            raise ArenaError(ErrorCode.NOT_FOUND, f"there is no game {game_id!r}")
        loaded = LiveGame.of(stored, game_class(stored.game).from_setup(stored.start_setup), self.clock.monotonic())
        self._on_loaded(loaded)
        return loaded
