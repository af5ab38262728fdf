"""Development server: ``python -m webapp [--host HOST] [--port PORT]``."""

from __future__ import annotations

import argparse

from webapp import create_app, socketio


def main() -> None:
    """Parse the arguments and serve the app until interrupted."""
    parser = argparse.ArgumentParser(prog="python -m webapp", description="Alpha-Beta Arena development server")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=5000)
    parser.add_argument("--debug", action="store_true", help="Flask debug mode (no reloader)")
    args = parser.parse_args()
    app = create_app()
    socketio.run(app, host=args.host, port=args.port, debug=args.debug, use_reloader=False,
                 allow_unsafe_werkzeug=True)


if __name__ == "__main__":
    main()
