"""The login throttle (django-axes, akten/accounts/anmeldeschutz.py) from the outside: the login page
and the admin's login refuse a username after 5 wrong passwords and an address after 20, also with
the right password, in German with the time; the lock ends by itself after 15 minutes or when the
Verwaltung lifts it; no password is kept anywhere."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from axes.models import AccessAttempt, AccessLog
from django.test import Client
from django.utils import timezone

from tests.conftest import Kanzlei

pytestmark = pytest.mark.django_db

GEHEIM = "Falsch-Geheim-4711"


def anmelden(client: Client, username: str, password: str, *, pfad: str = "/konto/anmelden/",
             adresse: str = "127.0.0.1") -> object:
    return client.post(pfad, {"username": username, "password": password}, REMOTE_ADDR=adresse)


def test_five_wrong_passwords_lock_the_username_also_for_the_right_password(kanzlei: Kanzlei) -> None:
    client = Client()
    for _ in range(4):
        response = anmelden(client, "anwalt", GEHEIM)
        assert response.status_code == 200
        assert "Benutzername oder Passwort stimmen nicht." in response.content.decode()
    gesperrt = anmelden(client, "anwalt", GEHEIM)  # the fifth
    assert gesperrt.status_code == 429
    text = gesperrt.content.decode()
    letzter = AccessAttempt.objects.get(username="anwalt").attempt_time
    bis = timezone.localtime(letzter + timedelta(minutes=15))
    assert f"Die Anmeldung ist bis {bis:%H:%M} Uhr gesperrt – auch mit dem richtigen Passwort" in text
    assert "bitte die Verwaltung der Kanzlei, die Sperre aufzuheben" in text

    richtig = anmelden(Client(), "anwalt", "pw-anwalt", adresse="10.0.0.9")  # another desk, right password
    assert richtig.status_code == 429 and "_auth_user_id" not in richtig.client.session
    assert Client().get("/konto/").status_code == 302
    # failures during the lock do not prolong it
    assert AccessAttempt.objects.get(username="anwalt").failures_since_start == 5
    # a colleague on the same address is not affected
    assert anmelden(Client(), "sekretariat", "pw-sekretariat").status_code == 302


def test_the_lock_ends_by_itself_after_the_pause(kanzlei: Kanzlei) -> None:
    for _ in range(5):
        anmelden(Client(), "anwalt", GEHEIM)
    assert anmelden(Client(), "anwalt", "pw-anwalt").status_code == 429
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=15, seconds=1))
    client = Client()
    assert anmelden(client, "anwalt", "pw-anwalt").status_code == 302
    assert client.get("/konto/").status_code == 200
    assert not AccessAttempt.objects.filter(username="anwalt").exists()  # a login resets the username


def test_twenty_wrong_logins_from_one_address_lock_that_address_only(kanzlei: Kanzlei) -> None:
    for nummer in range(20):  # four per name: no username reaches its own limit
        anmelden(Client(), f"unbekannt{nummer // 4}", GEHEIM, adresse="203.0.113.7")
    refused = anmelden(Client(), "praktikant", "pw-praktikant", adresse="203.0.113.7")
    assert refused.status_code == 429 and "Zu viele falsche Anmeldeversuche" in refused.content.decode()
    assert anmelden(Client(), "praktikant", "pw-praktikant", adresse="198.51.100.3").status_code == 302


def test_the_admin_login_is_locked_the_same_and_the_verwaltung_unlocks(kanzlei: Kanzlei,
                                                                       admin_client: Client) -> None:
    for _ in range(5):
        anmelden(Client(), "sachbearbeiter", GEHEIM, pfad="/admin/login/")
    gesperrt = anmelden(Client(), "sachbearbeiter", "pw-sachbearbeiter", pfad="/admin/login/?next=/admin/")
    assert gesperrt.status_code == 429
    assert "Die Anmeldung ist bis" in gesperrt.content.decode()
    assert anmelden(Client(), "sachbearbeiter", "pw-sachbearbeiter").status_code == 429  # the page too

    liste = admin_client.get("/admin/akten/zugriffsversuch/").content.decode()
    assert "sachbearbeiter" in liste and "Sperre aufheben" in liste and "Gesperrt bis" in liste
    versuch = AccessAttempt.objects.get(username="sachbearbeiter")
    response = admin_client.post("/admin/akten/zugriffsversuch/", {
        "action": "sperre_aufheben", "_selected_action": [versuch.pk]}, follow=True)
    assert "Sperre aufgehoben: 127.0.0.1, sachbearbeiter" in response.content.decode()
    assert anmelden(Client(), "sachbearbeiter", "pw-sachbearbeiter").status_code == 302


def test_only_the_verwaltung_sees_and_lifts_locks(kanzlei: Kanzlei) -> None:
    for _ in range(5):
        anmelden(Client(), "anwalt", GEHEIM)
    versuch = AccessAttempt.objects.get(username="anwalt")
    anwalt = Client()
    anwalt.force_login(kanzlei.users["sekretariat"])
    assert anwalt.get("/admin/akten/zugriffsversuch/").status_code == 302  # to the admin's login
    anwalt.post("/admin/akten/zugriffsversuch/",
                {"action": "sperre_aufheben", "_selected_action": [versuch.pk]})
    assert AccessAttempt.objects.filter(pk=versuch.pk).exists()


def test_no_password_is_kept_in_the_attempts_nor_in_the_log(kanzlei: Kanzlei, caplog) -> None:
    with caplog.at_level(logging.DEBUG):
        for _ in range(6):
            anmelden(Client(), "anwalt", GEHEIM)
        anmelden(Client(), "sekretariat", "pw-sekretariat")
    for versuch in AccessAttempt.objects.all():
        assert GEHEIM not in " ".join(str(value) for value in versuch.__dict__.values())
    for eintrag in AccessLog.objects.all():
        assert "pw-sekretariat" not in " ".join(str(value) for value in eintrag.__dict__.values())
    assert GEHEIM not in caplog.text and "pw-sekretariat" not in caplog.text
    assert "Anmeldung gesperrt" in caplog.text  # our line: username and address only
