"""The admin speaks German, for an office manager who does not read code.

Two checks:

1. The models: every model the admin shows (registered, or shown as an inline of a registered one)
   has a German verbose_name(_plural), every field an explicit German label and every choice a
   German label. What Django makes up when a label is missing is the code's English name
   ("created at", "finish reason", "Error"), so a label equal to that made-up name fails, unless it
   is one of the German words in ALLOWED_AUTO_NAMES / ALLOWED_CHOICE_LABELS (a field named
   `angelegt_am` may well be labelled "angelegt am"). No label, plural or help text may contain
   a word of ENGLISH_WORDS.
2. The pages: the admin, logged in, opens the changelist, the add page (where adding is allowed)
   and the change page of every registered model; none shows an English string of ENGLISH_HTML, and
   no column header, field label, filter title, help text or heading contains a word of ENGLISH_WORDS.

To add a model or a field: give it a German label. Only if that German label is exactly the field's
name (`erledigt` → "erledigt") add it to ALLOWED_AUTO_NAMES.
"""

from __future__ import annotations

import html
import re
from datetime import date

import pytest
from django.contrib import admin
from django.db import models
from django.test import Client, RequestFactory
from django.urls import reverse
from django.utils import timezone
from django.utils.text import camel_case_to_spaces

from akten.models import (
    Alert,
    Anmeldung,
    Beteiligter,
    Briefkopf,
    Dokument,
    FruehererBeteiligter,
    HinweisEinstellung,
    HinweisMail,
    ImportLauf,
    KalenderAbo,
    Kanzleieinstellung,
    Kollisionspruefung,
    Lesezugriff,
    Loeschprotokoll,
    Loeschvormerkung,
    Notiz,
    Zeiterfassung,
    Zugriffsversuch,
)
from drafts.models import Draft, DraftEvent
from helena.knowledge.models import Gesetz, Muster, Norm, NormAenderung, Urteil
from helena.models import (
    AgentRun,
    Conversation,
    ErrorLog,
    HelenaSettings,
    LLMCall,
    Message,
    ModelTier,
    PendingQuestion,
    Plan,
    RateLimit,
    RunEvent,
    TaskRoute,
    ToolCallLog,
)
from tests.conftest import Kanzlei

APPS = ("akten", "drafts", "helena", "knowledge")

# German labels that happen to equal the field's name with "_" → " " (so they look made up, but are
# not). Nothing English belongs here.
ALLOWED_AUTO_NAMES = {
    "wegen", "angelegt am", "aktualisiert am", "erledigt", "erledigt am", "verantwortlich",
    "erstellt durch", "freigegeben von", "freigegeben am", "abrechenbar", "verfasst von", "gelesen",
    "zuletzt benutzt", "widerrufen", "importiert am",
    "angelegt von", "fertig am",  # ImportLauf
    "abgeschlossen am", "vorgemerkt von", "vorgemerkt am",  # Akte, Löschvormerkung, Löschprotokoll
}

# German choice labels that equal their stored value (up to case and "_"): a TextChoices member
# without a label gets its name as label ("ERROR" → "Error"), which these only look like.
ALLOWED_CHOICE_LABELS = {
    # Akte.Status
    "offen", "ruhend", "archiviert", "geschlossen",
    # Akte.Rechtsgebiet
    "Arbeitsrecht", "Mietrecht", "Verkehrsrecht", "Kaufrecht", "Erbrecht", "Familienrecht",
    "Vertragsrecht", "Gesellschaftsrecht", "Strafrecht", "Verwaltungsrecht", "Sozialrecht",
    "Insolvenzrecht", "Wettbewerbsrecht", "Sonstiges",
    # Beteiligter.Rolle, User.role
    "Gericht", "Versicherung", "Sekretariat",
    # Beteiligter.Anrede
    "Herr", "Frau", "Firma",
    # Frist.Typ, Dokument.Status, Draft.Kind, Conversation.ContextType
    "Frist", "Termin", "Wiedervorlage", "Entwurf", "freigegeben", "Dokument", "Notiz", "Zeiterfassung",
    "Akte", "Fristen", "Recherche",
    # Dokument.ErstelltDurch, Dokument.Dateityp (the format's German name)
    "Mensch", "Helena", "PDF", "Bild",
    # Alert.Severity ("Info" is the German short form of "Information")
    "Info",
    # ModelTier.Provider, LLMProvider: the product's name
    "Ollama",
    # ImportLauf.Status
    "wartet", "fertig",
    # Kollisionspruefung.Anlass, .Entscheidung
    "Import", "API", "Abfrage", "abgebrochen", "keine Treffer",
}

# English words that must not reach the admin (whole words, any case). Not listed because they are
# German as well: Status, Name, Text, Plan, Version, Limit, Token(s), Details, Code, Cloud, Info,
# Prompt ("im Prompt beschrieben"), Server, Routing, Kind. Listed although German words exist with
# the same spelling (Mode, Tier): in this admin they could only be the English field names.
ENGLISH_WORDS = {
    "created", "updated", "user", "users", "provider", "mode", "error", "errors", "run", "runs",
    "tier", "model", "cost", "completion", "finish", "reason", "timeout", "steps", "step", "max",
    "background", "inline", "concurrent", "question", "answer", "answered", "asked", "expired",
    "conversation", "transcript", "parent", "cancel", "requested", "started", "ended", "latency",
    "settings", "search", "key", "hash", "title", "message", "summary", "type", "task", "tool",
    "tools", "call", "calls", "payload", "items", "objective", "review", "enabled", "price", "role",
    "context", "event", "events", "seq", "at", "by", "of", "the", "get", "full", "alert", "alerts",
    "draft", "action", "decided", "duration", "params", "operation",
}

# Strings the issue saw in the admin (and their kin): none of them may come back.
ENGLISH_HTML = (
    "Inline max steps", "Background max steps", "Inline timeout", "Background timeout", "Max tool calls",
    "Max concurrent runs", "CREATED AT", "Created at", "Updated at", "Started at", "Ended at",
    "FINISH REASON", "Finish reason", "Prompt tokens", "Completion tokens", "Cancel requested",
    "Celery task id", "Answers question", "Nach provider", "Nach mode", "Nach user", "Nach status",
    "Nach tier", "Nach model", "Nach finish", ">User:<", ">Provider:<", ">Mode:<", ">Model:<",
    ">Tier:<", ">Cost:<", ">Parent:<", ">Conversation:<", ">Transcript:<", ">Run:<", ">Draft:<",
    "Get full name", "Hinweis (Alert)", "Hinweise (Alerts)",
    # Django's own texts its German catalogue lacks (filled in by akten/locale/de/LC_MESSAGES/django.po)
    "After you’ve created a user", "Password-based authentication", "password-based authentication",
    "Raw passwords are not stored", "Reset password", ">Enabled<", ">Disabled<",
)


def admin_models() -> list[type[models.Model]]:
    """Registered models of our apps, and the models their inlines show."""
    found: dict[type[models.Model], None] = {}
    for model, model_admin in admin.site._registry.items():
        if model._meta.app_label in APPS:
            found[model] = None
            for inline in model_admin.inlines:
                found[inline.model] = None
    return list(found)


def registered_models() -> list[type[models.Model]]:
    return [m for m in admin.site._registry if m._meta.app_label in APPS]


# Markup a model writes, quoted in a label (ModelTier.dialect: "Hermes / Qwen2.5 (<tool_call>)").
_MARKUP = re.compile(r"<[^>]*>|\[[^\]]*\]|```\S+")


def _words(text: str) -> set[str]:
    return {word.casefold() for word in re.findall(r"[A-Za-zÄÖÜäöüß]+", _MARKUP.sub(" ", text))}


def _english(text: str) -> set[str]:
    return _words(text) & ENGLISH_WORDS


# django-axes' records are shown only through German columns of their own (the proxies Zugriffsversuch,
# Anmeldung; akten/accounts/anmeldeschutz_admin.py); these fields of axes' models never reach a page.
NOT_SHOWN: dict[str, set[str]] = {"Zugriffsversuch": {"get_data"}, "Anmeldung": {"session_hash"}}


def _fields(model: type[models.Model]) -> list[models.Field]:
    opts = model._meta
    hidden = NOT_SHOWN.get(model.__name__, set())
    return [field for field in (*opts.concrete_fields, *opts.many_to_many) if field.name not in hidden]


# --- 1. the models -------------------------------------------------------------------------------


@pytest.mark.parametrize("model", admin_models(), ids=lambda m: m.__name__)
def test_model_names_are_german(model: type[models.Model]) -> None:
    opts = model._meta
    made_up = camel_case_to_spaces(opts.object_name)
    assert str(opts.verbose_name) != made_up, f"{model.__name__}: Meta.verbose_name fehlt"
    assert str(opts.verbose_name_plural) != made_up + "s", f"{model.__name__}: verbose_name_plural fehlt"
    for text in (str(opts.verbose_name), str(opts.verbose_name_plural)):
        assert not _english(text), f"{model.__name__}: {text!r}"


@pytest.mark.parametrize("model", admin_models(), ids=lambda m: m.__name__)
def test_field_labels_and_help_texts_are_german(model: type[models.Model]) -> None:
    problems = []
    for field in _fields(model):
        label = str(field.verbose_name)
        if label == field.name.replace("_", " ") and label not in ALLOWED_AUTO_NAMES:
            problems.append(f"{field.name}: keine verbose_name (zeigt {label!r})")
        for text in (label, str(field.help_text)):
            if _english(text):
                problems.append(f"{field.name}: englisch {sorted(_english(text))} in {text!r}")
    assert problems == []


@pytest.mark.parametrize("model", admin_models(), ids=lambda m: m.__name__)
def test_choice_labels_are_german(model: type[models.Model]) -> None:
    problems = []
    for field in _fields(model):
        for value, label in field.flatchoices:
            label = str(label)
            made_up = str(value).replace("_", " ").casefold()
            allowed = str(value).isdigit() or label in ALLOWED_CHOICE_LABELS
            if label.casefold() == made_up and not allowed:
                problems.append(f"{field.name}={value!r}: Beschriftung {label!r} ist der gespeicherte Wert")
            if _english(label):
                problems.append(f"{field.name}={value!r}: englisch {sorted(_english(label))} in {label!r}")
    assert problems == []


def test_settings_explain_every_field_and_its_default() -> None:
    """What the office manager changes says what it does and what it is when nobody changed it."""
    for model in (HelenaSettings, ModelTier, TaskRoute, RateLimit):
        for field in model._meta.concrete_fields:
            if field.primary_key:
                continue
            help_text = str(field.help_text)
            assert len(help_text) > 30, f"{model.__name__}.{field.name}: help_text fehlt"
            assert "Standard" in help_text or "Ohne Eintrag" in help_text, f"{model.__name__}.{field.name}"


# --- 2. the pages --------------------------------------------------------------------------------


@pytest.fixture
def records(kanzlei: Kanzlei) -> dict[type[models.Model], models.Model]:
    """One object of every registered model, so each change page has something to show."""
    anwalt, akte = kanzlei.users["anwalt"], kanzlei.akten["A"]
    conversation = Conversation.objects.create(user=anwalt, akte=akte, context_type="akte",
                                               title="Kündigung Meier")
    run = AgentRun.objects.create(conversation=conversation, user=anwalt, mode=AgentRun.Mode.BACKGROUND,
                                  status=AgentRun.Status.FAILED, model="qwen3:14b", provider="ollama",
                                  finish_reason="error", tier=2, prompt_tokens=1200, completion_tokens=300,
                                  text="Fehler beim Modell")
    Message.objects.create(conversation=conversation, role=Message.Role.USER, text="Frist prüfen")
    RunEvent.objects.create(run=run, seq=1, type="run_started", payload={"mode": "background"})
    call = LLMCall.objects.create(run=run, user=anwalt, provider="openai", model="gpt-test", tier=3,
                                  prompt_tokens=100, completion_tokens=10, error="HTTP 500")
    tool_call = ToolCallLog.objects.create(tool="akte_suchen", user=anwalt, akte=akte, ok=False,
                                           error_code="not_found", run_id=str(run.pk))
    plan = Plan.objects.create(conversation=conversation, run=run, objective="Kündigungsschutzklage prüfen",
                               items=[{"id": 1, "title": "Fristen prüfen", "status": "pending"}])
    question = PendingQuestion.objects.create(conversation=conversation, run=run, call_id="c1",
                                              question="Wann ging die Kündigung zu?", answer_key="zugang",
                                              plan=plan)
    draft = Draft.objects.create(kind=Draft.Kind.FRIST, fields={"bezeichnung": "Klagefrist"}, akte=akte,
                                 requested_by=anwalt, run=run, conversation=conversation,
                                 tool="frist_anlegen")
    gesetz = Gesetz.objects.create(abk="KSchG", titel="Kündigungsschutzgesetz", quelle="markdown")
    return {
        **{type(obj): obj for obj in (akte, anwalt, kanzlei.akten["A"].zugriffe.first(),
                                      akte.fristen.first(), anwalt.api_tokens.first())},
        Beteiligter: Beteiligter.objects.create(akte=akte, rolle="mandant", name="Meier"),
        Dokument: Dokument.objects.create(akte=akte, titel="Kündigungsschreiben"),
        Briefkopf: Briefkopf.objects.create(kanzlei="Kanzlei Berger", ort="Köln"),
        Zeiterfassung: Zeiterfassung.objects.create(akte=akte, user=anwalt, dauer_minuten=30,
                                                    taetigkeit="Besprechung"),
        Notiz: Notiz.objects.create(akte=akte, inhalt="Mandant ruft zurück", verfasst_von=anwalt),
        Alert: Alert.objects.create(akte=akte, message="Frist läuft bald ab", severity="warning"),
        HinweisEinstellung: HinweisEinstellung.objects.create(user=anwalt, ausgeblendet=["vorfrist"],
                                                              mail_aus=["bald"]),
        HinweisMail: HinweisMail.objects.create(
            empfaenger=anwalt, adresse="anwalt@kanzlei.test", status=HinweisMail.Status.FEHLGESCHLAGEN,
            betreff="Notfrist heute: 1/26 – Berufung", text="Hallo …", versuche=6,
            letzter_fehler="Der Mailserver ist nicht erreichbar (Verbindung abgelehnt): [Errno 111]"),
        KalenderAbo: KalenderAbo.objects.create(user=anwalt, key_hash="0" * 64, prefix="kal_abcdefgh",
                                                umfang=KalenderAbo.Umfang.ALLE, angelegt_am=timezone.now()),
        ImportLauf: ImportLauf.objects.create(dateiname="akten.csv", datei="importe/akten.csv",
                                              angelegt_von=kanzlei.users["admin"]),
        Kanzleieinstellung: Kanzleieinstellung.aktuell(),
        Lesezugriff: Lesezugriff.objects.create(user=anwalt, person="Anna Anwalt", akte=akte,
                                                aktenzeichen=akte.aktenzeichen, weg=Lesezugriff.Weg.EXPORT,
                                                bereich=Lesezugriff.Bereich.DOKUMENT,
                                                dokument_titel="Kündigungsschreiben", format="pdf"),
        Zugriffsversuch: Zugriffsversuch.objects.create(
            username="anwalt", ip_address="203.0.113.7", user_agent="Firefox", http_accept="text/html",
            path_info="/konto/anmelden/", get_data="", post_data="username=********\npassword=********",
            failures_since_start=5),
        Anmeldung: Anmeldung.objects.create(username="anwalt", ip_address="203.0.113.7", user_agent="Firefox",
                                            http_accept="text/html", path_info="/konto/anmelden/"),
        Kollisionspruefung: Kollisionspruefung.objects.create(
            akte=akte, user=anwalt, anlass="hand", namen=["Meier"], entscheidung="fortgesetzt",
            begruendung="Andere Person.",
            treffer=[{"name": "Meier", "gefunden_als": "Meier", "rolle": "mandant", "aktenzeichen": "1/26"}]),
        Loeschvormerkung: Loeschvormerkung.objects.create(
            beteiligter=Beteiligter.objects.create(akte=akte, rolle="gegner", name="Stahlbau GmbH"),
            antrag_am=date(2026, 11, 2), begruendung="E-Mail vom 2.11.", vorgemerkt_von=anwalt),
        Loeschprotokoll: Loeschprotokoll.objects.create(
            art=Loeschprotokoll.Art.AKTE, akte_id=99, aktenzeichen="9/19", beteiligter_id=98, rolle="mandant",
            geloescht={"Akte": [99], "Dokumente": [5, 6], "Dateien": 2}, antrag_am=date(2025, 3, 1),
            vorgemerkt_von=anwalt, vorgemerkt_am=timezone.now(), mandat_beendet_am=date(2019, 5, 2),
            aufbewahrung_bis=date(2025, 12, 31), rechtsgrundlage="Art. 17 Abs. 1 DSGVO; § 50 Abs. 1 BRAO"),
        FruehererBeteiligter: FruehererBeteiligter.objects.create(
            name="Stahlbau GmbH", name_schluessel="stahlbau", rolle="gegner", aktenzeichen="9/19",
            mandat_von=2017, mandat_bis=2019, umfang="akte", geloescht_am=date(2026, 1, 2)),
        Draft: draft,
        DraftEvent: DraftEvent.objects.create(draft=draft, action="created", user=anwalt),
        ToolCallLog: tool_call,
        ModelTier: ModelTier.objects.create(tier=3, provider=ModelTier.Provider.OPENAI, model_name="gpt-test",
                                            enabled=False),
        TaskRoute: TaskRoute.objects.create(task_type="schriftsatz", tier=2),
        HelenaSettings: HelenaSettings.load(),
        RateLimit: RateLimit.objects.create(role="PRAKTIKANT", runs_per_hour=10),
        Conversation: conversation,
        AgentRun: run,
        LLMCall: call,
        ErrorLog: ErrorLog.objects.create(kind="model", code="model_unavailable", message="HTTP 500",
                                          mode="background", run=run, user=anwalt, llm_call=call,
                                          tool_call=tool_call),
        Plan: plan,
        PendingQuestion: question,
        Gesetz: gesetz,
        Norm: Norm.objects.create(gesetz=gesetz, bezeichnung="§ 4", nummer="4", order=1,
                                  titel="Anrufung des Arbeitsgerichtes", text="Will ein Arbeitnehmer …"),
        NormAenderung: NormAenderung.objects.create(
            gesetz_abk="KSchG", nummer="4", bezeichnung="§ 4", art=NormAenderung.Art.GEAENDERT,
            text_vorher="Will ein Arbeitnehmer …", geaendert_am=timezone.now()),
        Urteil: Urteil.objects.create(gericht="BAG", datum=date(2026, 1, 15), aktenzeichen="2 AZR 1/26"),
        Muster: Muster.objects.create(titel="Kündigungsschutzklage", kategorie="Arbeitsrecht",
                                      text="Klage {{MANDANT_NAME}}"),
    }


_VISIBLE_LABELS = (
    r"<summary>(.*?)</summary>",  # filter titles ("Nach …") and collapsible fieldsets
    r'<div class="text">(.*?)</div>',  # changelist column headers
    r"<label[^>]*>(.*?)</label>",  # field labels, read-only ones included
    r'<th class="column-[^"]*"[^>]*>(.*?)</th>',  # inline column headers
    r'<div class="help"[^>]*>(.*?)</div>',  # help texts
    r"<h2>(.*?)</h2>",  # fieldsets, inlines (<h1> and <title> hold the object's name: its data)
)


def _english_on_page(page: str, obj: models.Model | None = None) -> list[str]:
    """English UI text on the page; the object's own name (its data, e.g. a code) is no UI text."""
    if obj is not None:
        page = page.replace(html.escape(str(obj)), "")
    found = [text for text in ENGLISH_HTML if text in page]
    for pattern in _VISIBLE_LABELS:
        for match in re.findall(pattern, page, flags=re.DOTALL):
            text = html.unescape(re.sub(r"<[^>]+>", " ", match))
            if _english(text):
                found.append(" ".join(text.split()))
    return found


def _url(model: type[models.Model], view: str, *args: object) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}", args=args)


@pytest.mark.parametrize("model", registered_models(), ids=lambda m: m.__name__)
def test_admin_pages_are_german(admin_client: Client, kanzlei: Kanzlei, records: dict, model) -> None:
    pages = {"changelist": admin_client.get(_url(model, "changelist"), follow=True)}
    request = RequestFactory().get("/admin/")
    request.user = kanzlei.users["admin"]
    if admin.site._registry[model].has_add_permission(request):
        pages["add"] = admin_client.get(_url(model, "add"))
    obj = records.get(model)
    assert obj is not None, f"records: kein {model.__name__} angelegt"
    pages["change"] = admin_client.get(_url(model, "change", obj.pk))
    for name, response in pages.items():
        assert response.status_code == 200, name
        assert _english_on_page(response.content.decode(), obj) == [], name


def test_admin_index_app_pages_and_usage_report_are_german(admin_client: Client, kanzlei: Kanzlei,
                                                           records: dict) -> None:
    anwalt = kanzlei.users["anwalt"]
    urls = [reverse("admin:index"), reverse("admin:helena_llmcall_usage"),
            reverse("admin:auth_user_password_change", args=[anwalt.pk]),
            *(reverse("admin:app_list", kwargs={"app_label": app}) for app in APPS)]
    for url in urls:
        response = admin_client.get(url)
        assert response.status_code == 200, url
        assert _english_on_page(response.content.decode()) == [], url


def test_choice_labels_show_in_lists_and_filters(admin_client: Client, records: dict) -> None:
    """Stored values stay as they are; the admin shows their German labels."""
    page = admin_client.get(_url(AgentRun, "changelist")).content.decode()
    for label in ("im Hintergrund", "fehlgeschlagen", "Fehler", "Nach Abschlussgrund", "Nach Schnittstelle"):
        assert label in page
    assert AgentRun.objects.get().finish_reason == "error"
    page = admin_client.get(_url(LLMCall, "changelist"), {"provider__exact": "openai"}).content.decode()
    assert "OpenAI-kompatibel" in page and "gpt-test" in page
    page = admin_client.get(_url(PendingQuestion, "changelist"), {"stand": "offen"}).content.decode()
    assert "Wann ging die Kündigung zu?" in page
    page = admin_client.get(_url(PendingQuestion, "changelist"), {"stand": "beantwortet"}).content.decode()
    assert "Wann ging die Kündigung zu?" not in page


def test_plans_and_questions_are_read_only(admin_client: Client, records: dict) -> None:
    for model in (Plan, PendingQuestion):
        assert admin_client.get(_url(model, "add")).status_code == 403
        obj = records[model]
        assert admin_client.post(_url(model, "delete", obj.pk), {"post": "yes"}).status_code == 403
        assert model.objects.filter(pk=obj.pk).exists()


def test_the_settings_page_explains_its_fields(admin_client: Client, records: dict) -> None:
    page = admin_client.get(_url(HelenaSettings, "change", records[HelenaSettings].pk)).content.decode()
    for text in ("Schritte im Chat (höchstens)", "Zeitlimit im Hintergrund (Sekunden)",
                 "Werkzeugaufrufe je Schritt (höchstens)", "Standard: 30 Sekunden."):
        assert text in page
