"""The app's Socket.IO server, made once here and set up by ``create_app`` (``socketio.init_app``); the event
handlers of ``webapp.events`` register on it."""

from __future__ import annotations

from flask_socketio import SocketIO

socketio = SocketIO()
