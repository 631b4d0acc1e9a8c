"""The forms of the record pages: what a person types, read as a German office writes it.

They only parse and show; whether a value may be saved is the service's word (akten/erfassung), whose
EingabeFehler is put beside the field it names (`fehler_zeigen`).
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from django import forms
from django.db.models import Q

from akten.erfassung.speichern import EingabeFehler
from akten.models import Akte, Beteiligter, Bundesland, Role, User

DATUM_FORMATE = ["%Y-%m-%d", "%d.%m.%Y"]
# 12.500,00 · 12500,00 · 12500 · 12500.00 (no other thousands separator than the German point)
_DEUTSCH = re.compile(r"^\d{1,3}(\.\d{3})*(,\d{1,2})?$|^\d+(,\d{1,2})?$")
_ENGLISCH = re.compile(r"^\d+\.\d{1,2}$")
_DAUER = re.compile(r"^(\d{1,2}):([0-5]\d)$")


def betrag_lesen(text: str) -> Decimal | None:
    """„12.500,00“, „12500“, „12500.50“ or „12.500 €“ → Decimal; None for nothing; ValueError else."""
    roh = re.sub(r"\s|€|EUR", "", text or "", flags=re.IGNORECASE)
    if not roh:
        return None
    if _ENGLISCH.match(roh):
        wert = Decimal(roh)
    elif _DEUTSCH.match(roh):
        wert = Decimal(roh.replace(".", "").replace(",", "."))
    else:
        raise ValueError(text)
    if wert >= Decimal("1e12"):
        raise ValueError(text)
    return wert


def betrag_zeigen(wert: Decimal) -> str:
    """12500 → „12.500,00“."""
    return f"{wert:,.2f}".replace(",", "\0").replace(".", ",").replace("\0", ".")


def dauer_lesen(text: str) -> int:
    """Minutes from „90“, „90 min“, „1:30“, „1,5 h“ or „2 Std.“; ValueError else."""
    roh = (text or "").strip().casefold().rstrip(".")
    stunden = False
    for einheit, in_stunden in (("minuten", False), ("min", False), ("stunden", True), ("std", True),
                                ("h", True)):
        if roh.endswith(einheit):
            roh, stunden = roh.removesuffix(einheit).strip(), in_stunden
            break
    if m := _DAUER.match(roh):
        return int(m.group(1)) * 60 + int(m.group(2))
    if re.fullmatch(r"\d{1,4}", roh):
        return int(roh) * (60 if stunden else 1)
    if re.fullmatch(r"\d{1,2}[,.]\d{1,2}", roh):  # a fraction is hours: „1,5“
        return round(Decimal(roh.replace(",", ".")) * 60)
    raise ValueError(text)


def personen(*, rollen: set[str] | None = None, auch: list[int | None] | None = None) -> Any:
    """Active people (of these roles) for a select, plus those already chosen (even if inactive)."""
    qs = User.objects.filter(is_active=True)
    if rollen is not None:
        passt = Q(role__in=rollen)
        if Role.ADMIN in rollen:
            passt |= Q(is_superuser=True)  # superusers count as ADMIN (akten.accounts.users.role_of)
        qs = qs.filter(passt)
    dabei = [pk for pk in (auch or []) if pk]
    if dabei:
        qs = User.objects.filter(Q(pk__in=qs.values("pk")) | Q(pk__in=dabei))
    return qs.order_by("last_name", "first_name", "username")


class PersonenFeld(forms.ModelChoiceField):
    def label_from_instance(self, obj: User) -> str:
        return obj.get_full_name() or obj.username


def fehler_zeigen(form: forms.Form, exc: EingabeFehler) -> None:
    """The service's German messages beside the fields they name, the rest above the form."""
    gezeigt = False
    for name, text in exc.felder.items():
        if name in form.fields:
            form.add_error(name, text)
            gezeigt = True
    if not gezeigt or set(exc.felder) - set(form.fields):
        form.add_error(None, exc.message)


class AkteForm(forms.Form):
    """An Akte's Stammdaten; the status only for who may change it (rechte: akte_status)."""

    aktenzeichen = forms.CharField(
        label="Aktenzeichen", max_length=31, required=False,
        help_text="Vorschlag nach dem Schema der Kanzlei; du kannst es ändern. Leer: das nächste freie.")
    kurzrubrum = forms.CharField(label="Kurzrubrum", max_length=200,
                                 help_text="z. B. „Meier ./. Stahlbau GmbH“",
                                 error_messages={"required": "Bitte gib ein Kurzrubrum an."})
    wegen = forms.CharField(label="wegen", max_length=300, required=False,
                            help_text="z. B. „Kündigungsschutz“")
    rechtsgebiet = forms.ChoiceField(label="Rechtsgebiet", choices=Akte.Rechtsgebiet.choices,
                                     initial=Akte.Rechtsgebiet.SONSTIGES)
    gegenstandswert = forms.CharField(label="Gegenstandswert (EUR)", max_length=30, required=False,
                                      help_text="z. B. 12.500,00")
    auftragsdatum = forms.DateField(
        label="Auftragsdatum", required=False, input_formats=DATUM_FORMATE,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        error_messages={"invalid": "Bitte ein Datum wie 01.02.2026 angeben."},
        help_text="Wählt die Gebührentabelle (§ 60 RVG).")
    bundesland = forms.ChoiceField(label="Bundesland (für Fristen)", choices=Bundesland.choices,
                                   initial=Bundesland.NW,
                                   help_text="Dessen Feiertage gelten bei der Fristberechnung.")
    anwalt = PersonenFeld(label="Verantwortliche Anwältin / verantwortlicher Anwalt",
                          queryset=User.objects.none(), required=False, empty_label="— niemand —")
    sachbearbeiter = PersonenFeld(label="Sachbearbeitung", queryset=User.objects.none(), required=False,
                                  empty_label="— niemand —")
    status = forms.ChoiceField(label="Status", choices=Akte.Status.choices, initial=Akte.Status.OFFEN,
                               required=False, help_text="Abschließen und ablegen dürfen Anwältinnen und "
                                                         "Anwälte und die Administration.")
    mandat_beendet_am = forms.DateField(
        label="Mandat beendet am", required=False, input_formats=DATUM_FORMATE,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        error_messages={"invalid": "Bitte ein Datum wie 01.02.2026 angeben."},
        help_text="Nur bei abgeschlossener oder abgelegter Akte; leer: der Tag des Abschlusses. Ab dem Ende "
                  "dieses Jahres läuft die Aufbewahrung (sechs Jahre, § 50 BRAO).")
    tags = forms.CharField(label="Schlagworte", max_length=500, required=False,
                           help_text="Durch Komma getrennt, z. B. „Eilsache, Rechtsschutz“")

    def __init__(self, *args: Any, darf_status: bool, akte: Akte | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["anwalt"].queryset = personen(rollen={Role.ANWALT, Role.ADMIN},
                                                  auch=[akte.anwalt_id if akte else None])
        self.fields["sachbearbeiter"].queryset = personen(auch=[akte.sachbearbeiter_id if akte else None])
        if not darf_status:
            del self.fields["status"]
            del self.fields["mandat_beendet_am"]

    def clean_aktenzeichen(self) -> str:
        return " ".join(self.cleaned_data["aktenzeichen"].split())

    def clean_gegenstandswert(self) -> Decimal | None:
        try:
            return betrag_lesen(self.cleaned_data["gegenstandswert"])
        except ValueError:
            raise forms.ValidationError("Bitte einen Betrag wie 12.500,00 angeben.") from None

    def clean_tags(self) -> list[str]:
        tags = [t.strip()[:50] for t in self.cleaned_data["tags"].split(",") if t.strip()]
        return list(dict.fromkeys(tags))

    @staticmethod
    def anfangswerte(akte: Akte) -> dict[str, Any]:
        """The form's values for an existing Akte (the amount as a German writes it)."""
        wert = akte.gegenstandswert
        return {"aktenzeichen": akte.aktenzeichen, "kurzrubrum": akte.kurzrubrum, "wegen": akte.wegen,
                "rechtsgebiet": akte.rechtsgebiet, "auftragsdatum": akte.auftragsdatum,
                "gegenstandswert": "" if wert is None else betrag_zeigen(wert),
                "bundesland": akte.bundesland, "anwalt": akte.anwalt_id,
                "sachbearbeiter": akte.sachbearbeiter_id, "status": akte.status, "tags": ", ".join(akte.tags),
                "mandat_beendet_am": akte.mandat_beendet_am}


class AkteAendernForm(AkteForm):
    grund = forms.CharField(label="Anlass der Änderung (für den Verlauf, freiwillig)", max_length=500,
                            required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        feld = self.fields["aktenzeichen"]
        feld.required, feld.help_text = True, ""
        feld.error_messages["required"] = "Bitte gib das Aktenzeichen an."


class ParteiForm(forms.Form):
    """The Mandant (or a Gegner) entered together with a new Akte."""

    name = forms.CharField(label="Name / Firma", max_length=200,
                           error_messages={"required": "Bitte gib den Namen an."})
    anrede = forms.ChoiceField(label="Anrede", choices=[("", "—"), *Beteiligter.Anrede.choices],
                               required=False)
    anschrift = forms.CharField(label="Anschrift", required=False,
                                widget=forms.Textarea(attrs={"rows": 3}))
    telefon = forms.CharField(label="Telefon", max_length=50, required=False)
    email = forms.EmailField(label="E-Mail", required=False,
                             error_messages={"invalid": "Bitte eine gültige E-Mail-Adresse angeben."})

    def clean_name(self) -> str:
        return " ".join(self.cleaned_data["name"].split())


class GegnerForm(ParteiForm):
    """Optional: without a name, no Gegner."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["name"].required = False
        for name in ("telefon", "email"):
            del self.fields[name]


class BeteiligterForm(ParteiForm):
    rolle = forms.ChoiceField(label="Rolle", choices=Beteiligter.Rolle.choices)
    aktenzeichen_extern = forms.CharField(label="Aktenzeichen/Zeichen der Gegenseite oder des Gerichts",
                                          max_length=100, required=False)
    notiz = forms.CharField(label="Notiz", required=False, widget=forms.Textarea(attrs={"rows": 2}))

    field_order = ("rolle", "anrede", "name", "anschrift", "telefon", "email", "aktenzeichen_extern", "notiz")


class KollisionForm(forms.Form):
    """The confirm step after possible conflicts were shown: only valid for the names that were shown."""

    kollision_bestaetigt = forms.BooleanField(required=False)
    kollision_begruendung = forms.CharField(
        label="Begründung", max_length=2000, required=False, widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Warum keine Interessenkollision besteht (z. B. „Namensgleichheit, andere Person: "
                  "anderes Geburtsdatum“). Wird mit der Prüfung gespeichert.")
    kollision_namen = forms.CharField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args: Any, bestaetigung: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.bestaetigung = bestaetigung
        self.fields["kollision_bestaetigt"].label = bestaetigung

    def entscheidung(self, namen: str) -> tuple[bool, str]:
        """(confirmed, reason): confirmed only for the names whose hits were shown, and with a reason."""
        if not self.is_valid() or self.cleaned_data["kollision_namen"] != namen:
            return False, ""
        if not self.cleaned_data["kollision_bestaetigt"]:  # "Trotzdem …" pressed without the tick
            self.add_error("kollision_bestaetigt", "Setz den Haken, wenn du trotz möglicher Kollision "
                                                   "fortfahren willst – sonst brich ab.")
            return False, ""
        grund = self.cleaned_data["kollision_begruendung"].strip()
        if not grund:
            self.add_error("kollision_begruendung", "Bitte begründe, warum du trotz möglicher Kollision "
                                                    "fortfährst.")
            return False, ""
        return True, grund

    def fuer_treffer(self, namen: str) -> KollisionForm:
        """The form to show beside the hits: this one with its message, else a new one for these names."""
        if self.is_bound and self.errors and self.data.get("kollision_namen") == namen:
            return self
        grund = self.data.get("kollision_begruendung", "") if self.is_bound else ""
        return KollisionForm(bestaetigung=self.bestaetigung,
                             initial={"kollision_namen": namen, "kollision_begruendung": grund})


class NotizForm(forms.Form):
    titel = forms.CharField(label="Titel (freiwillig)", max_length=300, required=False)
    inhalt = forms.CharField(label="Notiz", widget=forms.Textarea(attrs={"rows": 4}),
                             error_messages={"required": "Bitte schreib etwas in die Notiz."},
                             help_text="Beginnt die Notiz mit „@Helena“, bekommt Helena sie als Auftrag "
                                       "und meldet sich mit einem Hinweis.")


class ZeitForm(forms.Form):
    datum = forms.DateField(label="Datum", input_formats=DATUM_FORMATE,
                            widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
                            error_messages={"required": "Bitte gib das Datum an.",
                                            "invalid": "Bitte ein Datum wie 01.02.2026 angeben."})
    dauer = forms.CharField(label="Dauer", max_length=10,
                            help_text="In Minuten („90“) oder Stunden:Minuten („1:30“).",
                            error_messages={"required": "Bitte gib die Dauer an."})
    taetigkeit = forms.CharField(label="Tätigkeit", max_length=500,
                                 error_messages={"required": "Bitte beschreibe die Tätigkeit."})
    abrechenbar = forms.BooleanField(label="abrechenbar", required=False, initial=True)

    def clean_dauer(self) -> int:
        try:
            minuten = dauer_lesen(self.cleaned_data["dauer"])
        except ValueError:
            raise forms.ValidationError(
                "Bitte die Dauer in Minuten („90“) oder als „1:30“ angeben.") from None
        if not 1 <= minuten <= 24 * 60:
            raise forms.ValidationError("Die Dauer muss zwischen 1 Minute und 24 Stunden liegen.")
        return minuten


class ZugriffForm(forms.Form):
    person = PersonenFeld(label="Person", queryset=User.objects.none(), empty_label="— Person wählen —",
                          error_messages={"required": "Bitte wähle eine Person.",
                                          "invalid_choice": "Diese Person kann keinen Zugriff bekommen."})

    def __init__(self, *args: Any, kandidaten: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["person"].queryset = kandidaten
