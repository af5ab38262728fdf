"""The schema of the last version made without migrations: eight tables.

Unlike the revisions after it, this one is idempotent, for the databases made before migrations (they have no
``alembic_version`` table): such a database holds some of these tables, perhaps without the columns that versions
added later (``games.version``, ``games.turn_started_at``, ``games.offers``, ``moves.depth``, ``moves.clock_ms``).
This revision creates the tables and indexes that are missing and adds the missing columns. That tolerance is the
only shim for those databases; it goes when this revision is squashed into a plain one, once no database made
before 2026-12 is in use.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

schema = sa.MetaData()
"""The tables as this revision makes them (not the models, which later revisions change)."""

sa.Table(
    "games", schema,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("game", sa.String(32), nullable=False),
    sa.Column("start_setup", sa.Text(), nullable=False),
    sa.Column("game_options", sa.JSON(), nullable=False),
    sa.Column("options", sa.JSON(), nullable=False),
    sa.Column("opponent", sa.JSON(), nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("ply", sa.Integer(), nullable=False),
    sa.Column("to_move", sa.Integer(), nullable=True),
    sa.Column("winner", sa.Integer(), nullable=True),
    sa.Column("reason", sa.String(200), nullable=True),
    sa.Column("rematch_id", sa.String(32), nullable=True),
    sa.Column("version", sa.Integer(), server_default="0", nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("turn_started_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("offers", sa.JSON(none_as_null=True), nullable=True),
    sa.Index("ix_games_status", "status"),
    sa.Index("ix_games_updated_at", "updated_at"),
)
sa.Table(
    "seats", schema,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("seat", sa.Integer(), primary_key=True),
    sa.Column("engine", sa.JSON(none_as_null=True), nullable=True),
    sa.Column("taken", sa.Boolean(), nullable=False),
)
sa.Table(
    "moves", schema,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("ply", sa.Integer(), primary_key=True),
    sa.Column("move", sa.String(32), nullable=False),
    sa.Column("by", sa.Integer(), nullable=False),
    sa.Column("score", sa.Integer(), nullable=True),
    sa.Column("score_text", sa.String(40), nullable=True),
    sa.Column("depth", sa.Integer(), nullable=True),
    sa.Column("clock_ms", sa.Integer(), nullable=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)
sa.Table(
    "search_records", schema,
    sa.Column("game_id", sa.String(32), primary_key=True),
    sa.Column("ply", sa.Integer(), primary_key=True),
    sa.Column("record", sa.Text(), nullable=False),
    sa.ForeignKeyConstraint(["game_id", "ply"], ["moves.game_id", "moves.ply"], ondelete="CASCADE"),
)
sa.Table(
    "reviews", schema,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("result", sa.JSON(none_as_null=True), nullable=True),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
)
sa.Table(
    "solved_positions", schema,
    sa.Column("game", sa.String(16), primary_key=True),
    sa.Column("position", sa.String(64), primary_key=True),
    sa.Column("moves", sa.JSON(), nullable=False),
    sa.Column("stored_at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_solved_positions_stored_at", "stored_at"),
)
sa.Table(
    "heartbeat", schema,
    sa.Column("name", sa.String(16), primary_key=True),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
)
sa.Table(
    "player_seats", schema,
    sa.Column("player_id", sa.String(32), primary_key=True),
    sa.Column("game_id", sa.String(32), primary_key=True),
    sa.Column("seat", sa.Integer(), nullable=False),
)


def upgrade() -> None:
    """Create each missing table (with its indexes); in a table that exists, add each missing column and index."""
    bind = op.get_bind()
    inspector = sa.inspect(bind)
    existing = set(inspector.get_table_names())
    for table in schema.sorted_tables:
        if table.name not in existing:
            table.create(bind)
            continue
        columns = {column["name"] for column in inspector.get_columns(table.name)}
        for column in table.columns:
            if column.name not in columns:
                given = column.server_default
                default = str(given.arg) if isinstance(given, sa.DefaultClause) else None
                op.add_column(table.name, sa.Column(column.name, column.type, nullable=column.nullable,
                                                    server_default=default))
        indexes = {index["name"] for index in inspector.get_indexes(table.name)}
        for index in table.indexes:
            if index.name not in indexes:
                index.create(bind)


def downgrade() -> None:
    """Drop every table."""
    bind = op.get_bind()
    for table in reversed(schema.sorted_tables):
        table.drop(bind, checkfirst=True)
