"""Benchmarks and matches, each run from the repository's root as a module (``python -m bench.<name>``), so that
the engine imported is the one beside it (a worktree's, for an A/B match) and the test kit is ``tests.support``."""
