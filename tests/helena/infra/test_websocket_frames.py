"""Run events' frames built once as bytes (helena/infra/websocket_frames.py) are the frames the
websockets library (an independent implementation of RFC 6455) builds for the same text; a send
that is not daphne's gets the frame's text as before (helena/realtime/frame_writer.py)."""

from __future__ import annotations

from typing import Any

import pytest
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
