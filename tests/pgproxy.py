"""A TCP proxy in front of PostgreSQL that a test can cut: the database "goes away" for the processes
that connect through it (daphne, a Celery worker) as in a restart or a failover, while the test's own
connections stay.

    with pg_proxy() as proxy:                       # upstream: the test database's server
        env = {"DATABASE_URL": proxy.url_for(database_url())}
        ...
        proxy.cut()       # every open connection closed, new ones refused (nothing listens)
        ...
        proxy.restore()   # listening again on the same port

`with proxy.down(seconds=3):` cuts for the block (or for `seconds` at least). The upstream may be
a TCP address or a unix socket directory (the embedded PostgreSQL of `make test`).
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from urllib.parse import quote

from config.database import connection_params


class PgProxy:
    """Listens on 127.0.0.1:`port` and pipes every connection to the upstream server."""

    def __init__(self, *, upstream_host: str, upstream_port: int) -> None:
        self.upstream_host, self.upstream_port = upstream_host, upstream_port
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self._listener: socket.socket | None = None
        self.port = 0
        self.connections_total = 0  # connections accepted since the start: a test can see reconnects

    # ------------------------------------------------------------------ the test's handles

    def start(self) -> None:
        self._listen()

    def cut(self) -> None:
        """Close every open connection and stop listening: a new one is refused (ECONNREFUSED)."""
        with self._lock:
            listener, self._listener = self._listener, None
            sockets, self._open = set(self._open), set()
        if listener is not None:
            _close(listener)
        for sock in sockets:
            _close(sock)

    def restore(self) -> None:
        """Listen again on the same port."""
        if self._listener is None:
            self._listen()

    @contextlib.contextmanager
    def down(self, *, seconds: float = 0.0) -> Iterator[None]:
        """Cut for the block, and for at least `seconds`."""
        start = time.monotonic()
        self.cut()
        try:
            yield
        finally:
            time.sleep(max(0.0, seconds - (time.monotonic() - start)))
            self.restore()

    def url_for(self, database_url: str) -> str:
        """`database_url` with its server replaced by this proxy (database, user, password, options kept)."""
        params = connection_params(database_url)
        params.update(host="127.0.0.1", port=str(self.port))
        dbname = params.pop("dbname", "")
        user = params.pop("user", "")
        password = params.pop("password", "")
        credentials = quote(user, safe="") + (":" + quote(password, safe="") if password else "")
        query = "&".join(f"{key}={quote(value, safe='')}" for key, value in params.items()
                         if key not in ("host", "port"))
        return (f"postgresql://{credentials}@127.0.0.1:{self.port}/{quote(dbname, safe='')}"
                + (f"?{query}" if query else ""))

    def close(self) -> None:
        self.cut()

    # ------------------------------------------------------------------ plumbing

    def _listen(self) -> None:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        for attempt in range(50):  # the old socket's port may need a moment after a cut
            try:
                listener.bind(("127.0.0.1", self.port))
                break
            except OSError:
                if attempt == 49:
                    listener.close()
                    raise
                time.sleep(0.1)
        listener.listen(64)
        self.port = listener.getsockname()[1]
        with self._lock:
            self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True, name="pgproxy-accept").start()

    def _upstream(self) -> socket.socket:
        if self.upstream_host.startswith("/"):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(f"{self.upstream_host}/.s.PGSQL.{self.upstream_port}")
            return sock
        return socket.create_connection((self.upstream_host, self.upstream_port), timeout=10)

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # cut: the listener was closed
            try:
                server = self._upstream()
                server.settimeout(None)
            except OSError:
                _close(client)
                continue
            with self._lock:
                if self._listener is not listener:  # cut while connecting
                    _close(client)
                    _close(server)
                    continue
                self._open.update((client, server))
                self.connections_total += 1
            for source, target in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(source, target), daemon=True,
                                 name="pgproxy-pipe").start()

    def _pipe(self, source: socket.socket, target: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                target.sendall(data)
        except OSError:
            pass
        finally:
            with self._lock:
                self._open.discard(source)
                self._open.discard(target)
            _close(source)
            _close(target)


def _close(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(OSError):
        sock.close()


@contextlib.contextmanager
def pg_proxy(database_url: str | None = None) -> Iterator[PgProxy]:
    """A running proxy in front of the server of `database_url` (default: the test database's)."""
    if database_url is None:
        from tests.conftest import database_url as test_database_url

        database_url = test_database_url()
    params = connection_params(database_url)
    proxy = PgProxy(upstream_host=params.get("host") or "127.0.0.1",
                    upstream_port=int(params.get("port") or 5432))
    proxy.start()
    try:
        yield proxy
    finally:
        proxy.close()
