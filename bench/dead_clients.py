"""How long clients that stop answering stay on a node: ``--silent`` WebSocket watchers of a long chess game go
silent together (they read nothing, so they answer no ping, and the game's state waits unsent in the node), then a
probe that reads but answers no ping joins a small game, and another that stops reading joins the long one.

    .venv/bin/python -m bench.dead_clients [--silent 20] [--limit 300]

Engine.IO pings every 25 s and gives 20 s for the answer, so a dead client should be gone within about 45 s (and
the time the node takes to notice). Printed: every change of the two games' watcher counts, seconds after the probes
joined, until both are 0 or ``--limit`` seconds have passed.
"""

from __future__ import annotations

import argparse
import json
import socket
import tempfile
import threading
import time
from pathlib import Path

import requests

from tests.support.long_games import long_game
from tests.support.servers import GENEROUS_CONNECTIONS, WEBSOCKET_UPGRADE, LiveServer, masked_frame


def raw_websocket(port: int, receive_buffer: int | None = None) -> socket.socket:
    """A WebSocket to the node's Engine.IO endpoint, in the Socket.IO namespace; ``receive_buffer``: its
    system's receive buffer, in bytes."""
    sock = socket.socket()
    if receive_buffer:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.connect(("127.0.0.1", port))
    sock.sendall(WEBSOCKET_UPGRADE.format(host=f"127.0.0.1:{port}").encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += sock.recv(1)
    sock.sendall(masked_frame(0x1, b"40"))
    return sock


def join(sock: socket.socket, game_id: str) -> None:
    sock.sendall(masked_frame(0x1, ("42" + json.dumps(["join", {"game_id": game_id}])).encode()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--silent", type=int, default=20, help="watchers of the long game that go silent first")
    parser.add_argument("--limit", type=float, default=300, help="seconds to watch at most")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        server = LiveServer(Path(folder) / "node", env=GENEROUS_CONNECTIONS).start()
        held: list[socket.socket] = []
        try:
            setup = "startpos moves " + " ".join(long_game(2000, 1))
            long_id = server.post("/api/games", {"game": "chess", "setup": setup,
                                                 "opponent": {"type": "friend"}}).json()["id"]
            small_id = server.post("/api/games", {"game": "tictactoe", "opponent": {"type": "friend"}}).json()["id"]
            for _ in range(args.silent):
                sock = raw_websocket(server.port, 4096)
                for _ in range(6):
                    join(sock, long_id)  # state after state, none read
                held.append(sock)

            def watchers(game_id: str) -> int:
                return int(requests.get(f"{server.url}/api/games/{game_id}", timeout=10).json()["watchers"])

            while watchers(long_id) < args.silent:  # every crowd member has joined
                time.sleep(0.1)
            silent = raw_websocket(server.port, 4096)
            join(silent, long_id)
            reader = raw_websocket(server.port)
            join(reader, small_id)
            held += [silent, reader]
            started = time.monotonic()

            def read_and_never_pong() -> None:
                try:
                    while reader.recv(65536):
                        pass
                except OSError:
                    pass
                print(f"{time.monotonic() - started:5.0f} s: the probe that reads was closed by the node", flush=True)

            threading.Thread(target=read_and_never_pong, daemon=True).start()
            last = None
            while time.monotonic() - started < args.limit:
                counts = (watchers(long_id), watchers(small_id))
                if counts != last:
                    print(f"{time.monotonic() - started:5.0f} s: watchers of the long game {counts[0]}, "
                          f"of the small one {counts[1]}", flush=True)
                    last = counts
                if counts == (0, 0):
                    break
                time.sleep(1)
        finally:
            for sock in held:
                sock.close()
            server.stop()


if __name__ == "__main__":
    main()
