"""Critical Hinweise by e-mail, against a real SMTP server (aiosmtpd on a free port) and through the
real Celery tasks (applied here, or a real worker for the retries): the right person, a German
subject, no client names unless the firm allows them (§ 203 StGB), one mail per occasion and per
round, optional kinds switched off on /konto/ and critical ones not, nothing when e-mail is not set
up, nothing about an Akte the person may no longer see, retries until the server is back — and
then exactly one mail."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import timedelta

import pytest
from django.conf import settings as django_settings
from django.test import Client
from django.utils import timezone

from akten.erfassung.fristen import frist_erledigen
from akten.fristen_scan import scan_fristen
from akten.mail.services import mails_vormerken
from akten.models import Alert, Frist, HinweisEinstellung, HinweisMail, Kanzleieinstellung, User
from akten.services import grant_access, revoke_access
from akten.tasks import hinweise_mailen_task, mail_senden_task, scan_fristen_task
from tests.akten.conftest import ABSENDER, BASE, _mail_settings
from tests.conftest import BASE_DIR, Kanzlei, database_url, start_celery_worker, stop_celery_worker
from tests.smtp_server import SmtpServer


def _frist(k: Kanzlei, bezeichnung: str, tage: int, **extra: object) -> Frist:
    return Frist.objects.create(akte=k.akten["A"], bezeichnung=bezeichnung,
                                datum=timezone.localdate() + timedelta(days=tage), **extra)


def _an(smtp: SmtpServer, adresse: str) -> list:
    return [m for m in smtp.empfangen if adresse in m.rcpt_tos]


def logged_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


# --- what arrives ---------------------------------------------------------------------------------


def test_a_notfrist_today_arrives_in_german_with_aktenzeichen_title_and_link_and_no_client_name(
        kanzlei_mit_adressen: Kanzlei, mail_an: SmtpServer) -> None:
    frist = _frist(kanzlei_mit_adressen, "Berufungsbegründung", 0, ist_notfrist=True)
    scan_fristen_task.apply()
    mails = mail_an.empfangen
    assert sorted(m.rcpt_tos[0] for m in mails) == ["anwalt@kanzlei.test", "sachbearbeiter@kanzlei.test"]
    mail = _an(mail_an, "anwalt@kanzlei.test")[0]
    assert mail.betreff == "Notfrist heute: 1/26 – Berufungsbegründung"
    assert mail.message["From"] == ABSENDER and mail.message["Auto-Submitted"] == "auto-generated"
    assert mail.text.startswith("Hallo Anwalt,")
    assert "KRITISCH – Notfrist heute" in mail.text
    assert f"{BASE}/akten/{frist.akte_id}/fristen/{frist.pk}/" in mail.text
    assert "§ 203 StGB" in mail.text
    for mandant in ("Meier", "Stahlbau", "Kündigungsschutz"):  # Kurzrubrum and wegen of Akte 1/26
        assert mandant not in mail.text and mandant not in mail.betreff
    row = HinweisMail.objects.get(empfaenger=kanzlei_mit_adressen.users["anwalt"])
    assert (row.status, row.versuche, row.betreff) == ("gesendet", 1, mail.betreff)


def test_many_hinweise_at_once_are_one_mail_critical_first_and_a_second_scan_sends_nothing(
        kanzlei_mit_adressen: Kanzlei, mail_an: SmtpServer) -> None:
    _frist(kanzlei_mit_adressen, "Klageerwiderung", 20, vorfrist=timezone.localdate())
    _frist(kanzlei_mit_adressen, "Stellungnahme", -2)
    _frist(kanzlei_mit_adressen, "Berufung", -1, ist_notfrist=True)
    scan_fristen_task.apply()
    mails = _an(mail_an, "anwalt@kanzlei.test")
    assert len(mails) == 1
    assert mails[0].betreff == "Helena: 3 neue Hinweise, davon 1 kritisch"
    text = mails[0].text
    kritisch = text.index("• KRITISCH – Notfrist überfällig")
    assert kritisch < text.index("• Frist überfällig") and kritisch < text.index("• Vorfrist erreicht")
    assert "1/26 – Berufung, endete am" in text and "1/26 – Klageerwiderung, endet am" in text
    scan_fristen_task.apply()  # the next scan, and the one after: same occasions, no new mail
    scan_fristen_task.apply()
    assert len(_an(mail_an, "anwalt@kanzlei.test")) == 1
    assert HinweisMail.objects.filter(empfaenger=kanzlei_mit_adressen.users["anwalt"]).count() == 1


def test_the_firm_decides_what_a_mail_may_name(kanzlei_mit_adressen: Kanzlei, mail_an: SmtpServer) -> None:
    einstellung = Kanzleieinstellung.aktuell()
    einstellung.mail_inhalt = Kanzleieinstellung.MailInhalt.KURZRUBRUM
    einstellung.save()
    _frist(kanzlei_mit_adressen, "Berufungsbegründung", 0, ist_notfrist=True)
    scan_fristen_task.apply()
    mail = _an(mail_an, "anwalt@kanzlei.test")[0]
    assert "1/26 (Meier ./. Stahlbau GmbH) – Berufungsbegründung" in mail.text
    assert "Meier" not in mail.betreff  # never in a subject line, which phones show on the lock screen

    einstellung.mail_inhalt = Kanzleieinstellung.MailInhalt.KNAPP
    einstellung.save()
    _frist(kanzlei_mit_adressen, "Replik", 0, ist_notfrist=True)
    scan_fristen_task.apply()
    knapp = _an(mail_an, "anwalt@kanzlei.test")[1]
    assert knapp.betreff == "Notfrist heute – bitte in Helena ansehen"
    for verraten in ("1/26", "Replik", "Meier"):
        assert verraten not in knapp.text and verraten not in knapp.betreff
    assert "/fristen/" in knapp.text  # the link still leads there


def test_without_base_url_the_mail_has_no_link_but_says_where_to_look(
        settings, kanzlei_mit_adressen: Kanzlei, mail_an: SmtpServer) -> None:
    settings.HELENA_BASE_URL = ""
    _frist(kanzlei_mit_adressen, "Berufungsbegründung", 0, ist_notfrist=True)
    scan_fristen_task.apply()
    text = _an(mail_an, "anwalt@kanzlei.test")[0].text
    assert "http" not in text and "HELENA_BASE_URL" in text and "„Hinweise“" in text


# --- who decides what comes -------------------------------------------------------------------------


def test_an_optional_kind_switched_off_on_konto_stops_its_mail_a_critical_one_still_comes(
        kanzlei_mit_adressen: Kanzlei, mail_an: SmtpServer) -> None:
    anwalt = kanzlei_mit_adressen.users["anwalt"]
    page = logged_in(anwalt).post("/konto/mail/", {"per_mail": ["bald", "heute", "ueberfaellig", "aufgabe"]})
    assert page.status_code == 302 and page["Location"].endswith("#mail")
    assert HinweisEinstellung.objects.get(user=anwalt).mail_aus == ["vorfrist"]
    _frist(kanzlei_mit_adressen, "Klageerwiderung", 20, vorfrist=timezone.localdate())
    scan_fristen_task.apply()
    assert _an(mail_an, "anwalt@kanzlei.test") == []  # Vorfrist switched off
    assert len(_an(mail_an, "sachbearbeiter@kanzlei.test")) == 1  # a colleague's choice is their own
    assert Alert.objects.filter(empfaenger=anwalt, art="vorfrist").exists()  # the bell still has it

    HinweisEinstellung.objects.filter(user=anwalt).update(  # even written into the row by hand
        mail_aus=["vorfrist", "bald", "heute", "ueberfaellig", "aufgabe", "niemand_verantwortlich",
                  "bestaetigung"])
    _frist(kanzlei_mit_adressen, "Berufung", -1, ist_notfrist=True)
    scan_fristen_task.apply()
    betreffe = [m.betreff for m in _an(mail_an, "anwalt@kanzlei.test")]
    assert betreffe == ["Notfrist überfällig: 1/26 – Berufung"]


def test_konto_does_not_offer_to_switch_off_a_critical_kind_and_refuses_it(
        kanzlei_mit_adressen: Kanzlei, mail_an: SmtpServer) -> None:
    anwalt = kanzlei_mit_adressen.users["anwalt"]
    client = logged_in(anwalt)
    page = client.get("/konto/").content.decode()
    assert 'id="mail"' in page and "anwalt@kanzlei.test" in page
    assert "Notfrist überfällig <span class=\"badge konto-status\">immer per E-Mail" in page
    assert 'value="niemand_verantwortlich"' not in page.split('id="mail"')[1]
    refused = client.post("/konto/mail/", {"per_mail": ["niemand_verantwortlich"]})
    assert refused.status_code == 200 and "keine gültige Auswahl" in refused.content.decode()
    assert not HinweisEinstellung.objects.filter(user=anwalt).exists()


def test_one_user_cannot_change_anothers_mail_settings(kanzlei_mit_adressen: Kanzlei) -> None:
    anwalt, sb = kanzlei_mit_adressen.users["anwalt"], kanzlei_mit_adressen.users["sachbearbeiter"]
    HinweisEinstellung.objects.create(user=anwalt, mail_aus=[])
    # the form names no user: whatever is sent, the session's own settings change, nobody else's
    logged_in(sb).post("/konto/mail/", {"per_mail": [], "user": anwalt.pk, "user_id": anwalt.pk})
    assert HinweisEinstellung.objects.get(user=anwalt).mail_aus == []
    assert HinweisEinstellung.objects.get(user=sb).mail_aus == ["vorfrist", "bald", "heute", "ueberfaellig",
                                                                "aufgabe"]
    anonym = Client().post("/konto/mail/", {"per_mail": []})
    assert anonym.status_code == 302 and "/konto/anmelden/" in anonym["Location"]
    # the sent mails are the Verwaltung's to read, not a colleague's
    assert logged_in(sb).get("/admin/akten/hinweismail/").status_code == 302


# --- nothing, and why --------------------------------------------------------------------------------


def test_without_email_url_nothing_is_sent_and_nothing_fails(
        settings, kanzlei_mit_adressen: Kanzlei, smtp: SmtpServer) -> None:
    _mail_settings(settings, smtp.port)
    settings.HELENA_MAIL_EINGERICHTET = False  # EMAIL_URL unset
    _frist(kanzlei_mit_adressen, "Berufungsbegründung", 0, ist_notfrist=True)
    result = scan_fristen_task.apply()
    assert result.successful() and result.result > 0  # the Hinweise are given
    assert smtp.empfangen == [] and not HinweisMail.objects.exists()
    page = logged_in(kanzlei_mit_adressen.users["anwalt"]).get("/konto/").content.decode()
    assert "Der E-Mail-Versand ist in dieser Kanzlei nicht eingerichtet" in page


def test_a_person_without_address_gets_no_mail_and_the_admin_sees_why(
        kanzlei_mit_adressen: Kanzlei, mail_an: SmtpServer, admin_client: Client) -> None:
    Frist.objects.create(akte=kanzlei_mit_adressen.akten["D"], bezeichnung="Frist ohne Zuständige",
                         datum=timezone.localdate() + timedelta(days=1))  # nobody: the admin is told
    scan_fristen_task.apply()
    row = HinweisMail.objects.get(empfaenger=kanzlei_mit_adressen.users["admin"])
    assert row.status == "uebersprungen" and "keine E-Mail-Adresse" in row.grund and mail_an.empfangen == []
    page = admin_client.get(f"/admin/akten/hinweismail/{row.pk}/change/").content.decode()
    assert "keine E-Mail-Adresse" in page and "Niemand ist verantwortlich" in page
    assert "nicht verschickt" in admin_client.get("/admin/akten/hinweismail/").content.decode()
    konto = admin_client.get("/konto/").content.decode()  # and the person is told on their page
    assert "Für dich ist keine E-Mail-Adresse hinterlegt" in konto


def test_no_mail_about_an_akte_the_person_may_no_longer_see(
        kanzlei_mit_adressen: Kanzlei, mail_an: SmtpServer) -> None:
    k = kanzlei_mit_adressen
    sb, akte = k.users["sachbearbeiter"], k.akten["A"]
    frist = _frist(k, "Berufung", 0, ist_notfrist=True)
    Alert.objects.create(akte=akte, frist=frist, empfaenger=sb, art="heute", severity="critical",
                         message="Heute endet …", schluessel="test:heute:sb")
    revoke_access(akte=akte, user=sb)  # taken away before the mail is collected
    hinweise_mailen_task.apply()
    assert _an(mail_an, "sachbearbeiter@kanzlei.test") == [] and not HinweisMail.objects.filter(empfaenger=sb)

    second = _frist(k, "Replik", 0, ist_notfrist=True)
    grant_access(akte=akte, user=sb)
    Alert.objects.create(akte=akte, frist=second, empfaenger=sb, art="heute", severity="critical",
                         message="Heute endet …", schluessel="test:heute:sb:2")
    [mail_id] = mails_vormerken()
    revoke_access(akte=akte, user=sb)  # taken away while the mail waits for the worker
    mail_senden_task.apply(args=[mail_id])
    assert _an(mail_an, "sachbearbeiter@kanzlei.test") == []
    assert HinweisMail.objects.get(pk=mail_id).status == "uebersprungen"


# --- Vier-Augen -----------------------------------------------------------------------------------------


def test_a_notfrist_waiting_for_confirmation_is_mailed_to_who_may_confirm(
        kanzlei_mit_adressen: Kanzlei, mail_an: SmtpServer, django_capture_on_commit_callbacks) -> None:
    k = kanzlei_mit_adressen
    frist = _frist(k, "Berufungsbegründung", 3, ist_notfrist=True)
    with django_capture_on_commit_callbacks(execute=True):
        frist_erledigen(user=k.users["sachbearbeiter"], akte_id=k.akten["A"].pk, frist_id=frist.pk,
                        vermerk="Per beA eingereicht")
    mails = mail_an.empfangen
    assert [(m.rcpt_tos, m.betreff) for m in mails] == [
        (["anwalt@kanzlei.test"], "Notfrist wartet auf deine Bestätigung: 1/26 – Berufungsbegründung")]
    assert "KRITISCH" in mails[0].text


def test_an_auftrag_is_mailed_without_its_result_and_a_hinweis_written_by_people_not_at_all(
        kanzlei_mit_adressen: Kanzlei, mail_an: SmtpServer, django_capture_on_commit_callbacks) -> None:
    k = kanzlei_mit_adressen
    with django_capture_on_commit_callbacks(execute=True):
        Alert.objects.create(akte=k.akten["A"], empfaenger=k.users["anwalt"], art="aufgabe", severity="info",
                             message="Helena hat den Auftrag erledigt: Mandant Meier schuldet 12.000 €.")
        Alert.objects.create(akte=k.akten["A"], empfaenger=k.users["anwalt"], severity="info",
                             message="Bitte Herrn Meier zurückrufen")  # art "": written by a person
    [mail] = mail_an.empfangen
    assert mail.betreff == "Auftrag an Helena erledigt: 1/26"
    assert f"{BASE}/akten/{k.akten['A'].pk}/" in mail.text
    assert "Meier" not in mail.text and "12.000" not in mail.text and "zurückrufen" not in mail.text


# --- sending: once, and again until it works -------------------------------------------------------------


def test_a_task_delivered_twice_sends_once(kanzlei_mit_adressen: Kanzlei, mail_an: SmtpServer,
                                           settings) -> None:
    settings.HELENA_MAIL_VERSAND = "task"  # collected here, the tasks applied by hand below
    _frist(kanzlei_mit_adressen, "Berufungsbegründung", 0, ist_notfrist=True)
    scan_fristen()
    ids = mails_vormerken()
    for mail_id in ids + ids:
        mail_senden_task.apply(args=[mail_id])
    assert len(mail_an.empfangen) == len(ids) == 2


def test_a_server_that_stays_down_fails_the_mail_after_bounded_attempts(
        settings, kanzlei_mit_adressen: Kanzlei, smtp: SmtpServer) -> None:
    _mail_settings(settings, smtp.port)
    smtp.stop()  # nothing listens there now
    _frist(kanzlei_mit_adressen, "Berufungsbegründung", 0, ist_notfrist=True)
    scan_fristen_task.apply()  # inline: the retries follow at once
    row = HinweisMail.objects.get(empfaenger=kanzlei_mit_adressen.users["anwalt"])
    assert row.status == "fehlgeschlagen" and row.versuche == 6
    assert row.letzter_fehler.startswith("Der Mailserver ist nicht erreichbar (Verbindung abgelehnt)")


@pytest.mark.django_db(transaction=True)
def test_a_real_worker_retries_while_the_server_is_down_and_sends_exactly_once_when_it_is_back(
        settings, kanzlei_mit_adressen: Kanzlei, monkeypatch) -> None:
    server = SmtpServer()  # its port, not listening yet: the mail server is down
    _mail_settings(settings, server.port)
    settings.HELENA_MAIL_VERSAND = "task"
    for name, value in {"EMAIL_URL": f"smtp://127.0.0.1:{server.port}", "HELENA_MAIL_FROM": ABSENDER,
                        "HELENA_MAIL_RETRY_SEKUNDEN": "1", "HELENA_BASE_URL": BASE}.items():
        monkeypatch.setenv(name, value)
    worker = start_celery_worker()
    try:
        _frist(kanzlei_mit_adressen, "Berufungsbegründung", 0, ist_notfrist=True)
        scan_fristen_task.apply()  # the scan here, the mails to the worker
        deadline = time.monotonic() + 60
        while HinweisMail.objects.filter(versuche__gte=2).exclude(letzter_fehler="").count() < 2:
            assert time.monotonic() < deadline, "der Worker hat es nicht zweimal versucht"
            time.sleep(0.2)
        server.start()
        while HinweisMail.objects.exclude(status="gesendet").exists():
            assert time.monotonic() < deadline + 60, list(HinweisMail.objects.values("status", "versuche"))
            time.sleep(0.2)
        time.sleep(3)  # a retry still on its way would arrive now
        assert sorted(m.rcpt_tos[0] for m in server.empfangen) == ["anwalt@kanzlei.test",
                                                                   "sachbearbeiter@kanzlei.test"]
        for row in HinweisMail.objects.all():
            assert row.versuche >= 3 and row.gesendet_am is not None
            assert "nicht erreichbar" in row.letzter_fehler  # what happened stays for the admin
    finally:
        stop_celery_worker(worker)
        server.stop()


def test_email_url_is_read_as_django_environ_reads_it_and_smtps_on_465_speaks_tls_at_once() -> None:
    code = ("from django.conf import settings as s; print(s.EMAIL_HOST, s.EMAIL_PORT, s.EMAIL_HOST_USER, "
            "s.EMAIL_USE_TLS, s.EMAIL_USE_SSL, s.HELENA_MAIL_EINGERICHTET)")
    env = {**os.environ, "DATABASE_URL": database_url(), "DJANGO_SETTINGS_MODULE": "config.settings",
           "HELENA_MAIL_FROM": ABSENDER}

    def lies(url: str) -> str:
        out = subprocess.run([sys.executable, "-c", "import django; django.setup(); " + code], cwd=BASE_DIR,
                             env={**env, "EMAIL_URL": url}, capture_output=True, text=True, timeout=60)
        return out.stdout.strip()

    starttls = lies("smtp+tls://helena:geheim@mail.kanzlei.test:587")
    assert starttls == "mail.kanzlei.test 587 helena True False True"
    implicit = lies("smtps://helena:geheim@mail.kanzlei.test:465")
    assert implicit == "mail.kanzlei.test 465 helena False True True"
    assert lies("smtp://127.0.0.1:25") == "127.0.0.1 25  False False True"
    # the scheme in any case; smtps:// without a port is TLS at once on 465, on 587 STARTTLS
    assert lies("SMTPS://helena:geheim@mail.kanzlei.test:465") == implicit
    assert lies("smtps://helena:geheim@mail.kanzlei.test") == implicit
    assert lies("smtps://helena:geheim@mail.kanzlei.test:587") == starttls
    assert django_settings.EMAIL_TIMEOUT > 0
