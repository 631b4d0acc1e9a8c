"""Helena's records that may name a person whose data the firm deletes (akten/datenschutz/fundstellen.py):
conversations whose messages or run transcripts contain one of the person's spellings, and tool calls
whose arguments do — outside the deleted Akte (its own conversations go with it). Ids only: the
Löschprotokoll lists them „zur Prüfung“, the admin links them."""

from __future__ import annotations

from functools import reduce
from operator import or_

from django.db.models import Q

from helena.models import AgentRun, Conversation, Message, ToolCallLog

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
