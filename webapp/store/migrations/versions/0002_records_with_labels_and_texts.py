"""Search records stored before the ``search`` event carried the engine's label and each root move's score text gain
them, as the room receives them now (``engine_label``; ``describe_score`` in the game's scale: 100 in chess, else
1), so that reading a record needs no compatibility code.

Revision 0002, after 0001.
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from alembic import op

from engine.game import describe_score
from webapp.display import engine_label

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

BATCH = 200
"""Records read at a time (a record is up to 64 KiB)."""
SCORE_SCALE = {"chess": 100}
"""Score units per displayed point in each game (1 where not named), as they are at this revision."""


def completed(message: dict[str, Any], scale: int) -> bool:
    """Add what ``message``'s info lacks of its engine label and its root moves' score texts; whether it changed."""
    info = message["info"]
    changed = False
    if "engine_label" not in info and isinstance(info.get("engine"), dict):
        info["engine_label"] = engine_label(info["engine"])
        changed = True
    for root_move in info.get("root_moves", []):
        if "score_text" not in root_move:
            score = root_move.get("score")
            root_move["score_text"] = None if score is None else describe_score(score, scale)
            changed = True
    return changed


def upgrade() -> None:
    """Complete every record that lacks a label or a root move's text, ``BATCH`` records at a time."""
    bind = op.get_bind()
    after = ("", -1)
    while True:
        rows = bind.execute(sa.text(
            "SELECT r.game_id, r.ply, r.record, g.game FROM search_records r JOIN games g ON g.id = r.game_id"
            " WHERE r.game_id > :game_id OR (r.game_id = :game_id AND r.ply > :ply)"
            " ORDER BY r.game_id, r.ply LIMIT :batch"),
            {"game_id": after[0], "ply": after[1], "batch": BATCH}).all()
        if not rows:
            return
        for game_id, ply, record, game in rows:
            message = json.loads(record)
            if completed(message, SCORE_SCALE.get(game, 1)):
                bind.execute(sa.text("UPDATE search_records SET record = :record"
                                     " WHERE game_id = :game_id AND ply = :ply"),
                             {"record": json.dumps(message, separators=(",", ":")), "game_id": game_id, "ply": ply})
        after = (rows[-1][0], rows[-1][1])


def downgrade() -> None:
    """Nothing to undo: the added fields are what a record of this revision holds anyway."""
