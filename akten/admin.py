"""Admin for the firm's records: the one place that sees everything unscoped."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.contrib.auth.forms import AdminPasswordChangeForm, SetUnusablePasswordMixin
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.http import HttpRequest, HttpResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.text import format_lazy

from akten.accounts.users import new_api_token
from akten.accounts.zweitfaktor.admin import ZweitfaktorFilter, ZweitfaktorUserAdminMixin
from akten.dokumente.ausgabe import vorlage as word_vorlage
from akten.dokumente.ausgabe.docx import MIME as DOCX_MIME
from akten.dokumente.ausgabe.kontext import PLATZHALTER
from akten.erfassung.akten import naechstes_aktenzeichen
from akten.lesezugriffe.admin import LesenImAdminMixin  # also registers „Zugriffsprotokoll“
from akten.mail.arten import OPTIONALE_LABELS
from akten.models import (
    Akte,
    AktenZugriff,
    Alert,
    ApiToken,
    Beteiligter,
    Briefkopf,
    Dokument,
    Frist,
    HinweisEinstellung,
    Kanzleieinstellung,
    Kollisionspruefung,
    Notiz,
    User,
    Zeiterfassung,
)
from config.admin_base import ReadOnlyAdminMixin


class UserPasswordForm(AdminPasswordChangeForm):
    """Django's form, with its warning in German: Django writes it in English only (not translatable)."""

    usable_password_help_text = format_lazy(
        '{}<ul id="id_unusable_warning" class="messagelist"><li class="warning">{}</li></ul>',
        SetUnusablePasswordMixin.usable_password_help_text,
        "Deaktivierst du sie, geht das bisherige Passwort dieses Benutzers verloren.",
    )


@admin.register(User)
class UserAdmin(ZweitfaktorUserAdminMixin, DjangoUserAdmin):
    change_password_form = UserPasswordForm
    list_display = ("username", "full_name", "email", "role", "zweiter_faktor", "is_active", "is_staff")
    list_filter = ("role", ZweitfaktorFilter, "ohne_zweiten_faktor", "is_active", "is_staff", "is_superuser")
    fieldsets = (*DjangoUserAdmin.fieldsets, ("Kanzlei", {"fields": ("role", "berufsbezeichnung")}),
                 ("Zweiter Faktor", {"fields": ("zweiter_faktor_stand", "ohne_zweiten_faktor")}))
    add_fieldsets = (*DjangoUserAdmin.add_fieldsets, ("Kanzlei", {"fields": ("role", "berufsbezeichnung")}))

    @admin.display(description="Name", ordering="last_name")
    def full_name(self, obj: User) -> str:
        return obj.get_full_name()


class AktenZugriffInline(admin.TabularInline):
    model = AktenZugriff
    fk_name = "akte"
    extra = 0
    autocomplete_fields = ("user",)
    readonly_fields = ("gewaehrt_von", "gewaehrt_am")
    verbose_name = "Zugriff"
    verbose_name_plural = "Zugriff (Benutzer mit der Rolle Administrator sehen alle Akten)"


class BeteiligterInline(admin.StackedInline):
    model = Beteiligter
    extra = 0


# Erledigt with its Vermerk and the second person's confirmation happen on the Akte page and the API
# (akten/erfassung/fristen.py); the admin shows them but cannot tick a Notfrist off alone.
FRIST_ERLEDIGUNG = ("erledigt", "erledigt_am", "erledigt_vermerk", "erledigt_von", "erledigung_beantragt_von",
                    "erledigung_beantragt_am", "bestaetigt_von")


class FristInline(admin.TabularInline):
    model = Frist
    extra = 0
    fields = ("typ", "bezeichnung", "datum", "vorfrist", "ist_notfrist", "erledigt", "verantwortlich")
    readonly_fields = ("erledigt",)


class DokumentInline(admin.TabularInline):
    model = Dokument
    extra = 0
    fields = ("titel", "status", "erstellt_durch", "freigegeben_von", "angelegt_am")
    readonly_fields = ("angelegt_am",)
    show_change_link = True


@admin.register(Akte)
class AkteAdmin(LesenImAdminMixin, admin.ModelAdmin):
    list_display = ("aktenzeichen", "kurzrubrum", "rechtsgebiet", "status", "anwalt", "bundesland",
                    "aktualisiert_am")
    list_filter = ("status", "rechtsgebiet", "bundesland", "anwalt")
    search_fields = ("aktenzeichen", "kurzrubrum", "wegen", "beteiligte__name")
    autocomplete_fields = ("anwalt", "sachbearbeiter")
    readonly_fields = ("angelegt_am", "aktualisiert_am", "summary_aktualisiert_am")
    inlines = (BeteiligterInline, FristInline, DokumentInline, AktenZugriffInline)

    def save_formset(self, request, form, formset, change) -> None:
        instances = formset.save(commit=False)
        for obj in instances:
            if isinstance(obj, AktenZugriff) and obj.gewaehrt_von_id is None:
                obj.gewaehrt_von = request.user
            obj.save()
        for obj in formset.deleted_objects:
            obj.delete()
        formset.save_m2m()


@admin.register(AktenZugriff)
class AktenZugriffAdmin(admin.ModelAdmin):
    list_display = ("akte", "user", "gewaehrt_von", "gewaehrt_am")
    list_filter = ("user",)
    search_fields = ("akte__aktenzeichen", "user__username")
    autocomplete_fields = ("akte", "user")


@admin.register(Beteiligter)
class BeteiligterAdmin(LesenImAdminMixin, admin.ModelAdmin):
    list_display = ("name", "anrede", "rolle", "akte", "telefon", "email")
    list_filter = ("rolle",)
    search_fields = ("name", "akte__aktenzeichen", "email")
    autocomplete_fields = ("akte",)


@admin.register(Frist)
class FristAdmin(LesenImAdminMixin, admin.ModelAdmin):
    list_display = ("datum", "bezeichnung", "typ", "akte", "ist_notfrist", "vorfrist", "erledigt",
                    "verantwortlich")
    list_filter = ("typ", "erledigt", "ist_notfrist", "verantwortlich")
    search_fields = ("bezeichnung", "akte__aktenzeichen", "akte__kurzrubrum")
    date_hierarchy = "datum"
    autocomplete_fields = ("akte", "verantwortlich")
    readonly_fields = FRIST_ERLEDIGUNG


@admin.register(Dokument)
class DokumentAdmin(LesenImAdminMixin, admin.ModelAdmin):
    """Uploads come in through the Akte page and the API (type check, text extraction): here their
    file data is shown, not edited, and the file is reached through the permission-checked view."""

    list_display = ("titel", "akte", "dateityp", "extraktion", "status", "erstellt_durch", "angelegt_am")
    list_filter = ("status", "erstellt_durch", "dateityp", "extraktion")
    search_fields = ("titel", "inhalt", "akte__aktenzeichen")
    autocomplete_fields = ("akte", "erstellt_von", "freigegeben_von")
    exclude = ("datei",)
    readonly_fields = ("original", "dateiname", "dateityp", "mime", "groesse", "seiten", "extraktion",
                       "extraktion_fortschritt", "extraktion_hinweis", "ocr_seiten", "quelle")

    @admin.display(description="Datei")
    def original(self, dokument: Dokument) -> str:
        if not dokument.datei:
            return "—"
        url = reverse("akten:dokument_datei", args=[dokument.pk])
        return format_html('<a href="{}">{}</a>', url, dokument.dateiname or "Original herunterladen")


VORLAGE_MAX_BYTES = 10 * 1024 * 1024


class BriefkopfForm(forms.ModelForm):
    class Meta:
        model = Briefkopf
        fields = ("kanzlei", "anschrift", "telefon", "email", "kontakt", "ort", "unterschrift", "fusszeile",
                  "vorlage")

    def clean_vorlage(self) -> Any:
        """A new upload must be a Word template that renders: checked now, not at the first download."""
        datei = self.cleaned_data.get("vorlage")
        if isinstance(datei, UploadedFile):
            if datei.size and datei.size > VORLAGE_MAX_BYTES:
                raise ValidationError("Die Vorlage ist größer als 10 MB.")
            inhalt = datei.read()
            datei.seek(0)
            word_vorlage.pruefen(inhalt)
        return datei


@admin.register(Briefkopf)
class BriefkopfAdmin(admin.ModelAdmin):
    """The one letterhead of the Kanzlei: its fields, and optionally a Word template of its own."""

    form = BriefkopfForm
    list_display = ("kanzlei", "ort", "eigene_vorlage", "aktualisiert_am")
    readonly_fields = ("eingebaute_vorlage", "aktualisiert_am")
    fieldsets = (
        ("Kanzlei", {"fields": ("kanzlei", "anschrift", "telefon", "email", "kontakt", "ort")}),
        ("Unterschrift und Fußzeile", {"fields": ("unterschrift", "fusszeile")}),
        ("Word-Vorlage", {
            "fields": ("vorlage", "eingebaute_vorlage"),
            "description": format_html(
                "Die Word-Datei (DOCX) nutzt die eigene Vorlage, wenn eine hochgeladen ist; das PDF hat "
                "immer das eingebaute Layout mit den Angaben oben. Platzhalter einer eigenen Vorlage: {}. "
                "Der Text des Dokuments steht, wo <code>{{{{p inhalt }}}}</code> allein in einem Absatz "
                "steht. Beim Hochladen wird die Vorlage probeweise gefüllt.",
                format_html_join(", ", "<code>{{{{ {} }}}}</code>",
                                 ((name,) for name in PLATZHALTER if name != "inhalt"))),
        }),
        ("Stand", {"fields": ("aktualisiert_am",)}),
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return super().has_add_permission(request) and not Briefkopf.objects.exists()

    def get_urls(self) -> list[URLPattern]:
        return [
            path("vorlage/", self.admin_site.admin_view(self.vorlage_herunterladen),
                 name="akten_briefkopf_vorlage"),
            *super().get_urls(),
        ]

    def vorlage_herunterladen(self, request: HttpRequest) -> HttpResponse:
        response = HttpResponse(word_vorlage.eingebaute_vorlage(), content_type=DOCX_MIME)
        response["Content-Disposition"] = 'attachment; filename="Briefkopf-Vorlage.docx"'
        return response

    @admin.display(description="eingebaute Vorlage")
    def eingebaute_vorlage(self, obj: Briefkopf | None) -> str:
        return format_html(
            '<a href="{}">Eingebaute Vorlage herunterladen (DOCX)</a> – in Word anpassen '
            "(Logo, Schrift, Anordnung) und oben als eigene Vorlage hochladen.",
            reverse("admin:akten_briefkopf_vorlage"))

    @admin.display(description="eigene Word-Vorlage", boolean=True)
    def eigene_vorlage(self, obj: Briefkopf) -> bool:
        return bool(obj.vorlage)


@admin.register(Zeiterfassung)
class ZeiterfassungAdmin(admin.ModelAdmin):
    list_display = ("datum", "user", "akte", "dauer_minuten", "taetigkeit", "abrechenbar")
    list_filter = ("abrechenbar", "user")
    search_fields = ("taetigkeit", "akte__aktenzeichen")
    date_hierarchy = "datum"
    autocomplete_fields = ("akte", "user")


@admin.register(Notiz)
class NotizAdmin(LesenImAdminMixin, admin.ModelAdmin):
    list_display = ("__str__", "akte", "verfasst_von", "angelegt_am")
    search_fields = ("titel", "inhalt", "akte__aktenzeichen")
    autocomplete_fields = ("akte", "verfasst_von")


@admin.register(Alert)
class AlertAdmin(admin.ModelAdmin):
    list_display = ("__str__", "severity", "akte", "empfaenger", "gelesen", "angelegt_am")
    list_filter = ("severity", "gelesen")
    search_fields = ("message", "akte__aktenzeichen")
    autocomplete_fields = ("akte", "empfaenger")


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """A token is shown once, when it is created here (or with `manage.py create_api_token`); only
    its hash is kept. Revoke it by ticking „widerrufen“."""

    list_display = ("user", "name", "prefix", "angelegt_am", "zuletzt_benutzt", "gueltig_bis", "widerrufen")
    list_filter = ("widerrufen",)
    search_fields = ("user__username", "name", "prefix")
    readonly_fields = ("user", "prefix", "angelegt_am", "zuletzt_benutzt")
    fields = ("user", "name", "prefix", "angelegt_am", "zuletzt_benutzt", "gueltig_bis", "widerrufen")

    def get_fields(self, request: HttpRequest, obj: ApiToken | None = None) -> tuple[str, ...]:
        return ("user", "name", "gueltig_bis") if obj is None else self.fields

    def get_readonly_fields(self, request: HttpRequest, obj: ApiToken | None = None) -> tuple[str, ...]:
        return () if obj is None else self.readonly_fields

    def save_model(self, request: HttpRequest, obj: ApiToken, form: Any, change: bool) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        token, raw = new_api_token(user=obj.user, name=obj.name, gueltig_bis=obj.gueltig_bis)
        obj.pk = token.pk
        messages.warning(request, format_html(
            "Neuer Token für {}: <code>{}</code> – jetzt kopieren, er wird nicht wieder angezeigt. "
            "Aufruf: <code>Authorization: Bearer {}</code>", obj.user, raw, raw))


class HinweisEinstellungForm(forms.ModelForm):
    """The kinds as checkboxes; those that must always show are not offered."""

    ausgeblendet = forms.MultipleChoiceField(
        label="ausgeblendete Arten", required=False, widget=forms.CheckboxSelectMultiple,
        choices=[(art, label) for art, label in Alert.Art.choices
                 if art not in HinweisEinstellung.PFLICHT_ARTEN],
        help_text=HinweisEinstellung._meta.get_field("ausgeblendet").help_text)
    mail_aus = forms.MultipleChoiceField(
        label="nicht per E-Mail", required=False, widget=forms.CheckboxSelectMultiple,
        choices=list(OPTIONALE_LABELS.items()),
        help_text=HinweisEinstellung._meta.get_field("mail_aus").help_text)

    class Meta:
        model = HinweisEinstellung
        fields = ("user", "ausgeblendet", "kurzmeldungen", "mail_aus")


@admin.register(HinweisEinstellung)
class HinweisEinstellungAdmin(admin.ModelAdmin):
    """What each person set on /konto/ under „Hinweise“; usually changed there by the person."""

    form = HinweisEinstellungForm
    list_display = ("user", "ausgeblendete_arten", "kurzmeldungen", "geaendert_am")
    list_filter = ("kurzmeldungen",)
    search_fields = ("user__username", "user__last_name")
    autocomplete_fields = ("user",)
    readonly_fields = ("geaendert_am",)

    @admin.display(description="ausgeblendet")
    def ausgeblendete_arten(self, obj: HinweisEinstellung) -> str:
        labels = dict(Alert.Art.choices)
        return ", ".join(str(labels.get(art, art)) for art in obj.ausgeblendet) or "—"


ROLLEN = dict(Beteiligter.Rolle.choices)


@admin.register(Kollisionspruefung)
class KollisionspruefungAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Each Kollisionsprüfung as it was made: the firm's proof that it checked (§ 43a Abs. 4 BRAO) —
    read only; nobody may change or delete what was found and decided."""

    list_display = ("angelegt_am", "user", "anlass", "namen_text", "anzahl_treffer", "entscheidung",
                    "begruendung_kurz", "akte")
    list_filter = ("entscheidung", "anlass")
    search_fields = ("namen", "begruendung", "user__username", "akte__aktenzeichen")
    date_hierarchy = "angelegt_am"
    list_select_related = ("user", "akte")
    fields = ("angelegt_am", "user", "anlass", "akte", "namen_text", "entscheidung", "begruendung",
              "treffer_liste")
    readonly_fields = fields

    @admin.display(description="Namen")
    def namen_text(self, obj: Kollisionspruefung) -> str:
        return ", ".join(str(n) for n in obj.namen) or "—"

    @admin.display(description="Treffer")
    def anzahl_treffer(self, obj: Kollisionspruefung) -> int:
        return len(obj.treffer)

    @admin.display(description="Begründung")
    def begruendung_kurz(self, obj: Kollisionspruefung) -> str:
        text = obj.begruendung or "—"
        return text if len(text) <= 80 else text[:79] + "…"

    @admin.display(description="Treffer (alle, auch in Akten, die der Prüfende nicht sehen durfte)")
    def treffer_liste(self, obj: Kollisionspruefung) -> str:
        if not obj.treffer:
            return "keine"
        return format_html("<ul>{}</ul>", format_html_join(
            "", "<li>{} → {} ({}, Akte {}){}</li>",
            ((t.get("name", ""), t.get("gefunden_als", ""),
              ROLLEN.get(t.get("rolle", ""), t.get("rolle", "")), t.get("aktenzeichen", ""),
              " – Kollision" if t.get("konflikt") else "") for t in obj.treffer)))


@admin.register(Kanzleieinstellung)
class KanzleieinstellungAdmin(admin.ModelAdmin):
    """The firm's one row of settings (Aktenzeichen, Vier-Augen-Prinzip, calendar feeds, read log, sessions,
    second factor): changed, not added twice or deleted."""

    list_display = ("__str__", "aktenzeichen_muster", "naechstes", "vier_augen_notfrist", "geaendert_am")
    fields = ("aktenzeichen_muster", "naechstes", "vier_augen_notfrist", "mail_inhalt",
              "kalender_mit_kurzrubrum", "zugriffe_aufbewahren_monate", "sitzung_leerlauf_minuten",
              "sitzung_hoechstdauer_stunden", "zweiter_faktor_rollen", "geaendert_am")
    readonly_fields = ("naechstes", "geaendert_am")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return not Kanzleieinstellung.objects.exists()

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="nächstes Aktenzeichen (nach dem gespeicherten Schema)")
    def naechstes(self, obj: Kanzleieinstellung | None) -> str:
        return naechstes_aktenzeichen() if obj is not None and obj.pk else "—"


from akten.accounts import anmeldeschutz_admin  # noqa: E402, F401  (registers „Zugriffsversuche“, „Anmeldungen“)
from akten.datenschutz import admin as datenschutz_admin  # noqa: E402, F401  (registers „Löschprotokoll“)
from akten.importe import admin as importe_admin  # noqa: E402, F401  (registers „Importe“)
from akten.kalenderabo import admin as kalender_admin  # noqa: E402, F401  (registers „Kalender-Abos“)
from akten.mail import admin as mail_admin  # noqa: E402, F401  (registers „Hinweis-E-Mails“)
