"""DATABASE_URL, read by libpq's own parser, so that Django, psycopg and `psql` agree on what it means.

A unix socket is written as libpq writes it, the socket directory percent-encoded as the host
(`postgresql://postgres@%2Fpfad%2Fzu%2Fpgdata/helena`); django-environ's own dialect for sockets
(`postgres://user@//dir/name`) is read as well, but psycopg would take that for a database named
`/dir/name` on the default socket. This module imports no Django: the launcher uses it before
settings exist.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from psycopg.conninfo import conninfo_to_dict

# libpq keywords that are Django settings of their own; every other one goes into OPTIONS.
_SETTINGS = {"dbname": "NAME", "user": "USER", "password": "PASSWORD", "host": "HOST", "port": "PORT"}


class DatabaseUrlError(ValueError):
    """DATABASE_URL is no PostgreSQL address (the message is German: an admin reads it)."""


def database_url(*, host: str, dbname: str, user: str = "postgres", password: str = "",
                 port: str | int = "") -> str:
    """The URL of a database; a `host` that is a path is the directory of the server's unix socket."""
    credentials = quote(user, safe="") + (":" + quote(password, safe="") if password else "")
    if host.startswith("/"):
        address = quote(host, safe="")
    else:  # an IPv6 address in brackets, so its colons are no port
        address = (f"[{host}]" if ":" in host and not host.startswith("[") else host) + (
            f":{port}" if port else "")
    return f"postgresql://{credentials}@{address}/{quote(dbname, safe='')}"


def connection_params(url: str) -> dict[str, str]:
    """What libpq reads from `url`, as psycopg.connect(**params) takes it."""
    if not url.startswith(("postgres://", "postgresql://")):
        raise DatabaseUrlError("DATABASE_URL muss auf PostgreSQL zeigen (postgres://…).")
    try:
        params = conninfo_to_dict(url)
    except Exception as exc:  # psycopg.ProgrammingError: libpq refused to parse it
        raise DatabaseUrlError(f"DATABASE_URL ist keine gültige PostgreSQL-Adresse: {exc}") from exc
    dbname = str(params.get("dbname", ""))
    if dbname.startswith("/") and "host" not in params:  # django-environ's socket dialect
        params["host"], params["dbname"] = dbname.rsplit("/", 1)
    return {key: str(value) for key, value in params.items()}


def django_database(url: str) -> dict[str, Any]:
    """Django's DATABASES entry for `url` (PostgreSQL only)."""
    params = connection_params(url)
    # Django's PostgreSQL backend, whose pool clears out dead connections at once (config/postgres/)
    config: dict[str, Any] = {"ENGINE": "config.postgres"}
    for key, setting in _SETTINGS.items():
        config[setting] = params.pop(key, "")
    config["OPTIONS"] = params  # sslmode, application_name, … as libpq keywords
    return config

