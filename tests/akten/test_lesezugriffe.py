"""The read log (issue 37 part 4), from the outside: reading the Akte page, the API and a Dokument
leaves exactly the right rows (weg, bereich); the page pays one INSERT for it; GET /akten/{id}/zugriffe,
the page's section, the full page and the CSV answer only the Akte's Anwalt and ADMIN; the retention
task deletes only what is older than the firm's period."""

from __future__ import annotations

import csv
import io
from datetime import datetime, timedelta

import pytest
from dateutil.relativedelta import relativedelta
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from akten import views as akten_views
from akten.models import Akte, Dokument, Kanzleieinstellung, Lesezugriff, Notiz, Role, User, Zeiterfassung
from akten.services import grant_access
from akten.tasks import zugriffe_aufraeumen_task
from tests.conftest import Kanzlei, zweiter_faktor_gegeben

pytestmark = pytest.mark.django_db
API = "/api/v1"


def page_client(user: User) -> Client:
    return zweiter_faktor_gegeben(user)  # an Anwalt's session: with the second factor given


def rows(akte: Akte | None = None) -> list[tuple[str, str, str]]:
    qs = Lesezugriff.objects.order_by("pk")
    if akte is not None:
        qs = qs.filter(akte=akte)
    return [(z.person, z.weg, z.bereich) for z in qs]


@pytest.fixture
def dokument(kanzlei: Kanzlei) -> Dokument:
    return Dokument.objects.create(akte=kanzlei.akten["A"], titel="=Klageerwiderung", inhalt="Der Beklagte …")


# --------------------------------------------------------------------------- what is recorded


@pytest.mark.parametrize(("tab", "bereich"), [("", "akte"), ("uebersicht", "akte"), ("fristen", "fristen"),
                                              ("dokumente", "dokumente"), ("aktivitaet", "aktivitaet")])
def test_every_view_of_the_akte_page_is_one_read_by_the_page(kanzlei: Kanzlei, tab: str,
                                                             bereich: str) -> None:
    akte = kanzlei.akten["A"]
    client = page_client(kanzlei.users["sachbearbeiter"])
    response = client.get(f"/akten/{akte.pk}/", {"tab": tab} if tab else {})
    assert response.status_code == 200
    assert rows() == [("sachbearbeiter", "seite", bereich)]
    z = Lesezugriff.objects.get()
    assert z.akte == akte and z.aktenzeichen == "1/26" and z.user == kanzlei.users["sachbearbeiter"]
    assert z.run_id is None and z.dokument is None


@pytest.mark.parametrize(("wer", "tab"), [("sachbearbeiter", ""), ("anwalt", "fristen"), ("anwalt", "")])
def test_the_akte_page_costs_exactly_one_insert(kanzlei: Kanzlei, monkeypatch, wer: str, tab: str) -> None:
    """Also for the Akte's lawyer, who sees the log's section on the whole Akte (its rows: one SELECT
    besides, in both counts) and not on the other tabs."""
    akte, client = kanzlei.akten["A"], page_client(kanzlei.users[wer])
    for _ in range(2):  # warm: sessions, caches (the firm's settings row is made on the first request)
        client.get(f"/akten/{akte.pk}/", {"tab": tab})
    with CaptureQueriesContext(connection) as mit:
        assert client.get(f"/akten/{akte.pk}/", {"tab": tab}).status_code == 200
    monkeypatch.setattr(akten_views, "lesen", lambda **kwargs: None)
    with CaptureQueriesContext(connection) as ohne:
        assert client.get(f"/akten/{akte.pk}/", {"tab": tab}).status_code == 200
    assert len(mit) == len(ohne) + 1
    neu = [q["sql"] for q in mit.captured_queries if "akten_lesezugriff" in q["sql"]]
    assert neu[0].startswith('INSERT INTO "akten_lesezugriff"')
    assert len(neu) == (2 if (wer, tab) == ("anwalt", "") else 1)


def test_a_frist_page_is_a_read_of_that_frist(kanzlei: Kanzlei) -> None:
    akte = kanzlei.akten["A"]
    frist = akte.fristen.first()
    response = page_client(kanzlei.users["anwalt"]).get(f"/akten/{akte.pk}/fristen/{frist.pk}/")
    assert response.status_code == 200
    z = Lesezugriff.objects.get()
    assert (z.weg, z.bereich, z.objekt_id) == ("seite", "frist", frist.pk)


def test_api_reads_of_one_akte_are_recorded_lists_are_not(kanzlei: Kanzlei) -> None:
    akte, client = kanzlei.akten["A"], kanzlei.client("sachbearbeiter")
    Notiz.objects.create(akte=akte, inhalt="Rückruf", verfasst_von=kanzlei.users["anwalt"])
    Zeiterfassung.objects.create(akte=akte, user=kanzlei.users["anwalt"], dauer_minuten=30, taetigkeit="Akte")
    # lists across Akten and searches: no read of each Akte
    for path in ("/akten", "/fristen", "/aenderungen?seit=2026-01-01", "/suche?q=Meier"):
        assert client.get(API + path).status_code == 200, path
    assert rows() == []
    erwartet = [("", "akte"), ("/notizen", "notizen"), ("/zeiten", "zeiten"), ("/dokumente", "dokumente"),
                ("/aktivitaet", "aktivitaet"), ("/memory", "gedaechtnis")]
    for suffix, _ in erwartet:
        assert client.get(f"{API}/akten/{akte.pk}{suffix}").status_code == 200, suffix
    assert client.get(f"{API}/fristen", {"akte_id": akte.pk}).status_code == 200
    assert rows() == [("sachbearbeiter", "api", b) for _, b in [*erwartet, ("", "fristen")]]


def test_a_refused_read_records_nothing(kanzlei: Kanzlei, dokument: Dokument) -> None:
    client = kanzlei.client("sekretariat")  # sees only Akte B
    for path in (f"/akten/{kanzlei.akten['A'].pk}", f"/akten/{kanzlei.akten['A'].pk}/notizen",
                 f"/dokumente/{dokument.pk}", f"/dokumente/{dokument.pk}/datei?format=docx", "/akten/abc"):
        assert client.get(API + path).status_code == 404, path
    seite = page_client(kanzlei.users["sekretariat"])
    assert seite.get(f"/akten/{kanzlei.akten['A'].pk}/").status_code == 404
    assert Lesezugriff.objects.count() == 0


def test_a_dokument_read_and_downloaded(kanzlei: Kanzlei, dokument: Dokument) -> None:
    api, seite = kanzlei.client("anwalt"), page_client(kanzlei.users["sachbearbeiter"])
    assert api.get(f"{API}/dokumente/{dokument.pk}").status_code == 200
    assert api.get(f"{API}/dokumente/{dokument.pk}/datei", {"format": "docx"}).status_code == 200
    assert seite.get(f"/akten/dokumente/{dokument.pk}/datei/", {"format": "docx"}).status_code == 200
    # a download that cannot be made (no original file) is no read
    assert seite.get(f"/akten/dokumente/{dokument.pk}/datei/").status_code == 404
    got = [(z.person, z.weg, z.bereich, z.dokument_id, z.dokument_titel, z.format)
           for z in Lesezugriff.objects.order_by("pk")]
    assert got == [("anwalt", "api", "dokument", dokument.pk, "=Klageerwiderung", ""),
                   ("anwalt", "export", "dokument", dokument.pk, "=Klageerwiderung", "docx"),
                   ("sachbearbeiter", "export", "dokument", dokument.pk, "=Klageerwiderung", "docx")]


# --------------------------------------------------------------------------- who may read the log


@pytest.fixture
def kollegen(kanzlei: Kanzlei) -> dict[str, User]:
    """Who sees Akte A but must not see its log: its Sachbearbeitung, another lawyer with access and a
    Praktikant with access; and one who does not see it at all."""
    akte = kanzlei.akten["A"]
    zweiter = User.objects.create_user(username="anwalt2", password="x", role=Role.ANWALT)
    grant_access(akte=akte, user=zweiter, granted_by=kanzlei.users["admin"])
    grant_access(akte=akte, user=kanzlei.users["praktikant"], granted_by=kanzlei.users["admin"])
    return {"sachbearbeiter": kanzlei.users["sachbearbeiter"], "anwalt2": zweiter,
            "praktikant": kanzlei.users["praktikant"], "sekretariat": kanzlei.users["sekretariat"]}


@pytest.mark.parametrize(("wer", "status"), [("sachbearbeiter", 403), ("anwalt2", 403), ("praktikant", 403),
                                             ("sekretariat", 404)])
def test_nobody_but_the_akte_s_lawyer_and_admin_sees_the_log(kanzlei: Kanzlei, kollegen: dict, wer: str,
                                                             status: int) -> None:
    akte = kanzlei.akten["A"]
    Lesezugriff.objects.create(user=kanzlei.users["anwalt"], person="anwalt", akte=akte, aktenzeichen="1/26",
                               weg="seite")
    user = kollegen[wer]
    from akten.accounts.users import create_api_token

    api = Client(headers={"Authorization": f"Bearer {create_api_token(user=user)}"})
    antwort = api.get(f"{API}/akten/{akte.pk}/zugriffe")
    assert antwort.status_code == status
    assert "anwalt" not in antwort.json()["detail"] and antwort.json()["code"] in ("forbidden", "not_found")
    if status == 403:
        assert "Anwalt der Akte" in antwort.json()["detail"]
    seite = page_client(user)
    for path in (f"/akten/{akte.pk}/zugriffe/", f"/akten/{akte.pk}/zugriffe.csv"):
        r = seite.get(path)
        assert r.status_code == status, path
        assert b"Zugriffe \xe2\x80\x93 wer hat gelesen" not in r.content
    if status == 403:  # the Akte page itself: no section, no link
        inhalt = seite.get(f"/akten/{akte.pk}/").content.decode()
        assert "wer hat gelesen" not in inhalt and "/zugriffe/" not in inhalt


@pytest.mark.parametrize("wer", ["anwalt", "admin"])
def test_the_lawyer_and_admin_see_the_section_page_and_api(kanzlei: Kanzlei, kollegen: dict,
                                                           wer: str) -> None:
    akte = kanzlei.akten["A"]
    page_client(kollegen["sachbearbeiter"]).get(f"/akten/{akte.pk}/", {"tab": "notizen"})
    seite = page_client(kanzlei.users[wer])
    inhalt = seite.get(f"/akten/{akte.pk}/", {"tab": "aktivitaet"}).content.decode()
    assert "Zugriffe – wer hat gelesen" in inhalt
    assert "<strong>sachbearbeiter</strong> · Notizen der Akte" in inhalt
    assert f"/akten/{akte.pk}/zugriffe.csv" in inhalt
    voll = seite.get(f"/akten/{akte.pk}/zugriffe/").content.decode()
    assert "<strong>sachbearbeiter</strong> · Notizen der Akte" in voll and "Wer die Akte sieht" in voll
    antwort = kanzlei.client(wer).get(f"{API}/akten/{akte.pk}/zugriffe")
    assert antwort.status_code == 200
    assert [(r["person"], r["weg"], r["bereich"]) for r in antwort.json()][-1] == (
        "sachbearbeiter", "seite", "notizen")


# --------------------------------------------------------------------------- the API's list


def _reihe(kanzlei: Kanzlei) -> Akte:
    """Akte A read 5 times: by anwalt and sachbearbeiter, on several days, by several ways."""
    akte, jetzt = kanzlei.akten["A"], timezone.now()
    lesungen = [(40, "sachbearbeiter", "seite"), (20, "anwalt", "api"), (10, "sachbearbeiter", "api"),
                (2, "sachbearbeiter", "helena"), (0, "anwalt", "export")]
    for tage, wer, weg in lesungen:
        Lesezugriff.objects.create(zeitpunkt=jetzt - timedelta(days=tage), user=kanzlei.users[wer],
                                   person=wer, akte=akte, aktenzeichen="1/26", weg=weg)
    Lesezugriff.objects.create(user=kanzlei.users["anwalt"], person="anwalt", akte=kanzlei.akten["B"],
                               aktenzeichen="2/26", weg="seite")  # another Akte's: never in A's log
    return akte


def test_the_list_is_newest_first_paged_and_filtered(kanzlei: Kanzlei) -> None:
    akte, client = _reihe(kanzlei), kanzlei.client("anwalt")
    url = f"{API}/akten/{akte.pk}/zugriffe"
    alle = client.get(url)
    assert alle["X-Total-Count"] == "5"
    body = alle.json()
    assert [r["weg"] for r in body] == ["export", "helena", "api", "api", "seite"]
    assert set(body[0]) == {"id", "zeitpunkt", "person", "benutzer", "weg", "weg_text", "bereich",
                            "bereich_text", "objekt_id", "dokument_id", "dokument_titel", "format", "run_id"}
    assert body[0]["weg_text"] == "Datei heruntergeladen" and body[0]["benutzer"] == "anwalt"
    seite2 = client.get(url, {"limit": 2, "offset": 2})
    assert [r["weg"] for r in seite2.json()] == ["api", "api"] and seite2["X-Total-Count"] == "5"
    nur = client.get(url, {"person": "sachbearbeiter"}).json()
    assert [r["weg"] for r in nur] == ["helena", "api", "seite"]
    assert [r["weg"] for r in client.get(url, {"person": "ich"}).json()] == ["export", "api"]
    zeitraum = client.get(url, {"von": (timezone.localdate() - timedelta(days=25)).strftime("%d.%m.%Y"),
                                "bis": (timezone.localdate() - timedelta(days=5)).isoformat()}).json()
    assert [r["weg"] for r in zeitraum] == ["api", "api"]
    assert [r["weg"] for r in client.get(url, {"weg": "helena"}).json()] == ["helena"]


@pytest.mark.parametrize("query", [{"person": "niemand-da"}, {"von": "2026-05-01", "bis": "2026-04-01"},
                                   {"von": "31.02.2026"}, {"weg": "fax"}, {"limit": 0}, {"limit": 501}])
def test_a_bad_filter_is_a_german_422(kanzlei: Kanzlei, query: dict) -> None:
    akte = _reihe(kanzlei)
    antwort = kanzlei.client("anwalt").get(f"{API}/akten/{akte.pk}/zugriffe", query)
    assert antwort.status_code == 422 and antwort.json()["detail"]
    voll = page_client(kanzlei.users["anwalt"]).get(f"/akten/{akte.pk}/zugriffe/", query)
    if "limit" not in query:  # the page: the error on top, the whole log below, no 500
        assert voll.status_code == 422 and "<strong>anwalt</strong>" in voll.content.decode()


def test_the_page_pages_by_fifty(kanzlei: Kanzlei) -> None:
    akte = kanzlei.akten["A"]
    Lesezugriff.objects.bulk_create(
        Lesezugriff(zeitpunkt=timezone.now() - timedelta(minutes=i), user=kanzlei.users["anwalt"],
                    person=f"Leser {i:02}", akte=akte, aktenzeichen="1/26", weg="api") for i in range(60))
    client = page_client(kanzlei.users["anwalt"])
    erste = client.get(f"/akten/{akte.pk}/zugriffe/").content.decode()
    assert "Leser 00" in erste and "Leser 49" in erste and "Leser 50" not in erste and "seite=2" in erste
    zweite = client.get(f"/akten/{akte.pk}/zugriffe/", {"seite": 2}).content.decode()
    assert "Leser 50" in zweite and "Leser 59" in zweite and "Leser 00" not in zweite


# --------------------------------------------------------------------------- CSV


def test_the_csv_opens_in_excel(kanzlei: Kanzlei, dokument: Dokument) -> None:
    akte = kanzlei.akten["A"]
    kanzlei.client("sachbearbeiter").get(f"{API}/dokumente/{dokument.pk}/datei", {"format": "docx"})
    am = timezone.make_aware(datetime(2026, 3, 9, 14, 5))  # German time
    Lesezugriff.objects.filter(akte=akte).update(zeitpunkt=am)
    antwort = page_client(kanzlei.users["anwalt"]).get(f"/akten/{akte.pk}/zugriffe.csv")
    assert antwort.status_code == 200 and antwort["Content-Type"] == "text/csv; charset=utf-8"
    assert 'filename="zugriffe-1-26-' in antwort["Content-Disposition"]
    roh = antwort.content
    assert roh.startswith(b"\xef\xbb\xbf")  # UTF-8 BOM
    zeilen = list(csv.reader(io.StringIO(roh.decode("utf-8-sig")), delimiter=";"))
    assert zeilen[0] == ["Zeitpunkt", "Person", "Benutzername", "Weg", "Was", "Dokument", "Format",
                         "Helena-Lauf"]
    assert zeilen[1] == ["09.03.2026 14:05:00", "sachbearbeiter", "sachbearbeiter", "Datei heruntergeladen",
                         "ein Dokument", "'=Klageerwiderung", "docx", ""]  # a formula is written as text
    gefiltert = page_client(kanzlei.users["anwalt"]).get(f"/akten/{akte.pk}/zugriffe.csv", {"weg": "seite"})
    assert len(list(csv.reader(io.StringIO(gefiltert.content.decode("utf-8-sig")), delimiter=";"))) == 1


# --------------------------------------------------------------------------- keeping and deleting


def test_retention_deletes_only_what_is_older_than_the_firm_s_period(kanzlei: Kanzlei) -> None:
    akte, jetzt = kanzlei.akten["A"], timezone.now()
    assert Kanzleieinstellung.aktuell().zugriffe_aufbewahren_monate == 12
    for monate in (13, 11, 2):
        Lesezugriff.objects.create(zeitpunkt=jetzt - relativedelta(months=monate), person=f"vor {monate}",
                                   akte=akte, aktenzeichen="1/26", weg="seite")
    assert zugriffe_aufraeumen_task() == 1
    assert sorted(Lesezugriff.objects.values_list("person", flat=True)) == ["vor 11", "vor 2"]
    Kanzleieinstellung.objects.update(zugriffe_aufbewahren_monate=3)
    assert zugriffe_aufraeumen_task() == 1
    assert list(Lesezugriff.objects.values_list("person", flat=True)) == ["vor 2"]


def test_the_log_outlives_the_person_and_the_akte(kanzlei: Kanzlei) -> None:
    akte = kanzlei.akten["A"]
    leser = User.objects.create_user(username="weg", password="x", first_name="Wera", last_name="Weg",
                                     role=Role.SACHBEARBEITER)
    grant_access(akte=akte, user=leser, granted_by=kanzlei.users["admin"])
    page_client(leser).get(f"/akten/{akte.pk}/")
    leser.delete()
    (row,) = kanzlei.client("anwalt").get(f"{API}/akten/{akte.pk}/zugriffe").json()
    assert (row["person"], row["benutzer"]) == ("Wera Weg", None)
    seite = page_client(kanzlei.users["anwalt"]).get(f"/akten/{akte.pk}/zugriffe/")
    assert "Benutzer gelöscht" in seite.content.decode()
    akte.delete()
    z = Lesezugriff.objects.get()
    assert (z.akte_id, z.aktenzeichen, z.person) == (None, "1/26", "Wera Weg")
