"""The Fristen scan: Hinweise to the people who answer for a Frist, once, scoped — from the
command, through the API and on the page; tried with users who must get nothing."""

from __future__ import annotations

from datetime import date, timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from akten.erfassung.fristen import frist_erledigen
from akten.fristen.kalender import werktage_voraus
from akten.fristen_scan import scan_fristen
from akten.models import Akte, AktenZugriff, Alert, Frist, User
from tests.conftest import Kanzlei

pytestmark = pytest.mark.django_db


def test_werktage_skip_weekends_and_holidays() -> None:
    assert werktage_voraus(date(2026, 11, 27), 3, "NW") == date(2026, 12, 2)  # Fr → Mi
    assert werktage_voraus(date(2026, 12, 23), 3, "NW") == date(2026, 12, 29)  # over Christmas


@pytest.fixture
def lage(kanzlei: Kanzlei) -> dict[str, Frist]:
    heute = timezone.localdate()
    a, d = kanzlei.akten["A"], kanzlei.akten["D"]
    a.sachbearbeiter = kanzlei.users["sachbearbeiter"]
    a.save()
    Frist.objects.all().delete()
    u, tag = kanzlei.users, lambda n: heute + timedelta(days=n)
    make = Frist.objects.create
    return {
        "notfrist_ueberfaellig": make(akte=a, bezeichnung="Berufung", datum=tag(-1), ist_notfrist=True,
                                      verantwortlich=u["sachbearbeiter"]),
        "heute": make(akte=a, bezeichnung="Stellungnahme", datum=heute,
                      verantwortlich=u["praktikant"]),  # who cannot see Akte A
        "vorfrist": make(akte=a, bezeichnung="Klageerwiderung", datum=tag(20), vorfrist=tag(-1)),
        "spaeter": make(akte=a, bezeichnung="Replik", datum=tag(60)),
        "niemand": make(akte=d, bezeichnung="Frist ohne Zuständige", datum=tag(1)),
    }


def _given(frist: Frist) -> set[tuple[str, str, str]]:
    return {(a.art, a.empfaenger.username, a.severity) for a in Alert.objects.filter(frist=frist)}


def test_the_scan_tells_exactly_the_responsible_people_once(kanzlei: Kanzlei,
                                                            lage: dict[str, Frist]) -> None:
    out = StringIO()
    call_command("scan_fristen", stdout=out)
    assert "neue Hinweise" in out.getvalue()
    assert _given(lage["notfrist_ueberfaellig"]) == {("ueberfaellig", "sachbearbeiter", "critical"),
                                                    ("ueberfaellig", "anwalt", "critical")}
    assert _given(lage["heute"]) == {("heute", "sachbearbeiter", "warning"), ("heute", "anwalt", "warning")}
    assert _given(lage["vorfrist"]) == {("vorfrist", "sachbearbeiter", "warning"),
                                        ("vorfrist", "anwalt", "warning")}
    assert _given(lage["spaeter"]) == set()
    # Akte D: nobody responsible, nobody granted — the admin hears of it
    assert _given(lage["niemand"]) == {("bald", "admin", "warning"),
                                       ("niemand_verantwortlich", "admin", "warning")}
    assert not Alert.objects.filter(empfaenger=kanzlei.users["praktikant"]).exists()
    message = Alert.objects.get(frist=lage["notfrist_ueberfaellig"], empfaenger__username="anwalt").message
    assert message.startswith("Überfällig: Frist „Berufung“ (Akte 1/26) endete am") and "Notfrist" in message

    total = Alert.objects.count()
    assert scan_fristen().neue_hinweise == 0 and Alert.objects.count() == total  # a second scan: nothing

    frist = lage["heute"]
    frist_erledigen(user=kanzlei.users["anwalt"], akte_id=frist.akte_id, frist_id=frist.pk,
                    vermerk="Schriftsatz per beA eingereicht")
    assert not Alert.objects.filter(frist=frist, gelesen=False).exists()
    corrected = lage["vorfrist"]
    corrected.datum += timedelta(days=1)
    corrected.save()
    assert scan_fristen().neue_hinweise == 2  # a new Fristende is a new occasion; the erledigte stays quiet


def test_after_seed_demo_nobody_hears_of_an_akte_they_cannot_see(settings) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    call_command("seed_demo", password="x-test-pw", stdout=StringIO())
    assert scan_fristen().neue_hinweise > 0
    for alert in Alert.objects.exclude(schluessel=None).select_related("empfaenger", "akte"):
        user = alert.empfaenger
        assert user.sees_all_akten or AktenZugriff.objects.filter(akte=alert.akte, user=user).exists(), alert
    keys = list(Alert.objects.exclude(schluessel=None).values_list("frist_id", "art", "empfaenger_id"))
    assert len(keys) == len(set(keys))
    overdue = Frist.objects.filter(erledigt=False, datum__lt=timezone.localdate()).select_related("akte")
    assert overdue and all(Alert.objects.filter(frist=f, art="ueberfaellig").exists() for f in overdue)
    assert scan_fristen().neue_hinweise == 0


def test_the_api_lists_and_marks_only_ones_own_hinweise(kanzlei: Kanzlei, lage: dict[str, Frist]) -> None:
    scan_fristen()
    anwalt = kanzlei.client("anwalt")
    rows = anwalt.get("/api/v1/alerts", {"gelesen": "false"}).json()
    assert {r["art"] for r in rows} == {"ueberfaellig", "heute", "vorfrist"}
    first = rows[0]
    assert set(first) == {"id", "akte_id", "frist_id", "art", "severity", "message", "created_at", "gelesen"}
    assert first["severity"] == "critical" and first["akte_id"] == str(kanzlei.akten["A"].pk)
    assert anwalt.get("/api/v1/alerts", {"akte_id": kanzlei.akten["D"].pk}).status_code == 404
    fremd = Alert.objects.filter(empfaenger__username="sachbearbeiter").first()
    assert anwalt.post(f"/api/v1/alerts/{fremd.pk}/gelesen").status_code == 404
    assert kanzlei.client("praktikant").get("/api/v1/alerts").json() == []
    done = anwalt.post(f"/api/v1/alerts/{first['id']}/gelesen").json()
    assert done["gelesen"] is True
    assert len(anwalt.get("/api/v1/alerts", {"gelesen": "false"}).json()) == len(rows) - 1
    fremd.refresh_from_db()
    assert not fremd.gelesen

    client = Client()
    client.force_login(User.objects.get(username="anwalt"))
    page = client.get("/akten/").content.decode()
    assert f'aria-label="{len(rows) - 1} ungelesen"' in page  # the bell in the navigation
    akte_page = client.get(f"/akten/{kanzlei.akten['A'].pk}/").content.decode()
    assert "Überfällig: Frist „Berufung“" in akte_page
    assert Akte.objects.count() == 4
