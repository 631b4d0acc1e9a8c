"""Fixtures of the Hinweis e-mail tests (tests/akten/test_hinweis_mails.py and
tests/akten/test_hinweis_mails_fehler.py): e-mail set up against a real SMTP server (aiosmtpd) and a
Kanzlei whose people have addresses."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from akten.models import Frist
from tests.conftest import Kanzlei
from tests.smtp_server import SmtpServer, smtp_server

BASE = "https://helena.kanzlei.test"
ABSENDER = "Helena <helena@kanzlei.test>"


def _mail_settings(settings, port: int) -> None:
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
    settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    settings.EMAIL_TIMEOUT = 5
    settings.HELENA_MAIL_EINGERICHTET, settings.HELENA_MAIL_FROM = True, ABSENDER
    settings.HELENA_MAIL_VERSAND = "inline"
    settings.HELENA_BASE_URL = BASE


@pytest.fixture
def smtp() -> Iterator[SmtpServer]:
    with smtp_server() as server:
        yield server


@pytest.fixture
def mail_an(settings, smtp: SmtpServer) -> SmtpServer:
    """E-mail set up against the real server; the worker's part runs here (the task applied)."""
    _mail_settings(settings, smtp.port)
    return smtp


@pytest.fixture
def kanzlei_mit_adressen(kanzlei: Kanzlei) -> Kanzlei:
    """Everyone but the admin has an address; the Kanzlei's own open Fristen are gone (their day
    would decide whether they are „bald“)."""
    Frist.objects.filter(erledigt=False).delete()
    for name, user in kanzlei.users.items():
        if name != "admin":
            user.email, user.first_name = f"{name}@kanzlei.test", name.capitalize()
            user.save()
    akte = kanzlei.akten["A"]
    akte.sachbearbeiter = kanzlei.users["sachbearbeiter"]
    akte.save()
    return kanzlei
