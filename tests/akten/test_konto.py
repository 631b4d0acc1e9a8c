"""The user's own page /konto/ and GET/POST/DELETE /api/v1/me/tokens: API tokens (a name, an optional
last day, shown once, revoked), the Hinweis settings (hidden kinds gone for that user only, the
Fristen of today and overdue never hidden) and the password change; another user's token is a 404
and stays valid, an expired or revoked token is refused by the API and the bell's socket."""

from __future__ import annotations

import asyncio
from datetime import date, datetime, timedelta

import pytest
from django.http import HttpResponse
from django.test import Client
from django.utils import timezone
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from akten.accounts.konto import services
from akten.accounts.konto.selectors import hidden_arten_for
from akten.accounts.users import user_for_token
from akten.models import Alert, ApiToken, HinweisEinstellung, User
from config.errors import DomainError, NotFound
from tests.conftest import Kanzlei

pytestmark = pytest.mark.django_db

TOKENS = "/api/v1/me/tokens"
NEU = "Akten-2026-sicher"


def bearer(raw: str) -> Client:
    return Client(headers={"Authorization": f"Bearer {raw}"})


def logged_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


# --- tokens: the services -------------------------------------------------------------------------


def test_a_new_token_works_and_only_its_hash_is_kept(kanzlei: Kanzlei) -> None:
    anwalt = kanzlei.users["anwalt"]
    new = services.issue_token(user=anwalt, name="  Kanzlei\tsoftware ", gueltig_bis=None)
    assert new.token.name == "Kanzlei software" and new.token.status == "aktiv"
    assert new.raw.startswith(new.token.prefix) and new.raw not in (new.token.key_hash, new.token.prefix)
    assert user_for_token(raw=new.raw) == anwalt
    assert bearer(new.raw).get("/api/v1/me").json()["username"] == "anwalt"


@pytest.mark.parametrize(("name", "gueltig_bis", "text"), [
    ("", None, "Gib dem Token einen Namen"),
    ("   ", None, "Gib dem Token einen Namen"),
    ("x" * 101, None, "höchstens 100 Zeichen"),
    ("Skript", date(2026, 3, 1), "Das Ablaufdatum liegt in der Vergangenheit"),
])
def test_a_token_is_refused_in_german(kanzlei: Kanzlei, name: str, gueltig_bis: date | None,
                                      text: str) -> None:
    before = ApiToken.objects.count()
    with pytest.raises(DomainError) as info:
        services.issue_token(user=kanzlei.users["anwalt"], name=name, gueltig_bis=gueltig_bis,
                             heute=date(2026, 3, 2))
    assert text in info.value.message and info.value.status == 422
    assert ApiToken.objects.count() == before


def test_a_token_valid_until_today_works_through_the_whole_day(kanzlei: Kanzlei) -> None:
    heute = timezone.localdate()
    new = services.issue_token(user=kanzlei.users["anwalt"], name="heute", gueltig_bis=heute)
    ende = timezone.localtime(new.token.gueltig_bis)
    assert ende.date() == heute and (ende.hour, ende.minute) == (23, 59)
    assert user_for_token(raw=new.raw) == kanzlei.users["anwalt"]


def test_an_expired_token_is_401_on_the_api(kanzlei: Kanzlei) -> None:
    new = services.issue_token(user=kanzlei.users["anwalt"], name="alt", gueltig_bis=timezone.localdate())
    assert bearer(new.raw).get("/api/v1/akten").status_code == 200
    ApiToken.objects.filter(pk=new.token.pk).update(gueltig_bis=timezone.now() - timedelta(seconds=1))
    response = bearer(new.raw).get("/api/v1/akten")
    assert response.status_code == 401 and response.json()["code"] == "unauthorized"
    assert ApiToken.objects.get(pk=new.token.pk).status == "abgelaufen"
    assert user_for_token(raw=new.raw) is None


def test_revoking_another_users_token_is_not_found_and_changes_nothing(kanzlei: Kanzlei) -> None:
    fremder = ApiToken.objects.get(user=kanzlei.users["praktikant"])
    for token_id in (fremder.pk, str(fremder.pk), "abc", "", 10**30):
        with pytest.raises(NotFound):
            services.revoke_token(user=kanzlei.users["anwalt"], token_id=token_id)
    assert not ApiToken.objects.get(pk=fremder.pk).widerrufen
    assert kanzlei.client("praktikant").get("/api/v1/me").status_code == 200


# --- tokens: the JSON API -------------------------------------------------------------------------


def test_the_api_lists_only_my_tokens_without_secrets(kanzlei: Kanzlei) -> None:
    services.issue_token(user=kanzlei.users["praktikant"], name="fremd")
    services.issue_token(user=kanzlei.users["anwalt"], name="Export", gueltig_bis=date(2099, 12, 31))
    rows = kanzlei.client("anwalt").get(TOKENS).json()
    assert [r["name"] for r in rows] == ["Export", ""]  # newest first; the fixture's token has no name
    assert set(rows[0]) == {"id", "name", "prefix", "angelegt_am", "zuletzt_benutzt", "gueltig_bis", "status"}
    ende = timezone.localtime(datetime.fromisoformat(rows[0]["gueltig_bis"]))  # UTC on the wire
    assert (ende.date(), ende.hour, ende.minute) == (date(2099, 12, 31), 23, 59)
    assert rows[0]["status"] == "aktiv"
    assert rows[1]["zuletzt_benutzt"] is not None  # the call itself used it
    mine = set(ApiToken.objects.filter(user=kanzlei.users["anwalt"]).values_list("pk", flat=True))
    assert {int(r["id"]) for r in rows} == mine


def test_the_api_creates_a_token_shown_once(kanzlei: Kanzlei) -> None:
    client = kanzlei.client("sekretariat")
    response = client.post(TOKENS, {"name": "Diktat-App", "gueltig_bis": "31.12.2099"},
                           content_type="application/json")
    assert response.status_code == 201
    body = response.json()
    assert body["name"] == "Diktat-App" and body["token"].startswith(body["prefix"])
    assert timezone.localtime(datetime.fromisoformat(body["gueltig_bis"])).date() == date(2099, 12, 31)
    assert bearer(body["token"]).get("/api/v1/me").json()["username"] == "sekretariat"
    listed = [r for r in client.get(TOKENS).json() if r["id"] == body["id"]]
    assert listed and "token" not in listed[0]


@pytest.mark.parametrize(("payload", "text"), [
    ({"name": "Skript", "gueltig_bis": "2020-01-01"}, "Das Ablaufdatum liegt in der Vergangenheit"),
    ({"name": "Skript", "gueltig_bis": "31.02.2099"}, "Ungültiges Datum"),
    ({"name": "Skript", "gueltig_bis": "morgen"}, "gueltig_bis ist kein gültiges Datum"),
    ({"name": "   "}, "name darf nicht leer sein"),
    ({"name": "x" * 101}, "name darf höchstens 100 Zeichen lang sein"),
    ({}, "name fehlt"),
])
def test_bad_input_is_a_german_422(kanzlei: Kanzlei, payload: dict, text: str) -> None:
    before = ApiToken.objects.count()
    response = kanzlei.client("anwalt").post(TOKENS, payload, content_type="application/json")
    assert response.status_code == 422, response.content
    assert text in response.json()["detail"]
    assert ApiToken.objects.count() == before


def test_no_json_is_400_not_500(kanzlei: Kanzlei) -> None:
    response = kanzlei.client("anwalt").post(TOKENS, "{kein json", content_type="application/json")
    assert response.status_code == 400 and "JSON" in response.json()["detail"]


def test_delete_revokes_my_token_and_refuses_anyone_elses(kanzlei: Kanzlei) -> None:
    anwalt = kanzlei.client("anwalt")
    fremder = ApiToken.objects.get(user=kanzlei.users["sachbearbeiter"])
    for token_id in (fremder.pk, "abc", 999999999):
        response = anwalt.delete(f"{TOKENS}/{token_id}")
        assert response.status_code == 404 and response.json()["detail"] == "Token nicht gefunden."
    assert kanzlei.client("sachbearbeiter").get("/api/v1/me").status_code == 200

    new = services.issue_token(user=kanzlei.users["anwalt"], name="Skript")
    response = bearer(new.raw).delete(f"{TOKENS}/{new.token.pk}")  # a token may revoke itself
    assert response.status_code == 200 and response.json()["status"] == "widerrufen"
    assert bearer(new.raw).get("/api/v1/me").status_code == 401
    assert anwalt.delete(f"{TOKENS}/{new.token.pk}").status_code == 200  # again: nothing changes


def test_a_token_made_with_a_token_does_not_outlive_it(kanzlei: Kanzlei) -> None:
    """A stolen token must not leave heirs: what it made lives at most as long and goes with it."""
    parent = services.issue_token(user=kanzlei.users["anwalt"], name="Kanzleisoftware",
                                  gueltig_bis=date.today() + timedelta(days=30))
    response = bearer(parent.raw).post(TOKENS, {"name": "Unbefristet?"}, content_type="application/json")
    assert response.status_code == 201
    child = response.json()
    assert child["gueltig_bis"] is not None  # capped at the parent's last day
    capped = datetime.fromisoformat(child["gueltig_bis"])
    assert abs((capped - parent.token.gueltig_bis).total_seconds()) < 1
    grandchild = bearer(child["token"]).post(TOKENS, {"name": "Enkel"},
                                             content_type="application/json").json()
    assert bearer(grandchild["token"]).get("/api/v1/me").status_code == 200
    assert kanzlei.client("anwalt").delete(f"{TOKENS}/{parent.token.pk}").status_code == 200
    for raw in (parent.raw, child["token"], grandchild["token"]):
        assert bearer(raw).get("/api/v1/me").status_code == 401
    # made on the page (a session), a token has no parent and keeps its own last day
    own = services.issue_token(user=kanzlei.users["anwalt"], name="Eigen")
    assert own.token.erzeugt_von is None and own.token.gueltig_bis is None


def test_anonymous_gets_401(kanzlei: Kanzlei) -> None:
    assert Client().get(TOKENS).status_code == 401
    assert Client().post(TOKENS, {"name": "x"}, content_type="application/json").status_code == 401
    assert Client().delete(f"{TOKENS}/1").status_code == 401


# --- Hinweis settings -----------------------------------------------------------------------------


def _alert_messages(client: Client) -> set[str]:
    return {a["message"] for a in client.get("/api/v1/alerts").json()}


def test_a_hidden_kind_is_gone_for_me_and_still_there_for_a_colleague(kanzlei: Kanzlei) -> None:
    akte = kanzlei.akten["A"]  # anwalt and sachbearbeiter both see it
    Alert.objects.create(akte=akte, art=Alert.Art.VORFRIST, message="Vorfrist in 1/26")
    Alert.objects.create(akte=akte, art=Alert.Art.HEUTE, severity="critical", message="Heute endet 1/26")
    Alert.objects.create(empfaenger=kanzlei.users["anwalt"], art=Alert.Art.BALD, message="Bald fällig")
    services.save_hinweis_settings(
        user=kanzlei.users["anwalt"], sichtbar=[Alert.Art.BALD, Alert.Art.AUFGABE], kurzmeldungen=False)

    assert _alert_messages(kanzlei.client("anwalt")) == {"Heute endet 1/26", "Bald fällig"}
    assert _alert_messages(kanzlei.client("sachbearbeiter")) == {"Vorfrist in 1/26", "Heute endet 1/26"}
    page = logged_in(kanzlei.users["anwalt"]).get("/akten/hinweise/").content.decode()
    assert "Heute endet 1/26" in page and "Vorfrist in 1/26" not in page
    assert 'data-kurzmeldungen="aus"' in page


def test_today_and_overdue_can_never_be_hidden(kanzlei: Kanzlei) -> None:
    anwalt = kanzlei.users["anwalt"]
    Alert.objects.create(empfaenger=anwalt, art=Alert.Art.UEBERFAELLIG, message="Überfällig!")
    services.save_hinweis_settings(user=anwalt, sichtbar=[], kurzmeldungen=True)
    assert set(HinweisEinstellung.objects.get(user=anwalt).ausgeblendet) == set(services.OPTIONAL_ARTEN)
    HinweisEinstellung.objects.filter(user=anwalt).update(ausgeblendet=list(Alert.Art.values))  # by hand
    assert Alert.Art.HEUTE not in hidden_arten_for(user=anwalt)
    assert _alert_messages(kanzlei.client("anwalt")) == {"Überfällig!"}
    with pytest.raises(DomainError):
        services.save_hinweis_settings(user=anwalt, sichtbar=["gibt_es_nicht"], kurzmeldungen=True)


def test_the_settings_form_saves_and_ignores_the_fixed_kinds(kanzlei: Kanzlei) -> None:
    client = logged_in(kanzlei.users["anwalt"])
    page = client.get("/konto/").content.decode()
    assert "bleiben immer an" in page and 'data-kurzmeldungen="an"' in page
    response = client.post("/konto/hinweise/", {"sichtbar": ["bald", "aufgabe"]}, follow=True)
    assert "Deine Einstellungen für Hinweise sind gespeichert." in response.content.decode()
    settings = HinweisEinstellung.objects.get(user=kanzlei.users["anwalt"])
    assert set(settings.ausgeblendet) == {"vorfrist", "niemand_verantwortlich", "bestaetigung", ""}
    assert settings.kurzmeldungen is False
    response = client.post("/konto/hinweise/", {"sichtbar": ["heute", "erfunden"]})
    assert response.status_code == 200 and "gültige Auswahl" in response.content.decode()


# --- the page -------------------------------------------------------------------------------------


def test_the_page_needs_a_login(kanzlei: Kanzlei) -> None:
    response = Client().get("/konto/")
    assert response.status_code == 302 and response["Location"].startswith("/konto/anmelden/")
    assert Client().post("/konto/tokens/", {"name": "x"}).status_code == 302
    assert not ApiToken.objects.filter(name="x").exists()


def test_the_page_shows_who_i_am(kanzlei: Kanzlei) -> None:
    anwalt = kanzlei.users["anwalt"]
    anwalt.first_name, anwalt.last_name, anwalt.email = "Anna", "Berger", "berger@kanzlei.de"
    anwalt.save()
    page = logged_in(anwalt).get("/konto/").content.decode()
    for text in ("Dein Konto", "Anna Berger", "berger@kanzlei.de", "Rechtsanwalt/Rechtsanwältin",
                 "3 Akten", "Passwort ändern", "API-Tokens", "Neuen Token anlegen", 'href="/konto/"'):
        assert text in page, text


def test_a_token_made_on_the_page_is_shown_once(kanzlei: Kanzlei) -> None:
    client = logged_in(kanzlei.users["anwalt"])
    response = client.post("/konto/tokens/", {"name": "Kanzleisoftware", "gueltig_bis": "2099-06-30"})
    assert response.status_code == 302 and response["Location"] == "/konto/#neuer-token"
    token = ApiToken.objects.get(name="Kanzleisoftware")
    first = client.get("/konto/")
    assert "no-cache" in first["Cache-Control"] or "no-store" in first["Cache-Control"]
    raw = first.context["neuer_token"]["raw"]
    assert raw in first.content.decode() and user_for_token(raw=raw) == kanzlei.users["anwalt"]
    again = client.get("/konto/").content.decode()
    assert raw not in again and f"{token.prefix}…" in again and "30.06.2099" in again


def test_a_past_date_on_the_page_is_refused_in_german(kanzlei: Kanzlei) -> None:
    client = logged_in(kanzlei.users["anwalt"])
    response = client.post("/konto/tokens/", {"name": "Alt", "gueltig_bis": "2020-01-01"})
    assert response.status_code == 200
    assert "Das Ablaufdatum liegt in der Vergangenheit" in response.content.decode()
    assert not ApiToken.objects.filter(name="Alt").exists()


def test_revoking_on_the_page(kanzlei: Kanzlei) -> None:
    client = logged_in(kanzlei.users["anwalt"])
    fremder = ApiToken.objects.get(user=kanzlei.users["praktikant"])
    assert client.post(f"/konto/tokens/{fremder.pk}/widerrufen/").status_code == 404
    assert not ApiToken.objects.get(pk=fremder.pk).widerrufen
    mine = ApiToken.objects.get(user=kanzlei.users["anwalt"])
    assert client.get(f"/konto/tokens/{mine.pk}/widerrufen/").status_code == 405  # a GET changes nothing
    response = client.post(f"/konto/tokens/{mine.pk}/widerrufen/", follow=True)
    assert "ist widerrufen" in response.content.decode()
    assert ApiToken.objects.get(pk=mine.pk).widerrufen
    assert kanzlei.client("anwalt").get("/api/v1/me").status_code == 401


# --- the password ---------------------------------------------------------------------------------


def anmelden(client: Client, username: str, password: str) -> HttpResponse:
    return client.post("/konto/anmelden/", {"username": username, "password": password})


def test_the_password_change_keeps_me_logged_in_and_the_old_password_stops_working(kanzlei: Kanzlei) -> None:
    anwalt = kanzlei.users["anwalt"]
    client = Client()
    assert anmelden(client, "anwalt", "pw-anwalt").status_code == 302  # the real login page
    page = client.get("/konto/passwort/").content.decode()
    assert "Bisheriges Passwort" in page and "Neues Passwort wiederholen" in page

    def change(old: str, new1: str, new2: str) -> HttpResponse:
        form = {"old_password": old, "new_password1": new1, "new_password2": new2}
        return client.post("/konto/passwort/", form)

    assert "Dein bisheriges Passwort stimmt nicht" in change("falsch", NEU, NEU).content.decode()
    assert "Dieses Passwort ist zu kurz" in change("pw-anwalt", "kurz", "kurz").content.decode()
    mismatch = change("pw-anwalt", NEU, "Akten-2026-anders").content.decode()
    assert "Die beiden neuen Passwörter stimmen nicht überein." in mismatch

    response = change("pw-anwalt", NEU, NEU)
    assert response.status_code == 302 and response["Location"] == "/konto/passwort/fertig/"
    assert "Passwort geändert" in client.get("/konto/passwort/fertig/").content.decode()
    assert client.get("/konto/").status_code == 200  # still logged in
    assert anmelden(Client(), "anwalt", "pw-anwalt").status_code == 200  # refused: the form again
    assert anmelden(Client(), "anwalt", NEU).status_code == 302
    anwalt.refresh_from_db()
    assert anwalt.check_password(NEU)


# --- the bell's socket ----------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_an_expired_or_revoked_token_opens_no_socket(kanzlei: Kanzlei, asgi_server: str) -> None:
    abgelaufen = services.issue_token(user=kanzlei.users["anwalt"], name="alt")
    ApiToken.objects.filter(pk=abgelaufen.token.pk).update(gueltig_bis=timezone.now() - timedelta(minutes=1))
    widerrufen = services.issue_token(user=kanzlei.users["anwalt"], name="weg")
    services.revoke_token(user=kanzlei.users["anwalt"], token_id=widerrufen.token.pk)
    gueltig = services.issue_token(user=kanzlei.users["anwalt"], name="gut")

    async def first_frame(raw: str) -> object:
        headers = {"Authorization": f"Bearer {raw}"}
        async with connect(f"ws://{asgi_server}/ws/benachrichtigungen/", additional_headers=headers) as ws:
            try:
                return await asyncio.wait_for(ws.recv(), 10)
            except ConnectionClosed as exc:
                return exc.rcvd.code if exc.rcvd else None

    assert asyncio.run(first_frame(abgelaufen.raw)) == 4403
    assert asyncio.run(first_frame(widerrufen.raw)) == 4403
    assert '"unread"' in str(asyncio.run(first_frame(gueltig.raw)))


def test_five_wrong_old_passwords_end_the_session_and_lock_the_change(kanzlei: Kanzlei) -> None:
    client = Client()
    assert anmelden(client, "anwalt", "pw-anwalt").status_code == 302
    form = {"old_password": "geraten", "new_password1": NEU, "new_password2": NEU}
    for _ in range(4):
        falsch = client.post("/konto/passwort/", form).content.decode()
        assert "Dein bisheriges Passwort stimmt nicht" in falsch
    fuenfter = client.post("/konto/passwort/", form)
    assert fuenfter.status_code == 302 and fuenfter["Location"] == "/konto/anmelden/"
    assert "zu oft ein falsches bisheriges Passwort" in client.get("/konto/anmelden/").content.decode()
    assert client.get("/konto/").status_code == 302  # logged out
    # logged in again: the change stays refused for the rest of the 15 minutes, the right password too
    assert anmelden(client, "anwalt", "pw-anwalt").status_code == 302
    richtig = client.post("/konto/passwort/", {**form, "old_password": "pw-anwalt"}).content.decode()
    assert "Zu viele falsche Versuche mit dem bisherigen Passwort" in richtig
    kanzlei.users["anwalt"].refresh_from_db()
    assert kanzlei.users["anwalt"].check_password("pw-anwalt")  # nothing changed
    andere = Client()  # a colleague's change is not affected
    assert anmelden(andere, "sekretariat", "pw-sekretariat").status_code == 302
    assert "Dein bisheriges Passwort stimmt nicht" in andere.post("/konto/passwort/", form).content.decode()
