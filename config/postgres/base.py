"""Django's PostgreSQL backend (ENGINE, config/database.py) with one change: the pool's connections
are checked here before Django uses them, and the first dead one clears out every dead one.

After a restart, a failover or pg_terminate_backend, every idle connection in the pool is dead. The
pool's own check (CONN_HEALTH_CHECKS) finds them one by one, and pauses 1, 2, 4, 8 … s after each:
with 16 idle connections the next requests waited DB_POOL_TIMEOUT (30 s) and answered 503, one after
the other, while the database was long back. Here a failed check hands the connection back (the
pool drops it and opens a new one) and runs the pool's `check()`, which tests every idle connection
once and replaces the dead ones; the request then takes a connection that works.

The check costs a round trip per borrowed connection (five per chat run). A connection whose socket
has nothing to read is taken without it: a server that ends a connection (restart, failover,
pg_terminate_backend, a killed backend) sends its FATAL message or closes the socket, and either
makes the socket readable. What goes unseen: a peer that vanished without a word (a cut cable) –
the empty query would not find that one in time either (it waits for TCP as well) – and the instant
between a backend being told to end and its goodbye arriving (well under a millisecond): a request
that borrows the connection in that instant fails its first query, where the empty query would
have waited for the goodbye and replaced the connection.
"""

from __future__ import annotations

import select
from typing import Any

import psycopg
from django.db.backends.postgresql import base
from psycopg_pool import ConnectionPool


class DatabaseWrapper(base.DatabaseWrapper):
    def get_new_connection(self, conn_params: dict[str, Any]) -> Any:
        connection = super().get_new_connection(conn_params)
        pool = self.pool
        if pool is None:
            return connection  # without the pool: CONN_HEALTH_CHECKS checks persistent connections
        if quiet(connection):
            return connection
        try:
            ConnectionPool.check_connection(connection)  # one empty query, as the pool's own check
        except psycopg.Error:
            pool.putconn(connection)  # broken: dropped, a new one is opened in its place
            pool.check()  # its idle neighbours died with it: all tested now, the dead ones replaced
            connection = super().get_new_connection(conn_params)
        return connection


def quiet(connection: psycopg.Connection[Any] | psycopg.AsyncConnection[Any]) -> bool:
    """Idle, nothing on its socket: the server has said nothing since it was last used (no goodbye)."""
    try:
        if connection.closed or connection.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            return False
        poller = select.poll()  # not select(): daphne with many sockets has descriptors past 1024
        poller.register(connection.pgconn.socket, select.POLLIN | select.POLLPRI)
        return not poller.poll(0)
    except (OSError, ValueError, AttributeError, psycopg.Error):  # AttributeError: no poll() (Windows)
        return False
