"""Alpha-Beta Arena's web app. Serve it with ``gunicorn -w 1 -b HOST:PORT "webapp:create_app()"``.

This package's own module stays light on purpose: the engine's worker processes (started with "spawn", and
``python -m webapp.search.worker``) import ``webapp.search`` and must not load Flask, the pages and the store with
it (about 30 MiB and half a second more per process). So ``create_app`` loads ``webapp.app`` when it is called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flask import Flask

    from webapp.clock import Clock
    from webapp.search.jobs import Runner


def create_app(test_config: dict[str, Any] | None = None, clock: Clock | None = None,
               runner: Runner | None = None) -> Flask:
    """The Flask app, configured from the environment and ``test_config``, reading the time from ``clock`` (the
    system's by default), its searches run by ``runner`` (the node's own by default): ``webapp.app.create_app``."""
    from webapp.app import create_app as build  # loaded only where the app is served (see the module docstring)

    if clock is None:
        return build(test_config, runner=runner)
    return build(test_config, clock, runner)
