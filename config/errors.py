"""The JSON API's error shape: {"detail": "...", "code": "..."} with a German detail."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """Raised by API handlers; rendered as {"detail", "code"} with the given status."""

    def __init__(self, status: int, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.extra = extra


def not_found(what: str = "Eintrag") -> ApiError:
    """404 for records that do not exist *or* that the user may not see (indistinguishable)."""
    return ApiError(404, "not_found", f"{what} nicht gefunden.")


def invalid(detail: str, **extra: Any) -> ApiError:
    return ApiError(422, "invalid_input", detail, **extra)


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


def error_text(err: dict[str, Any]) -> str:
    """The German problem of one pydantic error, without the field name ("ist zu lang")."""
    text = _PYDANTIC_DE.get(err.get("type", ""))
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
