"""The second factor's forms: a code (from the app, or a recovery code) and the removal's question."""

from __future__ import annotations

from django import forms


class CodeForm(forms.Form):
    code = forms.CharField(
        label="Code", max_length=40, strip=True,
        widget=forms.TextInput(attrs={"autocomplete": "one-time-code", "autocapitalize": "none",
                                      "spellcheck": "false", "autofocus": True, "size": 12}))


class EinrichtenForm(CodeForm):
    """Only the app's code confirms the device (no recovery code exists yet)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.fields["code"].label = "Sechsstelliger Code aus deiner App"
        self.fields["code"].widget.attrs.update({"inputmode": "numeric", "pattern": r"[0-9 ]*"})


class EntfernenForm(forms.Form):
    code_oder_passwort = forms.CharField(
        label="Aktueller Code aus deiner App oder dein Passwort", max_length=200, strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "off"}))
