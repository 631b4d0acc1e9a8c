"""„Kalender-Abos“ in the Verwaltung: who has a feed, what it shows, when a calendar program last read
it, with which API token it was made (it ends with that token) — and „Adresse widerrufen“ for a lost
phone or a person who left (deactivating them clears it too).
The address itself is never shown: only its hash is kept."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from akten.kalenderabo import services
from akten.models import KalenderAbo


@admin.register(KalenderAbo)
class KalenderAboAdmin(admin.ModelAdmin):
    list_display = ("user", "adresse_aktiv", "umfang", "prefix", "angelegt_am", "zuletzt_abgerufen")
    list_filter = ("umfang",)
    search_fields = ("user__username", "user__first_name", "user__last_name")
    fields = ("user", "umfang", "prefix", "angelegt_am", "zuletzt_abgerufen", "erzeugt_mit")
    readonly_fields = ("user", "umfang", "prefix", "angelegt_am", "zuletzt_abgerufen", "erzeugt_mit")
    list_select_related = ("user", "erzeugt_mit")
    actions = ["adresse_widerrufen"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # a person makes their own address on /konto/ (it is shown to them once)

    @admin.display(description="Adresse gültig", boolean=True)
    def adresse_aktiv(self, obj: KalenderAbo) -> bool:
        return obj.aktiv

    @admin.action(description="Adresse widerrufen (der Kalender bekommt nichts mehr)")
    def adresse_widerrufen(self, request: HttpRequest, queryset: QuerySet[KalenderAbo]) -> None:
        for abo in queryset.select_related("user"):
            services.abo_widerrufen(user=abo.user)
        messages.success(request, f"{queryset.count()} Kalender-Adresse(n) widerrufen.")
