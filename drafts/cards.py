"""The preview card of a draft: one server-rendered HTML fragment for every place a draft is shown.

The same card goes into the chat (inside a websocket event, so without a request), the inbox, the
Akte page and the responses of the card's own buttons; rendering it here once keeps them identical.
The card shows what a lawyer must check before approving (weekday of a Frist, Notfrist, the
Berechnung, warnings), and offers the decision only to someone who may take it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import SafeString

from akten.accounts.users import anzeigename
from akten.models import Akte, Alert, Frist, User
from akten.models.dokument import EMPFAENGER_CHOICES
from config.navigation import is_fetch, safe_next
from drafts.fields import LABELS
from drafts.forms import EDIT_FORM, EDIT_MARKER, FALSE_WORDS, NO_TAGS, initial
from drafts.models import Draft
from drafts.selectors import may_decide

__all__ = ["render_card"]

_RECORD_NAMES = {
    "frist": "die Frist",
    "dokument": "das Dokument",
    "zeiterfassung": "den Zeiteintrag",
    "notiz": "die Notiz",
    "alert": "den Hinweis",
}
_RECORD_CREATED = {
    "notiz": "Die Notiz wurde angelegt.",
    "alert": "Der Hinweis wurde angelegt.",
}
def _next_for(request: HttpRequest | None, next_url: str) -> str:
    if next_url or request is None:
        return next_url
    given = safe_next(request, request.POST.get("next") or request.GET.get("next"))
    if given:
        return given
    if request.method == "GET" and not is_fetch(request):
        return request.get_full_path()
    return ""


def _form_rows(
    *, draft: Draft, values: Mapping[str, Any] | None, errors: Mapping[str, str]
) -> list[dict[str, Any]]:
    rows = []
    for spec in EDIT_FORM.get(draft.kind, ()):
        if values is not None:
            value = str(values.get(spec.name, ""))
            checked = spec.name in values and value.strip().lower() not in FALSE_WORDS
        else:
            current = (draft.fields or {}).get(spec.name)
            value = initial(spec, current)
            checked = bool(current)
        rows.append({
            "spec": spec,
            "id": f"draft-{draft.pk}-{spec.name}",
            "value": value,
            "checked": checked,
            "error": errors.get(spec.name, ""),
        })
    return rows


def _akte_update_rows(draft: Draft) -> list[dict[str, Any]]:
    """Zusammenfassung/Status/Schlagworte/Rechtsgebiet: vorher → nachher (vorher if Helena knew it)."""
    vorher = (draft.context or {}).get("vorher") or {}
    labels = {
        "status": dict(Akte.Status.choices),
        "rechtsgebiet": dict(Akte.Rechtsgebiet.choices),
    }
    rows = []
    for name in ("summary", "status", "tags", "rechtsgebiet"):
        neu = (draft.fields or {}).get(name)
        if neu is None:
            continue

        def shown(value: Any, name: str = name) -> Any:
            if value is None:
                return None
            if name == "tags":
                return ", ".join(value) if value else NO_TAGS
            return labels.get(name, {}).get(value, value)

        rows.append({
            "name": name,
            "label": LABELS.get(name, name),
            "has_vorher": name in vorher,
            "vorher": shown(vorher.get(name)),
            "nachher": shown(neu),
            "markdown": name == "summary",
        })
    return rows


def _record_link(draft: Draft) -> dict[str, str]:
    """Where the record of an approved draft lives: the Akte page with an anchor, or just text."""
    if draft.status != Draft.Status.APPROVED or not draft.record_type:
        return {}
    if draft.akte_id is None:
        return {"text": _RECORD_CREATED.get(draft.record_type, "Der Eintrag wurde angelegt.")}
    url = draft.record_url() or ""
    aktenzeichen = draft.akte.aktenzeichen if draft.akte else ""
    if draft.record_type == "akte":
        return {"url": url, "text": f"Akte {aktenzeichen} ansehen"}
    what = _RECORD_NAMES.get(draft.record_type, "den Eintrag")
    link = {"url": url, "text": f"Zur Akte {aktenzeichen}: {what} ansehen"}
    if draft.record_type == "dokument":  # the approved Schriftsatz on the letterhead, ready to send
        datei = reverse("akten:dokument_datei", args=[draft.record_id])
        link |= {"docx": f"{datei}?format=docx", "pdf": f"{datei}?format=pdf"}
    return link


def render_card(
    *,
    draft: Draft,
    user: User,
    request: HttpRequest | None = None,
    form_errors: dict[str, str] | None = None,
    message: str = "",
    edit: bool = False,
    values: Mapping[str, Any] | None = None,
    next_url: str = "",
) -> SafeString:
    """The card's HTML for this user (buttons only if they may decide).

    `edit` renders the edit form, pre-filled from the draft or from submitted `values` (a 422
    re-render), with `form_errors` per field. Works without a request (websocket events): then
    the forms carry no CSRF token and rely on the X-CSRFToken header that drafts.js sends.
    """
    pending = draft.is_pending
    decidable = pending and may_decide(user=user, draft=draft)
    errors = dict(form_errors or {})
    form_names = {spec.name for spec in EDIT_FORM.get(draft.kind, ())}
    general_errors = [text for name, text in errors.items() if name not in form_names]
    next_url = _next_for(request, next_url)
    query = f"?{urlencode({'next': next_url})}" if next_url else ""
    detail_url = reverse("drafts:detail", args=[draft.pk])
    berechnung = (draft.context or {}).get("berechnung") or {}
    akte_rows = _akte_update_rows(draft) if draft.kind == Draft.Kind.AKTE_UPDATE else []
    context = {
        "draft": draft,
        "f": draft.fields or {},
        "title": draft.title or draft.get_kind_display(),
        "kind_label": draft.get_kind_display(),
        "status_label": draft.get_status_display(),
        "requester": anzeigename(draft.requested_by, niemand="jemandem"),
        "decider": anzeigename(draft.decided_by, niemand="jemandem"),
        "akte_url": reverse("akten:detail", args=[draft.akte_id]) if draft.akte_id else "",
        "kind_template": f"drafts/kinds/{draft.kind}.html",
        "may_decide": decidable,
        "edit": edit and decidable,
        "message": message,
        "general_errors": general_errors if edit else [],
        "form_rows": _form_rows(draft=draft, values=values, errors=errors) if edit and decidable else [],
        "edit_marker": EDIT_MARKER,
        "reject_error": errors.get("grund", ""),
        "next_url": next_url,
        "approve_url": reverse("drafts:approve", args=[draft.pk]),
        "reject_url": reverse("drafts:reject", args=[draft.pk]),
        "edit_url": reverse("drafts:edit", args=[draft.pk]) + query,
        "detail_url": detail_url,
        "card_url": detail_url + query,
        "cancel_url": next_url or detail_url,
        "record": _record_link(draft),
        "berechnung": berechnung.get("begruendung", ""),
        "berechnung_hinweise": berechnung.get("hinweise") or [],
        "frist_typ": dict(Frist.Typ.choices).get((draft.fields or {}).get("typ", "frist"), ""),
        "severity_label": dict(Alert.Severity.choices).get((draft.fields or {}).get("severity", "info"), ""),
        "empfaenger_label": dict(EMPFAENGER_CHOICES[1:]).get((draft.fields or {}).get("empfaenger", ""), ""),
        "akte_rows": akte_rows,
        "akte_has_vorher": any(row["has_vorher"] for row in akte_rows),
    }
    return render_to_string("drafts/card.html", context, request=request)
