"""The header's search box (issue 23): GET /api/v1/suche, its selector and the pages it leads to.

Scoping first: the Praktikant sees only Akte B; everything of Akte C (its Beteiligte, Fristen,
Dokumente, Notizen, its Aktenzeichen) must stay invisible to them, as must another user's Gespräche.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from akten.models import Beteiligter, Dokument, Frist, Notiz
from helena.models import Conversation, Message
from helena.quicksearch import selectors
from tests.conftest import Kanzlei

pytestmark = pytest.mark.django_db

SUCHE = "/api/v1/suche"
ZU_KURZ = "Ungültige Eingabe: q braucht mindestens 2 Zeichen (Leerzeichen am Rand zählen nicht)."


@pytest.fixture
def akte_c(kanzlei: Kanzlei) -> dict[str, Any]:
    """Akte C (3/26, Vertraulich ./. Geheim): anwalt and admin see it, the Praktikant does not."""
    akte = kanzlei.akten["C"]
    return {
        "akte": akte,
        "beteiligter": Beteiligter.objects.create(akte=akte, rolle="mandant", name="Gerda Wallenstein"),
        "frist": Frist.objects.create(akte=akte, bezeichnung="Erbscheinsantrag Wallenstein",
                                      datum=timezone.localdate() + timedelta(days=3), ist_notfrist=True),
        "dokument": Dokument.objects.create(
            akte=akte, titel="Testament", dateityp="pdf", seiten=2,
            inhalt="Seite eins ohne Befund.\f"
                   "Das Vermögen auf dem Nummernkonto in Zürich erbt Gerda Wallenstein."),
        "notiz": Notiz.objects.create(akte=akte, titel="Rückruf", inhalt="Wallenstein wegen Zürich anrufen.",
                                      verfasst_von=kanzlei.users["anwalt"]),
    }


def _get(client: Client, q: str, **params: Any) -> Any:
    return client.get(SUCHE, {"q": q, **params})


def _groups(body: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    return {g["art"]: g["treffer"] for g in body["gruppen"]}


# --- grouping -----------------------------------------------------------------------------------


def test_hits_come_grouped_with_german_labels_and_their_pages(kanzlei: Kanzlei, akte_c: dict) -> None:
    body = _get(kanzlei.client("anwalt"), "Wallenstein").json()
    assert body["q"] == "Wallenstein" and body["direkt"] is None
    assert [g["art"] for g in body["gruppen"]] == ["akten", "fristen", "dokumente", "notizen"]
    assert [g["titel"] for g in body["gruppen"]] == ["Akten", "Fristen und Termine", "Dokumente", "Notizen"]
    pk = akte_c["akte"].pk
    gruppen = _groups(body)
    assert gruppen["akten"] == [{
        "label": "3/26 Vertraulich ./. Geheim", "url": f"/akten/{pk}/", "auszug": "", "stand": "",
        "untertitel": "Erbrecht · wegen Nachlass · Beteiligte: Gerda Wallenstein (Mandant/in)"}]
    frist = gruppen["fristen"][0]
    assert frist["url"] == f"/akten/{pk}/#frist-{akte_c['frist'].pk}"
    assert "3/26 Vertraulich ./. Geheim · Notfrist" in frist["untertitel"]
    dokument = gruppen["dokumente"][0]
    assert dokument["label"] == "Testament"
    assert dokument["url"] == f"/akten/{pk}/#dokument-{akte_c['dokument'].pk}"
    assert "PDF, 2 Seiten · Fundstelle S. 2" in dokument["untertitel"]
    assert "erbt Gerda Wallenstein" in dokument["auszug"]
    assert gruppen["notizen"][0]["url"] == f"/akten/{pk}/#notiz-{akte_c['notiz'].pk}"


def test_every_word_must_match_and_one_in_the_record_itself(kanzlei: Kanzlei, akte_c: dict) -> None:
    client = kanzlei.client("anwalt")
    gruppen = _groups(_get(client, "3/26 Zürich").json())
    assert [t["label"] for t in gruppen["dokumente"]] == ["Testament"]
    assert [t["label"] for t in gruppen["notizen"]] == ["Rückruf"]
    assert "fristen" not in gruppen  # "Zürich" is in no Frist of 3/26
    assert _groups(_get(client, "Wallenstein Grönland").json()) == {}


def test_a_group_says_when_there_is_more_and_limit_bounds_it(kanzlei: Kanzlei) -> None:
    akte = kanzlei.akten["A"]
    for n in range(4):
        Notiz.objects.create(akte=akte, titel=f"Telefonat {n}", inhalt="Telefonat mit dem Mandanten")
    body = _get(kanzlei.client("anwalt"), "Telefonat", limit=3).json()
    notizen = next(g for g in body["gruppen"] if g["art"] == "notizen")
    assert len(notizen["treffer"]) == 3 and notizen["weitere"] is True


# --- scoping ------------------------------------------------------------------------------------


def test_a_user_who_may_not_see_the_akte_finds_nothing_of_it(kanzlei: Kanzlei, akte_c: dict) -> None:
    for q in ("Wallenstein", "Zürich", "Erbscheinsantrag", "Testament", "Rückruf", "Vertraulich", "3/26"):
        body = _get(kanzlei.client("praktikant"), q).json()
        assert body["direkt"] is None, q
        found = [t for g in body["gruppen"] if g["art"] != "normen" for t in g["treffer"]]
        assert found == [], (q, found)
        assert f"/akten/{akte_c['akte'].pk}/" not in str(body)
    # the same words find it for someone with access
    assert _groups(_get(kanzlei.client("anwalt"), "Zürich").json())["dokumente"]


def test_an_own_notiz_without_akte_is_found_by_its_author_only(kanzlei: Kanzlei) -> None:
    notiz = Notiz.objects.create(titel="Privat", inhalt="Geschenk für Frau Hagedorn",
                                 verfasst_von=kanzlei.users["sekretariat"])
    mine = _groups(_get(kanzlei.client("sekretariat"), "Hagedorn").json())["notizen"]
    assert mine == [{"label": "Privat", "untertitel": mine[0]["untertitel"],
                     "auszug": "Geschenk für Frau Hagedorn", "url": f"/akten/notizen/#notiz-{notiz.pk}",
                     "stand": ""}]
    assert mine[0]["untertitel"].startswith("ohne Akte · ")
    assert _groups(_get(kanzlei.client("admin"), "Hagedorn").json()) == {}


def test_another_users_conversations_never_appear(kanzlei: Kanzlei) -> None:
    eigenes = Conversation.objects.create(user=kanzlei.users["anwalt"], title="Strategie Pflichtteil")
    Message.objects.create(conversation=eigenes, role="user", text="Wie hoch ist der Pflichtteil?")
    fremdes = Conversation.objects.create(user=kanzlei.users["sachbearbeiter"], title="Pflichtteil Notizen")
    geloescht = Conversation.objects.create(user=kanzlei.users["anwalt"], title="Pflichtteil alt",
                                            geloescht_am=timezone.now())
    treffer = _groups(_get(kanzlei.client("anwalt"), "Pflichtteil").json())["gespraeche"]
    assert [t["url"] for t in treffer] == [f"/helena/gespraech/{eigenes.pk}/"]
    assert treffer[0]["label"] == "Strategie Pflichtteil"
    body = _get(kanzlei.client("admin"), "Pflichtteil").json()  # not even the admin reads others' chats
    assert "gespraeche" not in _groups(body)
    assert f"/helena/gespraech/{fremdes.pk}/" not in str(body) and str(geloescht.pk) not in str(
        _groups(body).get("gespraeche", []))


def test_an_exact_aktenzeichen_jumps_only_for_who_may_see_it(kanzlei: Kanzlei, akte_c: dict) -> None:
    url = f"/akten/{akte_c['akte'].pk}/"
    assert _get(kanzlei.client("anwalt"), "3/26").json()["direkt"] == url
    assert _get(kanzlei.client("anwalt"), "  az. 3/26 ").json()["direkt"] == url
    assert _get(kanzlei.client("anwalt"), "3/2").json()["direkt"] is None  # a prefix only lists
    assert _get(kanzlei.client("praktikant"), "3/26").json()["direkt"] is None


# --- bad input ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("params", "code", "text"), [
    ({}, "invalid_input", "Ungültige Eingabe: q fehlt."),
    ({"q": "   "}, "invalid_input", ZU_KURZ),
    ({"q": "a"}, "invalid_input", ZU_KURZ),
    ({"q": " a\n"}, "invalid_input", ZU_KURZ),
    ({"q": "x" * 201}, "invalid_input", "Ungültige Eingabe: q darf höchstens 200 Zeichen lang sein."),
    ({"q": "Akte", "limit": "0"}, "invalid_input", "Ungültige Eingabe: limit muss mindestens 1 sein."),
    ({"q": "Akte", "limit": "viele"}, "invalid_input", "Ungültige Eingabe: limit ist keine ganze Zahl."),
    ({"q": "a\x00b"}, "invalid_input", None),
])
def test_bad_queries_give_a_german_json_error(kanzlei: Kanzlei, params: dict, code: str,
                                              text: str | None) -> None:
    response = kanzlei.client("anwalt").get(SUCHE, params)
    assert response.status_code == 422, response.content[:300]
    body = response.json()
    assert body["code"] == code
    if text:
        assert body["detail"] == text


def test_without_login_the_search_is_refused(kanzlei: Kanzlei) -> None:
    response = Client().get(SUCHE, {"q": "Meier"})
    assert response.status_code == 401 and response.json()["code"] == "unauthorized"


def test_the_selector_refuses_what_the_api_refuses(kanzlei: Kanzlei) -> None:
    for q, message in ((" x ", "Gib mindestens 2 Zeichen ein."),
                       ("x" * 201, "Die Suchanfrage ist zu lang: höchstens 200 Zeichen.")):
        with pytest.raises(selectors.SucheError) as refused:
            selectors.suche(user=kanzlei.users["anwalt"], q=q)
        assert refused.value.message == message and refused.value.status == 422
    assert selectors.worte_von("Meier ./. „Stahlbau“ 1/26") == ["Meier", "Stahlbau", "1/26"]
    assert selectors.worte_von("Az. 1/26") == ["1/26"]


# --- pages --------------------------------------------------------------------------------------


def _session(kanzlei: Kanzlei, username: str) -> Client:
    client = Client()
    client.force_login(kanzlei.users[username])
    return client


def test_the_results_page_lists_the_groups_and_jumps_to_an_aktenzeichen(kanzlei: Kanzlei,
                                                                        akte_c: dict) -> None:
    anwalt = _session(kanzlei, "anwalt")
    page = anwalt.get("/suche/", {"q": "Wallenstein"})
    html = page.content.decode()
    assert page.status_code == 200
    assert "Fristen und Termine" in html and "Erbscheinsantrag Wallenstein" in html and "Testament" in html
    assert anwalt.get("/suche/", {"q": "3/26"}).url == f"/akten/{akte_c['akte'].pk}/"
    praktikant = _session(kanzlei, "praktikant").get("/suche/", {"q": "3/26"})
    assert praktikant.status_code == 200 and "Nichts gefunden für „3/26“" in praktikant.content.decode()
    kurz = anwalt.get("/suche/", {"q": "a"})
    assert kurz.status_code == 200 and "Gib mindestens 2 Zeichen ein." in kurz.content.decode()
    assert Client().get("/suche/", {"q": "Meier"}).status_code == 302  # to the login


def test_the_header_has_the_search_box(kanzlei: Kanzlei) -> None:
    html = _session(kanzlei, "anwalt").get("/akten/").content.decode()
    assert 'role="combobox"' in html and 'action="/suche/"' in html and "suche.js" in html


# --- statutes (the whole bundled corpus) -------------------------------------------------------------


def test_a_citation_jumps_to_the_statute_page(kanzlei: Kanzlei, knowledge_corpus: None) -> None:
    body = _get(kanzlei.client("praktikant"), "§ 517 ZPO").json()
    assert body["direkt"] == "/wissen/normen/ZPO/517/"
    assert _groups(body)["normen"][0] == {
        "label": "§ 517 ZPO – Berufungsfrist", "untertitel": "Zivilprozessordnung",
        "url": "/wissen/normen/ZPO/517/", "auszug": _groups(body)["normen"][0]["auszug"],
        "stand": _groups(body)["normen"][0]["stand"]}
    assert _groups(body)["normen"][0]["stand"].startswith("zuletzt geändert durch ")
    assert _get(kanzlei.client("anwalt"), "§§ 187, 188 BGB").json()["direkt"] is None  # two: a list
    assert _get(kanzlei.client("anwalt"), "§ 9999 ZPO").json()["direkt"] is None
    page = _session(kanzlei, "praktikant").get("/suche/", {"q": "Art. 3 GG"})
    assert page.url == "/wissen/normen/GG/3/"


def test_the_statute_page_shows_the_norm_read_only(kanzlei: Kanzlei, knowledge_corpus: None) -> None:
    client = _session(kanzlei, "praktikant")
    html = client.get("/wissen/normen/ZPO/517/").content.decode()
    assert "§ 517 ZPO" in html and "Berufungsfrist" in html and "Notfrist" in html
    assert "nicht amtliche Fassung" in html
    assert 'href="/wissen/normen/ZPO/516/"' in html and 'href="/wissen/normen/ZPO/518/"' in html
    assert "<form" not in html.split("<main", 1)[1].split('role="search"')[0]  # nothing to change there
    assert client.get("/wissen/normen/ZPO/99999/").status_code == 404


def test_a_name_of_a_beteiligter_is_no_statute_query(kanzlei: Kanzlei, knowledge_corpus: None) -> None:
    Beteiligter.objects.create(akte=kanzlei.akten["A"], rolle="gegner", name="Gustav Müller")
    gruppen = _groups(_get(kanzlei.client("anwalt"), "Müller").json())
    assert "akten" in gruppen and "normen" not in gruppen
    assert _groups(_get(kanzlei.client("anwalt"), "Müller Kündigungsfrist").json())["normen"]


def test_the_search_box_gives_the_general_rule_before_a_special_courts(kanzlei: Kanzlei,
                                                                       knowledge_corpus: None) -> None:
    """The box ranks as Helena's knowledge search does: „Berufungsfrist“ is § 517 ZPO first, not
    § 66 ArbGG, unless the question names the labour court."""
    labels = [t["label"] for t in _groups(_get(kanzlei.client("anwalt"), "Berufungsfrist").json())["normen"]]
    assert labels[0] == "§ 517 ZPO – Berufungsfrist"
    arbeitsgericht = _groups(_get(kanzlei.client("anwalt"), "Berufungsfrist Arbeitsgericht").json())["normen"]
    assert arbeitsgericht[0]["label"].startswith("§ 66 ArbGG")
