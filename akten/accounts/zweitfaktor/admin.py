"""The second factor in the Verwaltung: on the User admin a column (who has a confirmed one), the
details on the change page, the demo exemption as a field, and the reset for a lost phone. django-otp's
own admins of its devices (English, the keys in clear) are taken out: the reset is the one thing the
admin does with a device."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import Exists, OuterRef, QuerySet
from django.http import HttpRequest
from django.utils import formats, timezone
from django_otp.plugins.otp_static.models import StaticDevice
from django_otp.plugins.otp_totp.models import TOTPDevice

from akten.accounts.zweitfaktor import regeln, services

for _modell in (TOTPDevice, StaticDevice):
    if admin.site.is_registered(_modell):
        admin.site.unregister(_modell)


class ZweitfaktorFilter(admin.SimpleListFilter):
    title = "zweiter Faktor"
    parameter_name = "zweiter_faktor"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("ja", "eingerichtet"), ("nein", "nicht eingerichtet")]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value() in ("ja", "nein"):
            return queryset.filter(_zweiter_faktor=self.value() == "ja")
        return queryset


class ZweitfaktorUserAdminMixin:
    """Mixed into akten.admin.UserAdmin (its list_display names "zweiter_faktor", its fieldsets
    "zweiter_faktor_stand" and "ohne_zweiten_faktor")."""

    actions = ("zweiten_faktor_zuruecksetzen",)
    readonly_fields = ("zweiter_faktor_stand",)

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).annotate(  # type: ignore[misc]
            _zweiter_faktor=Exists(TOTPDevice.objects.filter(user=OuterRef("pk"), confirmed=True)))

    @admin.display(description="zweiter Faktor", boolean=True, ordering="_zweiter_faktor")
    def zweiter_faktor(self, obj: Any) -> bool:
        return bool(getattr(obj, "_zweiter_faktor", False))

    @admin.display(description="Stand des zweiten Faktors")
    def zweiter_faktor_stand(self, obj: Any) -> str:
        if obj is None or obj.pk is None:
            return "—"
        stand = regeln.stand(user=obj)
        geraet = stand["geraet"]
        pflicht = "Die Rolle verlangt ihn." if stand["pflicht"] else "Die Rolle verlangt ihn nicht."
        if geraet is None:
            return f"nicht eingerichtet. {pflicht}"
        zuletzt = _zeit(geraet.last_used_at) or "noch nie"
        return (f"eingerichtet am {_zeit(geraet.created_at) or '—'}, zuletzt benutzt: {zuletzt}; "
                f"{stand['codes_uebrig']} Wiederherstellungscodes übrig. {pflicht} Handy verloren? Aktion "
                "„Zweiten Faktor zurücksetzen“ in der Liste der Benutzer.")

    @admin.action(description="Zweiten Faktor zurücksetzen (Handy verloren)")
    def zweiten_faktor_zuruecksetzen(self, request: HttpRequest, queryset: QuerySet) -> None:
        namen = []
        for user in queryset:
            if services.zuruecksetzen(user=user):
                namen.append(user.get_username())
        if namen:
            self.message_user(  # type: ignore[attr-defined]
                request, "Zweiter Faktor zurückgesetzt für: " + ", ".join(namen) + ". Wessen Rolle ihn "
                "verlangt, richtet bei der nächsten Anmeldung einen neuen ein.", messages.SUCCESS)
        else:
            self.message_user(  # type: ignore[attr-defined]
                request, "Keiner der gewählten Benutzer hatte einen zweiten Faktor.", messages.INFO)


def _zeit(wann: Any) -> str:
    return formats.date_format(timezone.localtime(wann), "DATETIME_FORMAT") if wann else ""
