"""The kept-connection transport of local model servers: one connection for a client's requests, the
body by length, by chunks or to the end, a kept connection the server closed is replaced, a stalled
answer times out, and what it cannot serve (TLS, a proxy) stays with httpx's own transport."""

from __future__ import annotations

import asyncio
import gzip
import json
from collections.abc import Awaitable, Callable

import httpx
import ollama
import pytest

from helena.llm.providers import transport
from helena.llm.providers.ollama_request import open_chat
from helena.llm.providers.transport import KeptConnection, kept_transport

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def _request(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return head + await reader.readexactly(length)


def _serve(handler: Handler, check: Callable[[httpx.AsyncClient, list[int]], Awaitable[None]]) -> list[int]:
    """Run `check` against a server answering with `handler`; returns the connections per request."""
    connections: list[int] = []

    async def go() -> None:
        count = 0

        async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            nonlocal count
            count += 1
            mine = count
            try:
                while not reader.at_eof():
                    await _request(reader)
                    connections.append(mine)
                    await handler(reader, writer)
            except (asyncio.IncompleteReadError, ConnectionError):
                pass
            finally:
                writer.close()

        server = await asyncio.start_server(on_connect, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=1.0,
                                     transport=KeptConnection()) as client:
            await check(client, connections)
        server.close()

    asyncio.run(go())
    return connections


async def _chunked(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
                 b"Content-Type: application/x-ndjson\r\n\r\n")
    for line in (b'{"a": 1}\n', b'{"b": 2}\n'):
        writer.write(f"{len(line):x}\r\n".encode() + line + b"\r\n")
        await writer.drain()
    writer.write(b"0\r\n\r\n")


def test_a_streamed_answer_by_chunks_and_the_connection_kept() -> None:
    async def check(client: httpx.AsyncClient, _c: list[int]) -> None:
        for _ in range(3):
            async with client.stream("POST", "/api/chat", json={"x": 1}) as response:
                assert response.status_code == 200
                assert [line async for line in response.aiter_lines()] == ['{"a": 1}', '{"b": 2}']

    assert _serve(_chunked, check) == [1, 1, 1]


def test_a_body_by_length_compressed_and_an_error_status() -> None:
    body = gzip.compress(b'{"error": "model not found"}')

    async def answer(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Encoding: gzip\r\nContent-Length: "
                     + str(len(body)).encode() + b"\r\n\r\n" + body)

    async def check(client: httpx.AsyncClient, _c: list[int]) -> None:
        for _ in range(2):
            response = await client.post("/api/show", json={"model": "m"})
            assert response.status_code == 404 and response.json() == {"error": "model not found"}

    assert _serve(answer, check) == [1, 1]


def test_a_body_to_the_end_of_the_connection_and_a_connection_closed_while_idle() -> None:
    async def answer(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.1 200 OK\r\n\r\nalles")
        await writer.drain()
        writer.close()

    async def check(client: httpx.AsyncClient, _c: list[int]) -> None:
        for _ in range(2):
            assert (await client.get("/api/tags")).text == "alles"

    assert _serve(answer, check) == [1, 2]


def test_a_kept_connection_the_server_drops_unseen_is_replaced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transport._Conn, "usable", lambda _self: True)  # the close not yet noticed

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        await writer.drain()
        reader.feed_eof()  # the server ends this connection after the answer, without telling

    async def check(client: httpx.AsyncClient, _c: list[int]) -> None:
        assert (await client.get("/a")).text == "ok"
        await asyncio.sleep(0.05)  # the server has closed the connection by now
        assert (await client.get("/b")).text == "ok"

    assert _serve(answer, check) == [1, 2]


def test_a_stalled_answer_times_out() -> None:
    async def answer(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n")
        await writer.drain()
        await asyncio.sleep(3)

    async def check(client: httpx.AsyncClient, _c: list[int]) -> None:
        async with client.stream("POST", "/api/chat", json={}, timeout=0.2) as response:
            with pytest.raises(httpx.ReadTimeout):
                async for _ in response.aiter_bytes():
                    pass

    _serve(answer, check)


def test_nothing_listening_is_a_connect_error() -> None:
    async def go() -> None:
        async with httpx.AsyncClient(base_url="http://127.0.0.1:9", transport=KeptConnection()) as client:
            with pytest.raises(httpx.ConnectError):
                await client.get("/api/tags")

    asyncio.run(go())


def test_tls_and_proxies_keep_httpx_own_transport(monkeypatch: pytest.MonkeyPatch) -> None:
    assert kept_transport("https://ollama.example") is None
    assert isinstance(kept_transport("http://127.0.0.1:11434"), KeptConnection)
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.kanzlei:3128")
    monkeypatch.setenv("NO_PROXY", "localhost")
    assert kept_transport("http://ollama.kanzlei:11434") is None
    assert isinstance(kept_transport("http://localhost:11434"), KeptConnection)


async def _answer_ja(writer: asyncio.StreamWriter) -> None:
    """Ollama's answer "Ja." in one final line, by length."""
    line = b'{"model": "m", "created_at": "2026-01-01T00:00:00Z", "done": true, ' \
           b'"message": {"role": "assistant", "content": "Ja."}}\n'
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: " + str(len(line)).encode() + b"\r\n\r\n" + line)
    await writer.drain()


def test_a_redirected_chat_goes_where_the_server_says(monkeypatch: pytest.MonkeyPatch) -> None:
    """/api/chat answered with a redirect (a proxy in front of Ollama): the client follows it, to the
    other server, not over the kept connection to the first."""

    async def go() -> list[str]:
        seen: list[str] = []

        async def target(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            seen.append((await _request(reader)).split(b"\r\n")[0].decode())
            await _answer_ja(writer)
            writer.close()

        other = await asyncio.start_server(target, "127.0.0.1", 0)
        port = other.sockets[0].getsockname()[1]

        async def redirect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await _request(reader)
            writer.write(f"HTTP/1.1 307 Temporary Redirect\r\nLocation: http://127.0.0.1:{port}/api/chat\r\n"
                         "Content-Length: 0\r\n\r\n".encode())
            await writer.drain()
            writer.close()

        first = await asyncio.start_server(redirect, "127.0.0.1", 0)
        client = ollama.AsyncClient(host=f"http://127.0.0.1:{first.sockets[0].getsockname()[1]}",
                                    transport=KeptConnection())
        parts = [part async for part in await open_chat(client, {"model": "m", "messages": []})]
        assert [part.message.content for part in parts] == ["Ja."]
        await client._client.aclose()
        first.close()
        other.close()
        return seen

    assert asyncio.run(go()) == ["POST /api/chat HTTP/1.1"]


def test_an_answer_left_unread_does_not_block_the_next_request() -> None:
    async def check(client: httpx.AsyncClient, _c: list[int]) -> None:
        left = await client.send(client.build_request("POST", "/api/chat", json={}), stream=True)
        async with client.stream("POST", "/api/chat", json={}) as response:  # on a connection of its own
            assert [line async for line in response.aiter_lines()] == ['{"a": 1}', '{"b": 2}']
        await left.aclose()  # closed unread: its connection goes
        assert (await client.post("/api/chat", json={})).status_code == 200

    assert _serve(_chunked, check) == [1, 2, 3]


def test_two_answers_at_once_on_one_client_both_arrive_whole() -> None:
    """A run's parallel calls (two plans in one turn) share its client: the second must not cut the
    first one's answer off (review finding: it dropped the busy connection)."""
    async def slowly(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        for line in (b'{"a": 1}\n', b'{"b": 2}\n'):
            writer.write(f"{len(line):x}\r\n".encode() + line + b"\r\n")
            await writer.drain()
            await asyncio.sleep(0.1)  # a model thinking between tokens
        writer.write(b"0\r\n\r\n")

    async def check(client: httpx.AsyncClient, _c: list[int]) -> None:
        started = asyncio.Event()

        async def one(*, wait: bool) -> list[str]:
            if wait:
                await started.wait()
            async with client.stream("POST", "/api/chat", json={}) as response:
                lines = []
                async for line in response.aiter_lines():
                    lines.append(line)
                    started.set()  # the first answer is under way: now the second request
                return lines

        first, second = await asyncio.gather(one(wait=False), one(wait=True))
        assert first == second == ['{"a": 1}', '{"b": 2}']

    assert sorted(_serve(slowly, check)) == [1, 2]


def test_a_slow_reader_is_not_cut_off_by_the_read_timeout() -> None:
    """The read timeout (1 s here) is for the server, not for the code reading the answer: a run that
    takes longer between two chunks (a database write) must not be cancelled (review finding: the
    deadline stood around the yield)."""
    async def check(client: httpx.AsyncClient, _c: list[int]) -> None:
        async with client.stream("POST", "/api/chat", json={}) as response:
            lines = []
            async for line in response.aiter_lines():
                lines.append(line)
                await asyncio.sleep(1.3)
        assert lines == ['{"a": 1}', '{"b": 2}']

    assert _serve(_chunked, check) == [1]


def test_each_chat_request_carries_the_clients_headers_and_its_own_body() -> None:
    """open_chat builds /api/chat's URL and headers once per client: every request still carries the
    client's headers as they are (a key in front of the server, say) and its own body and length."""

    async def go() -> list[bytes]:
        seen: list[bytes] = []

        async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            while not reader.at_eof():
                try:
                    seen.append(await _request(reader))
                except asyncio.IncompleteReadError:
                    break
                await _answer_ja(writer)
            writer.close()

        server = await asyncio.start_server(answer, "127.0.0.1", 0)
        client = ollama.AsyncClient(host=f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}",
                                    headers={"Authorization": "Bearer geheim"}, transport=KeptConnection())
        for text in ("kurz", "eine längere Frage"):
            body = {"model": "m", "messages": [{"role": "user", "content": text}]}
            assert [p.message.content async for p in await open_chat(client, body)] == ["Ja."]
            client._client.headers["X-Kanzlei"] = "Muster"  # changed after the first request
        await client._client.aclose()
        server.close()
        return seen

    first, second = asyncio.run(go())
    for raw, text in ((first, "kurz"), (second, "eine längere Frage")):
        head, body = raw.split(b"\r\n\r\n", 1)
        lines = head.decode().lower().split("\r\n")
        assert lines[0] == "post /api/chat http/1.1"
        assert "authorization: bearer geheim" in lines and "content-type: application/json" in lines
        assert f"content-length: {len(body)}" in lines
        assert ("x-kanzlei: muster" in lines) == (text != "kurz")
        assert json.loads(body)["messages"] == [{"role": "user", "content": text}]
