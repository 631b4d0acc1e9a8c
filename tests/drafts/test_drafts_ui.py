"""The drafts' HTML side as a lawyer meets it: preview cards, their buttons, the inbox, Akte pages."""

from __future__ import annotations

from datetime import date, timedelta
from html.parser import HTMLParser
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from akten.fristen import format_datum, kein_werktag
from akten.models import Akte, Dokument, Frist, Notiz, User, Zeiterfassung
from drafts.cards import render_card
from drafts.models import Draft
from drafts.services import create_draft
from helena.presentation.markdown import render_markdown
from tests.conftest import Kanzlei

pytestmark = pytest.mark.django_db

FETCH = {"X-Requested-With": "fetch"}


# --------------------------------------------------------------------------- helpers


class _Doc(HTMLParser):
    """Start tags with their attributes, and the text inside each element that has an id."""

    _VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
                       "track", "wbr"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.texts: dict[str, list[str]] = {}
        self._open: list[str | None] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {name: value or "" for name, value in attrs}
        self.elements.append((tag, attributes))
        if tag in self._VOID:
            return
        element_id = attributes.get("id")
        if element_id:
            self.texts.setdefault(element_id, [])
        self._open.append(element_id)

    def handle_endtag(self, tag: str) -> None:
        if tag not in self._VOID and self._open:
            self._open.pop()

    def handle_data(self, data: str) -> None:
        for element_id in self._open:
            if element_id:
                self.texts[element_id].append(data)


def parse(html: str | bytes) -> _Doc:
    doc = _Doc()
    doc.feed(html.decode() if isinstance(html, bytes) else html)
    return doc


def text_of(html: str | bytes, element_id: str) -> str:
    return " ".join("".join(parse(html).texts.get(element_id, [])).split())


def find(html: str | bytes, tag: str | None = None, **attrs: str) -> list[dict[str, str]]:
    """Elements with the given tag and attribute values (attribute names with _ for -)."""
    wanted = {name.replace("_", "-"): value for name, value in attrs.items()}
    return [
        a for t, a in parse(html).elements
        if (tag is None or t == tag) and all(a.get(k) == v for k, v in wanted.items())
    ]


def with_class(html: str | bytes, css_class: str) -> list[dict[str, str]]:
    return [a for _, a in parse(html).elements if css_class in a.get("class", "").split()]


def client_for(user: User | None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def werktag(ab: date, *, bundesland: str) -> date:
    d = ab
    while kein_werktag(d, bundesland):
        d += timedelta(days=1)
    return d


def frist_draft(kanzlei: Kanzlei, akte: str = "B", *, user: str = "anwalt", **fields: Any) -> Draft:
    akte_obj = kanzlei.akten[akte]
    datum = werktag(timezone.localdate() + timedelta(days=40), bundesland=akte_obj.bundesland)
    vorfrist = werktag(datum - timedelta(days=10), bundesland=akte_obj.bundesland)
    values = {"bezeichnung": "Berufungsbegründung", "datum": datum.isoformat(),
              "vorfrist": vorfrist.isoformat(), "ist_notfrist": True, **fields}
    return create_draft(user=kanzlei.users[user], kind="frist", fields=values, akte_id=akte_obj.pk,
                        context={"berechnung": {"begruendung": "Fristbeginn nach § 187 Abs. 1 BGB: …"}})


def card_of(response) -> str:
    return response.content.decode()


# --------------------------------------------------------------------------- Markdown


def test_markdown_renders_commonmark_tables_and_strikethrough() -> None:
    html = render_markdown("# Schriftsatz\n\n**fett** ~~alt~~\n\n| a | b |\n|---|--:|\n| 1 | 2 |\n")
    tags = [t for t, _ in parse(html).elements]
    assert {"h1", "strong", "s", "table", "th", "td"} <= set(tags)


def test_markdown_links_get_rel_and_only_safe_schemes() -> None:
    html = render_markdown("[a](https://example.org) [b](mailto:x@example.org) [c](javascript:alert(1)) "
                           "[d](data:text/html;base64,PHNjcmlwdD4=) [e](//evil.example/x)")
    links = find(html, "a")
    hrefs = [a.get("href") for a in links]
    assert "https://example.org" in hrefs and "mailto:x@example.org" in hrefs
    assert all(h is None or h.startswith(("https:", "http:", "mailto:")) for h in hrefs)
    assert all(a.get("rel") == "noopener noreferrer nofollow" for a in links)


def test_markdown_is_inert() -> None:
    html = render_markdown("<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\n"
                           "[x](javascript:alert(1))\n\n<iframe src=https://x></iframe><style>*{}</style>")
    assert "<script" not in html and "<iframe" not in html and "<style" not in html and "<img" not in html
    for _, attrs in parse(html).elements:
        assert not any(name.startswith("on") for name in attrs)
        assert not any(value.strip().lower().startswith(("javascript:", "data:")) for value in attrs.values())


def test_markdown_template_filter() -> None:
    from django.template import Context, Template

    html = Template("{% load helena_markdown %}{{ text|markdown }}").render(Context({"text": "*kursiv*"}))
    assert "<em>kursiv</em>" in html


# --------------------------------------------------------------------------- cards per kind


def test_frist_card_shows_weekday_notfrist_vorfrist_and_berechnung(kanzlei: Kanzlei) -> None:
    draft = frist_draft(kanzlei)
    response = client_for(kanzlei.users["anwalt"]).get(f"/entwuerfe/{draft.pk}/", headers=FETCH)
    assert response.status_code == 200
    html = card_of(response)
    card = find(html, "article", id=f"draft-{draft.pk}")[0]
    assert card["data-draft-id"] == str(draft.pk) and card["data-status"] == "pending"
    assert "draft-card" in card["class"].split()
    assert format_datum(date.fromisoformat(draft.fields["datum"])) in html  # "Freitag, 03.04.2026"
    assert format_datum(date.fromisoformat(draft.fields["vorfrist"])) in html
    assert with_class(html, "badge--notfrist")
    assert "2/26" in html and "Schulz ./. Wohnbau AG" in html
    assert "Fristbeginn nach § 187 Abs. 1 BGB" in html
    assert "vorgeschlagen für anwalt am" in html
    assert find(html, "form", data_draft_action="approve")
    assert find(html, "form", data_draft_action="reject")
    assert find(html, "textarea", name="grund")
    assert find(html, "a", data_draft_edit="")


def test_frist_warnings_are_shown(kanzlei: Kanzlei) -> None:
    akte = kanzlei.akten["A"]
    sonntag = timezone.localdate() + timedelta(days=30)
    while sonntag.weekday() != 6:
        sonntag += timedelta(days=1)
    draft = create_draft(user=kanzlei.users["anwalt"], kind="frist", akte_id=akte.pk,
                         fields={"bezeichnung": "Klageerwiderung", "datum": sonntag.isoformat()})
    assert draft.warnings
    html = card_of(client_for(kanzlei.users["anwalt"]).get(f"/entwuerfe/{draft.pk}/", headers=FETCH))
    assert with_class(html, "draft-card__warnings")
    assert "kein Werktag" in html


def test_zeiterfassung_card_shows_hours_and_minutes(kanzlei: Kanzlei) -> None:
    heute = timezone.localdate()
    draft = create_draft(user=kanzlei.users["anwalt"], kind="zeiterfassung", akte_id=kanzlei.akten["A"].pk,
                         fields={"dauer_minuten": 90, "taetigkeit": "Schriftsatz entworfen",
                                 "datum": heute.isoformat(), "abrechenbar": False})
    html = card_of(client_for(kanzlei.users["anwalt"]).get(f"/entwuerfe/{draft.pk}/", headers=FETCH))
    assert "1:30 h" in html
    assert "Schriftsatz entworfen" in html and format_datum(heute) in html
    assert "nein" in html


def test_dokument_card_renders_markdown(kanzlei: Kanzlei) -> None:
    draft = create_draft(user=kanzlei.users["anwalt"], kind="dokument", akte_id=kanzlei.akten["A"].pk,
                         fields={"titel": "Klageerwiderung",
                                 "inhalt": "## Antrag\n\nDie Klage wird **abgewiesen**."})
    html = card_of(client_for(kanzlei.users["anwalt"]).get(f"/entwuerfe/{draft.pk}/", headers=FETCH))
    assert "<h2>Antrag</h2>" in html and "<strong>abgewiesen</strong>" in html
    assert "Klageerwiderung" in html


def test_dokument_with_script_renders_inert(kanzlei: Kanzlei) -> None:
    inhalt = "Text <script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\n[x](javascript:alert(1))"
    draft = create_draft(user=kanzlei.users["anwalt"], kind="dokument", akte_id=kanzlei.akten["A"].pk,
                         fields={"titel": "Böse <b>Titel</b>", "inhalt": inhalt})
    client = client_for(kanzlei.users["anwalt"])
    for html in (card_of(client.get(f"/entwuerfe/{draft.pk}/", headers=FETCH)),
                 card_of(client.get(f"/akten/{kanzlei.akten['A'].pk}/")),
                 card_of(client.get(f"/entwuerfe/{draft.pk}/bearbeiten/", headers=FETCH))):
        assert "<script>alert" not in html and "<b>Titel" not in html
        for tag, attrs in parse(html).elements:
            assert tag not in {"img", "iframe"}
            assert not any(name.startswith("on") for name in attrs), (tag, attrs)
            assert not any(v.strip().lower().startswith("javascript:") for v in attrs.values()), (tag, attrs)
        scripts = [a for t, a in parse(html).elements if t == "script"]
        assert all(a.get("src", "").startswith("/static/helena/") for a in scripts)  # only our own


def test_notiz_alert_and_akte_update_cards(kanzlei: Kanzlei) -> None:
    anwalt = kanzlei.users["anwalt"]
    client = client_for(anwalt)
    notiz = create_draft(user=anwalt, kind="notiz", fields={"titel": "Rückruf", "inhalt": "Mandant anrufen"})
    alert = create_draft(user=anwalt, kind="alert", akte_id=kanzlei.akten["A"].pk,
                         fields={"message": "Gegenseite hat Frist versäumt", "severity": "critical"})
    akte = kanzlei.akten["A"]
    update = create_draft(user=anwalt, kind="akte_update", akte_id=akte.pk,
                          fields={"status": "ruhend", "tags": ["Kündigung", "Eilig"]},
                          context={"vorher": {"status": "offen", "tags": ["Kündigung"]}})
    html = card_of(client.get(f"/entwuerfe/{notiz.pk}/", headers=FETCH))
    assert "Rückruf" in html and "Mandant anrufen" in html
    html = card_of(client.get(f"/entwuerfe/{alert.pk}/", headers=FETCH))
    assert "Gegenseite hat Frist versäumt" in html
    assert with_class(html, "badge--severity-critical") and "Kritisch" in html
    html = card_of(client.get(f"/entwuerfe/{update.pk}/", headers=FETCH))
    assert "bisher" in html and "offen" in html and "ruhend" in html and "Kündigung, Eilig" in html
    assert "Schlagworte" in html and "Status" in html


def test_the_edit_form_can_remove_all_schlagworte_and_keeps_a_removal(kanzlei: Kanzlei) -> None:
    anwalt, akte = kanzlei.users["anwalt"], kanzlei.akten["A"]
    akte.tags = ["Kündigung", "Eilig"]
    akte.save(update_fields=["tags"])
    client = client_for(anwalt)
    update = create_draft(user=anwalt, kind="akte_update", akte_id=akte.pk, fields={"status": "ruhend"})
    form = card_of(client.get(f"/entwuerfe/{update.pk}/bearbeiten/"))
    assert "(keine)" in form  # the hint says how
    response = client.post(f"/entwuerfe/{update.pk}/freigeben/",
                           {"_bearbeitet": "1", "status": "ruhend", "tags": "(keine)", "summary": ""})
    assert response.status_code in (200, 302)
    akte.refresh_from_db()
    assert akte.tags == [] and akte.status == "ruhend"

    # A draft that removes them all shows "(keine)" in its form, so saving it unchanged keeps that.
    akte.tags = ["Kündigung"]
    akte.save(update_fields=["tags"])
    removal = create_draft(user=anwalt, kind="akte_update", akte_id=akte.pk, fields={"tags": []})
    form = card_of(client.get(f"/entwuerfe/{removal.pk}/bearbeiten/"))
    assert find(form, "input", name="tags", value="(keine)")
    client.post(f"/entwuerfe/{removal.pk}/freigeben/", {"_bearbeitet": "1", "tags": "(keine)", "status": ""})
    akte.refresh_from_db()
    assert akte.tags == []

    # Left empty, the Schlagworte stay as they are.
    akte.tags = ["Kündigung"]
    akte.save(update_fields=["tags"])
    keep = create_draft(user=anwalt, kind="akte_update", akte_id=akte.pk, fields={"status": "offen"})
    client.post(f"/entwuerfe/{keep.pk}/freigeben/", {"_bearbeitet": "1", "tags": "", "status": "offen"})
    akte.refresh_from_db()
    assert akte.tags == ["Kündigung"] and akte.status == "offen"


def test_card_renders_without_request_for_websocket_events(kanzlei: Kanzlei) -> None:
    draft = frist_draft(kanzlei)
    html = render_card(draft=draft, user=kanzlei.users["anwalt"])
    assert find(html, "form", data_draft_action="approve")
    assert not find(html, "input", name="csrfmiddlewaretoken")
    with_request = card_of(client_for(kanzlei.users["anwalt"]).get(f"/akten/{kanzlei.akten['B'].pk}/"))
    assert find(with_request, "input", name="csrfmiddlewaretoken")


# --------------------------------------------------------------------------- who may decide


def test_praktikant_sees_card_but_cannot_approve(kanzlei: Kanzlei) -> None:
    draft = frist_draft(kanzlei, "B")
    praktikant = client_for(kanzlei.users["praktikant"])
    page = card_of(praktikant.get(f"/akten/{kanzlei.akten['B'].pk}/"))
    assert find(page, "article", id=f"draft-{draft.pk}")
    assert not find(page, "form", data_draft_action="approve")
    assert "Freigeben</button>" not in page
    assert "Wartet auf Freigabe durch eine berechtigte Person." in page
    frist_count = Frist.objects.count()

    response = praktikant.post(f"/entwuerfe/{draft.pk}/freigeben/", headers=FETCH)
    assert response.status_code == 403
    assert find(card_of(response), "article", id=f"draft-{draft.pk}")
    assert "nicht freigeben" in card_of(response)
    response = praktikant.post(f"/entwuerfe/{draft.pk}/ablehnen/", {"grund": "nö"}, headers=FETCH)
    assert response.status_code == 403
    assert praktikant.get(f"/entwuerfe/{draft.pk}/bearbeiten/", headers=FETCH).status_code == 403
    draft.refresh_from_db()
    assert draft.status == "pending" and Frist.objects.count() == frist_count


def test_user_without_access_gets_404(kanzlei: Kanzlei) -> None:
    draft = frist_draft(kanzlei, "A")  # sekretariat has no access to A
    client = client_for(kanzlei.users["sekretariat"])
    assert client.get(f"/entwuerfe/{draft.pk}/").status_code == 404
    assert client.get(f"/entwuerfe/{draft.pk}/bearbeiten/").status_code == 404
    response = client.post(f"/entwuerfe/{draft.pk}/freigeben/", headers=FETCH)
    assert response.status_code == 404 and "Berufungsbegründung" not in card_of(response)
    assert client.post(f"/entwuerfe/{draft.pk}/ablehnen/").status_code == 404
    assert client.get(f"/akten/{kanzlei.akten['A'].pk}/").status_code == 404
    draft.refresh_from_db()
    assert draft.status == "pending"


# --------------------------------------------------------------------------- approve, edit, reject


def test_approve_via_fetch_links_the_record_and_second_approve_is_409(kanzlei: Kanzlei) -> None:
    draft = frist_draft(kanzlei, "B")
    akte = kanzlei.akten["B"]
    client = client_for(kanzlei.users["anwalt"])
    response = client.post(f"/entwuerfe/{draft.pk}/freigeben/", headers=FETCH)
    assert response.status_code == 200
    html = card_of(response)
    assert find(html, "article", id=f"draft-{draft.pk}")[0]["data-status"] == "approved"
    assert "Freigegeben von anwalt am" in html
    frist = Frist.objects.get(akte=akte, bezeichnung="Berufungsbegründung")
    assert find(html, "a", href=f"/akten/{akte.pk}/#frist-{frist.pk}")
    assert not find(html, "form", data_draft_action="approve")

    page = card_of(client.get(f"/akten/{akte.pk}/"))
    assert text_of(page, f"frist-{frist.pk}").startswith(format_datum(frist.datum))
    assert "Berufungsbegründung" in text_of(page, f"frist-{frist.pk}")
    assert "Notfrist" in text_of(page, f"frist-{frist.pk}")
    assert not find(page, "article", id=f"draft-{draft.pk}")  # no longer pending

    again = client.post(f"/entwuerfe/{draft.pk}/freigeben/", headers=FETCH)
    assert again.status_code == 409
    html = card_of(again)
    assert find(html, "article", id=f"draft-{draft.pk}")[0]["data-status"] == "approved"
    assert "bereits freigegeben" in html
    assert Frist.objects.filter(akte=akte, bezeichnung="Berufungsbegründung").count() == 1


def test_edit_form_is_prefilled_with_german_labels(kanzlei: Kanzlei) -> None:
    draft = frist_draft(kanzlei, "B", uhrzeit="10:30")
    response = client_for(kanzlei.users["anwalt"]).get(f"/entwuerfe/{draft.pk}/bearbeiten/", headers=FETCH)
    assert response.status_code == 200
    html = card_of(response)
    assert find(html, "input", name="datum", type="date", value=draft.fields["datum"])
    assert find(html, "input", name="vorfrist", type="date")
    assert find(html, "input", name="uhrzeit", type="time", value="10:30")
    assert find(html, "select", name="typ")
    assert find(html, "option", value="frist", selected="")
    assert find(html, "input", name="ist_notfrist", type="checkbox", checked="")
    assert "Bezeichnung" in html and "Vorfrist" in html
    assert "Speichern und freigeben" in html and "Abbrechen" in html


def test_edit_with_impossible_date_is_422_and_changes_nothing(kanzlei: Kanzlei) -> None:
    draft = frist_draft(kanzlei, "B")
    before = dict(draft.fields)
    fristen = Frist.objects.count()
    client = client_for(kanzlei.users["anwalt"])
    response = client.post(f"/entwuerfe/{draft.pk}/freigeben/",
                           {"_bearbeitet": "1", "bezeichnung": "Geändert", "typ": "frist",
                            "datum": "2026-02-30", "vorfrist": "", "uhrzeit": "", "ist_notfrist": "1"},
                           headers=FETCH)
    assert response.status_code == 422
    html = card_of(response)
    assert find(html, "form", data_draft_action="approve")
    assert "30. Februar 2026 gibt es nicht" in text_of(html, f"draft-{draft.pk}-datum-fehler")
    assert find(html, "input", name="datum", value="2026-02-30", aria_invalid="true")
    assert find(html, "input", name="bezeichnung", value="Geändert")  # what was typed stays
    assert "Es wurde nichts gespeichert." in text_of(html, f"draft-{draft.pk}")
    draft.refresh_from_db()
    assert draft.status == "pending" and draft.fields == before
    assert Frist.objects.count() == fristen


def test_edit_and_approve_uses_the_edited_values(kanzlei: Kanzlei) -> None:
    draft = frist_draft(kanzlei, "B")
    neues_datum = date.fromisoformat(draft.fields["datum"]) + timedelta(days=7)
    neues_datum = werktag(neues_datum, bundesland="BY")
    response = client_for(kanzlei.users["anwalt"]).post(
        f"/entwuerfe/{draft.pk}/freigeben/",
        {"_bearbeitet": "1", "bezeichnung": "Berufungsbegründung (verlängert)", "typ": "frist",
         "datum": neues_datum.isoformat(), "vorfrist": "", "uhrzeit": ""},  # Notfrist unticked
        headers=FETCH)
    assert response.status_code == 200
    frist = Frist.objects.get(bezeichnung="Berufungsbegründung (verlängert)")
    assert frist.datum == neues_datum and frist.ist_notfrist is False and frist.vorfrist is None
    assert format_datum(neues_datum) in card_of(response)


def test_reject_with_grund_shows_outcome(kanzlei: Kanzlei) -> None:
    draft = create_draft(user=kanzlei.users["anwalt"], kind="notiz", akte_id=kanzlei.akten["B"].pk,
                         fields={"inhalt": "Akte an Mandant senden"})
    response = client_for(kanzlei.users["sekretariat"]).post(
        f"/entwuerfe/{draft.pk}/ablehnen/", {"grund": "Schon erledigt"}, headers=FETCH)
    assert response.status_code == 200
    html = card_of(response)
    assert find(html, "article", id=f"draft-{draft.pk}")[0]["data-status"] == "rejected"
    assert "Abgelehnt von sekretariat: Schon erledigt" in html
    assert not Notiz.objects.filter(inhalt="Akte an Mandant senden").exists()
    draft.refresh_from_db()
    assert draft.status == "rejected" and draft.rejection_reason == "Schon erledigt"


def test_reject_with_overlong_grund_is_422(kanzlei: Kanzlei) -> None:
    draft = frist_draft(kanzlei, "B")
    response = client_for(kanzlei.users["anwalt"]).post(
        f"/entwuerfe/{draft.pk}/ablehnen/", {"grund": "x" * 2001}, headers=FETCH)
    assert response.status_code == 422
    assert "höchstens 2000 Zeichen" in text_of(card_of(response), f"draft-{draft.pk}-grund-fehler")
    draft.refresh_from_db()
    assert draft.status == "pending"


def test_zeiterfassung_and_dokument_approval_link_to_their_anchor(kanzlei: Kanzlei) -> None:
    anwalt = kanzlei.users["anwalt"]
    akte = kanzlei.akten["A"]
    client = client_for(anwalt)
    zeit = create_draft(user=anwalt, kind="zeiterfassung", akte_id=akte.pk,
                        fields={"dauer_minuten": 45, "taetigkeit": "Telefonat",
                                "datum": timezone.localdate().isoformat()})
    dok = create_draft(user=anwalt, kind="dokument", akte_id=akte.pk,
                       fields={"titel": "Mandantenschreiben", "inhalt": "Sehr geehrte Frau Meier,"})
    html = card_of(client.post(f"/entwuerfe/{zeit.pk}/freigeben/", headers=FETCH))
    eintrag = Zeiterfassung.objects.get(taetigkeit="Telefonat")
    assert find(html, "a", href=f"/akten/{akte.pk}/#zeiterfassung-{eintrag.pk}")
    html = card_of(client.post(f"/entwuerfe/{dok.pk}/freigeben/", headers=FETCH))
    dokument = Dokument.objects.get(titel="Mandantenschreiben")
    assert find(html, "a", href=f"/akten/{akte.pk}/#dokument-{dokument.pk}")
    page = card_of(client.get(f"/akten/{akte.pk}/"))
    assert "von Helena erstellt" in text_of(page, f"dokument-{dokument.pk}")
    assert "0:45 h" in text_of(page, f"zeiterfassung-{eintrag.pk}")


def test_notiz_without_akte_names_the_record_without_link(kanzlei: Kanzlei) -> None:
    draft = create_draft(user=kanzlei.users["sekretariat"], kind="notiz", fields={"inhalt": "Kaffee kaufen"})
    sekretariat = client_for(kanzlei.users["sekretariat"])
    response = sekretariat.post(f"/entwuerfe/{draft.pk}/freigeben/", headers=FETCH)
    assert response.status_code == 200
    assert "Die Notiz wurde angelegt." in card_of(response)
    # another person does not even see it
    assert client_for(kanzlei.users["anwalt"]).get(f"/entwuerfe/{draft.pk}/").status_code == 404


# --------------------------------------------------------------------------- inbox


def test_inbox_lists_only_decidable_pending_drafts_and_filters(kanzlei: Kanzlei) -> None:
    anwalt = kanzlei.users["anwalt"]
    frist_a = frist_draft(kanzlei, "A")
    frist_b = frist_draft(kanzlei, "B")
    notiz_b = create_draft(user=anwalt, kind="notiz", akte_id=kanzlei.akten["B"].pk, fields={"inhalt": "x"})
    update_a = create_draft(user=anwalt, kind="akte_update", akte_id=kanzlei.akten["A"].pk,
                            fields={"status": "ruhend"})
    frist_c = frist_draft(kanzlei, "C")  # sachbearbeiter has no access to C
    decided = frist_draft(kanzlei, "A", bezeichnung="Schon erledigt")
    client_for(anwalt).post(f"/entwuerfe/{decided.pk}/ablehnen/", headers=FETCH)

    def ids(html: str) -> set[str]:
        return {a["data-draft-id"] for a in find(html, "article") if "data-draft-id" in a}

    sachbearbeiter = client_for(kanzlei.users["sachbearbeiter"])
    html = card_of(sachbearbeiter.get("/entwuerfe/"))
    # akte_update is not theirs to decide (update_akte_rag is ANWALT/ADMIN only), C is not visible
    assert ids(html) == {str(frist_a.pk), str(frist_b.pk), str(notiz_b.pk)}
    assert str(update_a.pk) not in html and str(frist_c.pk) not in html

    html = card_of(sachbearbeiter.get("/entwuerfe/", {"akte": kanzlei.akten["B"].pk}))
    assert ids(html) == {str(frist_b.pk), str(notiz_b.pk)}
    assert find(html, "option", value=str(kanzlei.akten["B"].pk), selected="")
    assert not find(html, "option", value=str(kanzlei.akten["C"].pk))  # only visible Akten offered
    html = card_of(sachbearbeiter.get("/entwuerfe/", {"akte": kanzlei.akten["B"].pk, "art": "notiz"}))
    assert ids(html) == {str(notiz_b.pk)}

    sekretariat = card_of(client_for(kanzlei.users["sekretariat"]).get("/entwuerfe/"))
    assert ids(sekretariat) == {str(notiz_b.pk)}

    praktikant = card_of(client_for(kanzlei.users["praktikant"]).get("/entwuerfe/"))
    assert ids(praktikant) == set()
    assert "Keine Entwürfe warten auf deine Freigabe" in praktikant

    anwalt_page = card_of(client_for(anwalt).get("/akten/"))
    badge = with_class(anwalt_page, "badge--count")
    assert badge and badge[0]["aria-label"].startswith("5 ")  # frist A, B, C, notiz B, update A


# --------------------------------------------------------------------------- pages, login, no JS


@pytest.mark.parametrize("path", ["/entwuerfe/", "/akten/", "/akten/1/",
                                  "/entwuerfe/00000000-0000-0000-0000-000000000000/"])
def test_login_required(kanzlei: Kanzlei, path: str) -> None:
    response = Client().get(path)
    assert response.status_code == 302
    assert response["Location"].startswith("/konto/anmelden/?next=")


def test_login_and_logout_pages(kanzlei: Kanzlei) -> None:
    client = Client()
    page = client.get("/konto/anmelden/")
    assert page.status_code == 200 and 'lang="de"' in card_of(page) and "Anmelden" in card_of(page)
    wrong = client.post("/konto/anmelden/", {"username": "anwalt", "password": "falsch"})
    assert wrong.status_code == 200 and find(card_of(wrong), "div", role="alert")
    response = client.post("/konto/anmelden/", {"username": "anwalt", "password": "pw-anwalt"})
    assert response.status_code == 302 and response["Location"] == "/"  # the chat home
    assert Client().get("/").headers["Location"] == "/konto/anmelden/?next=/"
    html = card_of(client.get("/akten/"))
    assert find(html, "form", action="/konto/abmelden/", method="post")
    assert "Verwaltung" not in html  # not staff
    response = client.post("/konto/abmelden/")
    assert response.status_code == 302 and response["Location"] == "/konto/anmelden/"
    assert client.get("/akten/").status_code == 302


def test_akten_list_and_search(kanzlei: Kanzlei) -> None:
    client = client_for(kanzlei.users["sachbearbeiter"])
    html = card_of(client.get("/akten/"))
    assert "1/26" in html and "2/26" in html and "3/26" not in html and "4/26" not in html
    html = card_of(client.get("/akten/", {"q": "Schulz"}))
    assert "2/26" in html and "1/26" not in html


def test_akte_page_shows_the_akte_and_404s_for_a_foreign_one(kanzlei: Kanzlei) -> None:
    akte: Akte = kanzlei.akten["A"]
    akte.summary = "Kündigung vom **01.03.2026**"
    akte.tags = ["Kündigung"]
    akte.save()
    client = client_for(kanzlei.users["sachbearbeiter"])
    html = card_of(client.get(f"/akten/{akte.pk}/"))
    assert "1/26" in html and "Meier ./. Stahlbau GmbH" in html and "Kündigungsschutz" in html
    assert "Arbeitsrecht" in html and "<strong>01.03.2026</strong>" in html
    open_frist = Frist.objects.get(akte=akte, bezeichnung="Frist A offen")
    done_frist = Frist.objects.get(akte=akte, bezeichnung="Frist A erledigt")
    assert html.index(f'id="frist-{open_frist.pk}"') < html.index(f'id="frist-{done_frist.pk}"')
    assert format_datum(open_frist.datum) in html
    assert client.get(f"/akten/{kanzlei.akten['C'].pk}/").status_code == 404
    assert client.get("/akten/999999/").status_code == 404


def test_without_js_approve_redirects_back_with_message(kanzlei: Kanzlei) -> None:
    draft = frist_draft(kanzlei, "B")
    akte = kanzlei.akten["B"]
    client = client_for(kanzlei.users["anwalt"])
    page = card_of(client.get(f"/akten/{akte.pk}/"))
    hidden_next = find(page, "input", name="next")
    assert hidden_next and hidden_next[0]["value"] == f"/akten/{akte.pk}/"
    response = client.post(f"/entwuerfe/{draft.pk}/freigeben/", {"next": f"/akten/{akte.pk}/"}, follow=True)
    assert response.redirect_chain == [(f"/akten/{akte.pk}/", 302)]
    html = card_of(response)
    assert "freigegeben" in " ".join(text_of(html, "inhalt").split())
    assert with_class(html, "message--success")
    assert Frist.objects.filter(akte=akte, bezeichnung="Berufungsbegründung").exists()

    again = client.post(f"/entwuerfe/{draft.pk}/freigeben/", {"next": "https://evil.example/"}, follow=True)
    assert again.redirect_chain == [("/entwuerfe/", 302)]  # no open redirect
    assert "bereits freigegeben" in card_of(again)

    other = frist_draft(kanzlei, "B")
    forbidden = client_for(kanzlei.users["praktikant"]).post(f"/entwuerfe/{other.pk}/freigeben/", follow=True)
    assert "nicht freigeben" in card_of(forbidden) and with_class(card_of(forbidden), "message--error")


def test_without_js_bad_edit_shows_the_form_again(kanzlei: Kanzlei) -> None:
    draft = frist_draft(kanzlei, "B")
    client = client_for(kanzlei.users["anwalt"])
    page = client.get(f"/entwuerfe/{draft.pk}/bearbeiten/")
    assert page.status_code == 200 and find(card_of(page), "input", name="datum", type="date")
    response = client.post(f"/entwuerfe/{draft.pk}/freigeben/",
                           {"_bearbeitet": "1", "bezeichnung": "X", "typ": "frist", "datum": "2026-02-30"})
    assert response.status_code == 422
    assert find(card_of(response), "input", name="datum", value="2026-02-30")
    draft.refresh_from_db()
    assert draft.status == "pending"


def test_static_files_exist() -> None:
    from django.contrib.staticfiles import finders

    assert finders.find("helena/drafts.js") and finders.find("helena/helena.css")
