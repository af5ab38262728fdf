"""What the two players of a game agree on: draw offers, takeback requests and rematches between two people
(``webapp.arena.offers`` holds the rules), playing on alone while the friend has not come, and hints (on for both once
both asked)."""

from __future__ import annotations

from webapp.arena.cache import GameCache
from webapp.arena.creation import Creation
from webapp.arena.endings import Endings
from webapp.arena.hints import Hints
from webapp.arena.live import LiveGame
from webapp.arena.moves import Moves
from webapp.arena.offers import AGREED_DRAW, check_kind, check_offer, pending
from webapp.arena.outbox import Outbox
from webapp.arena.payloads import StatePayload
from webapp.errors import ArenaError, ErrorCode
from webapp.seats import issue_token
from webapp.store import Store


class Agreements:
    """Offers, rematches, playing alone and hints of this node's games. Seat tokens are signed with ``secret``."""

    def __init__(self, store: Store, cache: GameCache, moves: Moves, endings: Endings, creation: Creation,
                 hints: Hints, outbox: Outbox, secret: str) -> None:
        self.store = store
        self.cache = cache
        self.moves = moves
        self.endings = endings
        self.creation = creation
        self.hints = hints
        self.outbox = outbox
        self.secret = secret

    def offer(self, game_id: str, seat: int | None, kind: object, client: str = "") -> StatePayload:
        """``seat`` offers ``kind`` ("draw", "takeback", "rematch"; ``webapp.arena.offers``) to the other player of a
        game between two people, or accepts it when the other player offered it already; returns the new state (the
        rematch's creation also sends ``rematch``). Errors: bad_request, forbidden, not_allowed, game_over."""
        kind = check_kind(kind)
        with self.cache.locked(game_id) as live:
            seat = live.check_player(seat)
            if any(other.engine is not None or not other.taken for other in live.stored.seats):
                raise ArenaError(ErrorCode.NOT_ALLOWED,
                    "offers are made between two players; against the engine, take back "
                    "or resign")
            offers = pending(live.stored.offers)
            if offers[kind] == 1 - seat:
                return self._accept(live, seat, kind, client)
            check_offer(kind, live.active, any(move.by == seat for move in live.stored.moves))
            if kind == "rematch" and live.stored.rematch_id is not None:
                raise ArenaError(ErrorCode.NOT_ALLOWED, "the rematch exists already")
            return self._set_offers(live, seat, offers | {kind: seat})

    def decline(self, game_id: str, seat: int | None, kind: object) -> StatePayload:
        """``seat`` declines the other player's pending offer of ``kind`` (or withdraws its own); returns the new
        state. Errors: bad_request, forbidden, not_allowed (nothing pending)."""
        kind = check_kind(kind)
        with self.cache.locked(game_id) as live:
            seat = live.check_player(seat)
            offers = pending(live.stored.offers)
            if offers[kind] is None:
                raise ArenaError(ErrorCode.NOT_ALLOWED, f"there is no {kind} offer to decline")
            return self._set_offers(live, seat, offers | {kind: None})

    def rematch(self, game_id: str, seat: int | None, client: str = "") -> tuple[str, int, str] | None:
        """A new game with the same settings and the seats swapped (made once per game, once it is over); returns
        the caller's ``(new id, seat, token)``. Between two players who both held their seats it is made only when
        both want it: the first call offers it (returns None, the room gets ``state``), the other player's call
        makes it (``Creation.make_rematch`` says what the room gets). Errors: forbidden, not_allowed (the game is
        still being played)."""
        with self.cache.locked(game_id) as live:
            seat = live.check_player(seat)
            stored = live.stored
            if live.active:
                raise ArenaError(ErrorCode.NOT_ALLOWED, "a rematch can only start once this game is over")
            two_players = all(other.engine is None and other.taken for other in stored.seats)
            offered_by = pending(stored.offers)["rematch"]
            if two_players and stored.rematch_id is None and offered_by != 1 - seat:
                if offered_by != seat:
                    self._set_offers(live, seat, pending(stored.offers) | {"rematch": seat})
                return None
            new_id = self.creation.make_rematch(live, client)
            return new_id, 1 - seat, issue_token(self.secret, new_id, 1 - seat)

    def play_alone(self, game_id: str, seat: int | None) -> StatePayload:
        """The player of a friend game still waiting for the friend chooses to play on alone (the free seat stays
        open to the invited friend); returns the new state. Errors: forbidden, game_over, not_allowed."""
        with self.cache.locked(game_id) as live:
            seat = live.check_player(seat)
            if not live.active:
                raise ArenaError(ErrorCode.GAME_OVER, "the game is over")
            if not live.waiting_for_opponent():
                raise ArenaError(ErrorCode.NOT_ALLOWED, "this game is not waiting for a second player")
            options = {**live.stored.options, "alone": True}
            self.store.set_options(game_id, options)
            live.set_options(options)
            return self.outbox.state(live, seat)

    def set_hints(self, game_id: str, seat: int | None, on: bool, client: str = "") -> StatePayload:
        """Turn the game's hints on or off for ``seat``'s player; returns the new state. Against the engine the
        player decides alone; between two people, hints come on once both have asked (the first ask is kept in
        ``options.hints_asked_by`` and shown to both), and either may turn them off. Errors: forbidden
        (spectators), game_over."""
        with self.cache.locked(game_id) as live:
            seat = live.check_player(seat)
            if not live.active:
                raise ArenaError(ErrorCode.GAME_OVER, "the game is over")
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
                return self.outbox.payloads.state(live, seat, include_you=True)
            self.store.set_options(game_id, options)
            live.set_options(options)
            live.client = client
            self.hints.follow(live)
            return self.outbox.state(live, seat)

    def _set_offers(self, live: LiveGame, seat: int, offers: dict[str, int | None]) -> StatePayload:
        self.store.set_offers(live.id, offers)
        live.stored.offers = offers
        live.stored.version += 1
        return self.outbox.state(live, seat)

    def _accept(self, live: LiveGame, seat: int, kind: str, client: str) -> StatePayload:
        """``seat`` accepts the other player's ``kind`` offer: the draw ends the game, the takeback undoes the
        moves back to the asker's turn, the rematch is made. Lock held."""
        if kind == "draw":
            if not live.active:
                raise ArenaError(ErrorCode.GAME_OVER, "the game is over")
            return self.endings.finish(live, None, AGREED_DRAW, seat)
        if kind == "takeback":
            return self.moves.take_back(live, 1 - seat, seat)
        self.creation.make_rematch(live, client)
        return self.outbox.payloads.state(live, seat, include_you=True)
