"""Hinweis e-mails when something is wrong, against the real SMTP server (tests/smtp_server.py): a bad
address or sender fails with a German reason instead of waiting for ever, a temporary refusal (4xx)
is tried again and a permanent one (5xx) is not, the admin's „Erneut senden“, the occasion checked
again when the mail goes out, „niemand verantwortlich“ by the same rule as the recipients, and a
collector that decides each Hinweis once."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from kombu.exceptions import OperationalError

from akten import tasks
from akten.erfassung.fristen import frist_erledigen
from akten.fristen_scan import scan_fristen
from akten.mail.services import mails_vormerken, verlorene_mails
from akten.models import Alert, Frist, HinweisMail
from akten.tasks import mail_senden_task, scan_fristen_task
from tests.akten.test_hinweis_mails import _an, _frist, logged_in
from tests.conftest import Kanzlei
from tests.smtp_server import SmtpServer

# --- addresses Django cannot put on an envelope ------------------------------------------------------


@pytest.mark.parametrize("adresse", ["anwalt@kanzlei..test", "anwalt@" + "k" * 64 + ".test"])
def test_a_bad_address_is_not_sent_says_why_and_is_not_queued_again(
        adresse: str, kanzlei_mit_adressen: Kanzlei, mail_an: SmtpServer) -> None:
    anwalt = kanzlei_mit_adressen.users["anwalt"]
    anwalt.email = adresse  # written past the form (an import, the shell): the form would refuse it
    anwalt.save()
    _frist(kanzlei_mit_adressen, "Berufungsbegründung", 0, ist_notfrist=True)
    scan_fristen_task.apply()
    row = HinweisMail.objects.get(empfaenger=anwalt)
    assert (row.status, row.versuche) == ("uebersprungen", 0)
    assert "ist ungültig" in row.grund and "Verwaltung" in row.grund
    assert [m.rcpt_tos for m in mail_an.empfangen] == [["sachbearbeiter@kanzlei.test"]]  # the others: theirs
    assert verlorene_mails(jetzt=timezone.now() + timedelta(hours=2)) == []  # nothing waits for ever


def test_a_bad_sender_fails_each_mail_once_with_a_german_reason_and_the_admin_is_told(
        settings, kanzlei_mit_adressen: Kanzlei, mail_an: SmtpServer, admin_client: Client) -> None:
    settings.HELENA_MAIL_FROM = "Helena <helena@kanzlei..test>"
    _frist(kanzlei_mit_adressen, "Berufungsbegründung", 0, ist_notfrist=True)
    scan_fristen_task.apply()
    rows = list(HinweisMail.objects.all())
    assert len(rows) == 2 and mail_an.empfangen == []
    for row in rows:
        assert (row.status, row.versuche) == ("fehlgeschlagen", 1)
        assert row.letzter_fehler.startswith("Die E-Mail ließ sich nicht adressieren – Der Absender "
                                             "HELENA_MAIL_FROM („Helena <helena@kanzlei..test>“) ist keine "
                                             "gültige E-Mail-Adresse")
    assert verlorene_mails(jetzt=timezone.now() + timedelta(hours=2)) == []
    liste = admin_client.get("/admin/akten/hinweismail/").content.decode()
    assert "Der Absender HELENA_MAIL_FROM" in liste
    assert "Der Absender HELENA_MAIL_FROM" in admin_client.get("/konto/").content.decode()
    anwalt_konto = logged_in(kanzlei_mit_adressen.users["anwalt"]).get("/konto/").content.decode()
    assert "HELENA_MAIL_FROM" not in anwalt_konto  # not theirs to fix


# --- temporary and permanent refusals ------------------------------------------------------------------


@pytest.mark.parametrize(("befehl", "antwort"), [
    ("RCPT", "450 4.2.0 Greylisted, please try again later"),
    ("RCPT", "452 4.2.2 Mailbox full"),
    ("RCPT", "454 4.7.0 Temporary authentication failure"),
    ("MAIL", "451 4.3.0 Temporary local problem"),
    ("MAIL", "421 4.3.2 Service shutting down"),
])
def test_a_temporary_refusal_is_tried_again_and_the_mail_arrives(
        befehl: str, antwort: str, kanzlei_mit_adressen: Kanzlei, mail_an: SmtpServer) -> None:
    mail_an.antworten[befehl] = [antwort]  # the first attempt of the round is refused, then accepted
    _frist(kanzlei_mit_adressen, "Berufungsbegründung", 0, ist_notfrist=True)
    scan_fristen_task.apply()  # inline: the retry follows at once
    assert sorted(m.rcpt_tos[0] for m in mail_an.empfangen) == ["anwalt@kanzlei.test",
                                                                "sachbearbeiter@kanzlei.test"]
    rows = HinweisMail.objects.order_by("pk")
    assert [(r.status, r.versuche) for r in rows] == [("gesendet", 2), ("gesendet", 1)]
    assert antwort.split()[0] in rows[0].letzter_fehler  # the server's words kept for the admin


def test_a_permanent_refusal_fails_at_once_and_the_admin_sends_it_again(
        kanzlei_mit_adressen: Kanzlei, mail_an: SmtpServer, admin_client: Client) -> None:
    akte = kanzlei_mit_adressen.akten["A"]
    akte.sachbearbeiter = None
    akte.save()
    mail_an.antworten["RCPT"] = ["550 5.1.1 User unknown"]
    _frist(kanzlei_mit_adressen, "Berufungsbegründung", 0, ist_notfrist=True)
    scan_fristen_task.apply()
    row = HinweisMail.objects.get()
    assert (row.status, row.versuche, mail_an.empfangen) == ("fehlgeschlagen", 1, [])
    assert row.letzter_fehler.startswith("Der Mailserver nimmt die Empfängeradresse nicht an")
    aktion = {"action": "erneut_senden", "_selected_action": [row.pk]}

    for name in ("sachbearbeiter", "sekretariat"):  # nobody but the Verwaltung may
        refused = logged_in(kanzlei_mit_adressen.users[name]).post("/admin/akten/hinweismail/", aktion)
        assert refused.status_code == 302 and "/admin/login/" in refused["Location"]
    row.refresh_from_db()
    assert row.status == "fehlgeschlagen" and mail_an.empfangen == []

    page = admin_client.post("/admin/akten/hinweismail/", aktion, follow=True).content.decode()
    assert "1 E-Mail(s) erneut zum Versand gegeben." in page
    row.refresh_from_db()
    assert (row.status, row.versuche) == ("gesendet", 2)
    assert [m.betreff for m in mail_an.empfangen] == ["Notfrist heute: 1/26 – Berufungsbegründung"]
    again = admin_client.post("/admin/akten/hinweismail/", aktion, follow=True).content.decode()
    assert "0 E-Mail(s) erneut zum Versand gegeben. 1 nicht, weil sie nicht gescheitert sind." in again
    assert len(mail_an.empfangen) == 1  # a sent mail is never sent again


# --- the occasion as it is when the mail goes out --------------------------------------------------------


def test_what_changed_between_collecting_and_sending_is_not_mailed(
        kanzlei_mit_adressen: Kanzlei, mail_an: SmtpServer, settings) -> None:
    k = kanzlei_mit_adressen
    anwalt = k.users["anwalt"]
    verschoben = _frist(k, "Notfrist verschoben", 0, ist_notfrist=True)
    _frist(k, "Klageerwiderung", 20, vorfrist=timezone.localdate())  # Vorfrist: switched off below
    _frist(k, "Stellungnahme", -2)  # read in the bell below
    _frist(k, "Schon lange da", 2)  # its Hinweis older than 24 hours when the mail goes out
    gestern = _frist(k, "Berufung", -1, ist_notfrist=True)  # overdue now: this one is still news
    Alert.objects.create(  # yesterday's „heute“, collected only now (the worker was down a day)
        akte=k.akten["A"], frist=gestern, empfaenger=anwalt, art="heute", severity="critical",
        message="Heute endet …",
        schluessel=f"frist:{gestern.pk}:heute:{gestern.datum.isoformat()}:{anwalt.pk}")
    scan_fristen()
    settings.HELENA_MAIL_VERSAND = "task"
    mails_vormerken()
    mail = HinweisMail.objects.get(empfaenger=anwalt)
    assert mail.hinweise.count() == 6

    verschoben.datum += timedelta(days=7)
    verschoben.save()
    logged_in(anwalt).post("/konto/mail/", {"per_mail": ["bald", "heute", "ueberfaellig", "aufgabe"]})
    Alert.objects.filter(empfaenger=anwalt, frist__bezeichnung="Stellungnahme").update(gelesen=True)
    Alert.objects.filter(empfaenger=anwalt, frist__bezeichnung="Schon lange da").update(
        angelegt_am=timezone.now() - timedelta(hours=25))
    mail_senden_task.apply(args=[mail.pk])

    [gesendet] = _an(mail_an, "anwalt@kanzlei.test")
    assert gesendet.betreff == "Notfrist überfällig: 1/26 – Berufung"
    for alt in ("verschoben", "Klageerwiderung", "Stellungnahme", "Schon lange", "• KRITISCH – Notfrist h"):
        assert alt not in gesendet.text


def test_a_mail_left_with_nothing_to_say_is_not_sent_and_says_why(
        kanzlei_mit_adressen: Kanzlei, mail_an: SmtpServer, settings) -> None:
    k = kanzlei_mit_adressen
    frist = _frist(k, "Berufungsbegründung", 0, ist_notfrist=True)
    scan_fristen()
    settings.HELENA_MAIL_VERSAND = "task"
    mails_vormerken()
    frist.datum += timedelta(days=3)
    frist.save()
    Alert.objects.filter(empfaenger=k.users["sachbearbeiter"]).update(gelesen=True)
    for row in HinweisMail.objects.all():
        mail_senden_task.apply(args=[row.pk])
    assert mail_an.empfangen == []
    gruende = dict(HinweisMail.objects.values_list("empfaenger__username", "grund"))
    assert gruende == {
        "anwalt": "Nicht mehr nötig: die Frist wurde inzwischen verschoben.",
        "sachbearbeiter": "Nicht mehr nötig: inzwischen in Helena gelesen.",
    }
    assert set(HinweisMail.objects.values_list("status", flat=True)) == {"uebersprungen"}


def test_the_address_is_read_again_when_the_mail_goes_out(
        kanzlei_mit_adressen: Kanzlei, mail_an: SmtpServer, settings) -> None:
    anwalt = kanzlei_mit_adressen.users["anwalt"]
    _frist(kanzlei_mit_adressen, "Berufungsbegründung", 0, ist_notfrist=True)
    scan_fristen()
    settings.HELENA_MAIL_VERSAND = "task"
    mails_vormerken()
    anwalt.email = "a.neu@kanzlei.test"  # corrected by the admin while the mail waited
    anwalt.save()
    mail_senden_task.apply(args=[HinweisMail.objects.get(empfaenger=anwalt).pk])
    assert [m.rcpt_tos for m in mail_an.empfangen] == [["a.neu@kanzlei.test"]]
    assert HinweisMail.objects.get(empfaenger=anwalt).adresse == "a.neu@kanzlei.test"


# --- niemand verantwortlich: the same rule as the recipients ---------------------------------------------


@pytest.mark.parametrize("wie", ["deaktiviert", "ohne Zugriff"])
def test_a_frist_whose_only_responsible_person_cannot_act_tells_the_admins_nobody_is_responsible(
        wie: str, kanzlei_mit_adressen: Kanzlei, mail_an: SmtpServer) -> None:
    k = kanzlei_mit_adressen
    admin = k.users["admin"]
    admin.email = "verwaltung@kanzlei.test"
    admin.save()
    sb = k.users["sachbearbeiter"]
    if wie == "deaktiviert":
        sb.is_active = False
        sb.save()
        akte = k.akten["B"]  # sachbearbeiter may see it, but is gone
    else:
        akte = k.akten["D"]  # sachbearbeiter has no access to it
    Frist.objects.create(akte=akte, bezeichnung="Replik", verantwortlich=sb,
                         datum=timezone.localdate() + timedelta(days=1))
    scan_fristen_task.apply()
    hinweise = Alert.objects.filter(frist__bezeichnung="Replik")
    assert set(hinweise.values_list("empfaenger__username", "art")) >= {("admin", "niemand_verantwortlich")}
    assert not hinweise.filter(empfaenger=sb).exists()
    [mail] = _an(mail_an, "verwaltung@kanzlei.test")
    assert "KRITISCH – Frist ohne Verantwortliche" in mail.text
    assert f"{akte.aktenzeichen} – Replik" in mail.text


def test_once_someone_is_responsible_the_nobody_mail_is_not_sent(
        kanzlei_mit_adressen: Kanzlei, mail_an: SmtpServer, settings) -> None:
    k = kanzlei_mit_adressen
    admin = k.users["admin"]
    admin.email = "verwaltung@kanzlei.test"
    admin.save()
    frist = Frist.objects.create(akte=k.akten["D"], bezeichnung="Replik",
                                 datum=timezone.localdate() + timedelta(days=9))
    scan_fristen()
    settings.HELENA_MAIL_VERSAND = "task"
    [mail_id] = mails_vormerken()
    frist.verantwortlich = admin  # taken over while the mail waited
    frist.save()
    mail_senden_task.apply(args=[mail_id])
    assert mail_an.empfangen == []
    grund = HinweisMail.objects.get(pk=mail_id).grund
    assert grund == "Nicht mehr nötig: inzwischen ist jemand verantwortlich."


def test_a_vier_augen_request_nobody_can_confirm_is_logged(kanzlei_mit_adressen: Kanzlei, caplog) -> None:
    k = kanzlei_mit_adressen
    frist = Frist.objects.create(akte=k.akten["D"], bezeichnung="Berufung", ist_notfrist=True,
                                 datum=timezone.localdate() + timedelta(days=3))
    with caplog.at_level(logging.WARNING, logger="akten.fristen_scan"):
        frist_erledigen(user=k.users["admin"], akte_id=frist.akte_id, frist_id=frist.pk,
                        vermerk="eingereicht")
    assert "niemand kann die Erledigung" in caplog.text and "4/26" in caplog.text


# --- the collector decides each Hinweis once; queuing ----------------------------------------------------


def test_a_hinweis_not_wanted_is_decided_once_and_not_mailed_late_when_switched_back_on(
        kanzlei_mit_adressen: Kanzlei, mail_an: SmtpServer) -> None:
    anwalt = kanzlei_mit_adressen.users["anwalt"]
    logged_in(anwalt).post("/konto/mail/", {"per_mail": ["bald", "heute", "ueberfaellig", "aufgabe"]})
    _frist(kanzlei_mit_adressen, "Klageerwiderung", 20, vorfrist=timezone.localdate())
    scan_fristen_task.apply()
    assert _an(mail_an, "anwalt@kanzlei.test") == []
    assert Alert.objects.get(empfaenger=anwalt, art="vorfrist").ohne_mail
    logged_in(anwalt).post("/konto/mail/", {"per_mail": ["vorfrist", "bald", "heute", "ueberfaellig"]})
    scan_fristen_task.apply()
    assert _an(mail_an, "anwalt@kanzlei.test") == []  # the morning's Vorfrist does not come at noon


def test_a_lost_mail_is_queued_again_once_an_hour_not_at_every_scan(kanzlei_mit_adressen: Kanzlei) -> None:
    mail = HinweisMail.objects.create(empfaenger=kanzlei_mit_adressen.users["anwalt"],
                                      adresse="anwalt@kanzlei.test")
    HinweisMail.objects.filter(pk=mail.pk).update(eingereiht_am=timezone.now() - timedelta(hours=2))
    assert verlorene_mails() == [mail.pk]
    assert verlorene_mails() == []  # the next scan, five minutes later
    assert verlorene_mails(jetzt=timezone.now() + timedelta(minutes=61)) == [mail.pk]


def test_a_broker_error_for_one_mail_does_not_stop_the_others(
        kanzlei_mit_adressen: Kanzlei, settings, monkeypatch) -> None:
    settings.HELENA_MAIL_VERSAND = "task"
    gegeben: list[int] = []

    def delay(mail_id: int) -> None:
        if not gegeben:
            gegeben.append(-1)
            raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
        gegeben.append(mail_id)

    monkeypatch.setattr(tasks.mail_senden_task, "delay", delay)
    tasks.mails_verschicken([11, 12, 13])
    assert gegeben == [-1, 12, 13]
