"""Stored reviews say how their searched losses are graded and what they count (``settings.grading`` and
``settings.loss_unit``, as ``webapp.arena.reviews.settings_of`` gives them now), so the page copies neither.

Revision 0003, after 0002.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

CHESS = {"grading": "centipawn losses graded as Lichess does: inaccuracy from 50, mistake from 100, blunder from 300",
         "loss_unit": "centipawns"}
OTHERS = {"grading": "losses counted in the game's points, not graded (only chess grades them)", "loss_unit": "points"}
"""The two settings at this revision: chess's, and every other game's."""

reviews = sa.table("reviews", sa.column("game_id", sa.String), sa.column("result", sa.JSON))
games = sa.table("games", sa.column("id", sa.String), sa.column("game", sa.String))


def upgrade() -> None:
    """Add the grading and the loss unit to the settings of every done review that lacks them."""
    bind = op.get_bind()
    rows = bind.execute(sa.select(reviews.c.game_id, reviews.c.result, games.c.game)
                        .join(games, games.c.id == reviews.c.game_id)).all()
    for game_id, result, game in rows:
        settings: dict[str, Any] | None = (result or {}).get("settings")
        if settings is None or "grading" in settings:
            continue
        settings.update(CHESS if game == "chess" else OTHERS)
        bind.execute(reviews.update().where(reviews.c.game_id == game_id).values(result=result))


def downgrade() -> None:
    """Nothing to undo: earlier versions ignore the two fields."""
