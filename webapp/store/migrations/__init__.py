"""The database's schema as Alembic revisions (``versions/``), run by ``webapp.store.migrate.migrate`` at start-up
through this folder's ``env.py``."""
