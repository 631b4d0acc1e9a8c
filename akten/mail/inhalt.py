"""What an e-mail about Hinweise says: a German subject and a plain text, no more client data than
the firm allows (Kanzleieinstellung.mail_inhalt, § 203 StGB) and never the text of a Hinweis itself
(an Auftrag's result, a colleague's words could say anything). Every item links to its Frist or Akte
in Helena when HELENA_BASE_URL is set; without it the mail says where to look instead.

Subjects: „Notfrist heute: 12/26 – Berufungsbegründung“ for one Hinweis; „Helena: 3 neue Hinweise,
davon 1 kritisch“ for several (one mail per person and round, not thirty).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from akten.fristen import format_datum
from akten.mail.arten import ist_kritisch
from akten.models import Alert, Frist, Kanzleieinstellung, User

Art = Alert.Art
Inhalt = Kanzleieinstellung.MailInhalt
BETREFF_MAX = 200


@dataclass(frozen=True)
class Eintrag:
    kritisch: bool
    anlass: str  # „Notfrist heute“
    was: str  # „12/26 – Berufungsbegründung, endet am 02.12.2026“ (as far as the firm allows)
    link: str


def _fristwort(frist: Frist | None) -> str:
    if frist is None:
        return "Frist"
    return "Notfrist" if frist.ist_notfrist else frist.get_typ_display()


def anlass(alert: Alert) -> str:
    """The occasion in a few words, the start of the subject."""
    wort = _fristwort(alert.frist)
    return {
        Art.HEUTE: f"{wort} heute",
        Art.UEBERFAELLIG: f"{wort} überfällig",
        Art.BALD: f"{wort} bald fällig",
        Art.VORFRIST: "Vorfrist erreicht",
        Art.NIEMAND: f"{wort} ohne Verantwortliche",
        Art.BESTAETIGUNG: "Notfrist wartet auf deine Bestätigung",
        Art.AUFGABE: "Auftrag an Helena erledigt",
    }.get(alert.art, "Neuer Hinweis")


def _kennung(alert: Alert, umfang: str) -> str:
    """Aktenzeichen and the Frist's title (and the Kurzrubrum if the firm allows): „12/26 – …“."""
    if umfang == Inhalt.KNAPP or alert.akte is None:
        return ""
    akte = alert.akte
    az = akte.aktenzeichen
    if umfang == Inhalt.KURZRUBRUM and akte.kurzrubrum:
        az = f"{az} ({akte.kurzrubrum})"
    return f"{az} – {alert.frist.bezeichnung}" if alert.frist is not None else az


def _datum(alert: Alert) -> str:
    frist = alert.frist
    if frist is None:
        return ""
    if frist.typ == Frist.Typ.TERMIN:
        return f"am {format_datum(frist.datum)}"
    return f"endet am {format_datum(frist.datum)}" if frist.datum >= timezone.localdate() else \
        f"endete am {format_datum(frist.datum)}"


def link(alert: Alert) -> str:
    """Where the Hinweis is answered in Helena: the Frist, else the Akte, else the Hinweise page."""
    base = (settings.HELENA_BASE_URL or "").rstrip("/")
    if not base:
        return ""
    if alert.frist_id is not None and alert.akte_id is not None:
        pfad = reverse("akten:frist_detail", args=[alert.akte_id, alert.frist_id])
    elif alert.akte_id is not None:
        pfad = reverse("akten:detail", args=[alert.akte_id])
    else:
        pfad = reverse("akten:hinweise")
    return base + pfad


def eintrag(alert: Alert, *, umfang: str) -> Eintrag:
    teile = [t for t in (_kennung(alert, umfang), _datum(alert)) if t]
    return Eintrag(kritisch=ist_kritisch(alert), anlass=anlass(alert), was=", ".join(teile), link=link(alert))


def _einzeilig(text: str) -> str:
    text = " ".join(text.split())  # no line break may reach a mail header
    return text if len(text) <= BETREFF_MAX else text[: BETREFF_MAX - 1] + "…"


def betreff(alerts: Sequence[Alert], *, umfang: str) -> str:
    if len(alerts) == 1:
        alert = alerts[0]
        if umfang == Inhalt.KNAPP:
            return _einzeilig(f"{anlass(alert)} – bitte in Helena ansehen")
        kennung = _kennung(alert, Inhalt.AKTENZEICHEN)  # the Kurzrubrum never in a subject line
        return _einzeilig(f"{anlass(alert)}: {kennung}" if kennung else anlass(alert))
    kritisch = sum(1 for a in alerts if ist_kritisch(a))
    return f"Helena: {len(alerts)} neue Hinweise" + (f", davon {kritisch} kritisch" if kritisch else "")


DATENSCHUTZ = {
    Inhalt.KNAPP: "Diese E-Mail nennt keine Akte: so will es deine Kanzlei (§ 203 StGB). Alles Weitere "
                  "siehst du in Helena.",
    Inhalt.AKTENZEICHEN: "Diese E-Mail nennt bewusst nur Aktenzeichen und Bezeichnung der Frist (§ 203 "
                         "StGB). Alles Weitere siehst du in Helena.",
    Inhalt.KURZRUBRUM: "Diese E-Mail nennt Aktenzeichen, Kurzrubrum und Bezeichnung der Frist, wie es deine "
                       "Kanzlei festgelegt hat (§ 203 StGB). Alles Weitere siehst du in Helena.",
}


def _anrede(user: User) -> str:
    name = (user.first_name or "").strip() or user.get_full_name() or user.get_username()
    return f"Hallo {name},"


def text(alerts: Sequence[Alert], *, user: User, umfang: str) -> str:
    """The mail's plain text, critical Hinweise first."""
    eintraege = sorted((eintrag(a, umfang=umfang) for a in alerts), key=lambda e: not e.kritisch)
    einleitung = ("in Helena gibt es einen neuen Hinweis für dich:" if len(eintraege) == 1
                  else f"in Helena gibt es {len(eintraege)} neue Hinweise für dich:")
    zeilen = [_anrede(user), "", einleitung, ""]
    for e in eintraege:
        zeilen.append(f"• {'KRITISCH – ' if e.kritisch else ''}{e.anlass}")
        if e.was:
            zeilen.append(f"  {e.was}")
        if e.link:
            zeilen.append(f"  {e.link}")
        zeilen.append("")
    base = (settings.HELENA_BASE_URL or "").rstrip("/")
    if not base:
        zeilen += ["Öffne Helena und sieh unter „Hinweise“ nach. (Links fehlen, weil die Adresse von Helena "
                   "nicht eingerichtet ist: HELENA_BASE_URL.)", ""]
    zeilen.append(DATENSCHUTZ.get(umfang, DATENSCHUTZ[Inhalt.AKTENZEICHEN]))
    konto = f"{base}{reverse('konto:seite')}#mail" if base else "deinem Konto in Helena"
    zeilen += [f"Welche Hinweise du per E-Mail bekommst, stellst du unter {konto} ein; kritische "
               "Hinweise (Notfrist heute oder überfällig, niemand verantwortlich, Vier-Augen-Bestätigung) "
               "kommen immer.",
               "", "-- ", "Helena – diese E-Mail wurde automatisch verschickt, bitte antworte nicht darauf."]
    return "\n".join(zeilen) + "\n"
