"""The edit form of a draft's card: which fields each kind lets a person change before approving,
and the posted form read back into the shapes validate_fields expects."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from akten.models import Akte, Alert, Frist
from akten.models.dokument import EMPFAENGER_CHOICES
from drafts.fields import LABELS
from drafts.models import Draft

EDIT_MARKER = "_bearbeitet"  # present in the edit form: an unticked checkbox then means False


@dataclass(frozen=True)
class FormField:
    """One input of a card's edit form; `widget` picks the HTML control."""

    name: str
    widget: str  # text, textarea, markdown, date, time, number, select, checkbox, tags
    required: bool = False
    choices: tuple[tuple[str, str], ...] = ()
    hint: str = ""

    @property
    def label(self) -> str:
        return LABELS.get(self.name, self.name)


_UNCHANGED = (("", "– unverändert –"),)

EDIT_FORM: dict[str, tuple[FormField, ...]] = {
    Draft.Kind.FRIST: (
        FormField("bezeichnung", "text", required=True),
        FormField("typ", "select", choices=tuple(Frist.Typ.choices)),
        FormField("datum", "date", required=True),
        FormField("uhrzeit", "time", hint="nur bei Terminen"),
        FormField("vorfrist", "date"),
        FormField("ist_notfrist", "checkbox"),
    ),
    Draft.Kind.DOKUMENT: (
        FormField("titel", "text", required=True),
        FormField("empfaenger", "select", choices=tuple(EMPFAENGER_CHOICES),
                  hint="Name und Anschrift aus der Akte stehen im Anschriftfeld der DOCX/PDF-Fassung"),
        FormField("inhalt", "markdown", required=True, hint="Markdown"),
    ),
    Draft.Kind.NOTIZ: (
        FormField("titel", "text"),
        FormField("inhalt", "textarea", required=True),
    ),
    Draft.Kind.ALERT: (
        FormField("message", "textarea", required=True),
        FormField("severity", "select", choices=tuple(Alert.Severity.choices)),
    ),
    Draft.Kind.AKTE_UPDATE: (
        FormField("summary", "markdown", hint="Markdown; leer lassen = unverändert"),
        FormField("status", "select", choices=_UNCHANGED + tuple(Akte.Status.choices)),
        FormField("tags", "tags",
                  hint="durch Kommas getrennt; leer lassen = unverändert; „(keine)“ = alle entfernen"),
        FormField("rechtsgebiet", "select", choices=_UNCHANGED + tuple(Akte.Rechtsgebiet.choices)),
    ),
    Draft.Kind.ZEITERFASSUNG: (
        FormField("taetigkeit", "text", required=True),
        FormField("datum", "date", required=True),
        FormField("dauer_minuten", "number", required=True),
        FormField("abrechenbar", "checkbox"),
    ),
}

FALSE_WORDS = frozenset({"", "0", "false", "off", "nein", "no"})
NO_TAGS = "(keine)"  # typed into the Schlagworte field: remove them all ("" leaves them unchanged)
_NO_TAGS_WORDS = frozenset({NO_TAGS, "-", "–"})


def fields_from_form(*, kind: str, data: Mapping[str, Any]) -> dict[str, Any] | None:
    """The edited fields a card form posts (None if it posts none), in the shapes validate_fields
    expects: ticked checkboxes as booleans, comma-separated tags as a list, empty optional values
    of an Aktenänderung as "unchanged"."""
    edited: dict[str, Any] = {}
    full_form = EDIT_MARKER in data
    for spec in EDIT_FORM.get(kind, ()):
        if spec.widget == "checkbox":
            if spec.name in data:
                edited[spec.name] = str(data.get(spec.name, "")).strip().lower() not in FALSE_WORDS
            elif full_form:
                edited[spec.name] = False
            continue
        if spec.name not in data:
            continue
        raw = str(data.get(spec.name, ""))
        if spec.widget == "tags":
            if raw.strip().lower() in _NO_TAGS_WORDS:
                edited[spec.name] = []
                continue
            tags = [t.strip() for t in raw.split(",") if t.strip()]
            edited[spec.name] = tags or None
        elif kind == Draft.Kind.AKTE_UPDATE and not raw.strip():
            edited[spec.name] = None
        else:
            edited[spec.name] = raw
    return edited or None


def initial(spec: FormField, value: Any) -> str:
    if value is None:
        return ""
    if spec.widget == "tags" and not value:
        return NO_TAGS  # the draft removes all Schlagworte: saving the form unchanged keeps that
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    if spec.widget == "time":
        return str(value)[:5]
    return str(value)
