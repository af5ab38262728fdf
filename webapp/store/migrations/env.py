"""Alembic's environment: runs the revisions of ``versions/`` on the connection that ``webapp.store.migrate.migrate``
passes (``config.attributes["connection"]``, in its transaction), or, from the ``alembic`` command line
(``[tool.alembic]`` in pyproject.toml: ``DATABASE_URL=... alembic revision --autogenerate -m "..."``), on the
database at ``DATABASE_URL``. ``target_metadata`` is the models' (``webapp.store.tables``), for autogenerate."""

from __future__ import annotations

import os

from alembic import context
from sqlalchemy import Connection, create_engine

from webapp.store.tables import Base, database_url


def run_migrations(connection: Connection) -> None:
    """Run the revisions up to the one the command asks for, on ``connection``."""
    context.configure(connection=connection, target_metadata=Base.metadata,
                      render_as_batch=connection.dialect.name == "sqlite")
    with context.begin_transaction():
        context.run_migrations()


given = context.config.attributes.get("connection")
if given is not None:
    run_migrations(given)
else:
    url = os.environ.get("DATABASE_URL")
    if not url:
        raise SystemExit("set DATABASE_URL to the database to migrate (a SQLite URL is enough for autogenerate)")
    with create_engine(database_url(url)).begin() as connection:
        run_migrations(connection)
