"""The internal JSON API under /api/v1/ (django-ninja): one NinjaAPI, routers per app."""

from __future__ import annotations

import json
from http import HTTPStatus
from typing import Any

from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse
from django.utils.datastructures import MultiValueDict
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.parser import Parser

from akten.accounts.auth import api_auth
from akten.accounts.konto.api import router as konto_router
from akten.api import router as akten_router
from akten.datenschutz.api import router as datenschutz_router
from akten.dokumente.api import router as dokumente_router
from akten.integration import api as _schreiben  # noqa: F401 - adds the write API to akten_router
from akten.kalenderabo.api import router as kalender_router
from akten.kollision.api import router as kollision_router
from akten.lesezugriffe import api as _lesezugriffe  # noqa: F401 - GET /akten/{id}/zugriffe
from config.db_unavailable import API_MELDUNG, RETRY_AFTER_SECONDS, ist_ausfall, melden
from config.errors import DomainError, ErrorOut, describe_validation_errors, error_text
from drafts.api import router as drafts_router
from helena.knowledge.api import router as knowledge_router
from helena.quicksearch.api import router as suche_router
from helena.web.api import router as helena_router


class HelenaAPI(NinjaAPI):
    """Declares in the OpenAPI document the errors every operation can give, so clients (and the
    schemathesis run in the tests) know them: 401 (no or a bad token), 422 (invalid input: the text
    check of config.middleware and every validation), 429 (too many wrong tokens from the address:
    akten/accounts/tokenbremse.py), 503 (database unavailable); with a body also 400 (not JSON) and
    403 (a session without CSRF token). What only some endpoints give (403, 404, 409, another 429)
    each declares with config.errors.errors()."""

    COMMON = (401, 422, 429, 503)
    WITH_BODY = (400, 403)
    # An operation's id is the name a generated client calls it by: a public name, so it does not
    # follow a handler module into a new folder (issue 33 moved these three).
    MOVED = {"helena.web.api": "helena_api", "helena.quicksearch.api": "helena_suche_api",
             "akten.accounts.konto.api": "akten_konto_api"}

    def get_openapi_operation_id(self, operation: Any) -> str:
        module = operation.view_func.__module__
        prefix = self.MOVED.get(module, module.replace(".", "_"))
        return f"{prefix}_{operation.view_func.__name__}"

    def get_openapi_schema(self, *args: Any, **kwargs: Any) -> Any:
        schema = super().get_openapi_schema(*args, **kwargs)
        error_ref = self._error_schema_ref(schema)
        for item in schema.get("paths", {}).values():
            for method, operation in item.items():
                if method not in ("get", "post", "put", "patch", "delete"):
                    continue
                statuses = [*self.COMMON, *(self.WITH_BODY if method != "get" else ())]
                # The operation's own answers first, as strings; the common ones only where it has none.
                responses = operation["responses"] = self._status_keys_as_text(operation.get("responses", {}))
                for status in statuses:
                    responses.setdefault(str(status), {
                        "description": HTTPStatus(status).phrase,
                        "content": {"application/json": {"schema": {"$ref": error_ref}}},
                    })
        return schema

    @staticmethod
    def _status_keys_as_text(responses: dict[Any, Any]) -> dict[str, Any]:
        """OpenAPI's status keys are strings. ninja writes integers and an `openapi_extra` may add the
        same status as a string: serialized, that is one key twice (YAML parsers, Swagger UI refuse it)."""
        merged: dict[str, Any] = {}
        for status, response in sorted(responses.items(), key=lambda item: isinstance(item[0], str)):
            key = str(status)
            merged[key] = {**merged.get(key, {}), **response}
        return merged

    @staticmethod
    def _error_schema_ref(schema: Any) -> str:
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        components.setdefault(
            "ErrorOut", ErrorOut.model_json_schema(ref_template="#/components/schemas/{model}"))
        return "#/components/schemas/ErrorOut"


class EindeutigeParameter(Parser):
    """A query parameter that takes one value, given twice (`?gericht=a&gericht=b`), is 422: django-
    ninja would silently take the last one, and a client's mistake should not be guessed away."""

    def parse_querydict(self, data: MultiValueDict, list_fields: list[str], request: HttpRequest) -> Any:
        doppelt = sorted(key for key in data if key not in list_fields and len(data.getlist(key)) > 1)
        if doppelt:
            raise DomainError("Diese Angabe darf nur einmal vorkommen: " + ", ".join(doppelt)[:200] + ".",
                              field=doppelt[0][:100])
        return super().parse_querydict(data, list_fields, request)


api = HelenaAPI(
    title="Helena API",
    parser=EindeutigeParameter(),
    version="1",
    description="Interne JSON-API der Kanzlei: Akten, Fristen, Kosten und Helena.",
    auth=api_auth,
    urls_namespace="api-v1",
)


def _error(request: HttpRequest, status: int, code: str, detail: str, **extra: object) -> HttpResponse:
    return api.create_response(request, {"detail": detail, "code": code, **extra}, status=status)


@api.exception_handler(DomainError)
def _domain_error(request: HttpRequest, exc: DomainError) -> HttpResponse:
    """Every error a user is told about (config.errors), raised where its rule lives."""
    response = _error(request, exc.status, exc.code, exc.message, **exc.extra)
    if exc.status == 429 and isinstance(exc.extra.get("retry_after"), int):
        response["Retry-After"] = str(exc.extra["retry_after"])
    return response


@api.exception_handler(Http404)
def _http404(request: HttpRequest, exc: Http404) -> HttpResponse:
    return _error(request, 404, "not_found", "Nicht gefunden.")


@api.exception_handler(AuthenticationError)
def _unauthenticated(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    return _error(
        request, 401, "unauthorized",
        "Nicht angemeldet: Sitzung oder „Authorization: Bearer <Token>“ erforderlich.",
    )


@api.exception_handler(ValidationError)
def _invalid(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    raw = json.loads(json.dumps(exc.errors, default=str))
    return _error(request, 422, "invalid_input", describe_validation_errors(raw),
                  errors=[_safe_error(err) for err in raw])


def _safe_error(err: dict) -> dict:
    """A validation error in German, without the input it refers to (a 100 kB value is not echoed)."""
    kept = {k: err[k] for k in ("type", "loc") if k in err}
    msg = error_text(err)
    kept["msg"] = msg[:300] + "…" if len(msg) > 300 else msg
    return kept


@api.exception_handler(OperationalError)
@api.exception_handler(InterfaceError)
def _database_unavailable(request: HttpRequest, exc: OperationalError | InterfaceError) -> HttpResponse:
    """A database that is away (database_unavailable, config/db_unavailable.py: one log line per
    outage) or overloaded (a statement timeout, a deadlock: unavailable) is not the client's fault and
    not a crash: 503, retry."""
    if ist_ausfall(exc):
        melden(request, exc)  # one log line per outage (config/db_unavailable.py)
        response = _error(request, 503, "database_unavailable", API_MELDUNG)
    else:
        response = _error(
            request, 503, "unavailable",
            "Die Datenbank ist gerade überlastet. Bitte versuche es gleich noch einmal.",
        )
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


@api.exception_handler(HttpError)
def _http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    codes = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
             405: "method_not_allowed", 409: "conflict", 429: "rate_limited"}
    detail = {
        400: "Die Anfrage ist fehlerhaft (z. B. kein gültiges JSON).",
        403: "Keine Berechtigung (bei Sitzungen: CSRF-Token fehlt oder ist ungültig).",
    }.get(exc.status_code, str(exc))
    return _error(request, exc.status_code, codes.get(exc.status_code, "error"), detail)


api.add_router("/", akten_router)
api.add_router("/", dokumente_router)
api.add_router("/", konto_router)
api.add_router("/", kalender_router)
api.add_router("/", datenschutz_router)
api.add_router("/", knowledge_router)
api.add_router("/", helena_router)
api.add_router("/", drafts_router)
api.add_router("/", suche_router)
api.add_router("/", kollision_router)
