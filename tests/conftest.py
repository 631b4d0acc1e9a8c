"""Shared fixtures: a small Kanzlei with one user per role and Akten with known grants."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

import pytest
from django.test import Client
from django.utils import timezone

from akten.models import Akte, Frist, Role, User
from akten.services import create_api_token, grant_access


def database_url(name: str | None = None) -> str:
    """A DATABASE_URL for subprocesses (Celery workers, the launcher) that points at the test
    database, or at another database on the same server."""
    from django.conf import settings

    db = settings.DATABASES["default"]
    host, dbname = db["HOST"] or "127.0.0.1", name or db["NAME"]
    if host.startswith("/"):  # the embedded server's unix socket
        return f"postgres://{db['USER']}@/{host}/{dbname}"
    return f"postgres://{db['USER']}@{host}:{db['PORT'] or 5432}/{dbname}"


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
def _fresh_knowledge_caches(monkeypatch) -> None:
    """Tests write and roll back within milliseconds: the search caches must always re-check."""
    from helena.knowledge import index, lexikon

    monkeypatch.setattr(index._cache, "recheck_seconds", 0.0)
    monkeypatch.setattr(lexikon._cache, "recheck_seconds", 0.0)


@pytest.fixture
def kanzlei(db) -> Kanzlei:
    users = {
        name: User.objects.create_user(username=name, password="pw-" + name, role=role)
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
