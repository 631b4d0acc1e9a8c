"""The fanout's subscription over a real Redis: frames reach the joined sockets in order, and when
Redis ends the subscriber's connection the fanout connects again, subscribes, and tells each socket
that it may have missed something (the socket then reads the database, test_chat_socket.py)."""

from __future__ import annotations

import asyncio
import json

import redis
from django.conf import settings

from helena.realtime import fanout
from helena.runs.events import broadcast

CONVERSATION = 987_654_321  # no real conversation: the fanout only routes by id


class Socket:
    def __init__(self) -> None:
        self.seqs: list[int] = []
        self.missed_count = 0

    async def live(self, frames: list[broadcast.Frame]) -> None:
        self.seqs.extend(json.loads(frame.text)["seq"] for frame in frames)

    def missed(self) -> None:
        self.missed_count += 1


def _event(seq: int) -> dict:
    return {"type": "text", "run_id": "7d3f0c6e-0000-4000-8000-000000000001", "seq": seq,
            "delta": f"Teil {seq}"}


async def _until(condition, seconds: float = 5.0) -> None:
    async with asyncio.timeout(seconds):
        while not condition():
            await asyncio.sleep(0.01)


def test_frames_arrive_in_order_and_the_subscription_survives_redis_ending_it() -> None:
    async def go() -> Socket:
        socket = Socket()
        await fanout.join(conversation_id=CONVERSATION, socket=socket)
        try:
            await broadcast.publish([(CONVERSATION, [_event(1), _event(2)]), (CONVERSATION + 1, [_event(9)])])
            await broadcast.publish([(CONVERSATION, [_event(3)])])
            await _until(lambda: len(socket.seqs) >= 3)
            assert socket.seqs == [1, 2, 3]  # in order; the other conversation's frame not given
            assert socket.missed_count == 0

            # Redis ends this fanout's connection (only this one: the Redis may be shared)
            connection = fanout._fanouts.get()._connection
            assert connection is not None
            host, port = connection._protocol.transport.get_extra_info("sockname")[:2]
            with redis.Redis.from_url(settings.REDIS_URL) as client:
                assert client.client_kill_filter(_type="pubsub", addr=f"{host}:{port}") == 1
            await _until(lambda: socket.missed_count >= 1)
            seq = 3
            while socket.seqs[-1] == 3:  # what is published before the new SUBSCRIBE is lost (pub/sub)
                seq += 1
                assert seq < 100, "the fanout did not subscribe again"
                await broadcast.publish([(CONVERSATION, [_event(seq)])])
                await asyncio.sleep(0.05)
            return socket
        finally:
            await fanout.leave(conversation_id=CONVERSATION, socket=socket)

    socket = asyncio.run(go())
    assert socket.seqs[:3] == [1, 2, 3]
    assert socket.seqs[3:] == sorted(socket.seqs[3:])
