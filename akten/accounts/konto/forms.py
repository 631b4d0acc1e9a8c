"""The account page's forms: a new API token, the Hinweis settings, the password, and the login
(Django's forms, speaking to the user with "du")."""

from __future__ import annotations

import math
from typing import Any

from django import forms
from django.contrib.auth.forms import AuthenticationForm, PasswordChangeForm

from akten.accounts.konto.services import NAME_MAX, OPTIONAL_ARTEN
from akten.accounts.tokenbremse import altes_passwort_gesperrt, falsches_altes_passwort
from akten.mail.arten import OPTIONALE_LABELS, OPTIONALE_MAIL_ARTEN
from akten.models import Alert, HinweisEinstellung, KalenderAbo

# What each kind of Hinweis means, in the words of the settings page.
ART_LABELS: dict[str, str] = {
    Alert.Art.VORFRIST: "Vorfrist erreicht",
    Alert.Art.BALD: "Frist endet in den nächsten drei Werktagen",
    Alert.Art.HEUTE: "Frist endet heute",
    Alert.Art.UEBERFAELLIG: "Frist überfällig",
    Alert.Art.NIEMAND: "Für eine Frist ist niemand verantwortlich",
    Alert.Art.BESTAETIGUNG: "Eine Notfrist wartet auf deine Bestätigung (Vier-Augen-Prinzip)",
    Alert.Art.AUFGABE: "Helena hat einen Auftrag erledigt",
    Alert.Art.MANUELL: "Sonstige Hinweise (von Kolleginnen, Kollegen und der Verwaltung)",
}
PFLICHT_LABELS = [ART_LABELS[art] for art in Alert.Art.values if art in HinweisEinstellung.PFLICHT_ARTEN]


class TokenForm(forms.Form):
    name = forms.CharField(
        label="Name", max_length=NAME_MAX,
        help_text="Wofür ist der Token? Zum Beispiel „Kanzleisoftware“ oder „Skript Fristenexport“.",
        widget=forms.TextInput(attrs={"autocomplete": "off"}))
    gueltig_bis = forms.DateField(
        label="Gültig bis (freiwillig)", required=False,
        help_text="Einschließlich dieses Tages. Leer: gültig, bis du ihn widerrufst.",
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"))


class HinweisForm(forms.Form):
    sichtbar = forms.MultipleChoiceField(
        label="Diese Hinweise möchte ich sehen", required=False, widget=forms.CheckboxSelectMultiple,
        choices=[(art, ART_LABELS[art]) for art in OPTIONAL_ARTEN])
    kurzmeldungen = forms.BooleanField(
        label="Neue Hinweise kurz unten auf der Seite einblenden", required=False,
        help_text="Die Glocke oben zählt neue Hinweise in jedem Fall.")

    @classmethod
    def for_settings(cls, settings: HinweisEinstellung) -> HinweisForm:
        hidden = set(settings.ausgeblendet)
        return cls(initial={"sichtbar": [art for art in OPTIONAL_ARTEN if art not in hidden],
                            "kurzmeldungen": settings.kurzmeldungen})


class MailForm(forms.Form):
    """Which optional Hinweise come by e-mail; the critical ones are not offered (they always come)."""

    per_mail = forms.MultipleChoiceField(
        label="Diese Hinweise möchte ich auch per E-Mail", required=False,
        widget=forms.CheckboxSelectMultiple,
        choices=[(art, OPTIONALE_LABELS[art]) for art in OPTIONALE_MAIL_ARTEN])

    @classmethod
    def for_settings(cls, settings: HinweisEinstellung) -> MailForm:
        aus = set(settings.mail_aus)
        return cls(initial={"per_mail": [art for art in OPTIONALE_MAIL_ARTEN if art not in aus]})


class KalenderForm(forms.Form):
    """What the Kalender-Abo shows; the same choice for a new address and for an existing one."""

    umfang = forms.ChoiceField(label="Was der Kalender zeigt", choices=KalenderAbo.Umfang.choices,
                               widget=forms.RadioSelect, initial=KalenderAbo.Umfang.MEINE)


class KontoPasswordChangeForm(PasswordChangeForm):
    """Django's password change with the page's words; its checks (the validators) stay Django's."""

    error_messages = {
        **PasswordChangeForm.error_messages,
        "password_incorrect": "Dein bisheriges Passwort stimmt nicht. Bitte gib es noch einmal ein.",
        "password_mismatch": "Die beiden neuen Passwörter stimmen nicht überein.",
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["old_password"].label = "Bisheriges Passwort"
        self.fields["new_password1"].label = "Neues Passwort"
        self.fields["new_password2"].label = "Neues Passwort wiederholen"
        self.fields["new_password2"].help_text = "Zur Kontrolle noch einmal dasselbe."
        self.zu_viele = False  # the limit of wrong old passwords was reached with this one: log out

    def clean_old_password(self) -> str:
        """Django's check, braked: five wrong old passwords in 15 minutes and the change is refused
        (the right one too) for the rest of them (akten/accounts/tokenbremse.py)."""
        if (rest := altes_passwort_gesperrt(user_id=self.user.pk)) is not None:
            raise forms.ValidationError(
                "Zu viele falsche Versuche mit dem bisherigen Passwort. Bitte versuch es in "
                f"{math.ceil(rest / 60)} Minuten noch einmal.", code="gesperrt")
        try:
            return super().clean_old_password()
        except forms.ValidationError:
            self.zu_viele = falsches_altes_passwort(user_id=self.user.pk)
            raise


class AnmeldeForm(AuthenticationForm):
    """The login page (/konto/anmelden/): a wrong name or password says what happened, in the
    page's words; Django's own sentence ("Bitte einen gültigen Benutzernamen …") does not."""

    error_messages = {
        **AuthenticationForm.error_messages,
        "invalid_login": "Benutzername oder Passwort stimmen nicht.",
        "inactive": "Dieser Zugang ist gesperrt. Bitte wende dich an die Verwaltung der Kanzlei.",
    }
