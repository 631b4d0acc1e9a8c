"""The login throttle in the admin, in German: who failed to log in from where, who is locked until
when, „Sperre aufheben“; and the successful logins (axes' AccessLog). axes' own admin is switched off
(AXES_ENABLE_ADMIN = False): its status column counts one row against the limit, not a username's
rows together, and some of its words have no German."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import Q, QuerySet
from django.http import HttpRequest
from django.utils import timezone

from akten.accounts.anmeldeschutz import sperre_bis
from akten.models import Anmeldung, Zugriffsversuch


class _AxesZeile:
    """What both lists of axes' rows share: written by axes alone, the name and the address shown."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="Benutzername", ordering="username")
    def benutzername(self, obj: Zugriffsversuch | Anmeldung) -> str:
        return obj.username or "—"

    @admin.display(description="Adresse (IP)", ordering="ip_address")
    def adresse(self, obj: Zugriffsversuch | Anmeldung) -> str:
        return obj.ip_address or "—"


@admin.register(Zugriffsversuch)
class ZugriffsversuchAdmin(_AxesZeile, admin.ModelAdmin):
    list_display = ("benutzername", "adresse", "fehlversuche", "letzter_versuch", "gesperrt_bis", "pfad")
    search_fields = ("username", "ip_address")
    ordering = ("-attempt_time",)
    fields = ("benutzername", "adresse", "fehlversuche", "letzter_versuch", "gesperrt_bis", "pfad",
              "browser", "formular")
    readonly_fields = fields
    actions = ("sperre_aufheben",)

    @admin.display(description="Fehlversuche", ordering="failures_since_start")
    def fehlversuche(self, obj: Zugriffsversuch) -> int:
        return obj.failures_since_start

    @admin.display(description="letzter Fehlversuch", ordering="attempt_time")
    def letzter_versuch(self, obj: Zugriffsversuch) -> str:
        return timezone.localtime(obj.attempt_time).strftime("%d.%m.%Y %H:%M:%S")

    @admin.display(description="gesperrt bis")
    def gesperrt_bis(self, obj: Zugriffsversuch) -> str:
        bis = sperre_bis(username=obj.username, adresse=obj.ip_address)
        return timezone.localtime(bis).strftime("%d.%m.%Y %H:%M") if bis else "nicht gesperrt"

    @admin.display(description="Seite")
    def pfad(self, obj: Zugriffsversuch) -> str:
        return obj.path_info

    @admin.display(description="Browser")
    def browser(self, obj: Zugriffsversuch) -> str:
        return obj.user_agent

    @admin.display(description="Formulardaten (Passwort und Name nie gespeichert)")
    def formular(self, obj: Zugriffsversuch) -> str:
        return obj.post_data

    @admin.action(description="Sperre aufheben (Benutzername und Adresse der gewählten Zeilen)")
    def sperre_aufheben(self, request: HttpRequest, queryset: QuerySet[Zugriffsversuch]) -> None:
        namen = {u for u in queryset.values_list("username", flat=True) if u}
        adressen = {a for a in queryset.values_list("ip_address", flat=True) if a}
        treffer = Zugriffsversuch.objects.filter(Q(username__in=namen) | Q(ip_address__in=adressen))
        anzahl, _ = treffer.delete()
        self.message_user(request, f"Sperre aufgehoben: {', '.join(sorted(namen | adressen))}. "
                                   f"{anzahl} Zeile(n) mit Fehlversuchen gelöscht.", messages.SUCCESS)


@admin.register(Anmeldung)
class AnmeldungAdmin(_AxesZeile, admin.ModelAdmin):
    list_display = ("benutzername", "adresse", "angemeldet", "abgemeldet")
    search_fields = ("username", "ip_address")
    ordering = ("-attempt_time",)
    fields = ("benutzername", "adresse", "angemeldet", "abgemeldet", "browser")
    readonly_fields = fields

    @admin.display(description="angemeldet", ordering="attempt_time")
    def angemeldet(self, obj: Anmeldung) -> str:
        return timezone.localtime(obj.attempt_time).strftime("%d.%m.%Y %H:%M")

    @admin.display(description="abgemeldet", ordering="logout_time")
    def abgemeldet(self, obj: Anmeldung) -> str:
        return timezone.localtime(obj.logout_time).strftime("%d.%m.%Y %H:%M") if obj.logout_time else "—"

    @admin.display(description="Browser")
    def browser(self, obj: Anmeldung) -> str:
        return obj.user_agent
