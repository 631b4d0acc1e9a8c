"""The chat pages: the user's conversations, one conversation, and a finished answer as HTML.

Thin: reads go through helena.conversations.selectors (scoped to the user), writes through
helena.conversations.services, and the history the chat page shows comes from
helena.presentation.chat_history, with the same markup static/helena/chat.js builds from live
events, so a reload shows finished answers at once and the client only streams what is still in
progress (docs/protocol.md "Websocket").
"""

from __future__ import annotations

import io
from datetime import date

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import FileResponse, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from akten.accounts.users import role_of
from akten.lesezugriffe.services import Weg
from config.errors import DomainError, Forbidden, NotFound
from helena.conversations import records, selectors, services
from helena.conversations.export import export
from helena.knowledge.muster import draft_from_muster
from helena.models import Conversation, HelenaTask, RunEvent
from helena.presentation import chat_history
from helena.presentation.markdown import render_markdown
from helena.proactive import auftraege
from helena.proactive.activity import aktivitaet_fuer
from helena.proactive.memory import correct
from helena.web.akte_panels import AUFTRAG_ENTWURF

HOME_LIMIT = 200  # conversations listed on the home page


# --------------------------------------------------------------------------- views


def _date(value: str) -> date | None:
    try:
        return date.fromisoformat(value) if value else None
    except ValueError:
        return None


@login_required
@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """The user's conversations (pinned first, then newest activity), searchable by words, Akte and
    date, the archive one click away, and a button for a new one."""
    q = request.GET.get("q", "").strip()[:200]
    archiv = request.GET.get("archiv") == "1"
    akten = list(selectors.akten_of_conversations(user=request.user))
    akte_id = next((a.pk for a in akten if str(a.pk) == request.GET.get("akte", "")), None)
    von, bis = _date(request.GET.get("von", "")), _date(request.GET.get("bis", ""))
    found = selectors.conversation_list(user=request.user, q=q, akte_id=akte_id, archiviert=archiv,
                                        von=von, bis=bis, leere=False)
    conversations = list(found[:HOME_LIMIT])
    for c in conversations:
        c.zustand = selectors.zustand(c)
    contexts = [(value, label) for value, label in Conversation.ContextType.choices
                if value != Conversation.ContextType.AKTE]
    return render(request, "helena/home.html", {
        "conversations": conversations, "contexts": contexts, "akten": akten, "q": q, "archiv": archiv,
        "akte_id": akte_id, "von": von, "bis": bis, "gefiltert": bool(q or akte_id or von or bis),
        "weitere": found.count() > HOME_LIMIT if len(conversations) == HOME_LIMIT else False,
    })


def _back(request: HttpRequest, conversation_id: int) -> HttpResponseRedirect:
    """Back to the page the form was on: the list (with its filters) or the conversation."""
    target = request.POST.get("zurueck", "")
    if target.startswith("/helena/") and "//" not in target and "\\" not in target:
        return HttpResponseRedirect(target)
    return HttpResponseRedirect(reverse("helena:chat", args=[conversation_id]))


@login_required
@require_POST
def gespraech_aendern(request: HttpRequest, conversation_id: int) -> HttpResponse:
    """Rename, archive or restore, pin or unpin (one form field each)."""
    conversation = selectors.get_conversation(user=request.user, conversation_id=conversation_id)
    flags = {name: request.POST[name] == "1" for name in ("archiviert", "angeheftet") if name in request.POST}
    try:
        records.aendern(conversation=conversation, titel=request.POST.get("titel"), **flags)
    except DomainError as exc:
        messages.error(request, exc.message)
    else:
        if flags.get("archiviert"):
            messages.success(request, "Gespräch archiviert. Du findest es unter „Archiv“.")
        elif flags.get("archiviert") is False:
            messages.success(request, "Gespräch wiederhergestellt.")
    return _back(request, conversation.pk)


@login_required
@require_POST
def gespraech_loeschen(request: HttpRequest, conversation_id: int) -> HttpResponse:
    conversation = selectors.get_conversation(user=request.user, conversation_id=conversation_id)
    try:
        ergebnis = records.loeschen(conversation=conversation)
    except DomainError as exc:
        messages.error(request, exc.message)
        return _back(request, conversation.pk)
    messages.add_message(request, messages.SUCCESS if ergebnis.geloescht else messages.INFO, ergebnis.message)
    return HttpResponseRedirect(reverse("helena:home"))


@login_required
@require_POST
def gespraech_aktenvermerk(request: HttpRequest, conversation_id: int) -> HttpResponse:
    """The conversation (or one answer) as an Aktenvermerk draft; its card waits in the chat."""
    conversation = selectors.get_conversation(user=request.user, conversation_id=conversation_id)
    try:
        draft = records.aktenvermerk(user=request.user, conversation=conversation,
                                        run_id=request.POST.get("run_id") or None)
    except (Forbidden, NotFound):
        raise
    except DomainError as exc:
        messages.error(request, exc.message)
        return _back(request, conversation.pk)
    messages.success(request, "Der Aktenvermerk wartet als Entwurf auf Freigabe. Erst mit der Freigabe "
                              "kommt er in die Akte.")
    return HttpResponseRedirect(reverse("helena:chat", args=[conversation.pk]) + f"#entwurf-{draft.pk}")


@login_required
@require_GET
def gespraech_export(request: HttpRequest, conversation_id: int, format: str) -> HttpResponse:
    conversation = selectors.get_conversation(user=request.user, conversation_id=conversation_id)
    datei = export(user=request.user, conversation=conversation, format=format)
    records.gelesen(user=request.user, conversation=conversation, weg=Weg.EXPORT, format=format)
    return FileResponse(io.BytesIO(datei.inhalt), as_attachment=True, filename=datei.dateiname,
                        content_type=datei.content_type)


@login_required
@require_POST
def new_conversation(request: HttpRequest) -> HttpResponse:
    """Start a conversation (optionally with a context such as Fristen) and open it; an empty one of
    the same context is opened again instead of a second."""
    context_type = request.POST.get("context_type") or None
    if context_type == Conversation.ContextType.AKTE:
        context_type = None  # an Akte conversation starts from the Akte's page
    conversation = selectors.empty_conversation(user=request.user, akte_id=None, context_type=context_type)
    if conversation is None:
        try:
            conversation = services.create_conversation(user=request.user, context_type=context_type)
        except services.RunRefused as exc:
            messages.error(request, exc.message)
            return HttpResponseRedirect(reverse("helena:home"))
    return HttpResponseRedirect(reverse("helena:chat", args=[conversation.pk]))


@login_required
@require_POST
def akte_conversation(request: HttpRequest, akte_id: int) -> HttpResponse:
    """Start a conversation bound to an Akte the user may see (404 otherwise) and open it; one the user
    opened before and asked nothing in is opened again (the list shows neither)."""
    conversation = (selectors.empty_conversation(user=request.user, akte_id=akte_id, context_type=None)
                    or services.create_conversation(user=request.user, akte_id=akte_id))
    return HttpResponseRedirect(reverse("helena:chat", args=[conversation.pk]))


@login_required
@require_GET
def chat(request: HttpRequest, conversation_id: int) -> HttpResponse:
    """One conversation: the history rendered here, live events through chat.js."""
    conversation = selectors.get_conversation(user=request.user, conversation_id=conversation_id)
    config = {
        "conversation_id": str(conversation.pk),
        "ws_path": f"/ws/helena/conversations/{conversation.pk}/",
        "answer_url": reverse("helena:answer", args=["00000000-0000-0000-0000-000000000000"]),
        "tool_labels": chat_history.tool_labels(),
        "role": role_of(request.user),
    }
    question = selectors.open_question_of(conversation=conversation)  # read only: expiring is a service's
    config["waiting_on_user"] = question is not None  # the next message answers Helena's question
    context = {
        "conversation": conversation,
        "context_label": chat_history.context_label(conversation),
        "history": chat_history.history(request=request, conversation=conversation, question=question),
        "question": question,
        "chat_config": config,
        "vermerk_url": reverse("helena:aktenvermerk", args=[conversation.pk]) if conversation.akte_id else "",
        "modes": [("auto", "Automatisch"), ("inline", "Sofort"), ("background", "Im Hintergrund")],
    }
    if context["history"]:
        records.gelesen(user=request.user, conversation=conversation, weg=Weg.SEITE)
    return render(request, "helena/chat.html", context)


@login_required
@require_GET
def run_answer(request: HttpRequest, run_id: str) -> HttpResponse:
    """A finished run's answer as sanitised HTML, replacing the streamed plain text (chat.js).

    The text comes from the stored `done` event, which exists before any client hears of it;
    409 while the run has not ended yet.
    """
    run = selectors.get_run(user=request.user, run_id=run_id)
    done = RunEvent.objects.filter(run=run, type="done").order_by("-seq").first()
    if done is None:
        return HttpResponse("", status=409, content_type="text/html; charset=utf-8")
    response = HttpResponse(render_markdown(done.payload.get("text") or "", zitiert=run.created_at),
                            content_type="text/html; charset=utf-8")
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_POST
def akte_auftrag(request: HttpRequest, akte_id: int) -> HttpResponse:
    """A task for Helena from the Akte page: it runs in the background, a Hinweis tells its end."""
    auftrag = request.POST.get("auftrag", "")
    try:
        auftraege.auftrag_geben(user=request.user, auftrag=auftrag, akte_id=akte_id,
                            quelle=HelenaTask.Quelle.AKTE)
    except services.RunRefused as exc:
        messages.error(request, exc.message)
        request.session[f"{AUFTRAG_ENTWURF}:{akte_id}"] = auftrag[:services.MAX_MESSAGE_CHARS]  # form again
    else:
        messages.success(request, "Helena arbeitet im Hintergrund an deinem Auftrag. Wenn sie fertig ist, "
                                  "bekommst du einen Hinweis; ihre Vorschläge warten unter „Entwürfe“.")
    # The page's top, where the message is: the form's anchor scrolled it out of view.
    return HttpResponseRedirect(reverse("akten:detail", args=[akte_id]))


@login_required
@require_POST
def akte_muster(request: HttpRequest, akte_id: int) -> HttpResponse:
    """A Dokument draft from a Muster, filled from the Akte; the draft page shows what is still open."""
    try:
        made = draft_from_muster(user=request.user, akte_id=akte_id, titel=request.POST.get("titel", ""),
                                 muster_id=request.POST.get("muster_id", ""))
    except PermissionDenied:
        raise Forbidden("Deine Rolle darf keine Dokumententwürfe anlegen.") from None
    if made.offen:
        messages.warning(request, f"Entwurf angelegt. Noch offen: {', '.join(made.offen)}.")
    else:
        messages.success(request, "Entwurf angelegt; alle Platzhalter sind aus der Akte ausgefüllt.")
    return HttpResponseRedirect(reverse("drafts:detail", args=[made.draft.pk]))


def _lines(text: str) -> list[str]:
    return [line.strip(" -•\t") for line in text.splitlines() if line.strip(" -•\t")][:20]


@login_required
@require_POST
def akte_gedaechtnis(request: HttpRequest, akte_id: int) -> HttpResponse:
    """A lawyer corrects Helena's memory of the Akte; the next refresh builds on the correction."""
    try:
        correct(user=request.user, akte_id=akte_id, zusammenfassung=request.POST.get("zusammenfassung", ""),
                risiken=_lines(request.POST.get("risiken", "")),
                naechste_schritte=_lines(request.POST.get("naechste_schritte", "")),
                offene_fragen=_lines(request.POST.get("offene_fragen", "")))
    except (Forbidden, NotFound):
        raise  # the 403 / 404 page
    except DomainError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, "Deine Korrektur ist gespeichert; Helena baut künftig darauf auf.")
    return HttpResponseRedirect(reverse("akten:detail", args=[akte_id]) + "#gedaechtnis")


@login_required
@require_GET
def meine_aktivitaet(request: HttpRequest) -> HttpResponse:
    """What happened in the last two weeks in the Akten the user may see."""
    return render(request, "helena/aktivitaet.html", {"eintraege": aktivitaet_fuer(user=request.user)})
