"""Engine searches for the web app, one job per module:

- ``jobs``: the job type, the ``Runner`` protocol, and ``run_job`` (what a worker does with a job);
- ``fair_queue``: which waiting search runs next;
- ``pool``: a ``Runner`` on this node's own worker processes (the default);
- ``queue_runner``: a ``Runner`` on the workers of an RQ queue (``ARENA_SEARCH_QUEUE``), the node's side;
- ``worker``: the workers' side of that queue and its command line (``python -m webapp.search.worker``);
- ``wire``: the names and timings both sides of the queue use;
- ``leases``: which node searches which engine turn when several share a store;
- ``records``: the search record kept with an engine move, cut to fit where the search ran.
"""
