"""The app's Socket.IO server, made once here and set up by ``create_app`` (``socketio.init_app``); the event
handlers of ``webapp.views.events`` register on it."""

from __future__ import annotations

import sys
from typing import Literal

from flask_socketio import SocketIO

socketio = SocketIO()


def async_mode() -> Literal["gevent", "threading"]:
    """Flask-SocketIO's mode for this process: ``"gevent"`` where gevent has patched the standard library (under
    gunicorn's gevent worker, gunicorn.conf.py: every connection is a greenlet of one event loop, and so is every
    thread the app starts), ``"threading"`` anywhere else (the tests' Flask clients, a development server)."""
    monkey = sys.modules.get("gevent.monkey")
    return "gevent" if monkey is not None and monkey.is_module_patched("socket") else "threading"
