"""What players of a game between two people may offer each other, and what each answer does, as pure rules over
a game's facts. ``webapp.arena.agreements`` applies them under the game's lock and stores the pending offers with
the game (``games.offers``: the seat that made each pending offer, or none), so every node shows the same.

- ``draw``: while the game is on; accepted, the game ends drawn ("agreed draw"). The offerer's opponent moving
  instead declines it (as on Lichess).
- ``takeback``: while the game is on, by a player who has a move to take back; accepted (still while the game is
  on: a game's end is final), the moves back to the asker's last turn are undone. Any move withdraws it.
- ``rematch``: once the game is over; accepted, the rematch is made (``Agreements.rematch``) and both move to it.

An offer is answered by the other player (``accept`` or ``decline``); offering what the other player already
offered accepts it. Abort (``may_abort``) needs no answer: either player may abort while neither side has moved
twice, when no clock has started yet.
"""

from __future__ import annotations

from typing import Any

from webapp.errors import ArenaError, ErrorCode

KINDS = ("draw", "takeback", "rematch")
ABORT_BEFORE_PLY = 3
"""A game may be aborted while it has fewer moves than this: neither side has moved twice."""
AGREED_DRAW = "agreed draw"
ABORTED = "aborted"


def pending(offers: dict[str, Any] | None) -> dict[str, int | None]:
    """Every kind's pending offer (the seat that made it, or None)."""
    return {kind: (offers or {}).get(kind) for kind in KINDS}


def check_kind(kind: object) -> str:
    """``kind`` if it is an offer kind, else ``bad_request``."""
    if kind not in KINDS:
        raise ArenaError(ErrorCode.BAD_REQUEST, f"kind must be one of {', '.join(KINDS)}")
    return str(kind)


def check_offer(kind: str, active: bool, has_own_move: bool) -> None:
    """Whether a player may offer ``kind`` now; ``not_allowed`` with the reason otherwise (``game_over`` for a
    takeback once the game is over)."""
    if kind == "draw" and not active:
        raise ArenaError(ErrorCode.NOT_ALLOWED, "a draw is offered while the game is on")
    if kind == "rematch" and active:
        raise ArenaError(ErrorCode.NOT_ALLOWED, "a rematch is offered once the game is over")
    if kind == "takeback":
        if not active:
            raise ArenaError(ErrorCode.GAME_OVER, "the game is over: its end is final and cannot be taken back")
        if not has_own_move:
            raise ArenaError(ErrorCode.NOT_ALLOWED, "you have no move to take back")


def after_move(offers: dict[str, Any] | None, mover: int) -> dict[str, int | None]:
    """The offers left once ``mover`` has moved: the opponent's draw offer is declined by the move, every takeback
    request is withdrawn (the position changed)."""
    left = pending(offers)
    if left["draw"] is not None and left["draw"] != mover:
        left["draw"] = None
    left["takeback"] = None
    return left


def may_abort(ply: int) -> bool:
    """Whether a game with ``ply`` moves may still be aborted."""
    return ply < ABORT_BEFORE_PLY
