"""The small screens staff use daily: a Frist marked erledigt (with a Vermerk) or corrected by hand,
the user's Notizen and Hinweise outside the Akte, overdue Fristen on the list — each scoped and
role-checked, sent with the CSRF token, and tried with a user who must be refused."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from akten.accounts.users import FRIST_ROLES
from akten.erfassung.rechte import VERWEIGERT
from akten.models import Alert, Frist, Notiz
from drafts.roles import write_roles
from tests.conftest import Kanzlei

pytestmark = pytest.mark.django_db


def page_client(kanzlei: Kanzlei, username: str) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(kanzlei.users[username])
    return client


def post(client: Client, url: str, data: dict | None = None, **kwargs):
    """A form sent as the browser sends it: with the CSRF token of the session's cookie."""
    client.get("/akten/")  # sets the csrftoken cookie
    token = client.cookies["csrftoken"].value
    return client.post(url, {**(data or {}), "csrfmiddlewaretoken": token}, **kwargs)


def offene_frist(kanzlei: Kanzlei, key: str) -> Frist:
    return Frist.objects.get(akte=kanzlei.akten[key], erledigt=False)


def test_the_frist_roles_are_the_roles_that_decide_frist_drafts() -> None:
    assert write_roles("create_draft_frist") == FRIST_ROLES


def test_a_lawyer_marks_a_frist_erledigt_with_a_vermerk_and_opens_it_again(kanzlei: Kanzlei) -> None:
    frist, client = offene_frist(kanzlei, "A"), page_client(kanzlei, "anwalt")
    url = f"/akten/{frist.akte_id}/fristen/{frist.pk}/erledigt/"
    page = client.get(f"/akten/{frist.akte_id}/").content.decode()
    assert f'action="{url}"' in page and 'name="vermerk"' in page
    assert client.post(url, {"vermerk": "ohne Token"}).status_code == 403  # no CSRF token: refused
    response = post(client, url, {"vermerk": "   "})  # the one-click Erledigt is gone: a Vermerk is needed
    assert response.status_code == 200 and "Bitte vermerke kurz, was getan wurde" in response.content.decode()
    frist.refresh_from_db()
    assert not frist.erledigt
    response = post(client, url, {"vermerk": "Klageerwiderung per beA eingereicht"}, follow=True)
    assert "ist erledigt" in response.content.decode()
    frist.refresh_from_db()
    assert frist.erledigt and frist.erledigt_am is not None and frist.erledigt_von == kanzlei.users["anwalt"]
    assert frist.erledigt_vermerk == "Klageerwiderung per beA eingereicht"
    oeffnen = f"/akten/{frist.akte_id}/fristen/{frist.pk}/wieder-oeffnen/"
    assert "Warum ist die Frist wieder offen?" in post(client, oeffnen, {"grund": ""}).content.decode()
    frist.refresh_from_db()
    assert frist.erledigt
    response = post(client, oeffnen, {"grund": "Schriftsatz kam zurück"}, follow=True)
    assert "ist wieder offen" in response.content.decode()
    frist.refresh_from_db()
    assert not frist.erledigt and frist.erledigt_am is None
    verlauf = client.get(f"/akten/{frist.akte_id}/fristen/{frist.pk}/").content.decode()
    assert "Wieder offen: Schriftsatz kam zurück" in verlauf
    assert "Klageerwiderung per beA eingereicht" in verlauf  # the Vermerk stays in the Verlauf


@pytest.mark.parametrize("username", ["praktikant", "sekretariat"])
def test_roles_without_frist_rights_are_refused_and_see_no_buttons(kanzlei: Kanzlei, username: str) -> None:
    frist, client = offene_frist(kanzlei, "B"), page_client(kanzlei, username)
    page = client.get(f"/akten/{frist.akte_id}/").content.decode()
    assert "/erledigt/" not in page and "/fristen/neu/" not in page
    base = f"/akten/{frist.akte_id}/fristen"
    for response in (post(client, f"{base}/{frist.pk}/erledigt/", {"vermerk": "erledigt"}),
                     client.get(f"{base}/{frist.pk}/bearbeiten/"),
                     client.get(f"{base}/neu/"),
                     post(client, f"{base}/neu/", {"bezeichnung": "X", "typ": "frist",
                                                   "datum": "2030-01-07"}),
                     post(client, f"{base}/{frist.pk}/wieder-oeffnen/", {"grund": "x"}),
                     post(client, f"{base}/{frist.pk}/bestaetigen/")):
        assert response.status_code == 403
        assert VERWEIGERT["frist"] in response.content.decode()
    frist.refresh_from_db()
    assert not frist.erledigt
    assert Frist.objects.filter(bezeichnung="X").count() == 0


def test_a_frist_of_an_akte_one_may_not_see_is_not_found(kanzlei: Kanzlei) -> None:
    frist, client = offene_frist(kanzlei, "D"), page_client(kanzlei, "anwalt")
    assert post(client, f"/akten/{frist.akte_id}/fristen/{frist.pk}/erledigt/",
                {"vermerk": "x"}).status_code == 404
    other = offene_frist(kanzlei, "A")  # a visible Akte's path with a foreign Frist: also 404
    assert post(client, f"/akten/{other.akte_id}/fristen/{frist.pk}/erledigt/",
                {"vermerk": "x"}).status_code == 404
    assert client.get(f"/akten/{frist.akte_id}/fristen/{frist.pk}/").status_code == 404
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
    response = post(client, url, bad)
    assert response.status_code == 200
    assert "Die Vorfrist muss vor dem Fristende liegen." in response.content.decode()
    frist.refresh_from_db()
    assert frist.bezeichnung != "Klageerwiderung"
    good = {**bad, "vorfrist": (datum - timedelta(days=3)).isoformat(),
            "verantwortlich": kanzlei.users["anwalt"].pk}
    assert post(client, url, good).status_code == 302
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
    assert post(client, "/akten/hinweise/", {"alert_id": foreign.pk}).status_code == 404
    assert post(client, "/akten/hinweise/", {"alert_id": "x"}).status_code == 404
    post(client, "/akten/hinweise/", {"alert_id": mine.pk})
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
