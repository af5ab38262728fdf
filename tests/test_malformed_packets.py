"""Socket.IO packets that cannot be decoded, sent over a raw WebSocket to a real gunicorn: each gets a short
``error`` and one log line, the connection goes on working, and the tenth closes it."""

from __future__ import annotations

import json

import pytest
import websocket
from support.servers import LiveServer
from support.waiting import eventually

from webapp.views.events import UNREADABLE_LIMIT

pytestmark = pytest.mark.servers

DEEP = "[" * 3000 + "]" * 3000
PACKETS = {
    "deep": '42["move",' + DEEP + "]",
    "digits": '42["move",{"game_id":"abc","move":' + "7" * 5000 + "}]",
    "not json": '42["move",{"game_id":',
}


class RawSocket:
    """A Socket.IO client speaking Engine.IO 4 frames by hand, connected to the default namespace."""

    def __init__(self, port: int) -> None:
        self.ws = websocket.create_connection(f"ws://127.0.0.1:{port}/socket.io/?EIO=4&transport=websocket",
                                              timeout=10)
        assert self.ws.recv().startswith("0")
        self.ws.send("40")
        assert self.next_frame().startswith("40")

    def next_frame(self) -> str:
        """The next frame that is not a ping (pings are answered)."""
        while True:
            frame = self.ws.recv()
            if frame != "2":
                return frame
            self.ws.send("3")

    def next_event(self) -> tuple[str, object]:
        frame = self.next_frame()
        assert frame.startswith("42"), frame
        name, payload = json.loads(frame[2:])
        return name, payload


def game_id(server: LiveServer) -> str:
    created = server.post("/api/games", {"game": "tictactoe", "opponent": {"type": "friend"}, "side": 0})
    return created.json()["id"]


@pytest.mark.parametrize("kind", list(PACKETS))
def test_an_unreadable_packet_gets_a_short_error_and_one_log_line(module_server, kind):
    client = RawSocket(module_server.port)
    log_before = module_server.log.read_text()
    client.ws.send(PACKETS[kind])
    name, error = client.next_event()
    assert name == "error" and error["code"] == "bad_request" and error["event"] == "move", error
    assert len(error["message"]) < 200
    the_game = game_id(module_server)
    client.ws.send(json.dumps(["join", {"game_id": the_game}]).join(["42", ""]))
    name, state = client.next_event()
    assert name == "state" and state["id"] == the_game
    eventually(lambda: "unreadable" in module_server.log.read_text()[len(log_before):], "the log line")
    new_lines = module_server.log.read_text()[len(log_before):].splitlines()
    assert "Traceback" not in "\n".join(new_lines)
    assert len([line for line in new_lines if "unreadable" in line]) == 1, new_lines


def test_a_flood_of_unreadable_packets_is_cut_off(module_server):
    client = RawSocket(module_server.port)
    for _ in range(300):
        try:
            client.ws.send(PACKETS["deep"])
        except (websocket.WebSocketConnectionClosedException, BrokenPipeError, ConnectionResetError):
            break  # the server closed it; what it sent before is still to be read
    errors = []

    def closed() -> bool:
        """Read one frame: whether it ends the connection (Engine.IO's close, "1": the transport itself ends, not only
        the Socket.IO namespace, "41"), keeping the errors before it."""
        try:
            frame = client.next_frame()
        except (websocket.WebSocketConnectionClosedException, ConnectionResetError):
            return True
        if frame.startswith("42"):
            errors.append(json.loads(frame[2:])[1])
        return frame == "1"

    eventually(closed, "the flooded connection's end", timeout=10, interval=0)
    # Nine errors, then the closing one.
    assert len(errors) == UNREADABLE_LIMIT, errors
    assert all((error["code"], error["event"]) == ("bad_request", "move") for error in errors), errors
    assert errors[-1]["message"] == "too many unreadable packets; this connection is closed"


def test_a_flood_of_binary_frames_closes_the_transport(module_server):
    """After the refusals a flood earns, the server ends the connection itself: a client that reads nothing (so it
    neither sees the Socket.IO disconnect nor answers the WebSocket closing handshake) and goes on sending
    1,000-byte frames finds the connection gone instead of costing a read and a refusal per frame."""
    client = RawSocket(module_server.port)
    client.ws.send('45999999999-["join",{"_placeholder":true,"num":0}]')

    def send_a_frame() -> bool:
        client.ws.send_binary(bytes(1_000))
        return False  # only the connection's end stops the flood

    with pytest.raises((websocket.WebSocketConnectionClosedException, BrokenPipeError, ConnectionResetError)):
        eventually(send_a_frame, "the flooded connection's end", timeout=20, interval=0)


@pytest.mark.parametrize(("frame", "event", "reason"), [
    ('45999999999-["join",{"_placeholder":true,"num":0}]', "join", "binary packets are not accepted"),
    ("49", None, "packet type 9 is not one a client sends"),
    ("44", None, "packet type 4 is not one a client sends"),
    ("4", None, "the packet is empty"),
    ("", None, "the packet is empty"),
    ("42", None, "an event is a JSON array that starts with the event's name"),
    ("42[]", None, "an event is a JSON array that starts with the event's name"),
    ("42null", None, "an event is a JSON array that starts with the event's name"),
    ('42[5,{"game_id":"x"}]', None, "an event is a JSON array that starts with the event's name"),
    ("43", None, "an acknowledgement is a JSON array"),
])
def test_packets_a_client_does_not_send_get_a_short_error_and_one_log_line(module_server, frame, event, reason):
    """A binary event announcing a billion attachments is refused at once (its binary frames are not kept: each is
    refused as unreadable), and so are packet types clients never send, an empty packet and events without a name;
    no traceback, the connection goes on, and only its first unreadable packet is logged."""
    client = RawSocket(module_server.port)
    log_before = module_server.log.read_text()
    client.ws.send(frame)
    name, error = client.next_event()
    assert name == "error" and error["code"] == "bad_request" and error["event"] == event, error
    assert error["message"].startswith(reason)
    client.ws.send_binary(b"\x00" * 15_000)
    name, error = client.next_event()
    assert name == "error" and error["code"] == "bad_request" and "not readable" in error["message"], error
    the_game = game_id(module_server)
    client.ws.send(json.dumps(["join", {"game_id": the_game}]).join(["42", ""]))
    name, state = client.next_event()
    assert name == "state" and state["id"] == the_game
    eventually(lambda: "unreadable" in module_server.log.read_text()[len(log_before):], "the log line")
    new_lines = module_server.log.read_text()[len(log_before):].splitlines()
    assert "Traceback" not in "\n".join(new_lines)
    assert len([line for line in new_lines if "unreadable" in line]) == 1, new_lines


@pytest.mark.parametrize("frame", ["4", "42", "42[]", "42null"])
def test_a_flood_of_empty_or_nameless_events_is_cut_off_with_one_log_line(module_server, frame):
    client = RawSocket(module_server.port)
    log_before = module_server.log.read_text()
    with pytest.raises((websocket.WebSocketConnectionClosedException, BrokenPipeError, ConnectionResetError)):
        for _ in range(20_000):
            client.ws.send(frame)
        while True:  # the server closes the connection: its errors, then the end
            client.next_frame()
    new_lines = module_server.log.read_text()[len(log_before):].splitlines()
    assert "Traceback" not in "\n".join(new_lines)
    assert len([line for line in new_lines if "unreadable" in line]) == 1, new_lines


def test_a_lone_surrogate_in_a_payload_is_refused_as_text_that_is_not_unicode(module_server):
    client = RawSocket(module_server.port)
    client.ws.send('42["join",{"game_id":"\\ud800"}]')
    name, error = client.next_event()
    assert name == "error" and error["code"] == "bad_request" and error["event"] == "join", error
    assert error["message"] == "the payload holds text that is not valid Unicode"
