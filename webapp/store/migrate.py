"""The database's schema kept up to date with Alembic: at start-up ``migrate`` runs every revision of
``migrations/versions`` the database lacks (an empty one gets them all). To change the schema, change the models
(``webapp.store.tables``), then write a revision: ``DATABASE_URL=sqlite:///scratch.sqlite3 alembic upgrade head``
and ``... alembic revision --autogenerate -m "what changes"`` from the repository (``[tool.alembic]`` in
pyproject.toml), and read what it wrote; ``tests/test_migrations.py`` checks that the revisions build the models'
schema."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, text

MIGRATIONS = Path(__file__).resolve().with_name("migrations")
_SCHEMA_LOCK = 0x4172656E61
"""PostgreSQL advisory lock key held while the schema is migrated (nodes starting together take turns)."""


def alembic_config(connection: Connection) -> Config:
    """Alembic's configuration for running this package's revisions on ``connection``."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def migrate(engine: Engine) -> None:
    """Bring ``engine``'s database to the newest revision, in one transaction that processes starting at once take
    in turns: on PostgreSQL under an advisory lock, on SQLite holding the file's write lock from the start."""
    with engine.begin() as connection:
        if engine.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _SCHEMA_LOCK})
        elif engine.dialect.name == "sqlite":
            # The driver would begin only before the first row is written; this transaction begins with the lock.
            connection.exec_driver_sql("BEGIN IMMEDIATE")
        command.upgrade(alembic_config(connection), "head")


def revision_of(connection: Connection) -> str | None:
    """The revision the database is at (None before any)."""
    return MigrationContext.configure(connection).get_current_revision()


def newest_revision() -> str | None:
    """The newest revision of ``migrations/versions``."""
    return ScriptDirectory(str(MIGRATIONS)).get_current_head()
