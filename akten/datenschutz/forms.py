"""The form of „Löschung vormerken“."""

from __future__ import annotations

from typing import Any

from django import forms

from akten.seiten.forms import DATUM_FORMATE


class LoeschungForm(forms.Form):
    antrag_am = forms.DateField(label="Antrag vom", input_formats=DATUM_FORMATE,
                                widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
                                error_messages={"required": "Bitte gib an, wann die Person die Löschung "
                                                            "verlangt hat.",
                                                "invalid": "Bitte ein Datum wie 01.02.2026 angeben."})
    begruendung = forms.CharField(label="Begründung / Vermerk", required=False, max_length=5000,
                                  widget=forms.Textarea(attrs={"rows": 3}),
                                  help_text="Wie der Antrag kam (Brief, E-Mail) und was entschieden ist. "
                                            "Nicht im Löschprotokoll: dort steht nichts über die Person.")
    weitere = forms.TypedMultipleChoiceField(
        label="Dieselbe Person in weiteren Akten", required=False, coerce=int,
        widget=forms.CheckboxSelectMultiple,
        help_text="Nur ankreuzen, was sicher dieselbe Person ist. Angekreuzte Einträge werden allein "
                  "gelöscht, nie ihre ganze Akte.")

    def __init__(self, *args: Any, weitere: list[tuple[int, str]] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["weitere"].choices = weitere or []
        if not weitere:  # kept, so that a forged tick is refused, not ignored
            self.fields["weitere"].help_text = "Keine weiteren Einträge, die sicher dieselbe Person sind."
