"""Reading games: a game's state, a past position, an engine move's search record, a chess game's PGN, the live
list, and asking a finished game's review or a position's analysis (run by ``webapp.arena.reviews``)."""

from __future__ import annotations

import datetime as dt
import json
import threading
from typing import Any

from cachetools import LRUCache

from engine.game import PgnState
from engine.pov_score import PovScore
from webapp.arena.cache import GameCache
from webapp.arena.every_move import EveryMove, EveryMovePayload, search_options
from webapp.arena.live import LiveGame
from webapp.arena.outbox import Outbox
from webapp.arena.payloads import Payloads, PositionPayload, StatePayload, SummaryPayload, position_payload
from webapp.arena.presence import Presence
from webapp.arena.reviews import AnalysisPayload, Reviews, ReviewStatus
from webapp.clock import Clock
from webapp.errors import ArenaError, ErrorCode
from webapp.game_clocks import clock_comment
from webapp.search.records import read_record
from webapp.store import Store

POSITIONS_KEPT = 256
"""Past positions' payloads kept in memory (each at most tens of KB, for a chess game with a long setup)."""
LIVE_LIST_SIZE = 50
LIVE_RECENT_SECONDS = 120
"""The live list shows a game changed this recently (or watched now): "being played"."""


class Reads:
    """Answers questions about this node's games without changing them."""

    def __init__(self, store: Store, cache: GameCache, payloads: Payloads, presence: Presence, reviews: Reviews,
                 outbox: Outbox, every_move: EveryMove, clock: Clock) -> None:
        self.store = store
        self.cache = cache
        self.payloads = payloads
        self.presence = presence
        self.reviews = reviews
        self.outbox = outbox
        self.every_move = every_move
        self.clock = clock
        self._positions: LRUCache[tuple[str, int, int], PositionPayload] = LRUCache(maxsize=POSITIONS_KEPT)
        """Past positions last read, by game, version and ply."""
        self._positions_lock = threading.Lock()

    def game_state(self, game_id: str, you: int | None) -> StatePayload:
        """The state of game ``game_id`` with ``you``; unknown ids raise ``not_found``."""
        with self.cache.locked(game_id) as live:
            payload = self.payloads.state(live, you, include_you=True)
            self.cache.evict_if_idle(live)
            return payload

    def record_length(self, game_id: str) -> int:
        """How long game ``game_id``'s record is, in moves: those played and the words of its setup (a chess game
        may be set up from a few thousand moves); ``not_found`` for an unknown id."""
        live = self.cache.get(game_id)
        return live.ply + len(live.stored.start_setup.split())

    def exists(self, game_id: str) -> bool:
        """Whether ``game_id`` is a game of this site (it is then in memory, as a page about it will want)."""
        try:
            with self.cache.locked(game_id, fresh=False):
                return True
        except ArenaError as error:
            if error.code == "not_found":
                return False
            raise

    def is_friend_game(self, game_id: str) -> bool:
        """Whether ``game_id`` is a game between two people (``not_found`` for an unknown id)."""
        with self.cache.locked(game_id, fresh=False) as live:
            return live.stored.opponent.get("type") == "friend"

    def is_person_seat(self, game_id: str, seat: int) -> bool:
        """Whether a person plays ``seat`` of ``game_id`` (``not_found`` for an unknown id)."""
        with self.cache.locked(game_id, fresh=False) as live:
            return live.engine_of(seat) is None

    def position(self, game_id: str, ply: int) -> PositionPayload:
        """The position after ``ply`` moves (read-only view); a ply beyond the game raises ``not_found``. The
        ``POSITIONS_KEPT`` last read are kept (a long game's past position takes milliseconds to replay and show)."""
        with self.cache.locked(game_id) as live:
            if not 0 <= ply <= live.ply:
                raise ArenaError(ErrorCode.NOT_FOUND, f"game {game_id} has plies 0 to {live.ply}, not {ply}")
            key = (game_id, live.version, ply)
            with self._positions_lock:
                payload = self._positions.get(key)
            if payload is None:
                payload = position_payload(live, ply)
                with self._positions_lock:
                    self._positions[key] = payload
            self.cache.evict_if_idle(live)
            return payload

    def search_record(self, game_id: str, ply: int) -> dict[str, Any]:
        """The search record of the engine move that made ply ``ply`` (``webapp.search.records``): the final
        ``search`` event as the room received it. ``not_found`` for an unknown game, or a ply without one (a
        person's move, a move older than records, a ply beyond the game)."""
        with self.cache.locked(game_id) as live:
            known = 1 <= ply <= live.ply
        record = self.store.search_record(game_id, ply) if known else None
        if record is None:
            raise ArenaError(ErrorCode.NOT_FOUND, f"game {game_id} has no engine search recorded for ply {ply}")
        return read_record(record)

    def score_every_move(self, game_id: str, ply: int, client: str = "") -> EveryMovePayload:
        """Every move of the engine search behind the move that made ply ``ply`` scored exactly at that search's
        depth, as background work of ``client`` (``EveryMove.request``: the answer at once if known, else
        "running" and the answer to the game's room). Errors: not_found (an unknown game, or no search recorded
        for that ply), not_allowed (a move from the book, a table or the solver, or a search that leaves no
        bounds: minimax, MCTS)."""
        with self.cache.locked(game_id) as live:
            known = 1 <= ply <= live.ply
            state = live.position_at(ply - 1) if known else None
            game = live.stored.game
        record = self.store.search_record(game_id, ply) if known else None
        if record is None or state is None:
            raise ArenaError(ErrorCode.NOT_FOUND, f"game {game_id} has no engine search recorded for ply {ply}")
        info = json.loads(record)["info"]
        if info.get("source", "search") != "search":
            raise ArenaError(ErrorCode.NOT_ALLOWED,
                f"the move of ply {ply} comes from the {info['source']}, not a search")
        try:
            options = search_options(game, info.get("engine") or {})
        except ValueError as error:
            raise ArenaError(ErrorCode.NOT_ALLOWED, str(error)) from None
        return self.every_move.request(game_id, ply, state, options, max(1, info["depth"]), client)

    def pgn(self, game_id: str) -> str:
        """A chess game's PGN, each engine move followed by its evaluation from White's side and its search depth
        (``[%eval 0.35,12]``), and in a game with a clock each move by its player's time left (``[%clk 0:02:53]``).
        ``not_found`` for an unknown game or a game without PGN (all but chess). Made once per version of the
        game."""
        with self.cache.locked(game_id) as live:
            state = live.state
            if not isinstance(state, PgnState):
                raise ArenaError(ErrorCode.NOT_FOUND,
                    f"game {game_id} is not a chess game; only chess games have a PGN")
            if live.pgn is None or live.pgn[0] != live.version:
                live.pgn = (live.version, self._pgn(live, state))
            return live.pgn[1]

    @staticmethod
    def _pgn(live: LiveGame, state: PgnState) -> str:
        """The PGN of ``live``, whose current position is ``state``. Lock held."""
        moves = live.stored.moves
        evals = {move.ply: state.eval_comment(PovScore(move.score, move.by).pov(0), move.depth)
                 for move in moves if move.score is not None}
        clocks = {move.ply: clock_comment(move.clock_ms) for move in moves if move.clock_ms is not None}
        comments = {ply: " ".join(part for part in (evals.get(ply), clocks.get(ply)) if part)
                    for ply in evals.keys() | clocks.keys()}
        return state.pgn({ply: comment for ply, comment in comments.items() if comment})

    def live_games(self) -> list[SummaryPayload]:
        """Summaries of the games being played now, most recently active first: unfinished
        games changed (a move, a seat taken...) in the last ``LIVE_RECENT_SECONDS``, or watched right now on any
        node. An abandoned game leaves the list; its link still works."""
        since = self.clock.now() - dt.timedelta(seconds=LIVE_RECENT_SECONDS)
        watched = sorted(self.presence.watched())
        summaries = []
        for game_id in self.store.live_game_ids(LIVE_LIST_SIZE, since, watched):
            with self.cache.locked(game_id) as live:
                summaries.append(self.payloads.summary(live))
        return summaries

    def broadcast_cached_games(self) -> int:
        """Send ``state`` to the room of every unfinished game held in memory, first brought up to date with the
        store; returns how many. After a message queue outage, this lets other nodes' clients catch up."""
        game_ids = self.cache.active_ids()
        for game_id in game_ids:
            with self.cache.locked(game_id) as live:
                self.outbox.emit("state", self.payloads.state(live), to=game_id)
        return len(game_ids)

    def review(self, game_id: str, client: str = "") -> ReviewStatus:
        """Start (once) the review of a finished game for ``client``'s share of the engines (``webapp.arena.reviews``);
        returns its status. Errors: not_allowed (the game is still being played)."""
        with self.cache.locked(game_id) as live:
            if live.active:
                raise ArenaError(ErrorCode.NOT_ALLOWED, "a game is reviewed once it is over")
            start, moves = live.start, [move.move for move in live.stored.moves]
        return self.reviews.start(game_id, start, moves, client)

    def analyse_position(self, game_id: str, ply: int, client: str = "") -> AnalysisPayload:
        """"What would the engine do here?" for the position after ``ply`` moves of a finished game, for
        ``client``'s share of the engines (``Reviews.analyse``). Errors: not_allowed (still being played),
        not_found (no such ply)."""
        with self.cache.locked(game_id) as live:
            if live.active:
                raise ArenaError(ErrorCode.NOT_ALLOWED, "positions of a game are analysed once it is over")
            if not 0 <= ply <= live.ply:
                raise ArenaError(ErrorCode.NOT_FOUND, f"game {game_id} has no position after {ply} moves")
            state = live.position_at(ply)
        if state.outcome() is not None:
            raise ArenaError(ErrorCode.NOT_ALLOWED, "the game is over in that position: there is nothing to play")
        return self.reviews.analyse(game_id, ply, state, client)
