"""The games being played on a web node, one job per module (``assemble`` puts them together):

- ``live``: a game held in memory; ``cache``: which games are held, loaded and compared with the store;
- ``presence``: who watches which game; ``membership``: joining and leaving a game's room;
- ``payloads``: what clients are sent of a game; ``outbox``: sending it to the game's room;
- ``creation``: new games, seats and rematches; ``moves``: moves and takebacks; ``endings``: resignations,
  aborts, draws and clocks that fall; ``agreements``: offers between players, playing alone, hints;
  ``engine_games``: what the creator of an engine-against-engine game may do; ``reads``: questions about games;
- ``turns``: the engines' turns (search, relay, retry); ``hints``: each legal move's value for games with hints;
  ``upkeep``: a node's background work;
- the rules and records they lean on: ``offers`` (draw, takeback, rematch and abort rules), ``touches`` (when each
  game in memory was last used), ``downtime`` (the service's heartbeat), ``watcher_counts`` (watchers across nodes);
- the other work on the shared runner, beside the games: ``reviews`` (a finished game's review), ``every_move`` (a
  stored search's every move scored), ``lab`` (the algorithm lab), ``analysis`` (the analysis board's nodes) and
  ``steps`` (the search stepper's recordings).
"""
