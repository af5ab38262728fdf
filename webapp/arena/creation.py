"""New games: created from a request, their second seat taken by the invited friend, and rematches (the same
settings, the seats swapped)."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from engine.game import GameError, State
from engine.games import game_class, new_game
from webapp.arena.cache import GameCache
from webapp.arena.hints import Hints
from webapp.arena.live import LiveGame
from webapp.arena.outbox import Outbox
from webapp.arena.presence import Rooms
from webapp.arena.turn_flow import TurnFlow
from webapp.clock import Clock
from webapp.errors import ArenaError, ErrorCode
from webapp.seats import is_invite, issue_token
from webapp.store import Store, StoredGame, StoredSeat
from webapp.validation import NewGameRequest

NOT_CARRIED = ("alone", "hints_asked_by")
"""Options of a game its rematch does not take over: who plays on alone, a pending ask for hints."""


class Creation:
    """Creates this node's games. Seat tokens are signed with ``secret``."""

    def __init__(self, store: Store, cache: GameCache, flow: TurnFlow, hints: Hints, outbox: Outbox,
                 rooms: Rooms, secret: str, clock: Clock) -> None:
        self.store = store
        self.cache = cache
        self.flow = flow
        self.hints = hints
        self.outbox = outbox
        self.rooms = rooms
        self.secret = secret
        self.clock = clock

    def create(self, request: NewGameRequest, client: str = "",
               holder: Callable[[], str] | None = None) -> tuple[str, int | None, str | None]:
        """Create a game as the request says for ``client`` (an address: its engine turns count against that
        client's share of the engines); returns ``(id, creator's seat, token)`` (None, None for engines). When the
        creator takes a seat, ``holder()`` names the browser that holds it, recorded with the game in one
        transaction."""
        try:
            cls = game_class(request.game)
            if request.setup is not None and request.game_options:
                raise ArenaError(ErrorCode.BAD_GAME, "give either a setup or game options, not both")
            state = new_game(request.game, request.setup, **request.game_options)
        except GameError as error:
            raise ArenaError(ErrorCode.BAD_GAME, str(error)) from None
        except TypeError as error:
            raise ArenaError(ErrorCode.BAD_GAME, f"bad options for {request.game}: {error}") from None
        if state.outcome() is not None:
            raise ArenaError(ErrorCode.BAD_GAME, "that position is already finished")
        side = request.side
        if side == "random":
            side = secrets.randbelow(2)
        engines = request.engines if side != 1 else (request.engines[1], request.engines[0])
        options: dict[str, Any] = {"takeback": request.takeback, "hints": request.hints}
        if request.clock is not None:
            options["clock"] = request.clock.to_option()
        creator = side if isinstance(side, int) else None
        return self._insert(cls.name, state, request.game_options, options, request.opponent, engines, creator,
                            client, holder)

    def take_seat(self, game_id: str, invite: object = None) -> tuple[int, str]:
        """Take the first free human seat of the game with the invitation code of its share link (none needed when
        the game is open to anyone); returns ``(seat, token)``. Errors: no_free_seat, bad_invite."""
        with self.cache.locked(game_id) as live:
            for seat in live.stored.seats:
                if seat.engine is not None or seat.taken:
                    continue
                if not live.stored.opponent.get("open") and not is_invite(self.secret, game_id, invite):
                    raise ArenaError(ErrorCode.BAD_INVITE,
                        "this seat is kept for the invited player: open the invitation "
                        "link the game's creator shared")
                won = self.store.take_seat(game_id, seat.seat)
                seat.taken = True  # by this request, or by another node's a moment ago
                if won:
                    live.stored.version += 1
                    self.outbox.state(live)
                    return seat.seat, issue_token(self.secret, game_id, seat.seat)
        raise ArenaError(ErrorCode.NO_FREE_SEAT, "both seats of this game are taken; you can watch it")

    def make_rematch(self, live: LiveGame, client: str) -> str:
        """Make the rematch (once) and send ``rematch`` to the room: to this node's members with each player's
        token for players, and when the rematch is new, to members on other nodes (message queue) without tokens,
        with the old game's ``state``. A human seat of the rematch is taken only if its player held the old seat;
        a seat nobody took stays free. Its engine turns count against ``client``'s share. Returns its id. Lock
        held."""
        stored, game_id = live.stored, live.id
        created = stored.rematch_id is None
        if created:
            self._insert_rematch(live, client)
        new_id = stored.rematch_id
        assert new_id is not None
        link: dict[str, Any] = {"game_id": game_id, "new_id": new_id, "url": f"/g/{new_id}"}
        members = self.rooms.members(game_id)
        for sid, member_seat in members.items():
            payload = dict(link)
            if member_seat is not None and stored.seats[member_seat].engine is None:
                payload |= {"seat": 1 - member_seat, "token": issue_token(self.secret, new_id, 1 - member_seat)}
            self.outbox.emit("rematch", payload, to=sid)
        if created:
            # Watchers connected to other nodes get the link; a player among them asks its own node for the
            # rematch, which answers it with its seat's token as above.
            self.outbox.emit("rematch", link, to=game_id, skip_sid=list(members))
            # The state says it too (with its new version): a client that missed the link still learns it.
            self.outbox.emit("state", self.outbox.payloads.state(live), to=game_id)
        return new_id

    def _insert_rematch(self, live: LiveGame, client: str) -> None:
        """Create the rematch of ``live`` and take the seats of the players who held theirs. Lock held."""
        stored = live.stored
        start = game_class(stored.game).from_setup(stored.start_setup)
        engines = (stored.seats[1].engine, stored.seats[0].engine)
        options = {key: value for key, value in stored.options.items() if key not in NOT_CARRIED}
        new_id, _, _ = self._insert(stored.game, start, stored.game_options, options, stored.opponent, engines,
                                    None, client)
        self.store.set_rematch(live.id, new_id)
        stored.rematch_id = new_id
        stored.version += 1
        stored.offers = None
        with self.cache.locked(new_id) as new_live:
            for old_seat in (0, 1):
                held = stored.seats[old_seat].engine is None and stored.seats[old_seat].taken
                if held and self.store.take_seat(new_id, 1 - old_seat):
                    new_live.stored.seats[1 - old_seat].taken = True
                    new_live.stored.version += 1

    def _insert(self, game: str, state: State, game_options: dict[str, Any], options: dict[str, Any],
                opponent: dict[str, Any], engines: tuple[dict[str, Any] | None, ...],
                creator: int | None, client: str,
                holder: Callable[[], str] | None = None) -> tuple[str, int | None, str | None]:
        now = self.clock.now()
        game_id = secrets.token_urlsafe(6)
        seats = [StoredSeat(i, engines[i], engines[i] is None and i == creator) for i in (0, 1)]
        stored = StoredGame(id=game_id, game=game, start_setup=state.setup(), game_options=game_options,
                            options=options, opponent=opponent, status="active", winner=None, reason=None,
                            rematch_id=None, created_at=now, updated_at=now, seats=seats)
        held = (holder(), creator) if holder is not None and creator is not None else None
        self.store.create_game(stored, state.to_move, held)
        live = LiveGame(stored, state, state, client=client, watched_at=self.clock.monotonic())
        self.cache.add(live)
        with live.lock:
            self.flow.start_engine_turn(live)
            self.hints.follow(live)
        if creator is None:
            return game_id, None, None
        return game_id, creator, issue_token(self.secret, game_id, creator)
