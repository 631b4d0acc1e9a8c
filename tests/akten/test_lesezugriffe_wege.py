"""The read log's other ways in (the review of issue 37 part 4), from the outside: every page, API
answer and admin view that shows an Akte's content leaves its row — the search box and the Akten search
quoting a Dokument or a Notiz, /akten/notizen/, the edit pages, a conversation about an Akte, a draft,
the admin's change views — each with one INSERT; a refused read leaves none. And the log's own
defects: the Verwaltung's log only for ADMIN, `bis=9999-12-31` a German 422, the CSV's limit said in
the file, its formula guard, the Akte page's section loaded only where it is shown."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from akten.lesezugriffe import views as lesezugriffe_views
from akten.models import Beteiligter, Dokument, Lesezugriff, Notiz, Role, User
from drafts.services import create_draft
from helena.models import Conversation, Message
from tests.conftest import Kanzlei, zweiter_faktor_gegeben

pytestmark = pytest.mark.django_db
API = "/api/v1"


def seite(kanzlei: Kanzlei, wer: str) -> Client:
    return zweiter_faktor_gegeben(kanzlei.users[wer])  # an Anwalt's session: with the second factor given


def rows() -> list[tuple[Any, ...]]:
    return [(z.person, z.weg, z.bereich, z.akte_id, z.dokument_id, z.objekt_id)
            for z in Lesezugriff.objects.order_by("pk")]


def inserts(captured: CaptureQueriesContext) -> list[str]:
    """The read log's statements of a request: one INSERT, nothing else."""
    return [q["sql"].split()[0] for q in captured.captured_queries if "akten_lesezugriff" in q["sql"]]


@pytest.fixture
def inhalt(kanzlei: Kanzlei) -> dict[str, Any]:
    """Akte A (sachbearbeiter sees it, the Praktikant does not) with a Dokument and a Notiz about Zürich,
    and the sachbearbeiter's own Notiz without an Akte."""
    a = kanzlei.akten["A"]
    return {
        "dokument": Dokument.objects.create(akte=a, titel="Vermerk Konto",
                                            inhalt="Das Geld liegt auf dem Konto in Zürich bereit."),
        "notiz": Notiz.objects.create(akte=a, titel="Rückruf", inhalt="Meier wegen Zürich anrufen.",
                                      verfasst_von=kanzlei.users["anwalt"]),
        "eigene": Notiz.objects.create(inhalt="Urlaub in Zürich buchen.",
                                       verfasst_von=kanzlei.users["sachbearbeiter"]),
        "beteiligter": Beteiligter.objects.create(akte=a, rolle="mandant", name="Hans Meier"),
    }


# --------------------------------------------------------------------------- searches quoting text


def test_the_search_box_records_each_quoted_dokument_and_notiz_once(kanzlei: Kanzlei, inhalt: dict) -> None:
    a, dok, notiz = kanzlei.akten["A"], inhalt["dokument"], inhalt["notiz"]
    with CaptureQueriesContext(connection) as api:
        body = kanzlei.client("sachbearbeiter").get(f"{API}/suche", {"q": "Zürich"}).json()
    assert {g["art"] for g in body["gruppen"]} == {"dokumente", "notizen"}
    assert "lesung" not in body["gruppen"][0]["treffer"][0]  # the JSON is as before
    assert inserts(api) == ["INSERT"]
    erwartet = [("sachbearbeiter", "api", "dokument_auszug", a.pk, dok.pk, None),
                ("sachbearbeiter", "api", "notiz_auszug", a.pk, None, notiz.pk)]
    assert rows() == erwartet  # the own Notiz without an Akte is no Akte's read
    assert Lesezugriff.objects.get(bereich="dokument_auszug").dokument_titel == "Vermerk Konto"
    Lesezugriff.objects.all().delete()
    with CaptureQueriesContext(connection) as page:
        assert seite(kanzlei, "sachbearbeiter").get("/suche/", {"q": "Zürich"}).status_code == 200
    assert inserts(page) == ["INSERT"]
    assert rows() == [(p, "seite", *rest) for p, _, *rest in erwartet]
    # what lists show (an Akte by its party's name), a jump to the Akte, a refused user: no row
    Lesezugriff.objects.all().delete()
    assert kanzlei.client("sachbearbeiter").get(f"{API}/suche", {"q": "Hans Meier"}).status_code == 200
    assert seite(kanzlei, "sachbearbeiter").get("/suche/", {"q": "1/26"}).status_code == 302
    assert kanzlei.client("praktikant").get(f"{API}/suche", {"q": "Zürich"}).json()["gruppen"] == []
    assert rows() == []


def test_the_akten_search_of_the_api_records_the_passages_it_quotes(kanzlei: Kanzlei, inhalt: dict) -> None:
    a = kanzlei.akten["A"]
    antwort = kanzlei.client("sachbearbeiter").get(f"{API}/knowledge/search",
                                                   {"q": "Zürich", "kind": "akten"})
    assert antwort.status_code == 200 and len(antwort.json()) == 2
    assert sorted(rows(), key=str) == sorted([
        ("sachbearbeiter", "api", "dokument_auszug", a.pk, inhalt["dokument"].pk, None),
        ("sachbearbeiter", "api", "notiz_auszug", a.pk, None, inhalt["notiz"].pk)], key=str)
    kanzlei.client("praktikant").get(f"{API}/knowledge/search", {"q": "Zürich", "kind": "akten"})
    assert Lesezugriff.objects.filter(person="praktikant").count() == 0


# --------------------------------------------------------------------------- pages showing content


def test_my_notizen_page_is_one_read_of_each_akte_s_notizen(kanzlei: Kanzlei, inhalt: dict) -> None:
    a, b = kanzlei.akten["A"], kanzlei.akten["B"]
    Notiz.objects.create(akte=a, inhalt="Zweite Notiz", verfasst_von=kanzlei.users["anwalt"])
    Notiz.objects.create(akte=b, inhalt="Schlüssel abholen", verfasst_von=kanzlei.users["anwalt"])
    Notiz.objects.create(akte=kanzlei.akten["C"], inhalt="geheim", verfasst_von=kanzlei.users["anwalt"])
    with CaptureQueriesContext(connection) as page:
        antwort = seite(kanzlei, "sachbearbeiter").get("/akten/notizen/")
    assert antwort.status_code == 200 and "Schlüssel abholen" in antwort.content.decode()
    assert inserts(page) == ["INSERT"]
    assert sorted((r[2], r[3]) for r in rows()) == sorted([("notizen", a.pk), ("notizen", b.pk)])


def test_the_edit_pages_are_reads_of_what_they_show(kanzlei: Kanzlei, inhalt: dict) -> None:
    a = kanzlei.akten["A"]
    frist, beteiligter = a.fristen.first(), inhalt["beteiligter"]
    client = seite(kanzlei, "sachbearbeiter")
    for pfad in (f"/akten/{a.pk}/bearbeiten/", f"/akten/{a.pk}/beteiligte/{beteiligter.pk}/bearbeiten/",
                 f"/akten/{a.pk}/fristen/{frist.pk}/bearbeiten/"):
        with CaptureQueriesContext(connection) as page:
            assert client.get(pfad).status_code == 200, pfad
        assert inserts(page) == ["INSERT"], pfad
    assert rows() == [("sachbearbeiter", "seite", "akte", a.pk, None, None),
                      ("sachbearbeiter", "seite", "beteiligter", a.pk, None, beteiligter.pk),
                      ("sachbearbeiter", "seite", "frist", a.pk, None, frist.pk)]
    fremd = seite(kanzlei, "sekretariat")  # sees only Akte B
    assert fremd.get(f"/akten/{a.pk}/bearbeiten/").status_code == 404
    assert fremd.get(f"/akten/{a.pk}/beteiligte/{beteiligter.pk}/bearbeiten/").status_code == 404
    assert Lesezugriff.objects.count() == 3


def test_a_conversation_about_an_akte_shown_or_exported_is_a_read_of_it(kanzlei: Kanzlei) -> None:
    a, anwalt = kanzlei.akten["A"], kanzlei.users["anwalt"]
    gespraech = Conversation.objects.create(user=anwalt, akte=a, context_type="akte", title="Kündigung")
    Message.objects.create(conversation=gespraech, role="user", text="Was schreibt der Gegner?")
    Message.objects.create(conversation=gespraech, role="assistant", text="Er bestreitet die Kündigung.")
    allgemein = Conversation.objects.create(user=anwalt, title="Allgemein")
    Message.objects.create(conversation=allgemein, role="user", text="Was ist § 622 BGB?")
    leer = Conversation.objects.create(user=anwalt, akte=a, context_type="akte")
    api = kanzlei.client("anwalt")
    with CaptureQueriesContext(connection) as get:
        assert api.get(f"{API}/helena/conversations/{gespraech.pk}").status_code == 200
    assert inserts(get) == ["INSERT"]
    assert seite(kanzlei, "anwalt").get(f"/helena/gespraech/{gespraech.pk}/").status_code == 200
    assert api.get(f"{API}/helena/conversations/{gespraech.pk}/export", {"format": "md"}).status_code == 200
    assert api.get(f"{API}/helena/conversations/{gespraech.pk}/export", {"format": "doc"}).status_code == 422
    assert api.get(f"{API}/helena/conversations/{allgemein.pk}").status_code == 200  # no Akte
    assert api.get(f"{API}/helena/conversations/{leer.pk}").status_code == 200  # nothing said yet
    fremd = kanzlei.client("sachbearbeiter")  # sees Akte A, but the conversation is the anwalt's
    assert fremd.get(f"{API}/helena/conversations/{gespraech.pk}").status_code == 404
    assert rows() == [("anwalt", "api", "gespraech", a.pk, None, None),
                      ("anwalt", "seite", "gespraech", a.pk, None, None),
                      ("anwalt", "export", "gespraech", a.pk, None, None)]
    assert Lesezugriff.objects.get(weg="export").format == "md"


def test_a_draft_shown_is_a_read_of_its_akte(kanzlei: Kanzlei) -> None:
    a, b = kanzlei.akten["A"], kanzlei.akten["B"]
    draft = create_draft(user=kanzlei.users["anwalt"], kind="notiz", akte_id=a.pk,
                         fields={"inhalt": "Mandant Meier zurückrufen"})
    create_draft(user=kanzlei.users["anwalt"], kind="notiz", akte_id=a.pk, fields={"inhalt": "Zweiter"})
    create_draft(user=kanzlei.users["anwalt"], kind="notiz", akte_id=b.pk, fields={"inhalt": "Dritter"})
    assert kanzlei.client("sachbearbeiter").get(f"{API}/drafts/{draft.pk}").status_code == 200
    client = seite(kanzlei, "sachbearbeiter")
    assert client.get(f"/entwuerfe/{draft.pk}/").status_code == 200
    assert client.get(f"/entwuerfe/{draft.pk}/", headers={"X-Requested-With": "fetch"}).status_code == 200
    with CaptureQueriesContext(connection) as inbox:
        assert client.get("/entwuerfe/").status_code == 200
    assert inserts(inbox) == ["INSERT"]
    assert [(r[1], r[2], r[3]) for r in rows()][:3] == [("api", "entwurf", a.pk), ("seite", "entwurf", a.pk),
                                                         ("seite", "entwurf", a.pk)]
    assert sorted(r[3] for r in rows()[3:]) == sorted([a.pk, b.pk])  # the inbox: one row per Akte
    assert kanzlei.client("sekretariat").get(f"{API}/drafts/{draft.pk}").status_code == 404
    assert seite(kanzlei, "sekretariat").get(f"/entwuerfe/{draft.pk}/").status_code == 404
    assert Lesezugriff.objects.filter(person="sekretariat").count() == 0


# --------------------------------------------------------------------------- the Django admin


def test_the_admin_s_change_views_of_akte_content_are_reads(kanzlei: Kanzlei, inhalt: dict,
                                                            admin_client: Client) -> None:
    a = kanzlei.akten["A"]
    frist = a.fristen.first()
    pfade = [("akte", a.pk, ("akte", a.pk, None, None)),
             ("dokument", inhalt["dokument"].pk, ("dokument", a.pk, inhalt["dokument"].pk, None)),
             ("beteiligter", inhalt["beteiligter"].pk, ("beteiligter", a.pk, None, inhalt["beteiligter"].pk)),
             ("notiz", inhalt["notiz"].pk, ("notiz", a.pk, None, inhalt["notiz"].pk)),
             ("frist", frist.pk, ("frist", a.pk, None, frist.pk))]
    for modell, pk, _ in pfade:
        with CaptureQueriesContext(connection) as view:
            assert admin_client.get(f"/admin/akten/{modell}/{pk}/change/").status_code == 200, modell
        assert inserts(view) == ["INSERT"], modell
    assert rows() == [("admin", "seite", *erwartet) for _, _, erwartet in pfade]
    # a list, an own Notiz without an Akte and a missing record: no read
    assert admin_client.get("/admin/akten/dokument/").status_code == 200
    assert admin_client.get(f"/admin/akten/notiz/{inhalt['eigene'].pk}/change/").status_code == 200
    assert admin_client.get("/admin/akten/akte/999999/change/").status_code == 302
    assert Lesezugriff.objects.count() == len(pfade)


def test_the_admin_s_read_log_is_for_the_administration_only(kanzlei: Kanzlei, admin_client: Client) -> None:
    Lesezugriff.objects.create(user=kanzlei.users["anwalt"], person="anwalt", akte=kanzlei.akten["C"],
                               aktenzeichen="3/26", weg="seite")
    staff = User.objects.create_user(username="staffsb", password="x", role=Role.SACHBEARBEITER,
                                     is_staff=True)
    staff.user_permissions.add(Permission.objects.get(codename="view_lesezugriff"))
    client = zweiter_faktor_gegeben(staff)
    assert client.get("/admin/akten/lesezugriff/").status_code == 403
    assert "Zugriffsprotokoll" not in client.get("/admin/").content.decode()
    voll = admin_client.get("/admin/akten/lesezugriff/")
    assert voll.status_code == 200 and "3/26" in voll.content.decode()


# --------------------------------------------------------------------------- the log's filters and CSV


def test_a_day_beyond_the_year_2999_is_a_german_422_everywhere(kanzlei: Kanzlei) -> None:
    a = kanzlei.akten["A"]
    for query in ({"bis": "9999-12-31"}, {"von": "31.12.9999"}, {"von": "0001-01-01"}):
        api = kanzlei.client("anwalt").get(f"{API}/akten/{a.pk}/zugriffe", query)
        assert api.status_code == 422 and "zwischen 1900 und 2999" in api.json()["detail"], query
        for pfad in (f"/akten/{a.pk}/zugriffe/", f"/akten/{a.pk}/zugriffe.csv"):
            antwort = seite(kanzlei, "anwalt").get(pfad, query)
            assert antwort.status_code == 422, (pfad, query)
            assert "zwischen 1900 und 2999" in antwort.content.decode(), (pfad, query)
    ok = kanzlei.client("anwalt").get(f"{API}/akten/{a.pk}/zugriffe", {"bis": "2999-12-31"})
    assert ok.status_code == 200


def _csv(antwort: Any) -> list[list[str]]:
    return list(csv.reader(io.StringIO(antwort.content.decode("utf-8-sig")), delimiter=";"))


def test_the_csv_says_when_it_is_cut_and_guards_every_cell_a_person_typed(kanzlei: Kanzlei,
                                                                         monkeypatch) -> None:
    a = kanzlei.akten["A"]
    formel = User.objects.create_user(username="=HYPERLINK(1)", password="x", role=Role.ANWALT)
    for i, titel in enumerate(("- Entwurf", "Klage - Entwurf", "@SUM(A1)")):
        Lesezugriff.objects.create(user=formel, person=f"Leser {i}", akte=a, aktenzeichen="1/26",
                                   weg="export", bereich="dokument", dokument_titel=titel)
    client = seite(kanzlei, "anwalt")
    zeilen = _csv(client.get(f"/akten/{a.pk}/zugriffe.csv"))
    assert len(zeilen) == 4
    assert {z[2] for z in zeilen[1:]} == {"'=HYPERLINK(1)"}
    assert sorted(z[5] for z in zeilen[1:]) == ["'- Entwurf", "'@SUM(A1)", "Klage - Entwurf"]
    monkeypatch.setattr(lesezugriffe_views, "CSV_HOECHSTENS", 2)
    gekappt = _csv(client.get(f"/akten/{a.pk}/zugriffe.csv"))
    assert len(gekappt) == 4 and gekappt[-1] == [
        "Nur die neuesten 2 Einträge – es gibt mehr. Bitte grenze mit Zeitraum, Person oder Weg ein."]
    monkeypatch.setattr(lesezugriffe_views, "CSV_HOECHSTENS", 3)  # exactly at the limit: nothing to say
    assert [z[1] for z in _csv(client.get(f"/akten/{a.pk}/zugriffe.csv"))[1:]] == ["Leser 2", "Leser 1",
                                                                                  "Leser 0"]


# --------------------------------------------------------------------------- the Akte page's section


def test_the_section_s_query_runs_only_where_the_section_is_shown(kanzlei: Kanzlei) -> None:
    a, client = kanzlei.akten["A"], seite(kanzlei, "anwalt")
    client.get(f"/akten/{a.pk}/")
    client.get(f"/akten/{a.pk}/")  # warm: sessions, the firm's settings
    with CaptureQueriesContext(connection) as fristen:
        antwort = client.get(f"/akten/{a.pk}/", {"tab": "fristen"})
    assert "wer hat gelesen" not in antwort.content.decode()
    assert inserts(fristen) == ["INSERT"]
    with CaptureQueriesContext(connection) as aktivitaet:
        antwort = client.get(f"/akten/{a.pk}/", {"tab": "aktivitaet"})
    assert "Zugriffe – wer hat gelesen" in antwort.content.decode()
    assert inserts(aktivitaet) == ["INSERT", "SELECT"]
    assert len(aktivitaet) == len(fristen) + 1  # the rows, not the Akte once more
