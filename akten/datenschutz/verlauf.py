"""Two parts of the Auskunft (Art. 15 DSGVO) that are not the records as they are now: the earlier values
of the person's Beteiligten-Einträge (their history, django-simple-history) and who of the firm read the
Akten the person is party to (the read log, akten.models.Lesezugriff).

Earlier values are personal data the firm still holds (an old address in the history is processed as
much as the current one): every value a row had before a change, with the day it was replaced.

The read log: per EuGH, Urteil vom 22.06.2023, C-579/21 (Pankki S), the log's entries on the consultation
of the person's data — when and for what — are information under Art. 15 Abs. 1; the names of the
employees who consulted them are not, as a rule, since they act under the controller's authority
(Art. 29 DSGVO) and are not „Empfänger“. So each entry gives date, way and what was read, the person
of the firm by role only (their current role; a deleted account: „Person der Kanzlei“).
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from akten.models import Akte, Beteiligter, Lesezugriff, Role

# The Beteiligter's fields the person's data are in, with their labels (the rest is bookkeeping).
FELDER = ("rolle", "anrede", "name", "anschrift", "telefon", "email", "aktenzeichen_extern", "notiz")
# The newest entries of the read log, at most: an Akte read daily for years would fill a book; the
# Auskunft says when entries are left out.
HOECHSTENS_LESEZUGRIFFE = 2000


def _wert(h: Any, feld: str) -> str:
    wert = getattr(h, feld, "") or ""
    if feld == "rolle" and wert:
        return str(Beteiligter.Rolle(wert).label) if wert in Beteiligter.Rolle.values else wert
    if feld == "anrede" and wert:
        return str(dict(Beteiligter._meta.get_field("anrede").choices or []).get(wert, wert))
    return str(wert)


def fruehere_werte(zeilen: list[Beteiligter]) -> list[dict[str, Any]]:
    """Each value a row of the person had before it was changed: {beteiligter_id, aktenzeichen, feld
    (German label), wert (the old value), ersetzt_am (ISO date-time)}, oldest first."""
    namen = {f: str(Beteiligter._meta.get_field(f).verbose_name) for f in FELDER}
    akten = {b.pk: b.akte.aktenzeichen for b in zeilen}
    verlauf = (Beteiligter.history.filter(id__in=list(akten)).exclude(history_type="-")
               .order_by("id", "history_date", "history_id"))
    werte: list[dict[str, Any]] = []
    vorher: dict[int, Any] = {}
    for h in verlauf:
        alt = vorher.get(h.id)
        vorher[h.id] = h
        if alt is None:
            continue
        for feld in FELDER:
            if _wert(alt, feld) != _wert(h, feld) and _wert(alt, feld):
                werte.append({"beteiligter_id": str(h.id), "aktenzeichen": akten[h.id], "feld": namen[feld],
                              "wert": _wert(alt, feld),
                              "ersetzt_am": timezone.localtime(h.history_date).isoformat(timespec="seconds")})
    werte.sort(key=lambda w: w["ersetzt_am"])
    return werte


def lesezugriffe(akten: list[Akte]) -> dict[str, Any]:
    """The read log's entries on these Akten, the newest first: {eintraege: [{gelesen_am, aktenzeichen, weg,
    was, wer}], weitere: n left out}."""
    rollen = dict(Role.choices)
    qs = (Lesezugriff.objects.filter(akte__in=akten).select_related("user")
          .order_by("-zeitpunkt", "-pk"))
    eintraege = []
    for z in qs[:HOECHSTENS_LESEZUGRIFFE]:
        wer = (f"Person der Kanzlei ({rollen.get(z.user.role, z.user.role)})" if z.user is not None
               else "Person der Kanzlei")
        eintraege.append({"gelesen_am": timezone.localtime(z.zeitpunkt).isoformat(timespec="seconds"),
                          "aktenzeichen": z.aktenzeichen, "weg": z.get_weg_display(),
                          "was": z.get_bereich_display(), "wer": wer})
    gesamt = qs.count() if len(eintraege) == HOECHSTENS_LESEZUGRIFFE else len(eintraege)
    return {"eintraege": eintraege, "weitere": gesamt - len(eintraege)}
