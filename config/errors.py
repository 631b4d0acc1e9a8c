"""One error vocabulary: every error a user is told about is a DomainError (a German message, a
code, the HTTP status it maps to, extra fields), raised where the rule lives and mapped once: by
config.api's handler for the JSON API ({"detail", "code", …}), by the chat socket's frame handler
(an `error` event), by the views (the message on the page)."""

from __future__ import annotations

from typing import Any

from ninja import Schema
from pydantic import ConfigDict


class ErrorOut(Schema):
    """Every error answer of the API. Some carry more: `errors` (validation), `fields` (refused
    draft fields), `draft_status` (409 on a decided draft), `retry_at` (429)."""

    model_config = ConfigDict(extra="allow")

    detail: str
    code: str


def errors(*statuses: int) -> dict[int, type[ErrorOut]]:
    """The errors an endpoint gives beyond those of every request (401, 422, 503; 400 and 403 with a
    body: config.api adds them), for its `response=` map and so its OpenAPI document."""
    return {status: ErrorOut for status in statuses}


class DomainError(Exception):
    """An error the user is told about. Subclasses set the default `status` and `code`."""

    status: int = 422
    code: str = "invalid_input"
    default_message: str = "Ungültige Eingabe."

    def __init__(self, message: str = "", *, code: str | None = None, status: int | None = None,
                 **extra: Any) -> None:
        super().__init__(message or self.default_message)
        self.message = message or self.default_message
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status
        self.extra = {key: value for key, value in extra.items() if value is not None}


class NotFound(DomainError):
    """The record does not exist or the user may not see it (the caller cannot tell which)."""

    status, code, default_message = 404, "not_found", "Nicht gefunden."


class Forbidden(DomainError):
    """The user may see the record but their role may not do this with it."""

    status, code, default_message = 403, "forbidden", "Dafür fehlt dir die Berechtigung."


class ZuVieleVersuche(DomainError):
    """Too many attempts (429): `retry_after` seconds travel as the Retry-After header (config.api)
    and in the body."""

    status, code, default_message = 429, "too_many_attempts", "Zu viele Versuche. Bitte warte etwas."


class ApiError(DomainError):
    """A DomainError written out at an API edge: status, code and detail given directly."""

    def __init__(self, status: int, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail, code=code, status=status, **extra)
        self.detail = detail


def not_found(what: str = "Eintrag") -> NotFound:
    """404 for records that do not exist *or* that the user may not see (indistinguishable)."""
    return NotFound(f"{what} nicht gefunden.")


def invalid(detail: str, **extra: Any) -> DomainError:
    return DomainError(detail, **extra)


_PYDANTIC_DE = {
    "missing": "fehlt",
    "date_parsing": "ist kein gültiges Datum (JJJJ-MM-TT)",
    "date_from_datetime_parsing": "ist kein gültiges Datum (JJJJ-MM-TT)",
    "date_type": "ist kein gültiges Datum (JJJJ-MM-TT)",
    "int_parsing": "ist keine ganze Zahl",
    "int_type": "ist keine ganze Zahl",
    "int_from_float": "ist keine ganze Zahl",
    "decimal_parsing": "ist keine Zahl",
    "decimal_type": "ist keine Zahl",
    "bool_parsing": "ist kein Wahrheitswert (true/false)",
    "bool_type": "ist kein Wahrheitswert (true/false)",
    "string_type": "ist kein Text",
    "list_type": "ist keine Liste",
    "dict_type": "ist kein Objekt",
    "model_type": "ist kein Objekt",
    "literal_error": "hat einen unzulässigen Wert",
    "enum": "hat einen unzulässigen Wert",
    "extra_forbidden": "ist unbekannt",
    "greater_than": "ist zu klein",
    "greater_than_equal": "ist zu klein",
    "less_than": "ist zu groß",
    "less_than_equal": "ist zu groß",
    "string_too_long": "ist zu lang",
    "string_too_short": "ist zu kurz",
    "too_long": "hat zu viele Einträge",
    "too_short": "hat zu wenige Einträge",
    "json_invalid": "ist kein gültiges JSON",
    "time_parsing": "ist keine gültige Uhrzeit (HH:MM)",
    "time_type": "ist keine gültige Uhrzeit (HH:MM)",
    "datetime_parsing": "ist kein gültiger Zeitpunkt",
    "datetime_type": "ist kein gültiger Zeitpunkt",
}


# Patterns the API's schemas use, each with what it means in German: one place, so the document
# and the error a user reads say the same.
DATUM_PATTERN = r"^\s*([0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{1,2}\.[0-9]{1,2}\.[0-9]{4})\s*$"
BETRAG_PATTERN = r"^\s*[0-9]+([.,][0-9]{1,2})?\s*$"
NOT_BLANK = r"\S"
TWO_CHARS = r"\S[\s\S]*\S"  # at least two characters once the white space at the edges is gone
_PATTERN_DE = {
    DATUM_PATTERN: "ist kein gültiges Datum (JJJJ-MM-TT oder TT.MM.JJJJ)",
    BETRAG_PATTERN: "ist kein gültiger Betrag (z. B. „5000.00“)",
    NOT_BLANK: "darf nicht leer sein",
    TWO_CHARS: "braucht mindestens 2 Zeichen (Leerzeichen am Rand zählen nicht)",
}
_BOUNDS_DE = {"greater_than_equal": ("ge", "muss mindestens {} sein"),
              "less_than_equal": ("le", "darf höchstens {} sein"),
              "greater_than": ("gt", "muss größer als {} sein"),
              "less_than": ("lt", "muss kleiner als {} sein"),
              "string_too_long": ("max_length", "darf höchstens {} Zeichen lang sein")}


def error_text(err: dict[str, Any]) -> str:
    """The German problem of one pydantic error, without the field name ("ist zu lang")."""
    kind, ctx = err.get("type", ""), err.get("ctx") or {}
    if kind == "string_pattern_mismatch":
        return _PATTERN_DE.get(str(ctx.get("pattern", "")), "hat nicht das erwartete Format")
    if kind in ("literal_error", "enum") and "expected" in ctx:  # ninja drops the input: no echo
        allowed = str(ctx["expected"]).replace("'", "").replace(" or ", " oder ")
        return f"hat einen unzulässigen Wert (erlaubt: {allowed})"
    if kind in _BOUNDS_DE and _BOUNDS_DE[kind][0] in ctx:
        key, text = _BOUNDS_DE[kind]
        return text.format(ctx[key])
    text = _PYDANTIC_DE.get(kind)
    if text is None:
        text = str(err.get("msg", "ungültig")).removeprefix("Value error, ")
    return text


def describe_validation_errors(errors: list[dict[str, Any]]) -> str:
    """Turn pydantic/ninja errors into one German sentence a user can act on."""
    parts = []
    for err in errors:
        loc = [str(p) for p in err.get("loc", ()) if p not in ("body", "query", "path", "payload")]
        text = error_text(err).rstrip(".")
        # A rule about the whole object ("Die Vorfrist muss vor dem Fristende liegen") stands alone.
        parts.append(f"{'.'.join(loc)} {text}" if loc else text)
    return "Ungültige Eingabe: " + "; ".join(parts) + "."
