"""The database's schema as Alembic revisions (``versions/``), run by ``webapp.store.schema.migrate`` at start-up
through this folder's ``env.py``."""
