"""Socket.IO packets that cannot be read, or that this server does not take, become an event the app answers.

python-socketio decodes a packet's JSON before any handler runs; a payload nested thousands deep (``RecursionError``),
an integer of thousands of digits (``ValueError``, Python's int conversion limit) or text that is not JSON at all
would raise there, which logs a traceback of about thirty lines and answers nothing. A packet type a client has no
business sending (``CONNECT_ERROR``, an unknown type such as ``49``) raises after decoding, with the same
traceback; and a binary packet (``BINARY_EVENT``, ``BINARY_ACK``) makes the server keep every binary frame that
follows until its announced attachment count is reached, up to a billion of them. This app sends and takes no
binary data. ``ReadablePacket`` (the server's ``serializer``) decodes each of these as the event ``MALFORMED_EVENT``
with ``{"event": NAME or None, "reason": TEXT}``; ``webapp.views.events`` answers it with a short ``error`` and one log
line, and closes the connection at its ``webapp.views.events.UNREADABLE_LIMIT``-th (a binary frame sent after a binary
packet is unreadable too, so a client that goes on sending them is cut off).
"""

from __future__ import annotations

import re

from webapp.transport import internals

MALFORMED_EVENT = "malformed_packet"
CLIENT_PACKET_TYPES = (internals.CONNECT, internals.DISCONNECT, internals.EVENT, internals.ACK)
"""The packet types this server takes from a client."""
EVENT_NAME = re.compile(r'\s*\[\s*"([A-Za-z_]{1,32})"')
"""The event name at the start of an event packet's JSON, read without parsing the rest."""


class ReadablePacket(internals.SocketIOPacket):
    """A Socket.IO packet whose decoding never raises: an unreadable one becomes a ``MALFORMED_EVENT`` event."""

    packet_type: int | bytes
    """The packet's type (python-socketio's constants); the whole frame when it was binary data."""

    def __init__(self, packet_type: int = internals.EVENT, data: object = None, namespace: str | None = None,
                 id: int | None = None, binary: bool | None = None,
                 encoded_packet: str | bytes | None = None) -> None:
        """As python-socketio's; an empty ``encoded_packet`` (which it takes for no packet at all, leaving an event
        without data) is unreadable too."""
        super().__init__(packet_type, data, namespace, id, binary, encoded_packet)
        if encoded_packet is not None and not encoded_packet:
            self._become_malformed("", "the packet is empty")

    def decode(self, encoded_packet: str | bytes) -> int:
        """Decode as python-socketio does; an unreadable packet, a binary one, one of a type clients do not send or
        an event that is not a JSON array starting with its name becomes the event ``[MALFORMED_EVENT, {event,
        reason}]`` of the default namespace with no attachments (returns 0)."""
        try:
            attachments = super().decode(encoded_packet)
        except RecursionError:
            reason = "the payload is nested too deeply"
        except (ValueError, TypeError) as error:
            reason = f"the payload is not readable JSON ({str(error)[:80]})"
        else:
            if self.packet_type in (internals.BINARY_EVENT, internals.BINARY_ACK) or attachments:
                reason = "binary packets are not accepted: this server takes JSON only"
            elif self.packet_type not in CLIENT_PACKET_TYPES:
                reason = f"packet type {str(self.packet_type)[:20]} is not one a client sends"
            elif self.packet_type == internals.EVENT and not _names_an_event(self.data):
                reason = "an event is a JSON array that starts with the event's name"
            elif self.packet_type == internals.ACK and not isinstance(self.data, list):
                reason = "an acknowledgement is a JSON array"
            else:
                return 0
        self._become_malformed(encoded_packet, reason)
        return 0

    def _become_malformed(self, encoded_packet: str | bytes, reason: str) -> None:
        text = encoded_packet if isinstance(encoded_packet, str) else ""
        name = EVENT_NAME.search(text[:100])
        self.packet_type, self.namespace, self.id = internals.EVENT, None, None
        self.attachment_count = 0
        self.attachments: list[bytes] = []
        self.data = [MALFORMED_EVENT, {"event": name.group(1) if name else None, "reason": reason}]


def _names_an_event(data: object) -> bool:
    """Whether an event packet's ``data`` is a list whose first item is a name (a string)."""
    return isinstance(data, list) and bool(data) and isinstance(data[0], str)
