"""DATABASE_URL means one database to Django, psycopg and psql alike (config/database.py)."""

from __future__ import annotations

import psycopg
import pytest
from django.conf import settings

from config.database import DatabaseUrlError, connection_params, database_url, django_database


def test_a_socket_url_is_read_by_libpq_and_django_alike() -> None:
    url = database_url(host="/srv/Kanzlei Daten/pgdata", user="postgres", dbname="test_helena")
    assert connection_params(url) == {"user": "postgres", "host": "/srv/Kanzlei Daten/pgdata",
                                      "dbname": "test_helena"}
    config = django_database(url)
    assert (config["HOST"], config["NAME"], config["USER"]) == ("/srv/Kanzlei Daten/pgdata", "test_helena",
                                                                 "postgres")


def test_django_environs_socket_dialect_still_names_the_socket_not_a_database() -> None:
    config = django_database("postgres://postgres@//var/run/pg/helena")
    assert (config["HOST"], config["NAME"]) == ("/var/run/pg", "helena")


def test_an_ipv6_host_keeps_its_colons_apart_from_the_port() -> None:
    url = database_url(host="::1", port=5433, user="helena", password="p:w@#/", dbname="helena")
    assert connection_params(url) == {"user": "helena", "password": "p:w@#/", "host": "::1", "port": "5433",
                                      "dbname": "helena"}


def test_tcp_url_with_libpq_options() -> None:
    config = django_database("postgres://helena:g%40heim@db.kanzlei.local:5433/helena?sslmode=require")
    assert config["ENGINE"] == "config.postgres"
    assert (config["HOST"], config["PORT"], config["USER"], config["PASSWORD"]) == (
        "db.kanzlei.local", "5433", "helena", "g@heim")
    assert config["OPTIONS"] == {"sslmode": "require"}


@pytest.mark.parametrize("url", ["sqlite:///helena.infra.db", "mysql://root@localhost/helena", "helena"])
def test_anything_but_postgresql_is_refused_in_german(url: str) -> None:
    with pytest.raises(DatabaseUrlError, match="PostgreSQL"):
        django_database(url)


@pytest.mark.django_db
def test_the_test_databases_url_reaches_the_test_database_with_psycopg() -> None:
    """What subprocesses and helper connections of the tests get: psycopg opens the same database."""
    from tests.conftest import database_url as tests_database_url

    with psycopg.connect(tests_database_url()) as conn:
        assert conn.info.dbname == settings.DATABASES["default"]["NAME"]
        assert conn.execute("SELECT to_regclass('akten_akte') IS NOT NULL").fetchone()[0]
