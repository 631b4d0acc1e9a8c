"""The drafts' HTML side: inbox, one card, and the card's buttons (approve, edit, reject).

Thin on purpose: visibility and decisions live in drafts.selectors / drafts.services. Requests of
drafts.js (`X-Requested-With: fetch`) get the bare card back with a telling status code; plain
form posts (no JavaScript) are redirected back with a message.
"""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from akten.accounts.users import anzeigename
from akten.lesezugriffe.services import Weg
from akten.selectors import akten_for
from config.errors import NotFound
from config.navigation import is_fetch, safe_next
from drafts.cards import render_card
from drafts.forms import EDIT_MARKER, fields_from_form
from drafts.models import Draft
from drafts.roles import kinds_decidable_by
from drafts.selectors import decidable_drafts_for, get_draft, may_decide
from drafts.services import (
    AlreadyDecided,
    DecisionForbidden,
    FieldsInvalid,
    approve_draft,
    gelesen,
    reject_draft,
)

_NOT_FOUND_FRAGMENT = (
    '<article class="draft-card draft-card--missing" id="draft-{id}" data-draft-id="{id}" '
    'data-status="missing"><p class="draft-card__message" role="alert" tabindex="-1" data-focus>'
    "Diesen Entwurf gibt es nicht (mehr), oder du hast keinen Zugriff darauf.</p></article>"
)
_MAY_NOT_DECIDE = "Du darfst diesen Entwurf nicht freigeben, bearbeiten oder ablehnen."
_INBOX_LIMIT = 100
_CHECK_FIELDS = "Bitte prüfe die markierten Angaben. Es wurde nichts gespeichert."


def _draft_or_404(request: HttpRequest, draft_id: uuid.UUID) -> Draft | HttpResponse:
    """The visible draft; for drafts.js a 404 card fragment, otherwise Django's 404 page."""
    try:
        return get_draft(user=request.user, draft_id=draft_id)
    except NotFound:
        if is_fetch(request):
            return HttpResponse(_NOT_FOUND_FRAGMENT.format(id=draft_id), status=404)
        raise Http404("Entwurf nicht gefunden.") from None


def _card_response(request: HttpRequest, draft: Draft, *, status: int = 200, **options) -> HttpResponse:
    return HttpResponse(render_card(draft=draft, user=request.user, request=request, **options),
                        status=status)


def _back(request: HttpRequest) -> HttpResponseRedirect:
    return HttpResponseRedirect(safe_next(request, request.POST.get("next")) or reverse("drafts:inbox"))


def _card_page(request: HttpRequest, draft: Draft, *, status: int = 200, **options) -> HttpResponse:
    card = render_card(draft=draft, user=request.user, request=request, **options)
    return render(request, "drafts/detail.html", {"draft": draft, "card": card}, status=status)


@login_required
@require_GET
def inbox(request: HttpRequest) -> HttpResponse:
    """Pending drafts this user may decide, filterable by Akte and kind."""
    akte = request.GET.get("akte", "").strip()
    art = request.GET.get("art", "").strip()
    drafts = decidable_drafts_for(user=request.user, akte_id=akte or None, kind=art or None)
    kind_labels = dict(Draft.Kind.choices)
    shown = list(drafts[:_INBOX_LIMIT + 1])
    gelesen(user=request.user, drafts=shown[:_INBOX_LIMIT], weg=Weg.SEITE)
    context = {
        "cards": [render_card(draft=d, user=request.user, request=request) for d in shown[:_INBOX_LIMIT]],
        "more": len(shown) > _INBOX_LIMIT,
        "limit": _INBOX_LIMIT,
        "akten": akten_for(user=request.user).order_by("aktenzeichen"),
        "kinds": [(k, kind_labels[k]) for k in kinds_decidable_by(request.user)],
        "akte": akte,
        "art": art,
        "filtered": bool(akte or art),
    }
    return render(request, "drafts/inbox.html", context)


@login_required
@require_GET
def detail(request: HttpRequest, draft_id: uuid.UUID) -> HttpResponse:
    """One card (drafts.js reloads it with this after "Abbrechen")."""
    draft = _draft_or_404(request, draft_id)
    if isinstance(draft, HttpResponse):
        return draft
    gelesen(user=request.user, drafts=[draft], weg=Weg.SEITE)
    if is_fetch(request):
        return _card_response(request, draft)
    return _card_page(request, draft)


@login_required
@require_GET
def edit(request: HttpRequest, draft_id: uuid.UUID) -> HttpResponse:
    """The card as an edit form, for someone who may decide a pending draft."""
    draft = _draft_or_404(request, draft_id)
    if isinstance(draft, HttpResponse):
        return draft
    gelesen(user=request.user, drafts=[draft], weg=Weg.SEITE)
    next_url = safe_next(request, request.GET.get("next"))
    if not draft.is_pending:
        message = AlreadyDecided(draft).message
        if is_fetch(request):
            return _card_response(request, draft, status=409, message=message, next_url=next_url)
        messages.info(request, message)
        return _card_page(request, draft, status=409, next_url=next_url)
    if not may_decide(user=request.user, draft=draft):
        if is_fetch(request):
            return _card_response(request, draft, status=403, message=_MAY_NOT_DECIDE, next_url=next_url)
        messages.error(request, _MAY_NOT_DECIDE)
        return _card_page(request, draft, status=403, next_url=next_url)
    if is_fetch(request):
        return _card_response(request, draft, edit=True, next_url=next_url)
    return _card_page(request, draft, edit=True, next_url=next_url or reverse("drafts:inbox"))


@login_required
@require_POST
def approve(request: HttpRequest, draft_id: uuid.UUID) -> HttpResponse:
    """Approve, optionally with edited fields (the edit form posts here)."""
    draft = _draft_or_404(request, draft_id)
    if isinstance(draft, HttpResponse):
        return draft
    fetch = is_fetch(request)
    edited = fields_from_form(kind=draft.kind, data=request.POST)
    try:
        approved = approve_draft(user=request.user, draft=draft, edited_fields=edited)
    except DecisionForbidden as exc:
        return _refused(request, draft, status=403, message=exc.message)
    except AlreadyDecided as exc:
        return _refused(request, exc.draft, status=409, message=exc.message)
    except FieldsInvalid as exc:
        # Per-field errors sit next to their inputs; the summary then only says what happened.
        message = _CHECK_FIELDS if set(exc.errors) & set(request.POST) else exc.message
        if fetch:
            return _card_response(request, draft, status=422, edit=True, values=request.POST,
                                  form_errors=exc.errors, message=message)
        messages.error(request, message)
        if EDIT_MARKER in request.POST:  # keep what was typed: show the form again, not a redirect
            return _card_page(request, draft, status=422, edit=True, values=request.POST,
                              form_errors=exc.errors)
        return _back(request)
    if fetch:
        return _card_response(request, approved)
    messages.success(request, f"Entwurf „{approved.title}“ freigegeben.")
    return _back(request)


@login_required
@require_POST
def reject(request: HttpRequest, draft_id: uuid.UUID) -> HttpResponse:
    """Reject with an optional Grund, which Helena gets to read."""
    draft = _draft_or_404(request, draft_id)
    if isinstance(draft, HttpResponse):
        return draft
    try:
        rejected = reject_draft(user=request.user, draft=draft, reason=request.POST.get("grund", ""),
                                feedback=request.POST.get("rueckmeldung", ""))
    except DecisionForbidden as exc:
        return _refused(request, draft, status=403, message=exc.message)
    except AlreadyDecided as exc:
        return _refused(request, exc.draft, status=409, message=exc.message)
    except FieldsInvalid as exc:
        if is_fetch(request):
            return _card_response(request, draft, status=422, message=exc.message,
                                  form_errors={"grund": exc.message})
        messages.error(request, exc.message)
        return _back(request)
    if is_fetch(request):
        return _card_response(request, rejected)
    messages.success(request, f"Entwurf „{rejected.title}“ abgelehnt von {anzeigename(request.user)}.")
    return _back(request)


def _refused(request: HttpRequest, draft: Draft, *, status: int, message: str) -> HttpResponse:
    """403/409: the card as it now is, with the reason; nothing was changed."""
    if is_fetch(request):
        draft.refresh_from_db()
        return _card_response(request, draft, status=status, message=message)
    messages.error(request, message)
    return _back(request)
