"""Alpha-Beta Arena's engine: games, search and solving, in pure Python (no web imports)."""
