"""Django's PostgreSQL backend (ENGINE, config/database.py) with one change: the pool's connections
are checked here before Django uses them, and the first dead one clears out every dead one.

After a restart, a failover or pg_terminate_backend, every idle connection in the pool is dead. The
pool's own check (CONN_HEALTH_CHECKS) finds them one by one, and pauses 1, 2, 4, 8 … s after each:
with 16 idle connections the next requests waited DB_POOL_TIMEOUT (30 s) and answered 503, one after
the other, while the database was long back. Here a failed check hands the connection back (the
pool drops it and opens a new one) and runs the pool's `check()`, which tests every idle connection
once and replaces the dead ones; the request then takes a connection that works.
"""

from __future__ import annotations

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
        try:
            ConnectionPool.check_connection(connection)  # one empty query, as the pool's own check
        except psycopg.Error:
            pool.putconn(connection)  # broken: dropped, a new one is opened in its place
            pool.check()  # its idle neighbours died with it: all tested now, the dead ones replaced
            connection = super().get_new_connection(conn_params)
        return connection
