"""Search algorithms: alpha-beta (the engine), plain minimax and MCTS, all yielding ``SearchInfo`` events."""
