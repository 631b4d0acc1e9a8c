"""A run event's frame written straight onto the client's connection under daphne.

daphne hands every `websocket.send` through its server to autobahn, which checks the message,
counts it and builds the frame in Python, for every socket and every event: ~13 % of daphne's main
loop in a run start, and again for every streamed token (py-spy, docs/betrieb.md, Issue 39). A run
event's frame is finished bytes already (helena/infra/websocket_frames.py, built once for all
sockets of its conversation): here it goes to the connection's transport as it is – only where
autobahn would put the same bytes on the wire (the socket open, no compression negotiated, server
frames unmasked, no fragmenting, no size limit it passes). Anywhere else (another ASGI server, a
test's communicator) the frame goes through `send` as before.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from autobahn.exception import Disconnected
from daphne.ws_protocol import WebSocketProtocol

from helena.runs.events.broadcast import Frame


def _daphne_protocol(send: Any) -> WebSocketProtocol | None:
    """The autobahn protocol behind daphne's `send` (daphne/server.py makes it as
    `partial(server.handle_reply, protocol)`), or None for any other send."""
    if isinstance(send, partial) and send.args and isinstance(send.args[0], WebSocketProtocol):
        return send.args[0]
    return None


class FrameWriter:
    """Writes a socket's run event frames; `write` says False where the frame must go through
    `send` instead."""

    def __init__(self, send: Any) -> None:
        self.protocol = _daphne_protocol(send)

    def write(self, frame: Frame) -> bool:
        protocol = self.protocol
        if protocol is None or not _as_autobahn_would(protocol, len(frame.wire)):
            return False
        if protocol.state != WebSocketProtocol.STATE_OPEN:
            raise Disconnected("Attempt to send on a closed protocol")  # as autobahn says it
        if getattr(protocol, "send_queue", True):  # autobahn queued bytes: the frame goes behind them
            protocol.sendData(frame.wire)
        else:  # what sendData does then, without its debug line's formatting (~1 % of daphne's loop)
            protocol.transport.write(frame.wire)
        return True


def _as_autobahn_would(protocol: WebSocketProtocol, size: int) -> bool:
    """Whether autobahn's sendMessage would send these very bytes (it compresses, masks or splits
    a frame only when told to, which daphne does not). An attribute autobahn no longer has means
    the usual way, not an error."""
    return (getattr(protocol, "_perMessageCompress", True) is None
            and getattr(protocol, "maskServerFrames", True) is False
            and getattr(protocol, "autoFragmentSize", 1) == 0
            and not 0 < getattr(protocol, "maxMessagePayloadSize", 1) < size)
