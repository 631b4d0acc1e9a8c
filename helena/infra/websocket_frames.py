"""A server's websocket text frame (RFC 6455 §5.2) as bytes: built once per run event, written as it
is to every socket of its conversation (helena/realtime/frame_writer.py).

A server's frames are not masked; a run event is one final frame (FIN set, opcode 1 = text), its
length in 7, 16 or 64 bits.
"""

from __future__ import annotations

_TEXT = 0x81  # FIN + opcode 1


def text_frame(payload: bytes) -> bytes:
    """The whole frame for a UTF-8 payload."""
    length = len(payload)
    if length < 126:
        return bytes((_TEXT, length)) + payload
    if length < 1 << 16:
        return bytes((_TEXT, 126)) + length.to_bytes(2, "big") + payload
    return bytes((_TEXT, 127)) + length.to_bytes(8, "big") + payload


def payload_of(frame: bytes) -> bytes:
    """The payload of a frame text_frame built."""
    marker = frame[1]
    return frame[2 if marker < 126 else 4 if marker == 126 else 10:]
