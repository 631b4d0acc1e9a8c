"""The base of Helena's websocket consumers: bound to the login (sitzung.py), and without Channels'
hop to a thread for every message.

Channels' AsyncConsumer.dispatch awaits `aclose_old_connections()` before each handler: a
sync_to_async round trip to a thread and back (~0.1 ms of CPU on this machine) for every frame a
client sends and every connect, so that a handler using the ORM on asgiref's shared thread finds no
stale connection there (the one at a socket's end, in websocket_disconnect, stays). These consumers
use that thread only through `database_sync_to_async`, which closes old connections before and
after each call itself; their other database work runs on helena.infra.db's threads, which give
their connections back after each call (tests/test_architecture.py checks that no other way –
a plain sync_to_async, Django's async ORM, to_thread, an executor – is used here).
"""

from __future__ import annotations

from typing import Any

from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer

from helena.realtime.sitzung import SitzungsBindung


class Consumer(SitzungsBindung, AsyncWebsocketConsumer):
    """A websocket of Helena's: its handlers run on the event loop, their database calls on threads."""

    async def dispatch(self, message: dict[str, Any]) -> None:
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:  # as Channels does
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)
