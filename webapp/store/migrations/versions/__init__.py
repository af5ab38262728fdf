"""Alembic revisions of the database's schema, oldest first (``0001`` is the first)."""
