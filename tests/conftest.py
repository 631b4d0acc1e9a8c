"""Shared fixtures: a small Kanzlei with one user per role and Akten with known grants."""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone

from akten.accounts.users import create_api_token
from akten.models import Akte, Frist, Role, User
from akten.services import grant_access
from config.processes import DAPHNE
from tests.scripted_llm_server import ScriptedLLMServer, start_scripted_server

BASE_DIR = Path(__file__).resolve().parent.parent
# Most tests throw their records away within milliseconds: no Akten vectors unless a test asks
# (tests/helena/knowledge/test_aktensuche.py); subprocesses (daphne, Celery) inherit this.
os.environ.setdefault("HELENA_AKTEN_INDEX", "off")
# Uploaded files go to a folder of this run, never var/media; the text of an upload is read at once
# (one test uses a real Celery worker for it); subprocesses inherit both.
if "HELENA_TEST_MEDIA" not in os.environ:  # this module may be imported twice (conftest, tests.conftest)
    os.environ["HELENA_TEST_MEDIA"] = tempfile.mkdtemp(prefix="helena-test-media-")
    atexit.register(shutil.rmtree, os.environ["HELENA_TEST_MEDIA"], ignore_errors=True)
MEDIA_ROOT = Path(os.environ["HELENA_TEST_MEDIA"])
os.environ["MEDIA_ROOT"] = str(MEDIA_ROOT)
os.environ.setdefault("HELENA_DOKUMENT_EXTRAKTION", "inline")
# A change of the admin's settings is seen by every process (daphne, Celery) as soon as it is committed.
os.environ.setdefault("HELENA_ADMIN_CACHE_RECHECK", "0")
# No process of a test takes over runs it did not start (a test's half-made run rows would be taken);
# the tests of durable runs switch it on for the processes they start.
os.environ.setdefault("HELENA_RUN_TAKEOVER", "false")


def database_url(name: str | None = None) -> str:
    """A DATABASE_URL for subprocesses (Celery workers, the launcher) that points at the test
    database, or at another database on the same server."""
    from django.conf import settings

    from config.database import database_url as url

    db = settings.DATABASES["default"]
    return url(host=db["HOST"] or "127.0.0.1", port=db["PORT"], user=db["USER"], password=db["PASSWORD"],
               dbname=name or db["NAME"])


@dataclass
class Kanzlei:
    users: dict[str, User]
    akten: dict[str, Akte]
    tokens: dict[str, str]

    def client(self, username: str | None) -> Client:
        """A test client that authenticates with the user's bearer token (None: anonymous)."""
        if username is None:
            return Client()
        return Client(headers={"Authorization": f"Bearer {self.tokens[username]}"})


# Which Akte each non-admin role may see; ADMIN sees all without grants.
GRANTS: dict[str, list[str]] = {
    "anwalt": ["A", "B", "C"],
    "sachbearbeiter": ["A", "B"],
    "sekretariat": ["B"],
    "praktikant": ["B"],
}


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings) -> None:
    """PBKDF2 is slow by design; tests need not pay for it."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _no_akten_vectors(settings) -> None:
    """No Akten vectors unless a test asks; uploads in this run's folder (see MEDIA_ROOT above)."""
    settings.HELENA_AKTEN_INDEX = "off"
    settings.MEDIA_ROOT = MEDIA_ROOT
    settings.HELENA_DOKUMENT_EXTRAKTION = os.environ["HELENA_DOKUMENT_EXTRAKTION"]


@pytest.fixture(autouse=True)
def _fresh_knowledge_caches(monkeypatch) -> None:
    """Tests write and roll back within milliseconds: the search caches must always re-check."""
    from helena.knowledge import index, lexikon
    from helena.knowledge.aktensuche import vectors

    monkeypatch.setattr(index._cache, "recheck_seconds", 0.0)
    monkeypatch.setattr(vectors._cache, "recheck_seconds", 0.0)
    monkeypatch.setattr(lexikon._cache, "recheck_seconds", 0.0)


@pytest.fixture(autouse=True)
def _fresh_admin_settings() -> Iterator[None]:
    """A test's settings rows are rolled back with it: no process copy may outlive the test."""
    from helena.infra import settings_cache

    settings_cache.clear()
    yield
    settings_cache.clear()


@pytest.fixture(autouse=True)
def _fresh_login_limits() -> Iterator[None]:
    """The session limits are cached per process and the wrong-token counters live in Redis: a test
    starts with the firm's defaults and no wrong token (or old password) counted."""
    import redis

    from akten.accounts import sitzungen

    sitzungen.vergessen()
    client = redis.Redis.from_url(settings.REDIS_URL)
    try:
        keys = client.keys("helena:token-fehler:*") + client.keys("helena:passwort-fehler:*")
        if keys:
            client.delete(*keys)
    finally:
        client.close()
    yield
    sitzungen.vergessen()


@pytest.fixture
def kanzlei(db) -> Kanzlei:
    # Like the demo's users (seed_demo), these log in with the password alone: the visible exemption
    # from the second factor. Its tests (tests/akten/test_zweitfaktor*.py) make users without it.
    users = {
        name: User.objects.create_user(username=name, password="pw-" + name, role=role,
                                       ohne_zweiten_faktor=True)
        for name, role in [
            ("admin", Role.ADMIN),
            ("anwalt", Role.ANWALT),
            ("sachbearbeiter", Role.SACHBEARBEITER),
            ("sekretariat", Role.SEKRETARIAT),
            ("praktikant", Role.PRAKTIKANT),
        ]
    }
    akten = {
        "A": Akte.objects.create(
            aktenzeichen="1/26", kurzrubrum="Meier ./. Stahlbau GmbH", wegen="Kündigungsschutz",
            rechtsgebiet="arbeitsrecht", gegenstandswert=Decimal("12000"), bundesland="NW",
            anwalt=users["anwalt"],
        ),
        "B": Akte.objects.create(
            aktenzeichen="2/26", kurzrubrum="Schulz ./. Wohnbau AG", wegen="Räumung",
            rechtsgebiet="mietrecht", bundesland="BY",
        ),
        "C": Akte.objects.create(
            aktenzeichen="3/26", kurzrubrum="Vertraulich ./. Geheim", wegen="Nachlass",
            rechtsgebiet="erbrecht", bundesland="BE",
        ),
        "D": Akte.objects.create(
            aktenzeichen="4/26", kurzrubrum="Niemand ./. Keiner", wegen="ohne Zugriff",
            rechtsgebiet="sonstiges",
        ),
    }
    for username, keys in GRANTS.items():
        for key in keys:
            grant_access(akte=akten[key], user=users[username], granted_by=users["admin"])
    heute = timezone.localdate()
    for key, akte in akten.items():
        Frist.objects.create(akte=akte, bezeichnung=f"Frist {key} offen", datum=heute + timedelta(days=5))
        Frist.objects.create(
            akte=akte, bezeichnung=f"Frist {key} erledigt", datum=heute - timedelta(days=5), erledigt=True
        )
    tokens = {name: create_api_token(user=user) for name, user in users.items()}
    return Kanzlei(users=users, akten=akten, tokens=tokens)


def zweiter_faktor_gegeben(user: User) -> Client:
    """A client logged in as `user` whose session has given the second factor (a confirmed app, as after
    its code on /konto/zweiter-faktor/): what /admin/ and the required roles need."""
    from django_otp import DEVICE_ID_SESSION_KEY
    from django_otp.plugins.otp_totp.models import TOTPDevice

    device = TOTPDevice.objects.filter(user=user, confirmed=True).first() or TOTPDevice.objects.create(
        user=user, name="Authenticator-App", confirmed=True)
    client = Client()
    client.force_login(user)
    session = client.session
    session[DEVICE_ID_SESSION_KEY] = device.persistent_id
    session.save()
    return client


@pytest.fixture
def admin_client(kanzlei: Kanzlei) -> Client:
    """The Kanzlei's admin, logged in to the Django admin (staff and superuser)."""
    user = kanzlei.users["admin"]
    user.is_staff = user.is_superuser = True
    user.save()
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture(scope="session", autouse=True)
def _no_lingering_connections(django_db_setup) -> Iterator[None]:
    """Before the test database is dropped: end the connections that helper threads of this process
    (database threads and runner loops of runs executed in tests) still hold, or the drop fails with
    "being accessed by other users"."""
    import psycopg
    from django.db import connection

    params = connection.get_connection_params()
    name = params["dbname"]
    yield
    admin = {key: value for key, value in params.items()
             if key in ("host", "port", "user", "password", "sslmode")}
    with contextlib.suppress(psycopg.Error), \
            psycopg.connect(dbname="postgres", autocommit=True, **admin) as conn:
        conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s "
                     "AND pid <> pg_backend_pid()", [name])


@pytest.fixture(scope="module")
def knowledge_corpus(django_db_setup, django_db_blocker) -> None:
    """The whole bundled statute corpus, loaded once per test module and removed afterwards."""
    from django.core.management import call_command

    from helena.knowledge.models import Gesetz

    with django_db_blocker.unblock():
        call_command("load_gesetze", verbosity=0)
    yield
    with django_db_blocker.unblock():
        Gesetz.objects.all().delete()


@contextlib.contextmanager
def daphne(env_extra: dict[str, str]) -> Iterator[str]:
    """daphne serving config.asgi on the test database with these extra variables: "127.0.0.1:<port>"."""
    from django.conf import settings

    from tests.scripted_llm_server import unused_port

    port = unused_port()
    env = {**os.environ, "DATABASE_URL": database_url(), "REDIS_URL": settings.REDIS_URL, **env_extra}
    artifacts = BASE_DIR / "tests" / "artifacts"
    artifacts.mkdir(exist_ok=True)
    with open(artifacts / f"daphne-{port}.log", "w+b") as log:  # kept for a look after a failure
        proc = subprocess.Popen(
            [*DAPHNE, "-b", "127.0.0.1", "-p", str(port), "config.asgi:application"],
            cwd=BASE_DIR, env=env, start_new_session=True, stdout=log, stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 30
            while True:
                with socket.socket() as s:
                    if s.connect_ex(("127.0.0.1", port)) == 0:
                        break
                if proc.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    output = log.read().decode(errors="replace")[-3000:]
                    raise RuntimeError("daphne did not start:\n" + output)
                time.sleep(0.1)
            yield f"127.0.0.1:{port}"
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)


@pytest.fixture(scope="module")
def asgi_server(django_db_setup) -> Iterator[str]:
    """daphne serving config.asgi (HTTP and websockets) on the test database: "127.0.0.1:<port>".

    Inline runs execute in this process, as in production. Tests using it must commit their data
    (django_db(transaction=True)), since daphne has its own connections.
    """
    with daphne({"DEBUG": "1", "HELENA_WS_RESYNC_SECONDS": "1"}) as address:
        yield address


def start_celery_worker(env_extra: dict[str, str] | None = None, *, pool: str = "solo",
                        log: Any = subprocess.DEVNULL) -> subprocess.Popen:
    """A real Celery worker (solo pool unless told) on the test database, in its own process group."""
    env = {**os.environ, "DATABASE_URL": database_url(), "REDIS_URL": settings.REDIS_URL, **(env_extra or {})}
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", pool, "--loglevel", "WARNING",
         "--without-gossip", "--without-mingle", "--without-heartbeat"],
        cwd=BASE_DIR, env=env, start_new_session=True, stdout=log, stderr=subprocess.STDOUT if log is not
        subprocess.DEVNULL else subprocess.DEVNULL,
    )


def stop_celery_worker(worker: subprocess.Popen, sig: int = signal.SIGTERM) -> None:
    if worker.poll() is None:
        os.killpg(worker.pid, sig)
        worker.wait(timeout=30)


@pytest.fixture
def celery_worker() -> Iterator[subprocess.Popen]:
    worker = start_celery_worker()
    yield worker
    stop_celery_worker(worker)


@pytest.fixture
def server() -> Iterator[ScriptedLLMServer]:
    """The scripted Ollama/OpenAI server; the router's health cache is fresh before and after."""
    from helena.llm import router

    router.clear_health_cache()
    with start_scripted_server() as srv:
        yield srv
    router.clear_health_cache()


@pytest.fixture
def tiers(server: ScriptedLLMServer) -> ScriptedLLMServer:
    """Model tiers 1 (klein) and 2 (gross) on the scripted server."""
    from helena.models import ModelTier

    ModelTier.objects.create(tier=1, provider="ollama", model_name="klein", base_url=server.url,
                             price_input_per_1k=Decimal("0"), price_output_per_1k=Decimal("0"))
    ModelTier.objects.create(tier=2, provider="ollama", model_name="gross", base_url=server.url)
    return server
