"""Stored reviews take the grading of ``engine.review`` at this revision: a chess move's loss is the fall of its
mover's win chance (Lichess's curve, no cap, a forced result at 100 or 0 %), graded from 5, 10 and 15 points; every
verdict carries ``win_before`` and ``win_after`` (None outside chess); each seat's figures are worked out from the
verdicts when read, so the stored ``averages`` go and the result names its ``game``. Both directions are worked
out from each verdict's two scores, which every stored verdict keeps, so nothing is searched again.

Revision 0004, after 0003.
"""

from __future__ import annotations

import math
from typing import Any

import sqlalchemy as sa
from alembic import op

from engine.game import is_decided

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

SLOPE = 0.00368208
"""Lichess's curve of win chances, as at this revision."""
GRADES = ((15.0, "blunder"), (10.0, "mistake"), (5.0, "inaccuracy"))
CENTIPAWN_GRADES = ((300, "blunder"), (100, "mistake"), (50, "inaccuracy"))
"""The chess grades at this revision, and at revision 0003 (centipawn losses, decided scores at ``CAP``)."""
CAP = 1000
GRADED = {"good", "inaccuracy", "mistake", "blunder"}
"""The verdicts a searched chess move's loss decides (``best`` is the search's own choice, whatever its loss)."""
CHESS = {"grading": "falls of win chance graded as Lichess does: inaccuracy from 5, mistake from 10, blunder from 15 "
                    "points", "loss_unit": "win-chance points"}
CHESS_BEFORE = {"grading": "centipawn losses graded as Lichess does: inaccuracy from 50, mistake from 100, blunder "
                           "from 300", "loss_unit": "centipawns"}

reviews = sa.table("reviews", sa.column("game_id", sa.String), sa.column("result", sa.JSON))
games = sa.table("games", sa.column("id", sa.String), sa.column("game", sa.String))


def win_chance(score: int) -> float:
    """The mover's win chance in percent, one decimal (``engine.review.win_chance`` at this revision)."""
    if is_decided(score):
        return 100.0 if score > 0 else 0.0
    exponent = SLOPE * score
    chance = 100.0 / (1.0 + math.exp(-exponent)) if exponent >= 0 else 100.0 * math.exp(exponent) / (
        1.0 + math.exp(exponent))
    return round(chance, 1)


def _capped(score: int) -> int:
    if is_decided(score):
        return CAP if score > 0 else -CAP
    return max(-CAP, min(CAP, score))


def on_win_chances(verdict: dict[str, Any], chess: bool) -> None:
    """A stored verdict as this revision makes it (in place)."""
    before, after = verdict.get("before_score"), verdict.get("after_score")
    known = chess and before is not None and after is not None
    verdict["win_before"] = win_chance(before) if chess and before is not None else None
    verdict["win_after"] = win_chance(after) if chess and after is not None else None
    if not known or verdict["exact"] or verdict["verdict"] not in GRADED:
        return
    loss = round(max(0.0, verdict["win_before"] - verdict["win_after"]), 1)
    verdict["loss"] = loss
    verdict["verdict"] = next((grade for limit, grade in GRADES if loss >= limit), "good")
    if verdict["verdict"] == "good":
        verdict["best"] = verdict["best_shown"] = None


def on_centipawns(verdict: dict[str, Any], chess: bool) -> None:
    """A stored verdict as revision 0003 had it (in place); the better move of a move regraded as an error is
    not known there, so it stays None."""
    verdict.pop("win_before", None)
    verdict.pop("win_after", None)
    before, after = verdict.get("before_score"), verdict.get("after_score")
    if not chess or before is None or after is None or verdict["exact"] or verdict["verdict"] not in GRADED:
        return
    loss = max(0, _capped(before) - _capped(after))
    verdict["loss"] = loss
    verdict["verdict"] = next((grade for limit, grade in CENTIPAWN_GRADES if loss >= limit), "good")


def _rewrite(upgrading: bool) -> None:
    bind = op.get_bind()
    rows = bind.execute(sa.select(reviews.c.game_id, reviews.c.result, games.c.game)
                        .join(games, games.c.id == reviews.c.game_id)).all()
    for game_id, result, game in rows:
        if not result or "verdicts" not in result:
            continue
        chess = game == "chess"
        for verdict in result["verdicts"]:
            (on_win_chances if upgrading else on_centipawns)(verdict, chess)
        if upgrading:
            result.pop("averages", None)
            result["game"] = game
        else:
            result["averages"] = [_average(result["verdicts"], seat) for seat in (0, 1)]
            result.pop("game", None)
        if chess and "settings" in result:
            result["settings"].update(CHESS if upgrading else CHESS_BEFORE)
        bind.execute(reviews.update().where(reviews.c.game_id == game_id).values(result=result))


def _average(verdicts: list[dict[str, Any]], seat: int) -> float | None:
    losses = [verdict["loss"] for verdict in verdicts if verdict["by"] == seat and verdict["loss"] is not None]
    return sum(losses) / len(losses) if losses else None


def upgrade() -> None:
    """Regrade every stored chess review on win chances; give every verdict its win chances; name the game; drop
    the averages."""
    _rewrite(upgrading=True)


def downgrade() -> None:
    """Regrade stored chess reviews on centipawns and put back each seat's average loss."""
    _rewrite(upgrading=False)
