"""config/postgres/: a pooled connection is taken without the empty check query while its socket is
quiet, and is checked (and replaced) as soon as the server has said goodbye."""

from __future__ import annotations

import time

import psycopg
import pytest

from config.postgres.base import quiet

pytestmark = pytest.mark.django_db


def _admin(dbname: str, params: dict) -> psycopg.Connection:
    keys = ("host", "port", "user", "password")
    return psycopg.connect(dbname=dbname, autocommit=True, **{k: v for k, v in params.items() if k in keys})


def test_a_terminated_connection_is_no_longerquiet(django_db_setup) -> None:
    from django.db import connection

    params = connection.get_connection_params()
    with psycopg.connect(**params, autocommit=True) as conn:
        conn.execute("SELECT 1")
        assert quiet(conn)  # nothing on the socket: borrowed without a round trip
        with _admin(params["dbname"], params) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", [conn.info.backend_pid])
        deadline = time.monotonic() + 5
        while quiet(conn) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not quiet(conn)  # the FATAL message and the close arrived: the check runs and fails
        with pytest.raises(psycopg.OperationalError):
            conn.execute("SELECT 1")


def test_a_connection_inside_a_transaction_is_notquiet(django_db_setup) -> None:
    from django.db import connection

    with psycopg.connect(**connection.get_connection_params()) as conn:  # not autocommit
        conn.execute("SELECT 1")
        assert not quiet(conn)  # not idle: left to the pool's own handling, not taken as is
