"""A deleted Akte's parties stay findable for the Kollisionsprüfung (§ 43a Abs. 4 BRAO has no time limit):
after the beat deletes the Mandant's Akte or a single Gegner, the page, the API Abfrage and the write
API still find them, with nothing kept but name, role, Aktenzeichen and the Mandat's years; only the
Administration reads the records in the admin."""

from __future__ import annotations

import json
from datetime import date, timedelta

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from akten.models import Akte, Beteiligter, FruehererBeteiligter, Loeschprotokoll, Loeschvormerkung
from akten.tasks import loeschungen_ausfuehren_task
from tests.conftest import Kanzlei

FELDER = {"id", "name", "name_schluessel", "rolle", "aktenzeichen", "mandat_von", "mandat_bis", "umfang",
          "geloescht_am"}


def _loeschen_lassen(kanzlei: Kanzlei, beteiligter: Beteiligter, captured) -> Akte:
    """The Mandat began in 2015 and ended eight years ago: § 50 BRAO's six years are over; the beat runs."""
    akte = beteiligter.akte
    akte.status = Akte.Status.GESCHLOSSEN
    akte.save()
    Akte.objects.filter(pk=akte.pk).update(auftragsdatum=date(2015, 3, 1),
                                           abgeschlossen_am=timezone.now() - timedelta(days=365 * 8))
    Loeschvormerkung.objects.create(beteiligter=beteiligter, antrag_am=date(2018, 6, 1),
                                    vorgemerkt_von=kanzlei.users["anwalt"])
    with captured(execute=True):
        loeschungen_ausfuehren_task.apply()
    return akte


@pytest.fixture
def geloescht(kanzlei: Kanzlei, settings, django_capture_on_commit_callbacks) -> dict:
    """Hans Müller was Mandant in 1/26 (with address, e-mail, notes) against the Stahlbau GmbH; a witness
    of it is no party the check compares. The beat deleted the whole Akte."""
    settings.HELENA_AKTEN_INDEX = "inline"
    akte = kanzlei.akten["A"]
    mandant = Beteiligter.objects.create(akte=akte, rolle="mandant", name="Hans Müller",
                                         email="hans@example.de", anschrift="Eichenweg 7\n50667 Köln",
                                         telefon="0221 123", notiz="zahlt spät")
    Beteiligter.objects.create(akte=akte, rolle="gegner", name="Stahlbau GmbH", anschrift="Hafenstraße 1")
    Beteiligter.objects.create(akte=akte, rolle="zeuge", name="Eva Roth")
    _loeschen_lassen(kanzlei, mandant, django_capture_on_commit_callbacks)
    assert not Akte.objects.filter(pk=akte.pk).exists()
    bis = (timezone.now() - timedelta(days=365 * 8)).year
    return {"akte_id": akte.pk, "bis": bis, "text": f"1/26 (gelöscht nach § 50 BRAO, Mandat 2015–{bis})"}


@pytest.mark.django_db
def test_the_deletion_keeps_name_role_aktenzeichen_and_years_only(kanzlei: Kanzlei, geloescht: dict) -> None:
    zeilen = list(FruehererBeteiligter.objects.order_by("rolle").values())
    assert [(z["name"], z["rolle"]) for z in zeilen] == [("Stahlbau GmbH", "gegner"),
                                                          ("Hans Müller", "mandant")]
    assert set(zeilen[0]) == FELDER  # the model has no field for anything else
    assert all(z["aktenzeichen"] == "1/26" and z["mandat_von"] == 2015 and z["mandat_bis"] == geloescht["bis"]
               and z["geloescht_am"] == timezone.localdate() for z in zeilen)
    gespeichert = json.dumps(zeilen, default=str)
    assert "Eichenweg" not in gespeichert and "example.de" not in gespeichert and "spät" not in gespeichert
    assert "Hafenstraße" not in gespeichert and "Eva Roth" not in gespeichert  # a witness is never compared
    protokoll = Loeschprotokoll.objects.get()
    assert protokoll.geloescht["für die Kollisionsprüfung behalten"] == 2
    assert "Art. 17 Abs. 3 lit. b und e" in protokoll.rechtsgrundlage and "§ 43a" in protokoll.rechtsgrundlage


@pytest.mark.django_db
def test_the_api_abfrage_finds_the_deleted_mandant_for_everybody(kanzlei: Kanzlei, geloescht: dict) -> None:
    for who in ("sekretariat", "anwalt"):
        antwort = kanzlei.client(who).post("/api/v1/kollisionspruefung",
                                           json.dumps({"namen": ["Müller, Hans"], "rolle": "gegner"}),
                                           content_type="application/json")
        assert antwort.status_code == 200, antwort.content
        daten = antwort.json()
        assert daten["konflikt"] is True
        [treffer] = daten["treffer"]
        assert treffer["aktenzeichen"] == "1/26" and "akte_id" not in treffer
        assert treffer["rolle"] == "mandant" and treffer["geloescht"] is True
        assert treffer["gefunden_als"] == "Hans Müller" and treffer["konflikt"] is True
        assert f"frühere Akte {geloescht['text']}" in treffer["hinweis"].replace("früheren", "frühere")
    # a name nobody had: nothing
    leer = kanzlei.client("sekretariat").post("/api/v1/kollisionspruefung",
                                              json.dumps({"namen": ["Hans Meier"]}),
                                              content_type="application/json").json()
    assert leer["treffer"] == []


@pytest.mark.django_db
def test_the_page_and_the_write_api_stop_at_the_deleted_akte_s_gegner(kanzlei: Kanzlei,
                                                                      geloescht: dict) -> None:
    akte = kanzlei.akten["B"]
    client = Client()
    client.force_login(kanzlei.users["anwalt"])
    seite = client.post(reverse("akten:beteiligter_neu", args=[akte.pk]),
                        {"rolle": "mandant", "anrede": "firma", "name": "Stahlbau GmbH"})
    assert seite.status_code == 409  # the confirm step
    text = seite.content.decode()
    assert "Kollisionsprüfung" in text and geloescht["text"] in text and "Interessenkollision" in text
    assert not Beteiligter.objects.filter(akte=akte, name="Stahlbau GmbH").exists()
    api = kanzlei.client("anwalt").post(f"/api/v1/akten/{akte.pk}/beteiligte",
                                        json.dumps({"rolle": "mandant", "name": "Stahlbau GmbH"}),
                                        content_type="application/json")
    assert api.status_code == 409 and api.json()["code"] == "kollision"
    assert geloescht["text"] in api.json()["treffer"][0]["hinweis"]
    assert not Beteiligter.objects.filter(akte=akte, name="Stahlbau GmbH").exists()


@pytest.mark.django_db
def test_a_gegner_deleted_alone_is_kept_as_an_entry_of_the_akte(kanzlei: Kanzlei, settings,
                                                                 django_capture_on_commit_callbacks) -> None:
    settings.HELENA_AKTEN_INDEX = "inline"
    akte = kanzlei.akten["C"]
    Beteiligter.objects.create(akte=akte, rolle="mandant", name="Eva Roth")
    gegner = Beteiligter.objects.create(akte=akte, rolle="gegner", name="Bauer Logistik GmbH",
                                        email="info@bauer.example")
    _loeschen_lassen(kanzlei, gegner, django_capture_on_commit_callbacks)
    assert Akte.objects.filter(pk=akte.pk).exists() and not Beteiligter.objects.filter(pk=gegner.pk).exists()
    [vermerk] = FruehererBeteiligter.objects.all()
    assert (vermerk.name, vermerk.rolle, vermerk.umfang) == ("Bauer Logistik GmbH", "gegner", "beteiligter")
    treffer = kanzlei.client("sekretariat").post(
        "/api/v1/kollisionspruefung", json.dumps({"namen": ["Bauer Logistik"], "rolle": "mandant"}),
        content_type="application/json").json()["treffer"]
    assert len(treffer) == 1
    assert "3/26 (Eintrag gelöscht nach § 50 BRAO, Mandat 2015–" in treffer[0]["hinweis"]


@pytest.mark.django_db
def test_only_the_administration_reads_the_records_in_the_admin(kanzlei: Kanzlei, geloescht: dict) -> None:
    vermerk = FruehererBeteiligter.objects.get(rolle="mandant")
    for who in ("sachbearbeiter", "anwalt", "admin"):
        user = kanzlei.users[who]
        user.is_staff = True
        user.save()
        user.user_permissions.add(*Permission.objects.filter(codename__in=["view_fruehererbeteiligter",
                                                                            "change_fruehererbeteiligter"]))
    liste = reverse("admin:akten_fruehererbeteiligter_changelist")
    eintrag = reverse("admin:akten_fruehererbeteiligter_change", args=[vermerk.pk])
    for who in ("sachbearbeiter", "anwalt"):
        client = Client()
        client.force_login(kanzlei.users[who])
        assert client.get(liste).status_code == 403 and client.get(eintrag).status_code == 403
        assert "Kollisionsvermerke" not in client.get(reverse("admin:index")).content.decode()
    admin = Client()
    admin.force_login(kanzlei.users["admin"])
    seite = admin.get(eintrag)
    assert seite.status_code == 200 and "Hans Müller" in seite.content.decode()
    assert "Hans Müller" in admin.get(liste).content.decode()
    assert admin.post(eintrag, {"name": "Geändert"}).status_code == 403  # read only
    loeschen = reverse("admin:akten_fruehererbeteiligter_delete", args=[vermerk.pk])
    assert admin.post(loeschen).status_code == 403
    assert FruehererBeteiligter.objects.get(pk=vermerk.pk).name == "Hans Müller"
