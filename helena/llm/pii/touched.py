"""What a run's redaction must know, read from the database: every Akte the run or its conversation
has touched, as plain facts for helena.llm.pii.redactor (which knows no ORM).

An Akte counts as touched when it is the conversation's own; when a tool result of this run or of
an earlier run of the same conversation named it as a source (an Akte, or a Frist, Dokument,
Zeiterfassung or Entwurf of it), since earlier answers in the history carry the real names those
results gave; or when the conversation's messages name its Aktenzeichen or one of its parties (only
Akten the user may see: a placeholder's kind must not tell them who else is a client).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core.exceptions import ValidationError

from akten.models import Akte, Beteiligter, Dokument, Frist, Zeiterfassung
from akten.selectors import akten_for
from drafts.models import Draft
from helena.infra.db import db
from helena.llm.pii.patterns import PUBLIC_ROLES, AkteFacts, Party, mentions, spellings
from helena.llm.pii.privacy import Privacy
from helena.llm.pii.redactor import Redactor
from helena.models import Message, RunEvent

# Tables whose rows belong to one Akte (a tool result's {"table", "id"} sources).
_CHILD_TABLES = {model._meta.db_table: model for model in (Frist, Dokument, Zeiterfassung, Draft)}
_AKTE_TABLE = Akte._meta.db_table


def akte_facts(akte_ids: Iterable[Any]) -> list[AkteFacts]:
    """The Akten with these ids as the redactor needs them: parties, Aktenzeichen, Kurzrubrum."""
    ids = {int(i) for i in akte_ids}
    if not ids:
        return []
    parties: dict[int, list[Party]] = {}
    for row in Beteiligter.objects.filter(akte_id__in=ids).order_by("akte_id", "pk").values(
        "akte_id", "name", "rolle", "anschrift", "telefon", "email", "aktenzeichen_extern", "notiz"
    ):
        akte_id = row.pop("akte_id")
        parties.setdefault(akte_id, []).append(Party(**row))
    return [
        AkteFacts(key=pk, aktenzeichen=az, kurzrubrum=rubrum or "", parties=tuple(parties.get(pk, ())))
        for pk, az, rubrum in Akte.objects.filter(pk__in=ids).values_list("pk", "aktenzeichen", "kurzrubrum")
    ]


def akten_of(sources: Iterable[Any]) -> set[int]:
    """The Akten that tool-result sources belong to (other sources, e.g. statutes, name none)."""
    direct: set[int] = set()
    children: dict[str, set[Any]] = {}
    for source in sources:
        if not isinstance(source, dict):
            continue
        table = source.get("table")
        model = Akte if table == _AKTE_TABLE else _CHILD_TABLES.get(table)
        pk = _pk(model, source.get("id")) if model is not None else None
        if pk is None:
            continue
        if table == _AKTE_TABLE:
            direct.add(pk)
        else:
            children.setdefault(table, set()).add(pk)
    for table, pks in children.items():
        model = _CHILD_TABLES[table]
        direct.update(i for i in model.objects.filter(pk__in=pks).values_list("akte_id", flat=True) if i)
    return direct


def conversation_sources(conversation_id: Any) -> list[Any]:
    """The sources of every tool result stored for the conversation's runs so far."""
    sources: list[Any] = []
    for payload_sources in RunEvent.objects.filter(
        run__conversation_id=conversation_id, type="tool_result", payload__has_key="source"
    ).values_list("payload__source", flat=True):
        if isinstance(payload_sources, list):
            sources.extend(payload_sources)
    return sources


def akten_named_in(*, user: Any, text: str) -> set[int]:
    """The Akten the user may see whose Aktenzeichen or parties (courts and authorities aside) the
    text names: a name typed into the chat is redacted before any tool has read its Akte."""
    if not text.strip() or user is None:
        return set()
    visible = akten_for(user=user)
    folded = text.casefold()
    ids = {pk for pk, az in visible.values_list("pk", "aktenzeichen")
           if az and az.casefold() in folded and mentions(text, az)}
    for akte_id, name in Beteiligter.objects.filter(akte__in=visible).exclude(
        rolle__in=PUBLIC_ROLES
    ).values_list("akte_id", "name"):
        words = {word for spelling in spellings(name) for word in spelling.casefold().split()
                 if len(word) > 3}
        if akte_id in ids or not any(word in folded for word in words):
            continue  # a cheap look first: most parties are not named at all
        if mentions(text, name):
            ids.add(akte_id)
    return ids


def conversation_text(conversation_id: Any, *, limit: int = 200) -> str:
    """The newest messages of a conversation, as one text to look for names in."""
    texts = Message.objects.filter(conversation_id=conversation_id).order_by("-created_at").values_list(
        "text", flat=True)[:limit]
    return "\n".join(texts)


def learn_akten(redactor: Redactor, akte_ids: Iterable[Any]) -> None:
    """Teach the redactor the Akten it does not know yet."""
    new = {int(i) for i in akte_ids} - set(redactor.akten)
    for facts in akte_facts(new):
        redactor.add_akte(facts)


class ConversationLearner:
    """Learns, before each model call, the Akten touched since the last one: first the conversation's
    own Akte and what its earlier runs read, then what this run's tools report (`sources` is the
    run's ToolContext.sources, which the executor appends to)."""

    def __init__(self, *, user: Any = None, conversation_id: Any = None, akte_id: Any = None,
                 sources: list[Any] | None = None, text: str = "") -> None:
        self.user = user
        self.text = text  # a message not stored yet (the classifier runs before it is)
        self.conversation_id = conversation_id
        self.akte_id = akte_id
        self.sources = sources if sources is not None else []
        self._started = False
        self._seen = 0  # how many of `sources` were learned

    def pending(self) -> bool:
        return not self._started or self._seen < len(self.sources)

    def __call__(self, redactor: Redactor) -> None:
        """Learn, then mark as learned: a read that fails leaves everything pending for the next call."""
        upto = len(self.sources)
        fresh = list(self.sources[self._seen:upto])
        ids: set[int] = set()
        if not self._started:
            if self.akte_id:
                ids.add(int(self.akte_id))
            text = self.text
            if self.conversation_id:
                fresh += conversation_sources(self.conversation_id)
                text += "\n" + conversation_text(self.conversation_id)
            ids |= akten_named_in(user=self.user, text=text)
        ids |= akten_of(fresh)
        learn_akten(redactor, ids)
        self._started, self._seen = True, max(self._seen, upto)


def privacy_for(*, user: Any = None, conversation_id: Any = None, akte_id: Any = None,
                sources: list[Any] | None = None, text: str = "", offload: Any = db) -> Privacy:
    """The Privacy of a run or side call in a conversation (nothing is read until a cloud call needs it);
    what it learns is read with `offload` (helena.infra.db.db: off the event loop, connections managed)."""
    learner = ConversationLearner(user=user, conversation_id=conversation_id, akte_id=akte_id,
                                  sources=sources, text=text)
    return Privacy(learner=learner, offload=offload)


def _pk(model: Any, value: Any) -> Any:
    """The primary key of `model` a source names (an integer, or a UUID for drafts), or None."""
    try:
        return model._meta.pk.to_python(value)
    except (TypeError, ValueError, ValidationError):
        return None
