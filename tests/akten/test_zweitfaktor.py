"""The second factor from the outside (issue 37): setting up the app through the pages (QR code, key,
confirmed with a current code, ten recovery codes shown once), the login's second step with the app's
code or a recovery code (each once), wrong codes throttled, removal, and who is held back until they
have given it: per role as the admin sets it, /admin/ for everyone, API with a session 403, Bearer
tokens untouched, the demo exemption."""

from __future__ import annotations

import asyncio
import re
import time
from datetime import timedelta
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.db.models import F
from django.test import Client
from django.utils import timezone
from django_otp.oath import TOTP
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from akten.accounts.users import create_api_token
from akten.accounts.zweitfaktor import services
from akten.models import Kanzleieinstellung, Role, User
from tests.conftest import Kanzlei

pytestmark = pytest.mark.django_db

LOGIN = "/konto/anmelden/"
BESTAETIGEN = "/konto/zweiter-faktor/"
EINRICHTEN = "/konto/zweiter-faktor/einrichten/"
CODES = "/konto/zweiter-faktor/codes/"
PAGES = ["/", "/akten/", "/fristen/", "/konto/", "/entwuerfe/", "/admin/"]


def code(device: TOTPDevice, *, schritte: int = 0) -> str:
    """The app's code now (or `schritte` time steps later), as the phone computes it from the key."""
    totp = TOTP(device.bin_key, device.step, device.t0, device.digits, device.drift)
    totp.time = time.time() + schritte * device.step
    return f"{totp.token():0{device.digits}d}"


def user(name: str, role: str, **extra: object) -> User:
    return User.objects.create_user(username=name, password="pw-" + name, role=role, **extra)


def login(name: str) -> tuple[Client, str]:
    """Log in through the login page with the password; the address the browser ends up at."""
    client = Client()
    response = client.post(LOGIN, {"username": name, "password": "pw-" + name}, follow=True)
    assert response.status_code == 200
    return client, response.redirect_chain[-1][0] if response.redirect_chain else LOGIN


def mit_app(u: User) -> TOTPDevice:
    device = TOTPDevice.objects.create(user=u, name="Authenticator-App", confirmed=True)
    services.neue_codes(user=u)
    return device


def text(response) -> str:
    return re.sub(r"\s+", " ", response.content.decode())


# --- setting it up -------------------------------------------------------------------------------


def test_anwalt_sets_up_the_app_through_the_pages(kanzlei: Kanzlei) -> None:
    user("kmeier", Role.ANWALT)
    client, landed = login("kmeier")
    assert landed.startswith(EINRICHTEN)  # after the password: set it up, nothing else
    page = client.get(EINRICHTEN)
    assert page.status_code == 200 and "<svg" in page.content.decode()
    assert "Deine Rolle braucht bei der Anmeldung einen zweiten Faktor" in text(page)
    device = TOTPDevice.objects.get(user__username="kmeier")
    assert not device.confirmed
    geheimnis = re.search(r'id="zweitfaktor-geheimnis">([A-Z2-7 ]+)<', page.content.decode()).group(1)
    assert geheimnis == services.geheimnis(device)  # the key as text, for typing it in
    assert "Akten" not in re.sub(r"<main.*", "", page.content.decode(), flags=re.S)  # no navigation yet
    assert client.get(EINRICHTEN).content.decode().count(geheimnis) == 1  # a reload keeps the key

    falsch = client.post(EINRICHTEN, {"code": "000000" if code(device) != "000000" else "111111"})
    assert falsch.status_code == 422 and "Der Code stimmt nicht" in text(falsch)
    assert not TOTPDevice.objects.get(pk=device.pk).confirmed
    TOTPDevice.objects.filter(pk=device.pk).update(throttling_failure_count=0)  # no waiting in a test

    weiter = client.post(EINRICHTEN, {"code": code(device), "next": "/akten/"})
    assert weiter.status_code == 302 and weiter["Location"] == CODES
    seite = client.get(CODES)
    codes = re.findall(r"<li><code>([a-z2-7]{4}-[a-z2-7]{4})</code></li>", seite.content.decode())
    assert len(codes) == 10 and len(set(codes)) == 10
    assert "Nur dieses eine Mal zu sehen" in text(seite)
    assert 'download="helena-wiederherstellungscodes.txt"' in text(seite)
    assert 'href="/akten/"' in seite.content.decode()  # on to where the user wanted to go
    assert codes[0] not in client.get(CODES, follow=True).content.decode()  # shown once
    assert TOTPDevice.objects.get(pk=device.pk).confirmed
    assert StaticToken.objects.filter(device__user__username="kmeier").count() == 10
    for page_url in PAGES[:-1]:
        assert client.get(page_url).status_code == 200, page_url  # this session gave it
    konto = text(client.get("/konto/"))
    assert "eingerichtet" in konto and "10 von 10 übrig" in konto


def _schluessel(page) -> str:
    return re.search(r'id="zweitfaktor-geheimnis">([A-Z2-7 ]+)<', page.content.decode()).group(1)


def test_a_setup_key_is_shown_only_to_the_session_that_made_it(kanzlei: Kanzlei) -> None:
    """Someone with only the password opens the setup first: the real user's setup gets a key of its
    own, and the attacker's key (and its codes) is worth nothing once the user confirmed."""
    user("kmeier", Role.ANWALT)
    angreifer, _ = login("kmeier")
    alt = _schluessel(angreifer.get(EINRICHTEN))
    alt_device = TOTPDevice.objects.get(user__username="kmeier", confirmed=False)
    opfer, _ = login("kmeier")
    neu = _schluessel(opfer.get(EINRICHTEN))
    assert neu != alt
    assert _schluessel(opfer.get(EINRICHTEN)) == neu  # the user's own reload keeps it
    device = TOTPDevice.objects.get(user__username="kmeier", confirmed=False)
    assert not TOTPDevice.objects.filter(pk=alt_device.pk).exists()
    assert opfer.post(EINRICHTEN, {"code": code(device)}).status_code == 302
    assert TOTPDevice.objects.get(confirmed=True).pk == device.pk
    nachher = angreifer.post(EINRICHTEN, {"code": code(alt_device)})
    assert nachher.status_code == 302 and nachher["Location"].startswith(BESTAETIGEN)
    versuch = angreifer.post(BESTAETIGEN, {"code": code(alt_device)})
    assert versuch.status_code == 422 and "Der Code stimmt nicht" in text(versuch)
    assert angreifer.get("/akten/").status_code == 302  # still owes the code of the user's device


def test_a_second_setup_is_refused_while_one_exists(kanzlei: Kanzlei) -> None:
    u = user("kmeier", Role.SEKRETARIAT)
    mit_app(u)
    client = Client()
    client.force_login(u)
    assert client.get(EINRICHTEN)["Location"].startswith(BESTAETIGEN)  # first the code of the one there is


def test_sekretariat_may_set_it_up_of_its_own_accord(kanzlei: Kanzlei) -> None:
    user("skoch", Role.SEKRETARIAT)
    client, landed = login("skoch")
    assert landed == "/"  # not required: in at once
    page = client.get(EINRICHTEN)
    assert "Deine Rolle braucht" not in text(page) and "Dein Konto" in text(page)  # with navigation
    device = TOTPDevice.objects.get(user__username="skoch")
    assert client.post(EINRICHTEN, {"code": code(device)})["Location"] == CODES
    assert login("skoch")[1].startswith(BESTAETIGEN)  # from now on asked, as anyone with a device


# --- logging in ----------------------------------------------------------------------------------


def test_login_with_the_apps_code(kanzlei: Kanzlei) -> None:
    device = mit_app(user("kmeier", Role.ANWALT))
    client, landed = login("kmeier")
    assert landed.startswith(BESTAETIGEN)
    page = client.get("/akten/")
    assert page.status_code == 302 and page["Location"] == BESTAETIGEN + "?next=%2Fakten%2F"
    seite = client.get(page["Location"])
    assert "Anmeldung bestätigen" in text(seite) and 'name="next" value="/akten/"' in text(seite)
    assert "Fristen" not in re.sub(r"<main.*", "", seite.content.decode(), flags=re.S)
    response = client.post(BESTAETIGEN, {"code": code(device), "next": "/akten/"})
    assert response.status_code == 302 and response["Location"] == "/akten/"
    assert client.get("/akten/").status_code == 200
    # the same code a second time (another session) is refused: each code counts once
    other, _ = login("kmeier")
    again = other.post(BESTAETIGEN, {"code": code(device)})
    assert again.status_code == 422 and "Der Code stimmt nicht" in text(again)
    # a foreign address as `next` is not followed
    TOTPDevice.objects.filter(pk=device.pk).update(throttling_failure_count=0)
    third, _ = login("kmeier")
    assert third.post(BESTAETIGEN, {"code": code(device, schritte=1), "next": "https://evil.example/"})[
        "Location"] == "/"


def test_login_with_a_recovery_code_once(kanzlei: Kanzlei) -> None:
    u = user("kmeier", Role.ANWALT)
    TOTPDevice.objects.create(user=u, name="Authenticator-App", confirmed=True)
    codes = services.neue_codes(user=u)
    client, _ = login("kmeier")
    response = client.post(BESTAETIGEN, {"code": codes[3].upper().replace("-", " ")}, follow=True)
    assert response.redirect_chain[-1][0] == "/"
    assert "Du hast einen Wiederherstellungscode benutzt; es bleiben noch 9" in text(response)
    assert client.get("/akten/").status_code == 200
    other, _ = login("kmeier")
    again = other.post(BESTAETIGEN, {"code": codes[3]})
    assert again.status_code == 422 and "schon benutzt" in text(again)
    assert other.get("/akten/").status_code == 302


def test_wrong_codes_are_throttled(kanzlei: Kanzlei) -> None:
    device = mit_app(user("kmeier", Role.ANWALT))
    client, _ = login("kmeier")
    richtig = code(device)
    falsch = "123456" if richtig != "123456" else "654321"
    assert "Der Code stimmt nicht" in text(client.post(BESTAETIGEN, {"code": falsch}))
    # at once again, even the right code: django-otp's throttle holds the device for a moment
    gesperrt = client.post(BESTAETIGEN, {"code": richtig})
    assert gesperrt.status_code == 422
    assert re.search(r"Zu viele falsche Versuche\. Bitte warte \d+ Sekunden? und versuch es", text(gesperrt))
    assert client.get("/akten/").status_code == 302
    # four more wrong ones (the lock each time lifted, as if the user waited): the wait doubles
    for _ in range(4):
        TOTPDevice.objects.filter(pk=device.pk).update(
            throttling_failure_timestamp=timezone.now() - timedelta(hours=1))
        client.post(BESTAETIGEN, {"code": falsch})
    device.refresh_from_db()
    assert device.throttling_failure_count == 5
    warte = text(client.post(BESTAETIGEN, {"code": richtig}))
    assert int(re.search(r"Bitte warte (\d+) Sekunden", warte).group(1)) in range(14, 17)  # 2⁴ s
    # a recovery code is throttled on its own device the same way
    assert "schon benutzt" in text(client.post(BESTAETIGEN, {"code": "aaaa-aaaa"}))
    assert "Zu viele falsche Versuche" in text(client.post(BESTAETIGEN, {"code": "bbbb-bbbb"}))
    # once the wait is over the right code works
    vorbei = timezone.now() - timedelta(hours=1)
    TOTPDevice.objects.filter(pk=device.pk).update(throttling_failure_timestamp=vorbei)
    assert client.post(BESTAETIGEN, {"code": richtig})["Location"] == "/"


def test_the_wait_after_many_wrong_codes_stops_at_15_minutes(kanzlei: Kanzlei) -> None:
    device = mit_app(user("kmeier", Role.ANWALT))
    client, _ = login("kmeier")
    richtig = code(device)
    falsch = "123456" if richtig != "123456" else "654321"
    for _ in range(20):  # twenty wrong codes, each after the wait (django-otp alone: 2¹⁹ s ≈ 6 days)
        TOTPDevice.objects.filter(pk=device.pk).update(
            throttling_failure_timestamp=timezone.now() - timedelta(days=30))
        client.post(BESTAETIGEN, {"code": falsch})
    warte = text(client.post(BESTAETIGEN, {"code": richtig}))
    assert int(re.search(r"Bitte warte (\d+) Minuten", warte).group(1)) in (14, 15)
    TOTPDevice.objects.filter(pk=device.pk).update(
        throttling_failure_timestamp=F("throttling_failure_timestamp") - timedelta(minutes=15, seconds=1))
    assert client.post(BESTAETIGEN, {"code": richtig})["Location"] == "/"  # a quarter of an hour later


# --- new codes, removal --------------------------------------------------------------------------


def _verifiziert(name: str, device: TOTPDevice) -> Client:
    client, _ = login(name)
    assert client.post(BESTAETIGEN, {"code": code(device)}).status_code == 302
    return client


def test_new_recovery_codes_replace_the_old(kanzlei: Kanzlei) -> None:
    u = user("kmeier", Role.ANWALT)
    device = TOTPDevice.objects.create(user=u, name="Authenticator-App", confirmed=True)
    alte = services.neue_codes(user=u)
    client = _verifiziert("kmeier", device)
    assert client.post("/konto/zweiter-faktor/neue-codes/")["Location"] == CODES
    neue = re.findall(r"<code>([a-z2-7-]{9})</code>", client.get(CODES).content.decode())
    assert len(neue) == 10 and not set(neue) & set(alte)
    other, _ = login("kmeier")
    assert "schon benutzt" in text(other.post(BESTAETIGEN, {"code": alte[0]}))
    StaticDevice.objects.filter(user=u).update(throttling_failure_count=0)
    assert other.post(BESTAETIGEN, {"code": neue[0]}).status_code == 302
    assert client.get("/akten/").status_code == 200  # the session that made them stays in


def test_removal_needs_a_code_or_the_password(kanzlei: Kanzlei) -> None:
    u = user("skoch", Role.SEKRETARIAT)
    device = mit_app(u)
    client = _verifiziert("skoch", device)
    falsch = client.post("/konto/zweiter-faktor/entfernen/", {"code_oder_passwort": "rate-mal"}, follow=True)
    assert "Weder Code noch Passwort stimmen" in text(falsch)
    assert TOTPDevice.objects.filter(user=u).exists()
    TOTPDevice.objects.filter(pk=device.pk).update(throttling_failure_count=0)
    ok = client.post("/konto/zweiter-faktor/entfernen/", {"code_oder_passwort": "pw-skoch"}, follow=True)
    assert "Dein zweiter Faktor ist entfernt" in text(ok)
    assert not TOTPDevice.objects.filter(user=u).exists() and not StaticDevice.objects.filter(user=u).exists()
    assert login("skoch")[1] == "/"  # password alone again (the role does not require it)


def test_the_password_alone_cannot_remove_a_factor_not_yet_given(kanzlei: Kanzlei) -> None:
    """Whoever has only the password must not take the second factor away before giving it."""
    u = user("skoch", Role.SEKRETARIAT)
    mit_app(u)
    client, _ = login("skoch")
    for url in ("/konto/zweiter-faktor/entfernen/", "/konto/zweiter-faktor/neue-codes/"):
        response = client.post(url, {"code_oder_passwort": "pw-skoch"})
        assert response.status_code == 302 and response["Location"].startswith(BESTAETIGEN)
    assert TOTPDevice.objects.filter(user=u, confirmed=True).exists()
    assert StaticToken.objects.filter(device__user=u).count() == 10


def test_anwalt_removing_it_sets_up_a_new_one_next(kanzlei: Kanzlei) -> None:
    device = mit_app(user("kmeier", Role.ANWALT))
    client = _verifiziert("kmeier", device)
    client.post("/konto/zweiter-faktor/entfernen/", {"code_oder_passwort": "pw-kmeier"})
    assert client.get("/akten/")["Location"].startswith(EINRICHTEN)


# --- who must ------------------------------------------------------------------------------------


def test_anwalt_without_device_is_held_back_everywhere(kanzlei: Kanzlei) -> None:
    u = user("kmeier", Role.ANWALT)
    token = create_api_token(user=u)
    client = Client()
    client.force_login(u)
    for url in PAGES:
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith(EINRICHTEN), url
    post = client.post("/akten/neu/", {"kurzrubrum": "X"})
    assert post.status_code == 302 and post["Location"] == EINRICHTEN
    api = client.get("/api/v1/akten")
    assert api.status_code == 403 and api.json()["code"] == "zweiter_faktor_fehlt"
    assert "Deine Rolle verlangt einen zweiten Faktor" in api.json()["detail"]
    # the API token is the other system's credential: it needs none
    assert Client(headers={"Authorization": f"Bearer {token}"}).get("/api/v1/akten").status_code == 200
    assert client.post(LOGIN.replace("anmelden", "abmelden")).status_code == 302  # logout stays open


def test_with_device_not_yet_given_the_api_says_so(kanzlei: Kanzlei) -> None:
    u = user("skoch", Role.SEKRETARIAT)
    mit_app(u)
    client = Client()
    client.force_login(u)
    api = client.get("/api/v1/me")
    assert api.status_code == 403 and "Bitte bestätige deine Anmeldung" in api.json()["detail"]


def test_sekretariat_is_not_required_until_the_admin_says_so(kanzlei: Kanzlei, admin_client: Client) -> None:
    user("skoch", Role.SEKRETARIAT)
    user("kmeier", Role.ANWALT)
    client, landed = login("skoch")
    assert landed == "/" and client.get("/akten/").status_code == 200
    assert client.get("/api/v1/akten").status_code == 200
    einstellung = Kanzleieinstellung.aktuell()
    url = f"/admin/akten/kanzleieinstellung/{einstellung.pk}/change/"
    seite = text(admin_client.get(url))
    assert "Zweiter Faktor Pflicht für" in seite and "Standard: Administrator und Rechtsanwalt" in seite
    response = admin_client.post(url, {
        "aktenzeichen_muster": einstellung.aktenzeichen_muster, "vier_augen_notfrist": "on",
        "mail_inhalt": einstellung.mail_inhalt, "zugriffe_aufbewahren_monate": "12",
        "sitzung_leerlauf_minuten": "480", "sitzung_hoechstdauer_stunden": "24",
        "zweiter_faktor_rollen": ["ADMIN", "SEKRETARIAT"]})
    assert response.status_code == 302, text(response)[:2000]
    assert Kanzleieinstellung.aktuell().zweiter_faktor_rollen == ["ADMIN", "SEKRETARIAT"]
    # the next page of the session already logged in
    assert client.get("/akten/")["Location"].startswith(EINRICHTEN)
    assert client.get("/api/v1/akten").status_code == 403
    assert login("kmeier")[1] == "/"  # and the Anwalt no longer


def test_the_admin_site_needs_it_from_everyone(kanzlei: Kanzlei) -> None:
    staff = user("skoch", Role.SEKRETARIAT, is_staff=True)
    client = Client()
    client.force_login(staff)
    assert client.get("/akten/").status_code == 200  # the role does not need it …
    assert client.get("/admin/")["Location"].startswith(EINRICHTEN)  # … the Verwaltung does
    chefin = user("chefin", Role.ADMIN, is_staff=True, is_superuser=True)
    device = mit_app(chefin)
    client, _ = login("chefin")
    assert client.get("/admin/")["Location"].startswith(BESTAETIGEN)
    client.post(BESTAETIGEN, {"code": code(device)})
    assert client.get("/admin/").status_code == 200


def test_the_demo_exemption_is_visible_and_only_where_set(kanzlei: Kanzlei, admin_client: Client) -> None:
    user("kmeier", Role.ADMIN, is_staff=True, ohne_zweiten_faktor=True)
    client, landed = login("kmeier")
    assert landed == "/" and client.get("/admin/").status_code == 200  # password alone, also the admin
    assert "von der Pflicht ausgenommen" in text(client.get("/konto/"))
    seite = text(admin_client.get(f"/admin/akten/user/{User.objects.get(username='kmeier').pk}/change/"))
    assert "Ohne zweiten Faktor (nur für Demo-Zugänge)" in seite
    assert "Für echte Mitarbeitende nie setzen" in seite
    assert User._meta.get_field("ohne_zweiten_faktor").default is False


# --- the Verwaltung ------------------------------------------------------------------------------


def test_admin_sees_who_has_one_and_resets_a_lost_phone(kanzlei: Kanzlei, admin_client: Client) -> None:
    u = user("kmeier", Role.ANWALT)
    device = mit_app(u)
    liste = admin_client.get("/admin/akten/user/")
    zeile = re.search(r"<tr[^>]*>(?:(?!</tr>).)*kmeier(?:(?!</tr>).)*</tr>", liste.content.decode(), re.S)[0]
    assert 'alt="True"' in zeile  # the column „zweiter Faktor“
    assert "Zweiter Faktor" in text(liste)
    ohne = admin_client.get("/admin/akten/user/", {"zweiter_faktor": "nein"}).content.decode()
    mit = admin_client.get("/admin/akten/user/", {"zweiter_faktor": "ja"}).content.decode()
    assert ">kmeier<" in mit and ">kmeier<" not in ohne and ">anwalt<" in ohne
    seite = text(admin_client.get(f"/admin/akten/user/{u.pk}/change/"))
    assert "10 Wiederherstellungscodes übrig" in seite
    assert admin_client.get("/admin/otp_totp/totpdevice/").status_code == 404  # django-otp's admins are out
    client = _verifiziert("kmeier", device)
    response = admin_client.post("/admin/akten/user/", {
        "action": "zweiten_faktor_zuruecksetzen", "_selected_action": [u.pk]}, follow=True)
    assert "Zweiter Faktor zurückgesetzt für: kmeier" in text(response)
    assert not TOTPDevice.objects.filter(user=u).exists()
    assert not StaticToken.objects.filter(device__user=u).exists()
    assert client.get("/akten/")["Location"].startswith(LOGIN)  # the open session has ended


# --- the websocket -------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_session_socket_is_refused_until_it_is_given(kanzlei: Kanzlei, asgi_server: str) -> None:
    device = mit_app(user("kmeier", Role.ANWALT))
    client, _ = login("kmeier")
    token = create_api_token(user=User.objects.get(username="kmeier"))

    def first_frame(headers: dict[str, str]) -> object:
        async def go() -> object:
            url = f"ws://{asgi_server}/ws/benachrichtigungen/"
            async with connect(url, additional_headers=headers, origin="http://127.0.0.1") as ws:
                try:
                    return await asyncio.wait_for(ws.recv(), 10)
                except ConnectionClosed as exc:
                    return exc.rcvd.code if exc.rcvd else None
        return asyncio.run(go())

    def cookie() -> dict[str, str]:
        name = settings.SESSION_COOKIE_NAME
        return {"Cookie": f"{name}={client.cookies[name].value}"}

    assert first_frame(cookie()) == 4403  # password only: refused
    assert '"unread"' in str(first_frame({"Authorization": f"Bearer {token}"}))  # the token needs none
    client.post(BESTAETIGEN, {"code": code(device)})  # a new session key
    assert '"unread"' in str(first_frame(cookie()))


def test_the_reset_on_the_server_when_nobody_reaches_the_admin(kanzlei: Kanzlei) -> None:
    u = user("chefin", Role.ADMIN, is_staff=True, is_superuser=True)
    mit_app(u)
    out = StringIO()
    call_command("zweiten_faktor_zuruecksetzen", "chefin", stdout=out)
    assert "Zweiter Faktor von „chefin“ zurückgesetzt" in out.getvalue()
    assert not TOTPDevice.objects.filter(user=u).exists()
    assert login("chefin")[1].startswith(EINRICHTEN)
    with pytest.raises(CommandError, match="Benutzer „niemand“ gibt es nicht"):
        call_command("zweiten_faktor_zuruecksetzen", "niemand")


@pytest.mark.parametrize("eingabe", ["", "   ", "x" * 500, "12345", "1234567", "<script>", "١٢٣٤٥٦"])
def test_bad_input_is_a_clear_refusal_and_changes_nothing(kanzlei: Kanzlei, eingabe: str) -> None:
    u = user("kmeier", Role.ANWALT)
    client, _ = login("kmeier")
    client.get(EINRICHTEN)
    response = client.post(EINRICHTEN, {"code": eingabe})
    assert response.status_code == 422 and 'class="field-error"' in response.content.decode()
    assert not TOTPDevice.objects.filter(user=u, confirmed=True).exists()
    mit_app(user("skoch", Role.SEKRETARIAT))
    other, _ = login("skoch")
    response = other.post(BESTAETIGEN, {"code": eingabe})
    assert response.status_code == 422 and 'class="field-error"' in response.content.decode()
    assert other.get("/akten/").status_code == 302
