"""A game held in a web node's memory (``LiveGame``): what the store holds, its start and current positions, and
what this node knows of its engine search. Everything here reads or changes that one copy; callers hold its lock.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from engine.game import State, play_moves
from webapp.errors import ArenaError, ErrorCode
from webapp.game_clocks import TIMEOUT, TIMEOUT_DRAW, Clocks, TimeControl, clocks_of
from webapp.store import StoredGame


@dataclass(slots=True)
class LiveGame:
    """A game in memory: what the store holds, the start position and the current one. Past positions are
    replayed from the start when asked for (``position_at``), so a long game costs one position, not hundreds.

    ``evicted`` is set (under ``lock``) when the game is dropped from memory; whoever then holds this object
    must load the game again (``GameCache.locked`` does).
    """

    stored: StoredGame
    start: State
    state: State
    lock: threading.RLock = field(default_factory=threading.RLock)
    job_id: int | None = None
    """The id of this node's search of the game's engine turn, while one is queued or running."""
    last_search: dict[str, Any] | None = None
    """The latest event of that search (sent to whoever joins while it runs)."""
    failed_searches: int = 0
    evicted: bool = False
    checked_at: float = 0.0
    """The arena clock's monotonic time of the last comparison with the store."""
    watched_at: float = 0.0
    """The arena clock's monotonic time when somebody last watched the game (or it was created or loaded)."""
    paused: bool = False
    """An engine-against-engine game waiting for a watcher before its next engine turn."""
    last_record: str | None = None
    """The search record (JSON text) of the game's latest engine move, when ``record_known``."""
    record_known: bool = False
    """Whether ``last_record`` is up to date with the store (else it is read from the store when needed)."""
    pgn: tuple[int, str] | None = None
    """The game's PGN as last made, with the ``version`` it was made of (``webapp.arena.reads``)."""
    client: str = ""
    """Who pays for the engine's next turn in the engine capacity's fair share (``webapp.search.fair_queue``): the
    address of the last person to move, or of the game's creator; empty for a game loaded from the store (a
    restart), whose turns then share one client's part."""

    @classmethod
    def of(cls, stored: StoredGame, start: State, watched_at: float, client: str = "") -> LiveGame:
        """The live copy of ``stored``, a game begun at ``start`` (its moves are replayed), loaded or created at
        monotonic time ``watched_at``."""
        live = cls(stored, start, start, client=client, watched_at=watched_at)
        live.state = live.position_at(len(stored.moves))
        return live

    @property
    def id(self) -> str:
        return self.stored.id

    @property
    def ply(self) -> int:
        return len(self.stored.moves)

    @property
    def version(self) -> int:
        """This copy's version, equal to the store's (``Store.version_of``) unless another node changed the game.
        Each change this node makes raises it by one, as the store does in the same write."""
        return self.stored.version

    @property
    def active(self) -> bool:
        return self.stored.status == "active"

    @property
    def between_engines(self) -> bool:
        """Whether an engine plays each seat."""
        return all(seat.engine is not None for seat in self.stored.seats)

    def pace(self, server_pace: float) -> float:
        """Seconds between two engine moves of this game: as its creator chose (``options.pace``), else
        ``server_pace`` (``ARENA_PACE``)."""
        pace: float = self.stored.options.get("pace", server_pace)
        return pace

    def position_at(self, ply: int) -> State:
        """The position after the first ``ply`` moves (replayed in time linear in ``ply``)."""
        return play_moves(self.start, [move.move for move in self.stored.moves[:ply]])

    def engine_of(self, seat: int) -> dict[str, Any] | None:
        """The engine settings of ``seat``, or None for a person's seat."""
        return self.stored.seats[seat].engine

    def engine_to_move(self) -> bool:
        """Whether the game goes on and its side to move is an engine."""
        return self.active and self.engine_of(self.state.to_move) is not None

    def check_player(self, seat: int | None) -> int:
        """``seat``, if it is a person's seat; a spectator (None) or an engine's seat raises ``forbidden``."""
        if seat is None:
            raise ArenaError(ErrorCode.FORBIDDEN, "spectators cannot act in a game; take a free seat first")
        if self.engine_of(seat) is not None:
            raise ArenaError(ErrorCode.FORBIDDEN, "that seat is played by the engine")
        return seat

    def clocks(self) -> Clocks | None:
        """The game's clocks now, or None in a game without a clock."""
        control = TimeControl.from_options(self.stored.options)
        if control is None:
            return None
        started = self.stored.turn_started_at
        fallen = self.state.to_move if self.stored.reason in (TIMEOUT, TIMEOUT_DRAW) else None
        return clocks_of(control, self.stored.moves, self.state.to_move if self.active else None,
                         None if started is None else started.timestamp(), fallen)

    def waiting_for_opponent(self) -> bool:
        """Whether a game between two people waits for its second player before any move (until the player
        present chooses to play on alone)."""
        stored = self.stored
        return (self.active and self.ply == 0 and stored.opponent.get("type") == "friend"
                and not all(seat.taken for seat in stored.seats) and not stored.options.get("alone"))

    def finish(self, winner: int | None, reason: str) -> None:
        """This copy of a game the store has just finished (``Store.finish_game``): result set, offers dropped,
        version raised."""
        self.stored.version += 1
        self.stored.status, self.stored.winner, self.stored.reason = "finished", winner, reason
        self.stored.offers = None

    def set_options(self, options: dict[str, Any]) -> None:
        """This copy of a game whose options the store has just replaced (``Store.set_options``)."""
        self.stored.options = options
        self.stored.version += 1
