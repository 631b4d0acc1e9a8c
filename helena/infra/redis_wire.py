"""A lean Redis connection for the two hot paths of run events: PUBLISH and the subscriber.

redis-py's asyncio client wraps every reply in a retry, a timeout context (one timer scheduled per
read), a parser object and, for pub/sub, health checks and push handling: 15–23 % of the samples of
daphne's main loop during run starts, ~0.3 ms of CPU per message (py-spy; docs/betrieb.md, Issue 39,
fifth round). Here one asyncio protocol feeds what arrives to the
hiredis C parser (the one redis-py uses when it is installed) and hands the replies out: commands'
replies in order, pub/sub messages to a queue the subscriber reads without waiting when it is full.

What it speaks: RESP2, AUTH from the URL, redis://, rediss:// (the same TLS settings as redis-py,
from the URL's query) and unix://; one channel per SUBSCRIBE. The URL's other query options
(socket_timeout, socket_keepalive, …) are not read: the callers set their own. Everything else
about Redis stays with redis-py.
"""

from __future__ import annotations

import asyncio
import collections
import socket
from typing import Any

import hiredis
from redis.asyncio.connection import RedisSSLContext, parse_url

MESSAGE = b"message"
PAUSE_AT, RESUME_AT = 10_000, 1_000  # messages waiting to be read: stop and go on reading the socket


class RedisGone(ConnectionError):
    """The connection is closed (by Redis, the network or us); a new one is needed."""


def _command(*parts: str | bytes) -> bytes:
    """One command in RESP (an array of bulk strings)."""
    out = [b"*%d\r\n" % len(parts)]
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        out.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(out)


class _Protocol(asyncio.Protocol):
    def __init__(self) -> None:
        self.reader = hiredis.Reader()
        self.transport: asyncio.Transport | None = None
        self.replies: collections.deque[asyncio.Future[Any]] = collections.deque()
        self.messages: collections.deque[bytes] = collections.deque()
        self.arrived: asyncio.Future[None] | None = None  # a subscriber waits for a message
        self.lost: Exception | None = None
        self.subscriber = False  # messages are routed only on a subscribed connection
        self.paused = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        while True:
            try:
                reply = self.reader.gets()
            except hiredis.ProtocolError as exc:  # nothing after this can be trusted
                self._end(RedisGone(f"Redis sent something unreadable: {exc}"))
                if self.transport is not None:
                    self.transport.close()
                return
            if reply is False:
                return
            if self.subscriber and type(reply) is list and len(reply) == 3 and reply[0] == MESSAGE:
                self.messages.append(reply[2])
                if self.arrived is not None and not self.arrived.done():
                    self.arrived.set_result(None)
                if len(self.messages) >= PAUSE_AT and not self.paused and self.transport is not None:
                    # A reader that falls behind lets Redis's own limit for subscribers (client-output-
                    # buffer-limit pubsub) end the connection; the sockets then read the database.
                    self.paused = True
                    self.transport.pause_reading()
                continue
            if self.replies:  # (subscribe confirmations included: they answer SUBSCRIBE)
                waiter = self.replies.popleft()
                if not waiter.done():
                    waiter.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self._end(RedisGone(f"connection to Redis lost: {exc or 'closed'}"))

    def _end(self, error: Exception) -> None:
        if self.lost is None:
            self.lost = error
        while self.replies:
            waiter = self.replies.popleft()
            if not waiter.done():
                waiter.set_exception(self.lost)
        if self.arrived is not None and not self.arrived.done():
            self.arrived.set_exception(self.lost)


class Connection:
    """One connection to Redis. `execute` writes its commands at once and waits for their replies;
    an error reply is raised as hiredis.ReplyError (the connection stays usable). After a timeout,
    a cancellation or a lost connection it is closed: replies could no longer be matched."""

    def __init__(self, protocol: _Protocol, timeout: float | None) -> None:
        self._protocol, self.timeout = protocol, timeout

    @property
    def closed(self) -> bool:
        return self._protocol.lost is not None

    async def execute(self, *commands: tuple[str | bytes, ...]) -> list[Any]:
        """Send the commands in one write and wait for all their replies (at most `timeout`)."""
        protocol = self._protocol
        if protocol.lost is not None or protocol.transport is None:
            raise RedisGone("connection to Redis is closed")
        loop = asyncio.get_running_loop()
        waiters = [loop.create_future() for _ in commands]
        protocol.replies.extend(waiters)
        try:
            protocol.transport.write(b"".join(_command(*command) for command in commands))
            # gather: every waiter's error is taken, none is left for asyncio to log as never retrieved
            replies = await asyncio.wait_for(asyncio.gather(*waiters), self.timeout) if self.timeout \
                else await asyncio.gather(*waiters)
        except BaseException:
            self.close()
            raise
        for reply in replies:
            if isinstance(reply, hiredis.ReplyError):
                raise reply
        return replies

    async def subscribe(self, channel: str) -> None:
        self._protocol.subscriber = True
        await self.execute(("SUBSCRIBE", channel))

    async def unsubscribe(self, channel: str) -> None:
        await self.execute(("UNSUBSCRIBE", channel))

    async def next_message(self) -> bytes:
        """The data of the next pub/sub message (without waiting when one is there already)."""
        protocol = self._protocol
        if protocol.paused and len(protocol.messages) <= RESUME_AT and protocol.transport is not None:
            protocol.paused = False
            protocol.transport.resume_reading()
        while not protocol.messages:
            if protocol.lost is not None:
                raise protocol.lost
            protocol.arrived = asyncio.get_running_loop().create_future()
            try:
                await protocol.arrived
            finally:
                protocol.arrived = None
        return protocol.messages.popleft()

    def close(self) -> None:
        """At once (abort: nothing is left to send that matters, and a TLS goodbye would need the loop)."""
        if self._protocol.transport is not None:
            self._protocol.transport.abort()
        self._protocol._end(RedisGone("connection to Redis closed"))


async def connect(url: str, *, timeout: float | None = None, keepalive: bool = False) -> Connection:
    """A connection to the Redis of `url`, authenticated; `timeout` bounds connecting and each
    `execute` (not `next_message`: a subscriber waits for the next message as long as it takes)."""
    options = parse_url(url)
    loop = asyncio.get_running_loop()
    async with asyncio.timeout(options.get("socket_connect_timeout", timeout)):
        if "path" in options:
            _, protocol = await loop.create_unix_connection(_Protocol, options["path"])
        else:
            tls = _tls(options) if url.startswith("rediss:") else None
            host = options.get("host", "localhost")
            _, protocol = await loop.create_connection(_Protocol, host, options.get("port", 6379), ssl=tls,
                                                       server_hostname=host if tls else None)
    connection = Connection(protocol, timeout)
    try:
        sock = protocol.transport.get_extra_info("socket")  # type: ignore[union-attr]
        if keepalive and sock is not None and sock.family != socket.AF_UNIX:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        if options.get("username"):  # an ACL user (as redis-py: its password may be empty)
            await connection.execute(("AUTH", options["username"], options.get("password") or ""))
        elif options.get("password"):
            await connection.execute(("AUTH", options["password"]))
    except BaseException:  # refused (a wrong password): the socket is not left open
        connection.close()
        raise
    return connection


def _tls(options: dict[str, Any]) -> Any:
    """The TLS context redis-py builds for the same URL (the same defaults: verified, hostname checked)."""
    return RedisSSLContext(
        keyfile=options.get("ssl_keyfile"), certfile=options.get("ssl_certfile"),
        cert_reqs=options.get("ssl_cert_reqs", "required"), ca_certs=options.get("ssl_ca_certs"),
        ca_data=options.get("ssl_ca_data"), ca_path=options.get("ssl_ca_path"),
        check_hostname=options.get("ssl_check_hostname", True), min_version=options.get("ssl_min_version"),
        ciphers=options.get("ssl_ciphers"), password=options.get("ssl_password"),
    ).get()
