"""The base of Helena's websocket consumers: bound to the login (sitzung.py), and without Channels'
hop to a thread for every message.

Channels' AsyncConsumer.dispatch awaits `aclose_old_connections()` before each handler: a
sync_to_async round trip to a thread and back (~0.1 ms of CPU on this machine) for every frame a
client sends, every connect and every disconnect, so that a handler using the ORM finds no stale
connection. These consumers never touch the ORM on the event loop: every database call goes through
`database_sync_to_async` or helena.infra.db.db, which close and give back their connections
themselves, before and after (tests/test_architecture.py checks that no other way is used here).
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
