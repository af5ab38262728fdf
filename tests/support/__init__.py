"""The test kit, shared by the tests and by bench/: ``waiting`` (``eventually``), ``clocks`` (a manual and a ticking
clock), ``fakes`` (``HandRunner``, ``HandArena``, ``ThreadRunner``), ``servers`` (live gunicorn nodes on free ports,
Socket.IO clients, raw WebSocket frames), ``services`` (nginx, redis-server), ``postgres_server``, ``helpers`` (games
through Flask's test clients), ``inbox`` (a test client's events in order), ``pages`` (the browser tests' pages),
``long_games``, ``shifted_app`` (a node whose Unix time the test moves) and ``fuzz_strategies`` (Hypothesis
strategies for the fuzz tests)."""
