"""The forms of the Fristenbuch: a Frist, Termin or Wiedervorlage with the Fristenrechner beside it,
the Fristenbuch's filters, and the short forms of Erledigt (Vermerk) and Wieder öffnen (Grund)."""

from __future__ import annotations

from datetime import date
from typing import Any

from django import forms

from akten.accounts.users import anzeigename
from akten.erfassung.fristen import VERMERK_MAX, berechnung_speichern
from akten.fristen import PRESETS, FristErgebnis, FristError, berechne
from akten.models import Akte, Frist, User
from akten.selectors import personen_der_akte

EINHEITEN = (("tage", "Tage"), ("wochen", "Wochen"), ("monate", "Monate"), ("jahre", "Jahre"))
DATUM = {"type": "date"}
DATUM_FEHLER = {"invalid": "Gib ein gültiges Datum ein."}


def datum_widget() -> forms.DateInput:
    return forms.DateInput(attrs=DATUM, format="%Y-%m-%d")
ZAHL_FEHLER = {"invalid": "Gib eine ganze Zahl ein.", "min_value": "Gib mindestens %(limit_value)s ein.",
               "max_value": "Gib höchstens %(limit_value)s ein."}


def aktive_personen() -> Any:
    return User.objects.filter(is_active=True).order_by("last_name", "first_name", "username")


class FristForm(forms.ModelForm):
    """The Frist's own fields; the record's rules (Vorfrist before the end, only a Frist is a Notfrist)
    are checked by the service (akten.erfassung.fristen), not twice here."""

    class Meta:
        model = Frist
        fields = ("typ", "bezeichnung", "datum", "uhrzeit", "vorfrist", "ist_notfrist", "verantwortlich",
                  "bundesland", "notiz")
        labels = {"datum": "Datum (Fristende bzw. Termin)", "uhrzeit": "Uhrzeit",
                  "ist_notfrist": "Notfrist (nicht verlängerbar)", "verantwortlich": "Verantwortlich",
                  "bundesland": "Feiertage nach Bundesland"}
        help_texts = {"uhrzeit": "Bei Terminen.", "vorfrist": "Erinnerung vor dem Fristende.",
                      "bundesland": "Leer: das Bundesland der Akte."}
        widgets = {
            "datum": forms.DateInput(attrs=DATUM, format="%Y-%m-%d"),
            "vorfrist": forms.DateInput(attrs=DATUM, format="%Y-%m-%d"),
            "uhrzeit": forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
            "notiz": forms.Textarea(attrs={"rows": 3}),
        }

    grund = forms.CharField(
        label="Grund der Änderung", required=False, max_length=VERMERK_MAX,
        help_text="Steht im Verlauf. Nötig, wenn du das Ende einer Notfrist verschiebst oder sie nicht mehr "
                  "als Notfrist führst.")

    def __init__(self, *args: Any, akte: Akte | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        personen = self.fields["verantwortlich"]
        # only who may open the Akte can keep its Frist (the service refuses anyone else)
        personen.queryset = personen_der_akte(akte=akte) if akte is not None else aktive_personen()
        personen.label_from_instance = anzeigename
        personen.empty_label = "– niemand –"
        laender = Frist._meta.get_field("bundesland").choices
        self.fields["bundesland"].choices = [("", "– wie die Akte –"), *laender]


def _vorlage_text(key: str) -> str:
    p = PRESETS[key]
    return f"{p.bezeichnung} ({p.dauer.text}, {p.norm}{', Notfrist' if p.notfrist else ''})"


class RechnerForm(forms.Form):
    """The Fristenrechner inside the Frist form: the day of the Zustellung (or other event) and a
    Vorlage or a Dauer. Empty: no calculation; half filled: a German error."""

    ereignis = forms.DateField(label="Zustellung bzw. Ereignis am", required=False,
                               error_messages=DATUM_FEHLER, widget=datum_widget())
    vorlage = forms.ChoiceField(label="Fristart", required=False,
                                choices=[("", "– eigene Dauer –"), *((k, _vorlage_text(k)) for k in PRESETS)])
    dauer_anzahl = forms.IntegerField(label="Dauer", required=False, min_value=1, max_value=999,
                                      error_messages=ZAHL_FEHLER,
                                      widget=forms.NumberInput(attrs={"inputmode": "numeric"}))
    dauer_einheit = forms.ChoiceField(label="Einheit", choices=EINHEITEN, initial="wochen", required=False)
    vorfrist_tage = forms.IntegerField(label="Vorfrist (Tage vor Fristende)", required=False, min_value=0,
                                       max_value=366, initial=7, error_messages=ZAHL_FEHLER)

    @classmethod
    def initial_aus(cls, berechnung: dict[str, Any] | None) -> dict[str, Any]:
        """The fields a stored Berechnung was made with (a Dauer of several units is not shown)."""
        if not berechnung:
            return {}
        initial: dict[str, Any] = {"ereignis": berechnung.get("start"),
                                   "vorlage": berechnung.get("preset") or "",
                                   "vorfrist_tage": berechnung.get("vorfrist_tage")}
        teile = {k: v for k, v in (berechnung.get("dauer") or {}).items() if v}
        if len(teile) == 1:
            (einheit, anzahl), = teile.items()
            initial.update(dauer_anzahl=anzahl, dauer_einheit=einheit)
        return initial

    def leer(self) -> bool:
        daten = self.cleaned_data
        return not (daten.get("ereignis") or daten.get("vorlage") or daten.get("dauer_anzahl"))

    def clean(self) -> dict[str, Any]:
        daten = super().clean()
        if self.errors or self.leer():
            return daten
        if daten.get("vorlage") and daten.get("dauer_anzahl"):
            raise forms.ValidationError("Bitte entweder eine Fristart oder eine eigene Dauer angeben, "
                                        "nicht beides.")
        if not daten.get("vorlage") and not daten.get("dauer_anzahl"):
            self.add_error("dauer_anzahl", "Wähle eine Fristart oder gib eine Dauer an.")
        if not daten.get("ereignis"):
            self.add_error("ereignis", "Gib an, wann zugestellt wurde bzw. das Ereignis war.")
        return daten

    def berechnen(self, bundesland: str | None) -> tuple[FristErgebnis, dict[str, Any]] | None:
        """The Fristenrechner's result and what Frist.berechnung keeps; None when the form is empty or
        invalid (the calculator's German reason is then one of its errors)."""
        if not self.is_valid() or self.leer():
            return None
        daten = self.cleaned_data
        vorlage = daten.get("vorlage") or None
        dauer = None if vorlage else {daten.get("dauer_einheit") or "wochen": daten["dauer_anzahl"]}
        try:
            ergebnis = berechne(start=daten["ereignis"], dauer=dauer, preset=vorlage,
                                bundesland=bundesland or None, vorfrist_tage=daten.get("vorfrist_tage"))
        except FristError as exc:
            self.add_error(None, str(exc))
            return None
        return ergebnis, berechnung_speichern(ergebnis, dauer=dauer, preset=vorlage,
                                              vorfrist_tage=daten.get("vorfrist_tage"))


def uebernehmen(werte: dict[str, Any], ergebnis: FristErgebnis) -> dict[str, Any]:
    """The Frist form's values after "Berechnen": Fristende and Vorfrist from the result; with a
    Fristart also its name (unless one was typed), the type Frist and its Notfrist flag."""
    vorfrist = ergebnis.vorfrist.datum if ergebnis.vorfrist else None
    werte = {**werte, "datum": ergebnis.ende, "vorfrist": vorfrist}
    vorlage = ergebnis.preset
    if vorlage is not None:
        namen = {p.bezeichnung for p in PRESETS.values()}
        if not (werte.get("bezeichnung") or "").strip() or werte.get("bezeichnung") in namen:
            werte["bezeichnung"] = vorlage.bezeichnung
        werte["typ"], werte["ist_notfrist"] = Frist.Typ.FRIST, vorlage.notfrist
    return werte


class VermerkForm(forms.Form):
    vermerk = forms.CharField(label="Was wurde getan?", max_length=VERMERK_MAX, required=False,
                              widget=forms.Textarea(attrs={"rows": 3, "placeholder":
                                                           "z. B. Berufung per beA eingelegt am 12.03.2026"}))


class GrundForm(forms.Form):
    grund = forms.CharField(label="Warum ist die Frist wieder offen?", max_length=VERMERK_MAX, required=False,
                            widget=forms.Textarea(attrs={"rows": 2}))


ANSICHTEN = (("tag", "nach Tagen"), ("woche", "nach Wochen"))
ZUSTAENDE = (("offen", "offen"), ("erledigt", "erledigt"), ("alle", "alle"))


class BuchFilter(forms.Form):
    """The Fristenbuch's filters (GET); every value optional, a wrong one a German error on the page."""

    von = forms.DateField(label="von", required=False, error_messages=DATUM_FEHLER,
                          widget=forms.DateInput(attrs=DATUM, format="%Y-%m-%d"))
    bis = forms.DateField(label="bis", required=False, error_messages=DATUM_FEHLER,
                          widget=forms.DateInput(attrs=DATUM, format="%Y-%m-%d"))
    verantwortlich = forms.ChoiceField(label="Verantwortlich", required=False)
    typ = forms.ChoiceField(label="Typ", required=False, choices=[("", "alle"), *Frist.Typ.choices])
    erledigt = forms.ChoiceField(label="Status", required=False, choices=ZUSTAENDE)
    ansicht = forms.ChoiceField(label="Gruppiert", required=False, choices=ANSICHTEN)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["verantwortlich"].choices = [("", "alle"), ("ich", "nur meine"),
                                                 *((u.username, anzeigename(u)) for u in aktive_personen())]

    def clean(self) -> dict[str, Any]:
        daten = super().clean()
        von, bis = daten.get("von"), daten.get("bis")
        if isinstance(von, date) and isinstance(bis, date) and von > bis:
            self.add_error("bis", "„bis“ liegt vor „von“.")
        return daten

    def auswahl(self) -> dict[str, Any]:
        """The selector's arguments (akten.fristenbuch.selectors.fristen_im_buch)."""
        daten: dict[str, Any] = {}
        if self.is_bound:
            self.is_valid()
            daten = self.cleaned_data  # the valid fields; a wrong one is shown and left out
        erledigt = {"offen": False, "erledigt": True, "alle": None}[daten.get("erledigt") or "offen"]
        return {"von": daten.get("von"), "bis": daten.get("bis"),
                "verantwortlich": daten.get("verantwortlich") or None, "typ": daten.get("typ") or None,
                "erledigt": erledigt, "status": "all" if erledigt is None else None}


class KontrollFilter(forms.Form):
    """The daily Fristenkontrolle: how many days ahead, whose entries."""

    tage = forms.IntegerField(label="Tage voraus", required=False, min_value=0, max_value=31, initial=7,
                              error_messages=ZAHL_FEHLER)
    verantwortlich = forms.ChoiceField(label="Verantwortlich", required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["verantwortlich"].choices = BuchFilter().fields["verantwortlich"].choices

    def auswahl(self) -> dict[str, Any]:
        daten: dict[str, Any] = {}
        if self.is_bound:
            self.is_valid()
            daten = self.cleaned_data
        tage = daten.get("tage")
        return {"tage": 7 if tage is None else tage, "verantwortlich": daten.get("verantwortlich") or None}
