"""The HTTP edge's one check of every text that comes in (config.textcheck), before any view runs.

A NUL character or a lone surrogate in a query parameter, a form field or a JSON body used to reach
PostgreSQL or the UTF-8 encoder deep inside a handler and answer 500. Here the request is refused
once, for the API as JSON (422, {detail, code}), for pages as a short German page (400); nothing is
stored and no view runs. JSON bodies are bounded in depth, and the API's bodies (whatever content
type they claim, since django-ninja parses them as JSON anyway) must be JSON objects.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from django.core.exceptions import RequestDataTooBig
from django.core.handlers.exception import response_for_exception
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from config.errors import DomainError, NotFound
from config.textcheck import BadInput, parse_json, text_problem

API_PREFIX = "/api/"
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


def _problem(request: HttpRequest) -> BadInput | None:
    path_problem = text_problem(request.path)
    if path_problem:
        return BadInput(f"Die Adresse {path_problem}.")
    for key, values in request.GET.lists():
        for value in (key, *values):
            found = text_problem(value)
            if found:
                return BadInput(f"„{_safe(key)}“ {found}.")
    if request.method not in BODY_METHODS:
        return None
    content_type = request.content_type or ""
    form = content_type in ("application/x-www-form-urlencoded", "multipart/form-data")
    # django-ninja reads an API body as JSON whatever its content type says: so is it checked here.
    api_body = request.path.startswith(API_PREFIX) and not form
    if api_body or content_type == "application/json" or content_type.endswith("+json"):
        try:
            if not request.body.strip():
                return None  # no body: endpoints whose body is optional take that as "nothing"
            value = parse_json(request.body)
        except BadInput as exc:
            return exc
        if request.path.startswith(API_PREFIX) and not isinstance(value, dict):
            return BadInput("Der Inhalt muss ein JSON-Objekt sein.")
        return None
    if form:
        for key, values in request.POST.lists():
            for value in (key, *values):
                found = text_problem(value)
                if found:
                    return BadInput(f"„{_safe(key)}“ {found}.")
    return None


def _safe(name: str) -> str:
    """A field name fit to quote: bad characters and length cut away."""
    cleaned = "".join(ch for ch in name if ch.isprintable() and not 0xD800 <= ord(ch) <= 0xDFFF)
    return cleaned[:40] or "Feld"


class TextCheckMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            problem = _problem(request)
        except RequestDataTooBig:
            problem = None  # Django answers that itself (400) when the view reads the body
        if problem is None:
            return self.get_response(request)
        if request.path.startswith(API_PREFIX) and problem.malformed:
            return JsonResponse({"detail": f"Die Anfrage ist fehlerhaft: {problem}", "code": "bad_request"},
                                status=400, json_dumps_params={"ensure_ascii": False})
        if request.path.startswith(API_PREFIX):
            return JsonResponse({"detail": f"Ungültige Eingabe: {problem}", "code": "invalid_input"},
                                status=422, json_dumps_params={"ensure_ascii": False})
        return _page("Ungültige Eingabe", f"{problem}", status=400,
                     hint="Bitte gehe zurück und korrigiere die Eingabe. Es wurde nichts gespeichert.")


def _page(title: str, message: str, *, status: int, hint: str) -> HttpResponse:
    page = (f"<!doctype html><html lang=\"de\"><meta charset=\"utf-8\"><title>{escape(title)}</title>"
            f"<h1>{escape(title)}</h1><p>{escape(message)}</p><p>{escape(hint)}</p></html>")
    return HttpResponse(page, status=status, content_type="text/html; charset=utf-8")


class DomainErrorMiddleware:
    """The pages' one mapping of the error vocabulary (config.errors.DomainError), as config.api is
    the API's and the `error` event the chat socket's: NotFound is the 404 page (a record the user
    may not see looks like none), any other a short German page with the error's status. A view
    catches a DomainError itself only where its page answers differently (a card, a form)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code == 405 and not response.content and not request.path.startswith(API_PREFIX):
            # an action's address opened directly (a bookmark, the login's way back after a timeout):
            # a German page instead of the browser's bare "HTTP ERROR 405"
            page = render(request, "fehler.html", {
                "titel": "Das geht nur über den Knopf",
                "meldung": "Diese Adresse führt eine Aktion aus und lässt sich nicht direkt öffnen.",
                "hinweis": "Geh zurück zur Seite und nutze dort den Knopf. Es wurde nichts gespeichert."},
                status=405)
            page["Allow"] = response.get("Allow", "")
            return page
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, DomainError) or request.path.startswith(API_PREFIX):
            return None
        if isinstance(exception, NotFound):
            return response_for_exception(request, Http404(exception.message))
        titel = "Kein Zugriff" if exception.status == 403 else "Das hat nicht geklappt"
        return render(request, "fehler.html", {"titel": titel, "meldung": exception.message,
                                               "hinweis": "Bitte gehe zurück. Es wurde nichts gespeichert."},
                      status=exception.status)
