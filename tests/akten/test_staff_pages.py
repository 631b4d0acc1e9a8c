"""The small screens staff use daily: a Frist marked erledigt or corrected by hand, the user's
Notizen and Hinweise outside the Akte, overdue Fristen on the list — each scoped and role-checked,
and tried with a user who must be refused."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from akten.models import Alert, Frist, Notiz
from akten.users import FRIST_ROLES
from drafts.roles import write_roles
from tests.conftest import Kanzlei

pytestmark = pytest.mark.django_db


def page_client(kanzlei: Kanzlei, username: str) -> Client:
    client = Client()
    client.force_login(kanzlei.users[username])
    return client


def offene_frist(kanzlei: Kanzlei, key: str) -> Frist:
    return Frist.objects.get(akte=kanzlei.akten[key], erledigt=False)


def test_the_frist_roles_are_the_roles_that_decide_frist_drafts() -> None:
    assert write_roles("create_draft_frist") == FRIST_ROLES


def test_a_lawyer_marks_a_frist_erledigt_and_opens_it_again(kanzlei: Kanzlei) -> None:
    frist, client = offene_frist(kanzlei, "A"), page_client(kanzlei, "anwalt")
    url = f"/akten/{frist.akte_id}/fristen/{frist.pk}/erledigt/"
    assert f'action="{url}"' in client.get(f"/akten/{frist.akte_id}/").content.decode()
    response = client.post(url, follow=True)
    assert "ist erledigt" in response.content.decode()
    frist.refresh_from_db()
    assert frist.erledigt and frist.erledigt_am is not None
    client.post(url, {"erledigt": "0"})
    frist.refresh_from_db()
    assert not frist.erledigt and frist.erledigt_am is None


@pytest.mark.parametrize("username", ["praktikant", "sekretariat"])
def test_roles_without_frist_rights_are_refused_and_see_no_buttons(kanzlei: Kanzlei, username: str) -> None:
    frist, client = offene_frist(kanzlei, "B"), page_client(kanzlei, username)
    assert "/erledigt/" not in client.get(f"/akten/{frist.akte_id}/").content.decode()
    for response in (client.post(f"/akten/{frist.akte_id}/fristen/{frist.pk}/erledigt/"),
                     client.get(f"/akten/{frist.akte_id}/fristen/{frist.pk}/bearbeiten/")):
        assert response.status_code == 403
        assert "Fristen ändern dürfen" in response.content.decode()
    frist.refresh_from_db()
    assert not frist.erledigt


def test_a_frist_of_an_akte_one_may_not_see_is_not_found(kanzlei: Kanzlei) -> None:
    frist, client = offene_frist(kanzlei, "D"), page_client(kanzlei, "anwalt")
    assert client.post(f"/akten/{frist.akte_id}/fristen/{frist.pk}/erledigt/").status_code == 404
    other = offene_frist(kanzlei, "A")  # a visible Akte's path with a foreign Frist: also 404
    assert client.post(f"/akten/{other.akte_id}/fristen/{frist.pk}/erledigt/").status_code == 404
    frist.refresh_from_db()
    assert not frist.erledigt


def test_correcting_a_frist_checks_it_like_the_record_does(kanzlei: Kanzlei) -> None:
    frist, client = offene_frist(kanzlei, "A"), page_client(kanzlei, "sachbearbeiter")
    url = f"/akten/{frist.akte_id}/fristen/{frist.pk}/bearbeiten/"
    page = client.get(url).content.decode()
    assert "Frist bearbeiten" in page and 'type="date"' in page
    datum = frist.datum
    bad = {"bezeichnung": "Klageerwiderung", "typ": "frist", "datum": datum.isoformat(),
           "vorfrist": (datum + timedelta(days=2)).isoformat()}
    response = client.post(url, bad)
    assert response.status_code == 200
    assert "Die Vorfrist muss vor dem Fristende liegen." in response.content.decode()
    frist.refresh_from_db()
    assert frist.bezeichnung != "Klageerwiderung"
    good = {**bad, "vorfrist": (datum - timedelta(days=3)).isoformat(),
            "verantwortlich": kanzlei.users["anwalt"].pk}
    assert client.post(url, good).status_code == 302
    frist.refresh_from_db()
    assert (frist.bezeichnung, frist.vorfrist, frist.verantwortlich) == (
        "Klageerwiderung", datum - timedelta(days=3), kanzlei.users["anwalt"])


def test_notizen_and_hinweise_outside_the_akte_are_scoped(kanzlei: Kanzlei) -> None:
    b, c = kanzlei.akten["B"], kanzlei.akten["C"]
    praktikant = kanzlei.users["praktikant"]
    Notiz.objects.create(akte=b, titel="Schlüsselübergabe", inhalt="Am Montag im Büro.")
    Notiz.objects.create(akte=c, titel="Vertraulich", inhalt="Testament im Tresor.")
    Notiz.objects.create(verfasst_von=praktikant, titel="Eigene", inhalt="Gesetzestexte lesen.")
    mine = Alert.objects.create(empfaenger=praktikant, message="Bitte Wiedervorlage prüfen.")
    foreign = Alert.objects.create(akte=c, message="Vertraulicher Hinweis zu C.")
    client = page_client(kanzlei, "praktikant")
    notizen = client.get("/akten/notizen/").content.decode()
    assert "Schlüsselübergabe" in notizen and "Eigene" in notizen and "Testament" not in notizen
    hinweise = client.get("/akten/hinweise/").content.decode()
    assert "Bitte Wiedervorlage prüfen." in hinweise and "Vertraulicher Hinweis" not in hinweise
    assert client.post("/akten/hinweise/", {"alert_id": foreign.pk}).status_code == 404
    assert client.post("/akten/hinweise/", {"alert_id": "x"}).status_code == 404
    client.post("/akten/hinweise/", {"alert_id": mine.pk})
    mine.refresh_from_db()
    foreign.refresh_from_db()
    assert mine.gelesen and not foreign.gelesen


def test_the_akten_list_shows_overdue_and_next_fristen(kanzlei: Kanzlei) -> None:
    heute = timezone.localdate()
    akte = kanzlei.akten["A"]
    Frist.objects.create(akte=akte, bezeichnung="Stellungnahme", datum=heute - timedelta(days=2))
    page = page_client(kanzlei, "anwalt").get("/akten/").content.decode()
    assert "1 überfällig" in page
    assert f"nächste Frist <time datetime=\"{(heute + timedelta(days=5)).isoformat()}\">" in page
