"""Socket.IO packets that cannot be read become an event the app answers, instead of an exception.

python-socketio decodes a packet's JSON before any handler runs; a payload nested thousands deep (``RecursionError``),
an integer of thousands of digits (``ValueError``, Python's int conversion limit) or text that is not JSON at all
would raise there, which logs a traceback of about thirty lines and answers nothing. ``ReadablePacket`` (the
server's ``serializer``) decodes such a packet as the event ``MALFORMED_EVENT`` with ``{"event": NAME or None,
"reason": TEXT}``; ``webapp.events`` answers it like any refused event: a short ``error``, one log line, and a
place in the connection's rate limit.
"""

from __future__ import annotations

import re

from socketio import packet

MALFORMED_EVENT = "malformed_packet"
EVENT_NAME = re.compile(r'\s*\[\s*"([A-Za-z_]{1,32})"')
"""The event name at the start of an event packet's JSON, read without parsing the rest."""


class ReadablePacket(packet.Packet):
    """A Socket.IO packet whose decoding never raises: an unreadable one becomes a ``MALFORMED_EVENT`` event."""

    def decode(self, encoded_packet: str | bytes) -> int:
        """Decode as python-socketio does; on failure, become the event ``[MALFORMED_EVENT, {event, reason}]`` of
        the default namespace with no attachments (returns 0)."""
        try:
            return super().decode(encoded_packet)
        except RecursionError:
            reason = "the payload is nested too deeply"
        except ValueError as error:
            reason = f"the payload is not readable JSON ({str(error)[:80]})"
        text = encoded_packet if isinstance(encoded_packet, str) else ""
        name = EVENT_NAME.search(text[:100])
        self.packet_type, self.namespace, self.id = packet.EVENT, None, None
        self.attachment_count = 0
        self.attachments: list[bytes] = []
        self.data = [MALFORMED_EVENT, {"event": name.group(1) if name else None, "reason": reason}]
        return 0
