"""Helena's records that may name a person whose data the firm deletes (akten/datenschutz/fundstellen.py):
conversations whose messages or run transcripts contain one of the person's spellings, and tool calls
whose arguments do — outside the deleted Akte (its own conversations go with it). Ids only: the
Löschprotokoll lists them „zur Prüfung“, the admin links them. And whether the Auskunft must tell of a
transfer to a third country (a cloud tier in use, akten/datenschutz/angaben.py)."""

from __future__ import annotations

from functools import reduce
from operator import or_

from django.db.models import Q

from helena.llm.router import tier_configs
from helena.models import AgentRun, Conversation, HelenaSettings, Message, ToolCallLog

HOECHSTENS = 500  # ids of one kind: beyond that the admin searches the admin's lists


def _nennt(feld: str, schreibweisen: list[str]) -> Q:
    return reduce(or_, (Q(**{f"{feld}__icontains": s}) for s in schreibweisen))


def fundstellen(schreibweisen: list[str], ausser_akte: int | None) -> dict[str, list[str]]:
    """{„Helena-Unterhaltungen“: [ids], „Werkzeugaufrufe“: [ids]} naming one of the spellings."""
    if not schreibweisen:
        return {}
    fremd = ~Q(conversation__akte_id=ausser_akte) if ausser_akte is not None else Q()
    ids = set(Message.objects.filter(fremd, _nennt("text", schreibweisen))
              .values_list("conversation_id", flat=True)[:HOECHSTENS])
    ids |= set(AgentRun.objects.filter(fremd, _nennt("transcript", schreibweisen))
               .values_list("conversation_id", flat=True)[:HOECHSTENS])
    unterhaltungen = Conversation.objects.filter(pk__in=ids).order_by("pk").values_list("pk", flat=True)
    aufrufe = ToolCallLog.objects.filter(_nennt("params", schreibweisen))
    if ausser_akte is not None:
        aufrufe = aufrufe.exclude(akte_id=ausser_akte)
    return {"Helena-Unterhaltungen": [str(pk) for pk in unterhaltungen[:HOECHSTENS]],
            "Werkzeugaufrufe": [str(pk) for pk in aufrufe.order_by("pk").values_list("pk", flat=True)
                                [:HOECHSTENS]]}


def drittland() -> list[str]:
    """For the Auskunft (akten/datenschutz/angaben.py, Art. 15 Abs. 2 DSGVO): when a model outside the firm
    may be used (a configured cloud tier and the firm's opt-in), texts of the Akten may go — redacted —
    to its provider, possibly outside the EU; the person may ask for the safeguards (Art. 46 DSGVO)."""
    helena = HelenaSettings.cached()
    cloud = [c for c in tier_configs().values() if c.cloud]
    if not cloud or not helena.cloud_allowed:
        return []
    return [DRITTLAND]


DRITTLAND = ("Übermittlung an ein Drittland (Art. 15 Abs. 2 DSGVO): Die Kanzlei setzt für die Bearbeitung "
             "von Mandaten auch ein Sprachmodell eines externen Anbieters ein. Dabei können Texte aus den "
             "Akten – mit geschwärzten Namen und Kontaktdaten – an den Anbieter übermittelt werden, der "
             "seinen Sitz oder seine Server außerhalb der EU haben kann. Über die geeigneten Garantien nach "
             "Art. 46 DSGVO (etwa Standardvertragsklauseln) unterrichtet die Kanzlei auf Anfrage.")
