"""The small forms staff use daily: correcting a Frist."""

from __future__ import annotations

from django import forms

from akten.models import Frist, User


class FristForm(forms.ModelForm):
    class Meta:
        model = Frist
        fields = ("bezeichnung", "typ", "datum", "uhrzeit", "vorfrist", "ist_notfrist", "verantwortlich",
                  "notiz")
        widgets = {
            "datum": forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
            "vorfrist": forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
            "uhrzeit": forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
            "notiz": forms.Textarea(attrs={"rows": 3}),
        }

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["verantwortlich"].queryset = User.objects.filter(is_active=True).order_by("last_name",
                                                                                                "username")
        self.fields["verantwortlich"].label_from_instance = lambda u: u.get_full_name() or u.username
