"""Run events' frames built once as bytes (helena/infra/websocket_frames.py) are the frames the
websockets library (an independent implementation of RFC 6455) builds for the same text; a send
that is not daphne's gets the frame's text as before; under daphne the frame goes onto the
connection as it is, behind anything autobahn queued, and never onto a closing one
(helena/realtime/frame_writer.py)."""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest
from autobahn.exception import Disconnected
from daphne.ws_protocol import WebSocketFactory, WebSocketProtocol
from twisted.internet.testing import StringTransport
from websockets.frames import Frame as Reference
from websockets.frames import Opcode

from helena.infra.websocket_frames import payload_of, text_frame
from helena.realtime.frame_writer import FrameWriter
from helena.runs.events.broadcast import decode, encode, frame_of


@pytest.mark.parametrize("length", [0, 1, 125, 126, 127, 65_535, 65_536, 200_000])
def test_a_frame_is_what_rfc_6455_says_for_every_length(length: int) -> None:
    payload = ("ä" * length).encode()[:length]
    expected = Reference(Opcode.TEXT, payload).serialize(mask=False, extensions=[])
    assert text_frame(payload) == expected
    assert payload_of(text_frame(payload)) == payload


def test_the_published_frame_reaches_the_socket_as_the_stored_one() -> None:
    event = {"type": "text", "run_id": "r1", "seq": 3, "delta": "Frist läuft\tab\nmorgen 😀"}
    frames = decode(encode([(7, [event])]), {7})[7]
    assert frames == [frame_of(event)]
    assert frames[0].text == frame_of(event).text


def test_a_send_that_is_not_daphnes_is_left_to_send_the_text() -> None:
    async def send(message: dict[str, Any]) -> None:  # another ASGI server's, a test communicator's
        raise AssertionError("the writer does not call send itself")

    frame = frame_of({"type": "done", "run_id": "r1", "seq": 4, "text": "Fertig."})
    assert FrameWriter(send).write(frame) is False  # the chat then sends frame.text (chat.py)
    assert frame.text.startswith('{"type": "done"')


def _daphne_socket() -> tuple[WebSocketProtocol, StringTransport, FrameWriter]:
    """daphne's own protocol on a transport that keeps what is written, with `send` as daphne
    makes it for the application (daphne/server.py: partial(server.handle_reply, protocol))."""
    protocol = WebSocketFactory(None).buildProtocol(None)
    transport = StringTransport()
    protocol.makeConnection(transport)
    protocol.state = WebSocketProtocol.STATE_OPEN  # the handshake done, nothing negotiated

    async def handle_reply(_protocol: Any, _message: dict[str, Any]) -> None:
        raise AssertionError("a run event's frame does not go through daphne's server")

    transport.clear()
    return protocol, transport, FrameWriter(partial(handle_reply, protocol))


def test_under_daphne_the_finished_frame_goes_onto_the_connection() -> None:
    _protocol, transport, writer = _daphne_socket()
    frames = [frame_of({"type": "text", "run_id": "r1", "seq": seq, "delta": "ä" * seq * 50})
              for seq in (1, 2, 3)]
    for frame in frames:
        assert writer.write(frame) is True
    assert transport.value() == b"".join(frame.wire for frame in frames)


def test_a_frame_queues_behind_what_autobahn_queued_and_never_reaches_a_closing_socket() -> None:
    protocol, transport, writer = _daphne_socket()
    protocol.send_queue.append((b"queued-before", True))
    frame = frame_of({"type": "done", "run_id": "r1", "seq": 2, "text": "Fertig."})
    assert writer.write(frame) is True
    # autobahn writes its queue in order (the first item at once, the rest on later turns of the
    # reactor): written so far and still queued, the frame comes after the bytes queued before it
    still_queued = b"".join(data for data, _sync in protocol.send_queue)
    assert transport.value() + still_queued == b"queued-before" + frame.wire
    protocol.state = WebSocketProtocol.STATE_CLOSING
    with pytest.raises(Disconnected):
        writer.write(frame)


def test_where_autobahn_would_change_the_bytes_the_frame_goes_the_usual_way() -> None:
    protocol, transport, writer = _daphne_socket()
    frame = frame_of({"type": "text", "run_id": "r1", "seq": 1, "delta": "x" * 200})
    protocol._perMessageCompress = object()  # permessage-deflate negotiated
    assert writer.write(frame) is False
    protocol._perMessageCompress = None
    protocol.maxMessagePayloadSize = 100
    assert writer.write(frame) is False
    assert transport.value() == b""
