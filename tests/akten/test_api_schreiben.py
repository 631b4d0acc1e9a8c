"""The write API seen from another system of the firm: records created and changed through the same
rules as the pages (roles, scoping, Kollisionsprüfung), named by their `extern_id`, retried safely with
an Idempotency-Key, protected against overwriting a change not seen, and followed by /aenderungen."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.test import Client
from django.utils import timezone

from akten.models import Akte, Beteiligter, Frist, Kollisionspruefung, Notiz, Zeiterfassung
from akten.services import grant_access
from tests.conftest import Kanzlei

pytestmark = pytest.mark.django_db


def post(client: Client, path: str, body: dict, **headers: str):
    return client.post(path, data=json.dumps(body), content_type="application/json", headers=headers)


def patch(client: Client, path: str, body: dict, **headers: str):
    return client.patch(path, data=json.dumps(body), content_type="application/json", headers=headers)


# --- Akten -------------------------------------------------------------------------------------


def test_sekretariat_opens_an_akte_which_it_then_sees(kanzlei: Kanzlei) -> None:
    client = kanzlei.client("sekretariat")
    response = post(
        client,
        "/api/v1/akten",
        {
            "kurzrubrum": "Krüger ./. Autohaus Süd GmbH",
            "wegen": "Gewährleistung Gebrauchtwagen",
            "rechtsgebiet": "kaufrecht",
            "gegenstandswert": "8500,00",
            "anwalt": "anwalt",
            "bundesland": "NW",
            "extern_id": "FIBU-4711",
        },
    )
    assert response.status_code == 201, response.content
    akte = response.json()
    assert akte["aktenzeichen"] and akte["gegenstandswert"] == "8500.00"
    assert akte["anwalt"]["username"] == "anwalt" and akte["extern_id"] == "FIBU-4711" and akte["version"]
    assert client.get(f"/api/v1/akten/{akte['id']}").status_code == 200
    # the responsible lawyer sees it too; the Praktikant, never granted, does not
    assert kanzlei.client("anwalt").get(f"/api/v1/akten/{akte['id']}").status_code == 200
    assert kanzlei.client("praktikant").get(f"/api/v1/akten/{akte['id']}").status_code == 404
    gespeichert = Akte.objects.get(pk=akte["id"])
    assert gespeichert.history.first().history_user == kanzlei.users["sekretariat"]
    found = client.get("/api/v1/akten", {"extern_id": "FIBU-4711"}).json()
    assert [a["id"] for a in found] == [akte["id"]]


@pytest.mark.parametrize("username", ["praktikant", None])
def test_who_may_not_open_akten_is_refused_and_nothing_is_made(
    kanzlei: Kanzlei, username: str | None
) -> None:
    vorher = Akte.objects.count()
    response = post(kanzlei.client(username), "/api/v1/akten", {"kurzrubrum": "Darf nicht"})
    assert response.status_code == (403 if username else 401)
    assert response.json()["detail"]
    assert Akte.objects.count() == vorher


def test_bad_input_is_a_german_422_and_changes_nothing(kanzlei: Kanzlei) -> None:
    client = kanzlei.client("anwalt")
    vorher = Akte.objects.count()
    for body in (
        {"kurzrubrum": "  "},
        {"kurzrubrum": "X", "kurzrubrik": "Tippfehler"},
        {"kurzrubrum": "X", "gegenstandswert": "viel"},
        {"kurzrubrum": "X", "anwalt": "niemand"},
        {"kurzrubrum": "X", "anwalt": "sekretariat"},
        {"kurzrubrum": "X", "aktenzeichen": "1/26"},
    ):
        response = post(client, "/api/v1/akten", body)
        assert response.status_code == 422, (body, response.content)
        assert response.json()["code"] and response.json()["detail"]
    assert Akte.objects.count() == vorher


def test_a_second_akte_with_the_same_extern_id_is_a_409(kanzlei: Kanzlei) -> None:
    erste = post(
        kanzlei.client("anwalt"), "/api/v1/akten", {"kurzrubrum": "Erste", "extern_id": "K-1"}
    ).json()
    again = post(kanzlei.client("anwalt"), "/api/v1/akten", {"kurzrubrum": "Zweite", "extern_id": "K-1"})
    assert again.status_code == 409
    assert again.json()["code"] == "extern_id_vergeben" and again.json()["id"] == erste["id"]
    # someone who may not see the first Akte learns only that the id is taken, not which Akte has it
    fremd = post(kanzlei.client("sekretariat"), "/api/v1/akten", {"kurzrubrum": "Dritte", "extern_id": "K-1"})
    assert fremd.status_code == 409 and "id" not in fremd.json()
    assert Akte.objects.filter(extern_id="K-1").count() == 1
    # other record types have their own ids: a Frist may carry "K-1" too
    frist = post(
        kanzlei.client("anwalt"),
        f"/api/v1/akten/{erste['id']}/fristen",
        {"bezeichnung": "Klageerwiderung", "datum": "2026-12-14", "extern_id": "K-1"},
    )
    assert frist.status_code == 201


# --- Idempotency-Key ----------------------------------------------------------------------------


def test_a_retried_post_with_its_key_answers_the_first_answer_and_creates_nothing(kanzlei: Kanzlei) -> None:
    client = kanzlei.client("anwalt")
    body = {"kurzrubrum": "Retry ./. Timeout", "wegen": "Werklohn"}
    erste = post(client, "/api/v1/akten", body, **{"Idempotency-Key": "5b0c6a52-retry"})
    zweite = post(
        client, "/api/v1/akten", dict(reversed(body.items())), **{"Idempotency-Key": "5b0c6a52-retry"}
    )
    assert erste.status_code == zweite.status_code == 201
    assert zweite.json() == erste.json() and zweite.headers["Idempotent-Replayed"] == "true"
    assert Akte.objects.filter(kurzrubrum="Retry ./. Timeout").count() == 1
    # the same key for another request is refused, and makes nothing
    anders = post(
        client, "/api/v1/akten", {"kurzrubrum": "Etwas anderes"}, **{"Idempotency-Key": "5b0c6a52-retry"}
    )
    assert anders.status_code == 422 and anders.json()["code"] == "idempotency_key"
    assert not Akte.objects.filter(kurzrubrum="Etwas anderes").exists()
    # keys are per user: another user's identical key is another request
    other = post(
        kanzlei.client("sekretariat"), "/api/v1/akten", body, **{"Idempotency-Key": "5b0c6a52-retry"}
    )
    assert other.status_code == 201 and other.json()["id"] != erste.json()["id"]


def test_a_failed_post_is_not_kept_so_its_retry_may_succeed(kanzlei: Kanzlei) -> None:
    client = kanzlei.client("anwalt")
    akte = kanzlei.akten["A"]
    key = {"Idempotency-Key": "zeit-1"}
    assert (
        post(
            client, f"/api/v1/akten/{akte.pk}/zeiten", {"dauer_minuten": 0, "taetigkeit": "x"}, **key
        ).status_code
        == 422
    )
    ok = post(
        client,
        f"/api/v1/akten/{akte.pk}/zeiten",
        {"dauer_minuten": 30, "taetigkeit": "Telefonat"},
        **{"Idempotency-Key": "zeit-2"},
    )
    assert ok.status_code == 201
    assert (
        post(
            client,
            f"/api/v1/akten/{akte.pk}/zeiten",
            {"dauer_minuten": 30, "taetigkeit": "Telefonat"},
            **{"Idempotency-Key": "zeit-2"},
        ).json()["id"]
        == ok.json()["id"]
    )
    assert Zeiterfassung.objects.filter(akte=akte, taetigkeit="Telefonat").count() == 1


@pytest.mark.django_db(transaction=True)
def test_two_racing_retries_with_one_key_create_one_record(kanzlei: Kanzlei) -> None:
    akte = kanzlei.akten["A"]

    def senden(_: int):
        return post(
            kanzlei.client("anwalt"),
            f"/api/v1/akten/{akte.pk}/notizen",
            {"inhalt": "Mandant rief an, Unterlagen folgen."},
            **{"Idempotency-Key": "race-7"},
        )

    with ThreadPoolExecutor(max_workers=4) as pool:
        antworten = list(pool.map(senden, range(4)))
    assert {a.status_code for a in antworten} == {201}
    assert len({a.json()["id"] for a in antworten}) == 1
    assert Notiz.objects.filter(akte=akte, inhalt__startswith="Mandant rief an").count() == 1


# --- PATCH with If-Match -----------------------------------------------------------------------


def test_a_stale_patch_is_refused_and_a_fresh_one_applies(kanzlei: Kanzlei) -> None:
    akte = kanzlei.akten["A"]
    buchhaltung, kanzleisoftware = kanzlei.client("anwalt"), kanzlei.client("sachbearbeiter")
    etag = buchhaltung.get(f"/api/v1/akten/{akte.pk}").headers["ETag"]
    gelesen = kanzleisoftware.get(f"/api/v1/akten/{akte.pk}").json()["version"]
    geaendert = patch(
        buchhaltung, f"/api/v1/akten/{akte.pk}", {"gegenstandswert": "15000.00"}, **{"If-Match": etag}
    )
    assert geaendert.status_code == 200, geaendert.content
    assert geaendert.json()["gegenstandswert"] == "15000.00" and geaendert.headers["ETag"] != etag
    # the other system read before that change: its PATCH must not overwrite what it never saw
    veraltet = patch(
        kanzleisoftware, f"/api/v1/akten/{akte.pk}", {"gegenstandswert": "9000", "version": gelesen}
    )
    assert veraltet.status_code == 409 and veraltet.json()["code"] == "veraltet"
    assert "inzwischen geändert" in veraltet.json()["detail"]
    assert (
        patch(kanzleisoftware, f"/api/v1/akten/{akte.pk}", {"wegen": "x"}, **{"If-Match": etag}).status_code
        == 409
    )
    akte.refresh_from_db()
    assert str(akte.gegenstandswert) == "15000.00" and akte.wegen == "Kündigungsschutz"
    # read again, then it works
    frisch = kanzleisoftware.get(f"/api/v1/akten/{akte.pk}").headers["ETag"]
    assert (
        patch(
            kanzleisoftware,
            f"/api/v1/akten/{akte.pk}",
            {"wegen": "Kündigungsschutz, Lohn"},
            **{"If-Match": frisch},
        ).status_code
        == 200
    )


def test_patch_changes_only_what_is_sent_and_keeps_the_rules(kanzlei: Kanzlei) -> None:
    akte = kanzlei.akten["A"]
    anwalt = kanzlei.client("anwalt")
    ok = patch(anwalt, f"/api/v1/akten/{akte.pk}", {"tags": ["eilig"], "extern_id": "FIBU-1"})
    assert ok.status_code == 200 and ok.json()["kurzrubrum"] == "Meier ./. Stahlbau GmbH"
    assert ok.json()["tags"] == ["eilig"]
    # closing an Akte is the lawyers': the Sachbearbeitung is refused, nothing changes
    assert (
        patch(
            kanzlei.client("sachbearbeiter"), f"/api/v1/akten/{akte.pk}", {"status": "geschlossen"}
        ).status_code
        == 403
    )
    assert (
        patch(
            kanzlei.client("praktikant"), f"/api/v1/akten/{kanzlei.akten['B'].pk}", {"wegen": "x"}
        ).status_code
        == 403
    )
    # an Akte one may not see is a 404, never its data
    fremd = patch(kanzlei.client("sekretariat"), f"/api/v1/akten/{akte.pk}", {"wegen": "x"})
    assert fremd.status_code == 404 and "Meier" not in fremd.content.decode()
    assert patch(anwalt, f"/api/v1/akten/{akte.pk}", {"kurzrubrum": None}).status_code == 422
    akte.refresh_from_db()
    assert akte.status == "offen" and akte.wegen == "Kündigungsschutz" and akte.extern_id == "FIBU-1"


# --- Beteiligte, Fristen, Notizen, Zeiten ------------------------------------------------------


def test_a_party_runs_the_kollisionspruefung_and_is_added_only_when_confirmed(kanzlei: Kanzlei) -> None:
    Beteiligter.objects.create(akte=kanzlei.akten["D"], rolle="mandant", name="Bauer Logistik GmbH")
    akte = kanzlei.akten["A"]
    client = kanzlei.client("anwalt")
    body = {"rolle": "gegner", "name": "Bauer Logistik GmbH", "anrede": "firma", "extern_id": "ADR-77"}
    treffer = post(client, f"/api/v1/akten/{akte.pk}/beteiligte", body)
    assert treffer.status_code == 409 and treffer.json()["code"] == "kollision"
    assert treffer.json()["treffer"] and "4/26" not in treffer.content.decode()  # Akte D is not the anwalt's
    assert not Beteiligter.objects.filter(akte=akte, name="Bauer Logistik GmbH").exists()
    bestaetigt = post(
        client,
        f"/api/v1/akten/{akte.pk}/beteiligte",
        {**body, "kollision_bestaetigt": True, "kollision_begruendung": "Andere Firma, geprüft"},
    )
    assert bestaetigt.status_code == 201 and bestaetigt.json()["extern_id"] == "ADR-77"
    pruefung = Kollisionspruefung.objects.filter(akte=akte).latest("pk")
    assert pruefung.anlass == "api" and pruefung.begruendung == "Andere Firma, geprüft"
    assert (
        post(
            kanzlei.client("praktikant"),
            f"/api/v1/akten/{kanzlei.akten['B'].pk}/beteiligte",
            {"rolle": "zeuge", "name": "Zeugin Z"},
        ).status_code
        == 403
    )
    assert (
        post(
            kanzlei.client("sekretariat"),
            f"/api/v1/akten/{akte.pk}/beteiligte",
            {"rolle": "zeuge", "name": "Zeugin Z"},
        ).status_code
        == 404
    )


def test_fristen_notizen_and_zeiten_by_role(kanzlei: Kanzlei) -> None:
    akte = kanzlei.akten["A"]
    sach = kanzlei.client("sachbearbeiter")
    frist = post(
        sach,
        f"/api/v1/akten/{akte.pk}/fristen",
        {
            "bezeichnung": "Berufungsbegründung",
            "datum": "2027-01-11",
            "vorfrist": "2027-01-04",
            "ist_notfrist": True,
            "verantwortlich": "anwalt",
            "extern_id": "BEA-9",
        },
    )
    assert frist.status_code == 201, frist.content
    assert frist.json()["verantwortlich"]["username"] == "anwalt" and frist.json()["ist_notfrist"]
    assert (
        Frist.objects.get(pk=frist.json()["id"]).history.first().history_change_reason
        == "über die API angelegt"
    )
    falsch = post(
        sach,
        f"/api/v1/akten/{akte.pk}/fristen",
        {"bezeichnung": "X", "datum": "2027-01-11", "vorfrist": "2027-01-20"},
    )
    assert falsch.status_code == 422 and "Vorfrist" in falsch.json()["detail"]
    assert (
        post(
            kanzlei.client("sekretariat"),
            f"/api/v1/akten/{kanzlei.akten['B'].pk}/fristen",
            {"bezeichnung": "X", "datum": "2027-01-11"},
        ).status_code
        == 403
    )
    notiz = post(
        kanzlei.client("sekretariat"),
        f"/api/v1/akten/{kanzlei.akten['B'].pk}/notizen",
        {"titel": "Anruf", "inhalt": "Gegenseite bittet um Rückruf."},
    )
    assert notiz.status_code == 201 and notiz.json()["verfasst_von"]["username"] == "sekretariat"
    assert (
        post(
            kanzlei.client("praktikant"), f"/api/v1/akten/{kanzlei.akten['B'].pk}/notizen", {"inhalt": "x"}
        ).status_code
        == 403
    )
    zeit = post(
        sach,
        f"/api/v1/akten/{akte.pk}/zeiten",
        {"datum": "27.11.2026", "dauer_minuten": 45, "taetigkeit": "Schriftsatz entworfen"},
    )
    assert zeit.status_code == 201 and zeit.json()["datum"] == "2026-11-27"
    assert (
        post(
            kanzlei.client("sekretariat"),
            f"/api/v1/akten/{kanzlei.akten['B'].pk}/zeiten",
            {"dauer_minuten": 5, "taetigkeit": "x"},
        ).status_code
        == 403
    )
    assert (
        post(
            sach, f"/api/v1/akten/{kanzlei.akten['D'].pk}/zeiten", {"dauer_minuten": 5, "taetigkeit": "x"}
        ).status_code
        == 404
    )


# --- GET /aenderungen ----------------------------------------------------------------------------


def test_the_changes_feed_lists_what_changed_in_akten_the_caller_may_see(kanzlei: Kanzlei) -> None:
    seit = timezone.now().isoformat()  # after the Kanzlei was made
    anwalt = kanzlei.client("anwalt")
    a, d = kanzlei.akten["A"], kanzlei.akten["D"]
    patch(anwalt, f"/api/v1/akten/{a.pk}", {"wegen": "Kündigungsschutz und Lohn"})
    frist = post(
        anwalt,
        f"/api/v1/akten/{a.pk}/fristen",
        {"bezeichnung": "Gütetermin", "typ": "termin", "datum": "2027-02-01", "extern_id": "T-1"},
    ).json()
    post(anwalt, f"/api/v1/akten/{a.pk}/fristen/{frist['id']}/erledigt", {"vermerk": "Termin wahrgenommen"})
    post(kanzlei.client("admin"), f"/api/v1/akten/{d.pk}/notizen", {"inhalt": "Geheim: Vergleichsangebot"})
    grant_access(
        akte=kanzlei.akten["D"], user=kanzlei.users["sekretariat"], granted_by=kanzlei.users["admin"]
    )

    rows = anwalt.get("/api/v1/aenderungen", {"seit": seit})
    assert rows.status_code == 200 and rows.headers["X-Weitere"] == "false"
    was = [(r["typ"], r["was"]) for r in rows.json()]
    assert ("akte", "geaendert") in was and ("frist", "angelegt") in was and ("frist", "erledigt") in was
    akte_row = next(r for r in rows.json() if r["typ"] == "akte")
    assert akte_row["felder"] == ["wegen"] and akte_row["von"] == "anwalt"
    assert next(r for r in rows.json() if r["typ"] == "frist")["extern_id"] == "T-1"
    assert all(r["akte_id"] != str(d.pk) for r in rows.json()), "Akte D is not the anwalt's"
    assert "Vergleichsangebot" not in rows.content.decode()
    # the Sekretariat was just given Akte D: its system learns to fetch it
    sek = kanzlei.client("sekretariat").get("/api/v1/aenderungen", {"seit": seit}).json()
    assert {"typ": "akte", "id": str(d.pk), "was": "zugriff_erhalten"}.items() <= next(
        r for r in sek if r["was"] == "zugriff_erhalten"
    ).items()
    assert kanzlei.client("admin").get("/api/v1/aenderungen", {"seit": seit}).json()[-1]["typ"] in {
        "notiz",
        "akte",
    }


def test_the_changes_feed_pages_without_losing_a_change(kanzlei: Kanzlei) -> None:
    seit = timezone.now().isoformat()  # after the Kanzlei was made
    client = kanzlei.client("anwalt")
    for nr in range(7):
        post(
            client,
            f"/api/v1/akten/{kanzlei.akten['A'].pk}/zeiten",
            {"dauer_minuten": 10 + nr, "taetigkeit": f"T{nr}"},
        )
    gesehen: list[str] = []
    for _ in range(10):
        seite = client.get("/api/v1/aenderungen", {"seit": seit, "limit": 3})
        gesehen += [r["schluessel"] for r in seite.json()]
        if seite.headers["X-Weitere"] == "false":
            break
        seit = seite.json()[-1]["wann"]
    assert len(gesehen) == len(set(gesehen)) == 7


@pytest.mark.parametrize("seit", ["gestern", "2026-13-01", ""])
def test_a_bad_seit_is_a_422(kanzlei: Kanzlei, seit: str) -> None:
    response = kanzlei.client("anwalt").get("/api/v1/aenderungen", {"seit": seit})
    assert response.status_code == 422 and response.json()["detail"]


# --- found by review: access, paging, replays, preconditions -------------------------------------


def test_sending_the_sachbearbeitung_back_unchanged_gives_no_access_a_lawyer_took(kanzlei: Kanzlei) -> None:
    from akten.erfassung.akten import akte_aendern, zugriff_entziehen

    b, admin, sach = kanzlei.akten["B"], kanzlei.users["admin"], kanzlei.users["sachbearbeiter"]
    akte_aendern(user=admin, akte_id=b.pk, aenderungen={"sachbearbeiter": sach})
    zugriff_entziehen(user=admin, akte_id=b.pk, person=sach)
    assert kanzlei.client("sachbearbeiter").get(f"/api/v1/akten/{b.pk}").status_code == 404
    # the Sekretariat's system sends the record back as it read it, with one change
    ok = patch(
        kanzlei.client("sekretariat"),
        f"/api/v1/akten/{b.pk}",
        {"wegen": "Räumung, Mietrückstand", "sachbearbeiter": "sachbearbeiter"},
    )
    assert ok.status_code == 200
    assert kanzlei.client("sachbearbeiter").get(f"/api/v1/akten/{b.pk}").status_code == 404


def test_a_patch_without_a_change_saves_nothing(kanzlei: Kanzlei) -> None:
    client = kanzlei.client("anwalt")
    a = kanzlei.akten["A"]
    etag = client.get(f"/api/v1/akten/{a.pk}").headers["ETag"]
    same = patch(
        client,
        f"/api/v1/akten/{a.pk}",
        {"wegen": "Kündigungsschutz", "gegenstandswert": "12000"},
        **{"If-Match": etag},
    )
    assert same.status_code == 200 and same.headers["ETag"] == etag
    assert a.history.count() == 1


def test_if_match_follows_http(kanzlei: Kanzlei) -> None:
    client = kanzlei.client("anwalt")
    a = kanzlei.akten["A"]
    etag = client.get(f"/api/v1/akten/{a.pk}").headers["ETag"]
    assert patch(client, f"/api/v1/akten/{a.pk}", {"wegen": "eins"}, **{"If-Match": "*"}).status_code == 200
    etag = client.get(f"/api/v1/akten/{a.pk}").headers["ETag"]
    assert (
        patch(
            client, f"/api/v1/akten/{a.pk}", {"wegen": "zwei"}, **{"If-Match": f'"alt", {etag}'}
        ).status_code
        == 200
    )
    etag = client.get(f"/api/v1/akten/{a.pk}").headers["ETag"]
    assert (
        patch(client, f"/api/v1/akten/{a.pk}", {"wegen": "drei"}, **{"If-Match": f"W/{etag}"}).status_code
        == 409
    )
    fresh = etag.strip('"')
    both = patch(
        client, f"/api/v1/akten/{a.pk}", {"wegen": "vier", "version": fresh}, **{"If-Match": '"alt"'}
    )
    assert both.status_code == 409
    a.refresh_from_db()
    assert a.wegen == "zwei"


def test_a_duplicate_extern_id_of_a_party_is_a_409_too(kanzlei: Kanzlei) -> None:
    client = kanzlei.client("anwalt")
    body = {"rolle": "zeuge", "name": "Xaver Yps", "extern_id": "ADR-1"}
    erste = post(client, f"/api/v1/akten/{kanzlei.akten['C'].pk}/beteiligte", body)
    assert erste.status_code == 201
    zweite = post(client, f"/api/v1/akten/{kanzlei.akten['A'].pk}/beteiligte", {**body, "name": "Yvonne Xa"})
    assert zweite.status_code == 409 and zweite.json()["code"] == "extern_id_vergeben"
    assert zweite.json()["id"] == erste.json()["id"]
    fremd = post(
        kanzlei.client("sachbearbeiter"),
        f"/api/v1/akten/{kanzlei.akten['A'].pk}/beteiligte",
        {**body, "name": "Zora Z"},
    )
    assert fremd.status_code == 409 and "id" not in fremd.json()


def test_a_kept_answer_is_given_again_only_as_the_callers_rights_are_now(kanzlei: Kanzlei) -> None:
    from akten.models import AktenZugriff, Role

    a = kanzlei.akten["A"]
    sach = kanzlei.client("sachbearbeiter")
    body = {"rolle": "zeuge", "name": "Wilma Zeugin", "anschrift": "Geheimweg 1"}
    assert (
        post(sach, f"/api/v1/akten/{a.pk}/beteiligte", body, **{"Idempotency-Key": "k1"}).status_code == 201
    )
    AktenZugriff.objects.filter(akte=a, user=kanzlei.users["sachbearbeiter"]).delete()
    replay = post(sach, f"/api/v1/akten/{a.pk}/beteiligte", body, **{"Idempotency-Key": "k1"})
    assert replay.status_code == 404 and "Geheimweg" not in replay.content.decode()
    # a role lowered since: refused as a new request would be
    b = kanzlei.akten["B"]
    sek = kanzlei.client("sekretariat")
    assert (
        post(
            sek, f"/api/v1/akten/{b.pk}/notizen", {"inhalt": "Rückruf"}, **{"Idempotency-Key": "k2"}
        ).status_code
        == 201
    )
    User = type(kanzlei.users["sekretariat"])
    User.objects.filter(username="sekretariat").update(role=Role.PRAKTIKANT)
    assert (
        post(
            sek, f"/api/v1/akten/{b.pk}/notizen", {"inhalt": "Rückruf"}, **{"Idempotency-Key": "k2"}
        ).status_code
        == 403
    )
    # the record deleted since: no ghost of it
    anwalt = kanzlei.client("anwalt")
    akte = post(anwalt, "/api/v1/akten", {"kurzrubrum": "Kurz ./. Lebig"}, **{"Idempotency-Key": "k3"}).json()
    Akte.objects.filter(pk=akte["id"]).delete()
    assert (
        post(
            anwalt, "/api/v1/akten", {"kurzrubrum": "Kurz ./. Lebig"}, **{"Idempotency-Key": "k3"}
        ).status_code
        == 404
    )


@pytest.mark.parametrize(
    "feld, wert", [("datum", "0001-01-01"), ("datum", "9999-12-31"), ("vorfrist", "1899-12-31")]
)
def test_an_implausible_day_is_refused(kanzlei: Kanzlei, feld: str, wert: str) -> None:
    body = {"bezeichnung": "Notfrist", "datum": "2027-01-11", "ist_notfrist": True, feld: wert}
    response = post(kanzlei.client("anwalt"), f"/api/v1/akten/{kanzlei.akten['A'].pk}/fristen", body)
    assert response.status_code == 422 and "1900 und 2100" in response.json()["detail"]


def test_paging_loses_nothing_behind_many_invisible_saves(kanzlei: Kanzlei) -> None:
    seit = timezone.now().isoformat()
    a, b = kanzlei.akten["A"], kanzlei.akten["B"]
    for nr in range(56):  # Helena's summary, refreshed: no change another system follows
        a.summary = f"Stand {nr}"
        a.save()
    admin = kanzlei.client("admin")
    assert patch(admin, f"/api/v1/akten/{a.pk}", {"wegen": "REAL"}).status_code == 200
    for nr in range(10):
        post(admin, f"/api/v1/akten/{b.pk}/notizen", {"inhalt": f"Notiz {nr}"})
    for limit in (1, 5, 500):
        gesehen: list[dict] = []
        start = seit
        for _ in range(40):
            seite = admin.get("/api/v1/aenderungen", {"seit": start, "limit": limit})
            gesehen += seite.json()
            if seite.headers["X-Weitere"] == "false":
                break
            start = seite.json()[-1]["wann"]
        assert len({r["schluessel"] for r in gesehen}) == len(gesehen) == 11, limit
        assert [r["felder"] for r in gesehen if r["typ"] == "akte"] == [["wegen"]]


def test_an_approved_draft_shows_in_the_feed_as_such(kanzlei: Kanzlei) -> None:
    from drafts.services import approve_draft, create_draft

    seit = timezone.now().isoformat()
    a = kanzlei.akten["A"]
    draft = create_draft(
        user=kanzlei.users["anwalt"],
        kind="zeiterfassung",
        akte_id=a.pk,
        tool="create_draft_zeiterfassung",
        fields={
            "datum": "2026-11-27",
            "dauer_minuten": 20,
            "taetigkeit": "Akte gelesen",
            "abrechenbar": True,
        },
    )
    approve_draft(user=kanzlei.users["anwalt"], draft=draft)
    rows = kanzlei.client("anwalt").get("/api/v1/aenderungen", {"seit": seit}).json()
    zeit = next(r for r in rows if r["typ"] == "zeiterfassung")
    assert zeit["was"] == "angelegt" and zeit["grund"] == "Entwurf von Helena freigegeben"


def test_what_the_feed_announces_can_be_read(kanzlei: Kanzlei) -> None:
    a = kanzlei.akten["A"]
    anwalt = kanzlei.client("anwalt")
    zeit = post(
        anwalt,
        f"/api/v1/akten/{a.pk}/zeiten",
        {"dauer_minuten": 15, "taetigkeit": "Telefonat", "extern_id": "Z-1"},
    )
    notiz = post(anwalt, f"/api/v1/akten/{a.pk}/notizen", {"inhalt": "Rückruf erbeten"})
    assert [z["extern_id"] for z in anwalt.get(f"/api/v1/akten/{a.pk}/zeiten").json()] == ["Z-1"]
    assert anwalt.get(f"/api/v1/akten/{a.pk}/zeiten").json()[0]["id"] == zeit.json()["id"]
    assert notiz.json()["id"] in [n["id"] for n in anwalt.get(f"/api/v1/akten/{a.pk}/notizen").json()]
    for pfad in ("zeiten", "notizen"):
        assert kanzlei.client("sekretariat").get(f"/api/v1/akten/{a.pk}/{pfad}").status_code == 404


def test_every_write_of_the_api_says_so_in_the_feed_and_an_unencoded_plus_is_read(kanzlei: Kanzlei) -> None:
    seit = timezone.localtime()
    a = kanzlei.akten["A"]
    anwalt = kanzlei.client("anwalt")
    post(anwalt, f"/api/v1/akten/{a.pk}/notizen", {"inhalt": "Rückruf"})
    post(anwalt, f"/api/v1/akten/{a.pk}/zeiten", {"dauer_minuten": 5, "taetigkeit": "Anruf"})
    post(anwalt, f"/api/v1/akten/{a.pk}/beteiligte", {"rolle": "zeuge", "name": "Zacharias Zeuge"})
    # „+01:00“ typed into a URL arrives as a space
    unkodiert = seit.isoformat().replace("+", " ")
    rows = anwalt.get(f"/api/v1/aenderungen?seit={unkodiert}")
    assert rows.status_code == 200, rows.content
    assert {r["typ"]: r["grund"] for r in rows.json()} == {
        "notiz": "über die API angelegt",
        "zeiterfassung": "über die API angelegt",
        "beteiligter": "über die API angelegt",
    }

