"""The fields each kind of draft proposes, validated the same way wherever they come from.

The write tools, an edit on the preview card and the API's approve-with-edits all pass through
`validate_fields`, so a draft can never hold (or create) what the record itself would refuse.
"""

from __future__ import annotations

from datetime import time
from typing import Annotated, Any, Literal

from django.utils import timezone
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    field_validator,
    model_serializer,
    model_validator,
)

from akten.models import Akte
from akten.models.dokument import EMPFAENGER_CHOICES
from akten.schemas import Datum, OptDatum
from config.errors import DomainError, describe_validation_errors, error_text

# Which write tool makes which kind; the tool's roles (drafts/roles.py) are the
# roles that may decide such a draft (docs/protocol.md).
TOOL_FOR_KIND: dict[str, str] = {
    "dokument": "create_draft_dokument",
    "frist": "create_draft_frist",
    "notiz": "create_notiz",
    "alert": "create_alert",
    "akte_update": "update_akte_rag",
    "zeiterfassung": "create_draft_zeiterfassung",
}
KINDS_WITH_AKTE = frozenset({"dokument", "frist", "akte_update", "zeiterfassung"})


class FieldsInvalid(DomainError, ValueError):
    """The proposed or edited fields are not acceptable; the message is German, for the user (422)."""

    def __init__(self, message: str, errors: dict[str, str] | None = None) -> None:
        super().__init__(message, fields=errors or {})
        self.errors = errors or {}  # field → German problem, for highlighting form fields


def _text(value: Any) -> Any:
    return value.strip() if isinstance(value, str) else value


Text = Annotated[str, BeforeValidator(_text)]


class _Fields(BaseModel):
    model_config = ConfigDict(extra="forbid", str_max_length=200_000)


class DokumentFields(_Fields):
    titel: Text = Field(min_length=1, max_length=300)
    inhalt: Text = Field(min_length=1, max_length=200_000)
    # whom the DOCX/PDF addresses: a Beteiligten-role, "niemand", "" not stated (Dokument.empfaenger)
    empfaenger: Literal[tuple(wert for wert, _ in EMPFAENGER_CHOICES)] = ""  # type: ignore[valid-type]

    @model_serializer(mode="wrap")
    def _ohne_leeren_empfaenger(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Not stated is not stored: a draft made before the field existed is not „edited“ by it."""
        out = handler(self)
        if not out.get("empfaenger"):
            out.pop("empfaenger", None)
        return out


class FristFields(_Fields):
    bezeichnung: Text = Field(min_length=1, max_length=300)
    datum: Datum
    typ: Literal["frist", "wiedervorlage", "termin"] = "frist"
    uhrzeit: time | None = None
    vorfrist: OptDatum = None
    ist_notfrist: bool = False

    @field_validator("uhrzeit", mode="before")
    @classmethod
    def _empty_time(cls, value: Any) -> Any:
        return None if value == "" else value

    @model_validator(mode="after")
    def _consistent(self) -> FristFields:
        if self.vorfrist is not None and self.vorfrist > self.datum:
            raise ValueError("Die Vorfrist muss vor dem Fristende liegen.")
        if self.ist_notfrist and self.typ != "frist":
            raise ValueError("Nur eine Frist kann eine Notfrist sein.")
        if not 1900 <= self.datum.year <= 2200:
            raise ValueError("Das Datum liegt außerhalb des plausiblen Bereichs.")
        return self


class NotizFields(_Fields):
    inhalt: Text = Field(min_length=1, max_length=20_000)
    titel: Text = Field("", max_length=300)


class AlertFields(_Fields):
    message: Text = Field(min_length=1, max_length=2_000)
    severity: Literal["info", "warning", "critical"] = "info"


Tag = Annotated[str, BeforeValidator(_text), Field(min_length=1, max_length=50)]


class AkteUpdateFields(_Fields):
    summary: Text | None = Field(None, max_length=10_000)
    status: Literal[tuple(Akte.Status.values)] | None = None  # type: ignore[valid-type]
    tags: list[Tag] | None = Field(None, max_length=30)
    rechtsgebiet: Literal[tuple(Akte.Rechtsgebiet.values)] | None = None  # type: ignore[valid-type]

    @field_validator("tags", mode="after")
    @classmethod
    def _unique_tags(cls, tags: list[str] | None) -> list[str] | None:
        return None if tags is None else list(dict.fromkeys(tags))

    @model_validator(mode="after")
    def _something(self) -> AkteUpdateFields:
        if all(getattr(self, name) is None for name in type(self).model_fields):
            raise ValueError("Mindestens eine Änderung angeben (summary, status, tags oder rechtsgebiet).")
        return self


class ZeiterfassungFields(_Fields):
    dauer_minuten: int = Field(ge=1, le=1440, strict=False)
    taetigkeit: Text = Field(min_length=1, max_length=500)
    datum: Datum
    abrechenbar: bool = True

    @field_validator("dauer_minuten", mode="before")
    @classmethod
    def _no_bool(cls, value: Any) -> Any:
        if isinstance(value, bool):
            raise ValueError("ist keine ganze Zahl")
        return value

    @model_validator(mode="after")
    def _not_future(self) -> ZeiterfassungFields:
        if self.datum > timezone.localdate():
            raise ValueError("Zeit kann nicht für einen Tag in der Zukunft erfasst werden.")
        return self


FIELDS_FOR_KIND: dict[str, type[_Fields]] = {
    "dokument": DokumentFields,
    "frist": FristFields,
    "notiz": NotizFields,
    "alert": AlertFields,
    "akte_update": AkteUpdateFields,
    "zeiterfassung": ZeiterfassungFields,
}

# German labels of the fields, for edit forms, audit lines and error messages.
LABELS: dict[str, str] = {
    "titel": "Titel",
    "inhalt": "Inhalt",
    "empfaenger": "Empfänger",
    "bezeichnung": "Bezeichnung",
    "datum": "Datum",
    "typ": "Typ",
    "uhrzeit": "Uhrzeit",
    "vorfrist": "Vorfrist",
    "ist_notfrist": "Notfrist",
    "message": "Meldung",
    "severity": "Dringlichkeit",
    "summary": "Zusammenfassung",
    "status": "Status",
    "tags": "Schlagworte",
    "rechtsgebiet": "Rechtsgebiet",
    "dauer_minuten": "Dauer (Minuten)",
    "taetigkeit": "Tätigkeit",
    "abrechenbar": "abrechenbar",
}


def _errors_by_field(exc: ValidationError) -> dict[str, str]:
    found: dict[str, str] = {}
    for err in exc.errors():
        loc = err.get("loc", ())
        found.setdefault(str(loc[0]) if loc else "__all__", error_text(err))
    return found


def validate_fields(kind: str, fields: dict[str, Any]) -> dict[str, Any]:
    """The fields as JSON-ready values (dates as ISO strings), or FieldsInvalid in German."""
    model = FIELDS_FOR_KIND.get(kind)
    if model is None:
        raise FieldsInvalid(f"Unbekannte Entwurfsart „{kind}“.")
    if not isinstance(fields, dict):
        raise FieldsInvalid("Die Angaben müssen ein JSON-Objekt sein.")
    try:
        return model.model_validate(fields).model_dump(mode="json")
    except ValidationError as exc:
        readable = [
            {**err, "loc": tuple(LABELS.get(str(p), str(p)) for p in err.get("loc", ()))}
            for err in exc.errors()
        ]
        raise FieldsInvalid(describe_validation_errors(readable), _errors_by_field(exc)) from None
