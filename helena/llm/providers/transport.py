"""HTTP/1.1 over one kept-alive asyncio connection: the transport of a local model server's client.

httpx's default transport (httpcore over anyio, h11 parsing) cost ~3 ms of CPU for each streamed
model call of a run start, more than the rest of the model's side together: a connection pool, cancel
scopes per read and a pure-Python protocol machine for what is one request at a time on one
connection. A client of http.py's free-list serves one stream at a time, so its transport needs one
connection and no pool: this one writes the request itself and reads the response with the event
loop's stream reader (status line, headers, then the body by chunks or length). httpx still does the
rest (URL, headers, decoding, the Response), so the clients above see no difference.

Only for plain http:// without a proxy from the environment (what a local Ollama is); anything else
keeps httpx's own transport (kept_transport returns None).
"""

from __future__ import annotations

import asyncio
import contextlib
import urllib.request
from collections.abc import AsyncIterator
from typing import Any

import httpx

from helena.llm.providers.http import ssl_context

MAX_HEADER_BYTES = 64 * 1024


def kept_transport(url: str) -> KeptConnection | None:
    """The transport for a server at `url`, or None where httpx's own is needed (TLS, a proxy)."""
    parsed = httpx.URL(url)
    if parsed.scheme != "http" or not parsed.host:
        return None
    proxies = urllib.request.getproxies()
    if (proxies.get("http") or proxies.get("all")) and not urllib.request.proxy_bypass(parsed.host):
        return None
    return KeptConnection()


class _NoAnswer(httpx.ReadError):
    """The connection ended (closed, reset) before any byte of an answer came."""


class _Conn:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 origin: tuple[str, int]) -> None:
        self.reader, self.writer, self.origin = reader, writer, origin

    def usable(self) -> bool:
        return not self.writer.is_closing() and not self.reader.at_eof()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.writer.close()


def _timeouts(request: httpx.Request) -> tuple[float | None, float | None]:
    timeout: dict[str, Any] = request.extensions.get("timeout") or {}
    return timeout.get("connect"), timeout.get("read")


class KeptConnection(httpx.AsyncBaseTransport):
    """One request at a time over one connection, kept open between requests while the server allows."""

    def __init__(self) -> None:
        self._conn: _Conn | None = None
        self._busy = False
        self._other: httpx.AsyncHTTPTransport | None = None  # for a redirect to https

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.scheme != "http" or self._busy:
            # https (a redirect), or a second request while an answer is still being read (a run's
            # parallel plan calls share its client): httpx's own transport, on a connection of its own
            if self._other is None:
                self._other = httpx.AsyncHTTPTransport(verify=ssl_context())
            return await self._other.handle_async_request(request)
        try:
            body = request.content
        except httpx.RequestNotRead:  # a body given as a stream (a redirected request's, say)
            body = await request.aread()
        head = self._head(request, body)
        connect_timeout, read_timeout = _timeouts(request)
        self._busy = True
        try:
            conn = self._conn
            reused = conn is not None and conn.usable() and conn.origin == _origin(request)
            if not reused:
                conn = await self._connect(request, connect_timeout)
            assert conn is not None
            try:
                status, reason, headers = await self._send(conn, head + body, read_timeout, request)
            except _NoAnswer:
                if not reused:
                    raise
                # The kept connection was closed by the server before it answered: once more, anew.
                conn = await self._connect(request, connect_timeout)
                status, reason, headers = await self._send(conn, head + body, read_timeout, request)
        except BaseException:
            self._drop()
            self._busy = False
            raise
        stream = _Body(self, conn, request, status, headers, read_timeout)
        return httpx.Response(status, headers=headers, stream=stream,
                              extensions={"http_version": b"HTTP/1.1", "reason_phrase": reason})

    @staticmethod
    def _head(request: httpx.Request, body: bytes) -> bytes:
        url = request.url
        target = url.raw_path or b"/"
        lines = [request.method.encode("ascii") + b" " + target + b" HTTP/1.1"]
        names = set()
        for name, value in request.headers.raw:
            names.add(name.lower())
            lines.append(name + b": " + value)
        if b"content-length" not in names and b"transfer-encoding" not in names and (
                body or request.method not in ("GET", "HEAD")):
            lines.append(b"Content-Length: " + str(len(body)).encode("ascii"))
        return b"\r\n".join(lines) + b"\r\n\r\n"

    async def _connect(self, request: httpx.Request, timeout: float | None) -> _Conn:
        self._drop()
        try:
            async with asyncio.timeout(timeout):
                reader, writer = await asyncio.open_connection(*_origin(request), limit=MAX_HEADER_BYTES)
        except TimeoutError as exc:
            raise httpx.ConnectTimeout(str(exc) or "connect timed out", request=request) from exc
        except OSError as exc:
            raise httpx.ConnectError(str(exc), request=request) from exc
        self._conn = _Conn(reader, writer, _origin(request))
        return self._conn

    @staticmethod
    async def _send(conn: _Conn, data: bytes, timeout: float | None,
                    request: httpx.Request) -> tuple[int, bytes, list[tuple[bytes, bytes]]]:
        try:
            conn.writer.write(data)
            async with asyncio.timeout(timeout):
                await conn.writer.drain()
                while True:
                    raw = await conn.reader.readuntil(b"\r\n\r\n")
                    status, reason, headers = _parse_head(raw)
                    if status >= 200:  # an interim answer (100 Continue) is skipped
                        return status, reason, headers
        except TimeoutError as exc:
            raise httpx.ReadTimeout("no answer in time", request=request) from exc
        except asyncio.IncompleteReadError as exc:
            if exc.partial:
                raise httpx.RemoteProtocolError("the server closed the connection mid-answer",
                                                request=request) from exc
            raise _NoAnswer("the server closed the connection without an answer", request=request) from exc
        except (asyncio.LimitOverrunError, ValueError) as exc:
            raise httpx.RemoteProtocolError(f"unreadable answer: {exc}", request=request) from exc
        except OSError as exc:
            raise _NoAnswer(f"{type(exc).__name__}: {exc}", request=request) from exc

    def _drop(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _done(self, conn: _Conn, *, keep: bool) -> None:
        """The response is over: keep the connection for the next request, or close it. An answer
        left unread and closed late (its connection already replaced) only closes its own."""
        if conn is not self._conn:
            conn.close()
            return
        self._busy = False
        if not keep:
            conn.close()
            self._conn = None

    async def aclose(self) -> None:
        self._drop()
        if self._other is not None:
            await self._other.aclose()


def _origin(request: httpx.Request) -> tuple[str, int]:
    return request.url.host, request.url.port or 80


def _parse_head(raw: bytes) -> tuple[int, bytes, list[tuple[bytes, bytes]]]:
    lines = raw[:-4].split(b"\r\n")
    version, _, rest = lines[0].partition(b" ")
    if not version.startswith(b"HTTP/1."):
        raise ValueError(f"not an HTTP/1 status line: {lines[0][:80]!r}")
    code, _, reason = rest.partition(b" ")
    headers = []
    for line in lines[1:]:
        name, sep, value = line.partition(b":")
        if not sep:
            raise ValueError(f"header line without a colon: {line[:80]!r}")
        headers.append((name.strip(), value.strip()))
    return int(code), reason, headers


class _Body(httpx.AsyncByteStream):
    """The response body by Content-Length, by chunks, or up to the end of the connection."""

    def __init__(self, transport: KeptConnection, conn: _Conn, request: httpx.Request, status: int,
                 headers: list[tuple[bytes, bytes]], timeout: float | None) -> None:
        self._transport, self._conn, self._request, self._timeout = transport, conn, request, timeout
        values = {name.lower(): value.lower() for name, value in headers}
        self._keep = b"close" not in values.get(b"connection", b"")
        self._chunked = b"chunked" in values.get(b"transfer-encoding", b"")
        length = values.get(b"content-length")
        if request.method == "HEAD" or status in (204, 304) or 100 <= status < 200:
            length = b"0"
        self._length = None if self._chunked or length is None else int(length)
        if self._length is None and not self._chunked:
            self._keep = False  # the body ends with the connection
        self._complete = False
        self._closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        reader, within = self._conn.reader, self._within
        try:  # the read timeout is per read, never around a yield: it must not hit the consumer
            if self._chunked:
                while True:
                    async with within():  # one chunk: its size line, then its data
                        size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                        if size == 0:
                            while await reader.readuntil(b"\r\n") != b"\r\n":  # trailers
                                pass
                            break
                        data = await reader.readexactly(size + 2)
                    yield data[:-2]
            elif self._length is not None:
                left = self._length
                while left > 0:
                    async with within():
                        data = await reader.read(min(left, 65536))
                    if not data:
                        raise asyncio.IncompleteReadError(b"", left)
                    left -= len(data)
                    yield data
            else:
                while True:
                    async with within():
                        data = await reader.read(65536)
                    if not data:
                        break
                    yield data
            self._complete = True
            self._finish()
        except TimeoutError as exc:
            raise httpx.ReadTimeout("the answer stalled", request=self._request) from exc
        except asyncio.IncompleteReadError as exc:
            raise httpx.RemoteProtocolError("the server closed the connection mid-answer",
                                            request=self._request) from exc
        except (asyncio.LimitOverrunError, ValueError) as exc:
            raise httpx.RemoteProtocolError(f"unreadable answer: {exc}", request=self._request) from exc
        except OSError as exc:
            raise httpx.ReadError(str(exc), request=self._request) from exc
        finally:
            if not self._complete:
                self._finish()

    def _within(self) -> asyncio.Timeout:
        return asyncio.timeout(self._timeout)

    def _finish(self) -> None:
        if not self._closed:
            self._closed = True
            self._transport._done(self._conn, keep=self._complete and self._keep)

    async def aclose(self) -> None:
        self._finish()
