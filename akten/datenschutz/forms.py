"""The form of „Löschung vormerken“."""

from __future__ import annotations

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
    alle_akten = forms.BooleanField(label="Dieselbe Person auch in den anderen Akten vormerken",
                                    required=False, initial=True)
